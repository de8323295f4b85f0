"""`shadowswitch policy ...`: check policy files, reload them in running servers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from shadowswitch.cli.common import console, settings_from

policy_app = typer.Typer(
    help="Check policy files, print their reference, reload them in servers.", no_args_is_help=True
)


@policy_app.command("check")
def policy_check(
    path: Annotated[Path, typer.Argument(help="Policy directory or file")] = Path("policies"),
) -> None:
    """Validate policies: exit 0 when valid; 1 with `file:line: field: message` lines."""
    from shadowswitch.errors import PolicyError
    from shadowswitch.policy import load_policies

    directory = path if path.is_dir() else path.parent
    try:
        loaded = load_policies(directory)
    except PolicyError as exc:
        problems = [p for p in exc.problems if path.is_dir() or p.startswith(str(path))]
        if problems:
            for line in problems:
                typer.echo(line)
            raise typer.Exit(1) from None
        loaded = None
    count = len(loaded.policies) if loaded else 1
    console.print(f"ok: {count} polic{'y' if count == 1 else 'ies'} valid in {path}")


@policy_app.command("schema")
def policy_schema(
    fmt: Annotated[str, typer.Option("--format", help="markdown (docs/policies.md) or json")] = "markdown",
) -> None:
    """Print the policy reference: every field, its default and an example."""
    from shadowswitch.policy.reference import Format, render

    if fmt not in Format.__members__:
        raise typer.BadParameter(f"{fmt!r}: markdown or json", param_hint="--format")
    typer.echo(render(Format(fmt)), nl=False)


@policy_app.command("reload")
def policy_reload(
    url: Annotated[
        list[str] | None,
        typer.Option(help="A server's base URL, repeatable (env SHADOWSWITCH_URL; else HOST:PORT)"),
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="Admin bearer token (env SHADOWSWITCH_ADMIN_TOKEN)", show_default=False)
    ] = None,
) -> None:
    """Ask running servers to reload their policies (admin); exit 1 if any refused or did not answer."""
    settings = settings_from()
    urls = url or [settings.url or f"http://{_client_host(settings.host)}:{settings.port}"]
    failed = [u for u in urls if not _reload_one(u.rstrip("/"), token or settings.admin_token)]
    if failed:
        raise typer.Exit(1)


def _reload_one(url: str, token: str | None) -> bool:
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.post(f"{url}/v1/shadowswitch/policies/reload", headers=headers, timeout=60)
    except httpx.HTTPError as exc:
        message = f"no shadowswitch server answers at {url} ({type(exc).__name__}): is `serve` running?"
        typer.echo(f"error: {message}", err=True)
        return False
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code != 200 or not isinstance(body, dict):
        error = (body or {}).get("error") if isinstance(body, dict) else None
        message = (error or {}).get("message") or response.text[:200]
        # plain lines, never wrapped: `file:line: field: message`, as `policy check` prints them
        typer.echo(f"error: {url} answered {response.status_code}: {message}", err=True)
        return False
    typer.echo(f"{url}: reloaded, {_reload_summary(body)}")
    return True


def _reload_summary(body: dict[str, Any]) -> str:
    count = len(body["task_types"])
    parts = [f"{count} task type{'' if count == 1 else 's'}"]
    parts += [f"{key} {', '.join(body[key])}" for key in ("added", "changed", "removed") if body[key]]
    if body["audit"]:
        parts.append(f"{len(body['audit'])} rollout change(s) audited")
    if body["loading_models"]:
        parts.append(f"loading {', '.join(body['loading_models'])}")
    return "; ".join(parts)


def _client_host(host: str) -> str:
    """Where this machine reaches a server bound to `host` (any address → loopback)."""
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host
