"""Shared fixtures: a real scripted upstream, a real database (SQLite or PostgreSQL), a real proxy."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from hypothesis import settings as hypothesis_settings

from research.upstreams.scripted import create_upstream
from shadowswitch.app import create_app
from shadowswitch.settings import Settings
from tests.servers import running

# The suite is the same every run (a red CI means a regression); `shadowswitch bench fuzz`
# explores with fresh random cases.
hypothesis_settings.register_profile("suite", derandomize=True)
hypothesis_settings.load_profile("suite")

PG_ADMIN = os.environ.get("SHADOWSWITCH_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
BACKEND = os.environ.get("SHADOWSWITCH_TEST_DB", "sqlite")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On the PostgreSQL pass, run only the tests that take the backend under test (`db_url`):
    the others do not depend on it and already ran in the SQLite pass, as did those marked
    `one_backend` (they need a database, but nothing in them differs by backend)."""
    if BACKEND != "postgres":
        return
    keep = [
        item
        for item in items
        if "db_url" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("one_backend")
    ]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep


@pytest.fixture(scope="session")
def upstream() -> Iterator[str]:
    """The scripted OpenAI-compatible upstream, over real HTTP; its base URL ends in /v1."""
    with running(create_upstream(), ready_path="/v1/models") as url:
        yield url + "/v1"


def _pg_database() -> Iterator[str]:
    name = f"ss_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://") + f"/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of the backend under test (SHADOWSWITCH_TEST_DB=sqlite|postgres)."""
    if BACKEND == "postgres":
        yield from _pg_database()
    else:
        yield f"sqlite:///{tmp_path / 'shadowswitch.db'}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database whatever the backend under test (for multi-replica tests)."""
    yield from _pg_database()


def write_policies(directory: Path, upstream: str, *policies: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    defaults = {"upstream": {"model": "openai/scripted", "api_base": upstream, "timeout_s": 5}}
    (directory / "_defaults.yaml").write_text(yaml.safe_dump(defaults))
    for policy in policies:
        (directory / f"{policy['task_type']}.yaml").write_text(yaml.safe_dump(policy))
    return directory


@pytest.fixture(scope="session")
def local_engine() -> Any:
    """The real local engine over the embedded models, loaded once for the whole session."""
    from shadowswitch.engines.local import create_engine

    return create_engine("embedded")


ProxyFactory = Callable[..., Any]


@pytest.fixture
def proxy(tmp_path: Path, upstream: str, db_url: str) -> Iterator[ProxyFactory]:
    """Start a real proxy (uvicorn on a free port) with the given policies; returns its base URL."""
    stack: list[Any] = []

    def start(*policies: dict[str, Any], local_factory: Any = None, **settings: Any) -> str:
        directory = write_policies(tmp_path / f"policies{len(stack)}", upstream, *policies)
        config = Settings(db_url=db_url, policies=directory, load_models=False, **settings)
        app = create_app(config, local_factory=local_factory)
        server = running(app, ready_path="/healthz")
        url = server.__enter__()
        stack.append(server)
        return url

    yield start
    for server in reversed(stack):
        server.__exit__(None, None, None)
