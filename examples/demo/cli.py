"""`shadowswitch demo ...` (mounted by shadowswitch.cli through the `shadowswitch.cli` entry points)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated

import typer

demo_app = typer.Typer(help="The whole product offline: a legacy agent, its upstream, the switch.")


def parse_latency(text: str) -> tuple[float, float]:
    """'1-3' → (1.0, 3.0); '0.05' → (0.05, 0.05)."""
    try:
        low, _, high = text.partition("-")
        bounds = (float(low), float(high or low))
    except ValueError:
        raise typer.BadParameter(f"{text!r}: give seconds like 1-3 or 0.05") from None
    if bounds[0] < 0 or bounds[1] < bounds[0]:
        raise typer.BadParameter(f"{text!r}: give low-high with 0 <= low <= high")
    return bounds


@demo_app.callback(invoke_without_command=True)
def demo(
    ctx: typer.Context,
    once: Annotated[bool, typer.Option("--once", help="Tell the story once and exit 0")] = False,
    upstream: Annotated[
        str, typer.Option(help="simulated | small-lm | a LiteLLM model string (key from its env var)")
    ] = "simulated",
    tasks: Annotated[int, typer.Option(help="Tasks per stage (0 = all 45)", min=0)] = 0,
    latency: Annotated[str, typer.Option(help="Simulated upstream seconds per call, low-high")] = "1-3",
    error_rate: Annotated[float, typer.Option(help="Simulated malformed calls", min=0, max=1)] = 0.03,
    concurrency: Annotated[int, typer.Option(help="Tasks run at once", min=1, max=64)] = 8,
    port: Annotated[int, typer.Option(help="The proxy's port (0 = any free one)", min=0, max=65535)] = 8787,
    workdir: Annotated[
        Path | None, typer.Option(help="Keep the policies and the SQLite database here [a temp dir]")
    ] = None,
    lang: Annotated[
        str, typer.Option(help="The customers' language: en | zh (the task set, the agent)")
    ] = "en",
) -> None:
    """Run the whole story offline: the agent direct, then through shadowswitch in shadow,
    canary 25% and 100%, a broken upgrade that trips the breaker, and the comparison."""
    if ctx.invoked_subcommand is not None:
        return
    if lang not in ("en", "zh"):
        raise typer.BadParameter(f"{lang!r}: choose en or zh", param_hint="--lang")
    from shadowswitch.server.offline import stay_offline

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # the story has its own progress bars
    stay_offline()
    _log_warnings()
    from examples.demo.story import DemoConfig, Story

    config = DemoConfig(
        upstream,
        once,
        tasks,
        parse_latency(latency),
        error_rate,
        concurrency,
        port,
        workdir=workdir,
        lang=lang,
    )
    Story(config).tell()


@demo_app.command("upstream")
def upstream(
    host: Annotated[str, typer.Option(help="Address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port")] = 8000,
    latency: Annotated[str, typer.Option(help="Seconds per call, low-high")] = "1-3",
    error_rate: Annotated[float, typer.Option(help="Malformed calls", min=0, max=1)] = 0.03,
    small_lm: Annotated[bool, typer.Option("--small-lm", help="SmolLM2-135M generates instead")] = False,
) -> None:
    """Serve only the demo's generative upstream (OpenAI-compatible, on /v1): the simulated large
    model, or SmolLM2 generating. `make serve`'s policies/ point at it."""
    import uvicorn

    from examples.demo.upstream import Generator, Simulated, create_upstream

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    generator: Generator
    if small_lm:
        from examples.demo.small_lm import SmallLM

        generator = SmallLM()
    else:
        generator = Simulated(parse_latency(latency), error_rate)
    typer.echo(f"{generator.banner}\nOpenAI-compatible on http://{host}:{port}/v1 (model {generator.name})")
    uvicorn.run(create_upstream(generator), host=host, port=port, log_level="warning")


def _log_warnings() -> None:
    """The proxy's warnings (the breaker's trip message) on the console, under the story."""
    from rich.logging import RichHandler

    logging.basicConfig(level=logging.WARNING, format="%(message)s", handlers=[RichHandler(show_path=False)])


if __name__ == "__main__":
    demo_app()
