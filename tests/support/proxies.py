"""Real proxies in this process: the app over uvicorn on a free port, as `shadowswitch serve` runs it."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from shadowswitch.server.app import create_app
from shadowswitch.server.settings import Settings
from tests.support.policies import write_policies
from tests.support.servers import running


class Proxies:
    """Starts real proxies (uvicorn on a free port) with the given policies; each call returns a
    base URL. `app(url)` is that proxy's app, for tests that watch its background loops."""

    def __init__(self, directory: Path, upstream: str, db_url: str) -> None:
        self.directory, self.upstream, self.db_url = directory, upstream, db_url
        self.apps: dict[str, FastAPI] = {}
        self.stack = contextlib.ExitStack()

    def __call__(self, *policies: dict[str, Any], local_factory: Any = None, **settings: Any) -> str:
        folder = write_policies(self.directory / f"policies{len(self.apps)}", self.upstream, *policies)
        config = Settings(db_url=self.db_url, policies=folder, load_models=False, **settings)
        app = create_app(config, local_factory=local_factory)
        url = self.stack.enter_context(running(app, ready_path="/healthz"))
        self.apps[url] = app
        return url

    def app(self, url: str) -> FastAPI:
        return self.apps[url]


def bench_proxy(local_engine: Any) -> Any:
    """A `bench.learning_curve` proxy: the app in this process on a run's policies and database,
    with the session's embedded models, and the token the bench sends."""

    @contextlib.contextmanager
    def proxy(workdir: Path) -> Any:
        settings = Settings(
            db_url=f"sqlite:///{workdir / 'bench.db'}",
            policies=workdir / "policies",
            load_models=False,
            admin_token="bench-learning",
            learn_interval_s=0,
        )
        with running(create_app(settings, local_factory=lambda: local_engine)) as url:
            yield url

    return proxy
