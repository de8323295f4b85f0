"""The `shadowswitch` command: commands only, no logic. One module per command group.

Other packages add command groups through the `shadowswitch.cli` entry-point group (the benchmark
lab's `bench`, the demo's `demo`); the product never imports them by name.
"""

from __future__ import annotations

import typer

from shadowswitch.cli.database import db_app
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
app.command()(serve)
app.command()(report)
app.command("learn")(learn_command)

PLUGIN_GROUP = "shadowswitch.cli"


def add_plugins(root: typer.Typer) -> None:
    """Mount command groups other packages register (the benchmark lab's `bench`), never importing
    them by name: the product knows nothing of its plugins."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=PLUGIN_GROUP):
        root.add_typer(entry.load(), name=entry.name)


def main() -> None:
    from shadowswitch.offline import stay_offline

    stay_offline()
    add_plugins(app)
    app()
