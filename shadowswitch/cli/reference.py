"""The generated reference docs: the policy format, the OpenAPI document, the commands and the
package layout (a block of docs/README.md).

`python -m shadowswitch.cli.reference` (`make docs`) rewrites them from the code; `--check` only says
which are stale. Tests compare each file with what this module renders.
"""

from __future__ import annotations

import inspect
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shadowswitch.cli.layout import layout_md, splice


def policies_md() -> str:
    from shadowswitch.policy.reference import render

    return render()


def openapi_json() -> str:
    """The app's OpenAPI document, from an app built on an empty policy set that loads no model."""
    from shadowswitch.server.app import create_app
    from shadowswitch.server.settings import Settings

    with tempfile.TemporaryDirectory() as empty:
        settings = Settings(policies=Path(empty), db_url="sqlite://", load_models=False, spool_max_bytes=0)
        document = create_app(settings).openapi()
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def cli_md() -> str:
    """Every command of `shadowswitch`, with the plugins installed beside it (`bench`, `demo`)."""
    import typer

    from shadowswitch.cli import app, plugin_commands

    root = typer.main.get_command(app)
    plugins = {name: typer.main.get_command(group) for name, group in plugin_commands().items()}
    lines = [CLI_INTRO]
    lines += _command(root, root.context_class(root, info_name="shadowswitch"), extra=plugins)
    return "\n".join(lines).rstrip("\n") + "\n"


CLI_INTRO = """\
<!-- Generated from the command line's own help by `python -m shadowswitch.cli.reference` (`make docs`);
tests/test_reference_docs.py fails when this is stale. -->

# The `shadowswitch` command

State-changing commands act on the database (`--db`, or `SHADOWSWITCH_DB_URL`), so they work while
servers run, and every server sees the change within a second. Settings come from the environment,
prefix `SHADOWSWITCH_` ([operations.md](operations.md#settings)). `bench` and `demo` are plugins
the repository installs beside the product (the benchmark lab and the demo).
"""


def _command(command: Any, ctx: Any, extra: dict[str, Any] | None = None) -> list[str]:
    """One command's section, then its subcommands' (typer vendors click: its types are private)."""
    depth = min(ctx.command_path.count(" ") + 2, 4)
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    lines = [f"{'#' * depth} `{ctx.command_path}`", ""]
    if command.help:
        lines += [inspect.cleandoc(command.help), ""]
    lines += ["```", usage, "```", ""]
    skip = {"--help"} | ({"--install-completion", "--show-completion"} if ctx.parent else set())
    params = [record for p in command.get_params(ctx) if (record := p.get_help_record(ctx))]
    lines += [f"- `{opts}`: {text}".rstrip(": ") for opts, text in params if opts not in skip]
    lines += [""] if lines[-1] else []
    children = {**getattr(command, "commands", {}), **(extra or {})}
    for name, child in children.items():
        lines += _command(child, child.context_class(child, info_name=name, parent=ctx))
    return lines


GENERATED: dict[str, Callable[[], str]] = {
    "docs/policies.md": policies_md,
    "docs/openapi.json": openapi_json,
    "docs/cli.md": cli_md,
}


# Pages written by hand around one generated block (between layout.BEGIN and layout.END).
SPLICED: dict[str, Callable[[], str]] = {"docs/README.md": layout_md}


def rendered(root: Path) -> dict[str, str]:
    """Every generated file under `root` as the code renders it now."""
    pages = {name: render() for name, render in GENERATED.items()}
    for name, render in SPLICED.items():
        pages[name] = splice(_read(root / name) or "", render())
    return pages


def stale(root: Path) -> list[str]:
    """The generated files under `root` that differ from what the code renders now."""
    return [name for name, text in rendered(root).items() if _read(root / name) != text]


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path.cwd()
    if "--check" in args:
        names = stale(root)
        for name in names:
            print(f"stale: {name} (run `make docs`)")
        return 1 if names else 0
    for name, text in rendered(root).items():
        (root / name).write_text(text, encoding="utf-8")
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
