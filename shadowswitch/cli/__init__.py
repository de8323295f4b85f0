"""The `shadowswitch` command: commands only, no logic. One module per command group.

Other packages add command groups through the `shadowswitch.cli` entry-point group (the benchmark
lab's `bench`, the demo's `demo`); the product never imports them by name.
"""

from __future__ import annotations

import typer

from shadowswitch.cli.database import db_app
from shadowswitch.cli.keys import keys_app
from shadowswitch.cli.learning import learn_command
from shadowswitch.cli.policies import policy_app
from shadowswitch.cli.reports import report
from shadowswitch.cli.rollouts import rollout_app
from shadowswitch.cli.serving import serve

app = typer.Typer(
    help="Move an agent's decision calls onto a small local model, safely.", no_args_is_help=True
)
app.add_typer(policy_app, name="policy")
app.add_typer(rollout_app, name="rollout")
app.add_typer(db_app, name="db")
app.add_typer(keys_app, name="keys")
app.command()(serve)
app.command()(report)
app.command("learn")(learn_command)

PLUGIN_GROUP = "shadowswitch.cli"


def plugin_commands() -> dict[str, typer.Typer]:
    """Command groups other packages register (the benchmark lab's `bench`), never imported by
    name: the product knows nothing of its plugins."""
    from importlib.metadata import entry_points

    commands: dict[str, typer.Typer] = {}
    for entry in entry_points(group=PLUGIN_GROUP):
        try:
            commands[entry.name] = entry.load()
        except ModuleNotFoundError as exc:
            # Declared but not importable here (the lab's editable install seen from a wheel's
            # venv): absent, like a plugin never installed. A module the plugin itself lacks is a
            # real error and still raises.
            if exc.name is None or not f"{entry.module}.".startswith(f"{exc.name}."):
                raise
    return commands


def add_plugins(root: typer.Typer) -> None:
    for name, group in plugin_commands().items():
        root.add_typer(group, name=name)


def main() -> None:
    from shadowswitch.server.offline import stay_offline

    stay_offline()
    add_plugins(app)
    app()
