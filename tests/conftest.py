"""Shared fixtures: a real scripted upstream, a real database (SQLite or PostgreSQL), a real proxy."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shadowswitch.engines.local.runtime.models import native_bf16

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# One torch thread per test process: `make test` runs its two passes side by side on the machine's
# cores, and the tests' tensors are small (a calibration fit took 2.6 times the CPU with two
# threads). Set before any test module imports torch; served processes set their own.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The embedded models' dtype decided once for the whole run, as models.fastest_dtype picks it on a CPU
# with bfloat16 units: its timing probe costs about 17 s of CPU in every process that loads the
# models (a load and a first pass: 25 s with the probe, 8 s without), and the suite starts dozens.
# The probe itself is tested in tests/engine/test_runtime.py.
if native_bf16():
    os.environ.setdefault("SHADOWSWITCH_LM_DTYPE", "bfloat16")
    os.environ.setdefault("SHADOWSWITCH_ENCODER_DTYPE", "bfloat16")

from hypothesis import settings as hypothesis_settings

from tests.support import tiers
from tests.support.postgres import Databases
from tests.support.proxies import Proxies
from tests.support.servers import running
from tests.support.upstreams import create_replay_upstream, scripted_upstream

pytest_plugins = ["tests.support.cputime"]  # --cpu-durations=N

# The suite is the same every run (a red CI means a regression); `shadowswitch bench fuzz`
# explores with fresh random cases.
hypothesis_settings.register_profile("suite", derandomize=True)
hypothesis_settings.load_profile("suite")

BACKEND = os.environ.get("SHADOWSWITCH_TEST_DB", "sqlite")


@pytest.hookimpl(tryfirst=True)  # the tiers are marked before `-m` selects by them
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        tiers.mark(item)
    if BACKEND == "postgres":
        keep_backend_tests(config, items)


def keep_backend_tests(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On the PostgreSQL pass, run only the tests that take the backend under test (`db_url`):
    the others do not depend on it and already ran in the SQLite pass, as did those marked
    `one_backend` (they need a database, but nothing in them differs by backend)."""
    keep = [
        item
        for item in items
        if "db_url" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("one_backend")
    ]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with tiers.guarded(item, enabled=BACKEND == "sqlite"):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with tiers.guarded(item, enabled=BACKEND == "sqlite"):
        return (yield)


@pytest.fixture(scope="session")
def upstream() -> Iterator[str]:
    """The scripted OpenAI-compatible upstream, over real HTTP; its base URL ends in /v1."""
    with scripted_upstream() as url:
        yield url


@pytest.fixture(scope="session")
def pg_databases() -> Iterator[Databases]:
    """This process's empty PostgreSQL databases, lent one a test (`tests/support/postgres.py`)."""
    databases = Databases()
    yield databases
    databases.close()


@pytest.fixture
def db_url(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh, empty database of the backend under test (SHADOWSWITCH_TEST_DB=sqlite|postgres)."""
    if BACKEND == "postgres":
        with request.getfixturevalue("pg_databases").fresh() as url:
            yield url
    else:
        yield f"sqlite:///{tmp_path / 'shadowswitch.db'}"


@pytest.fixture
def pg_url(pg_databases: Databases) -> Iterator[str]:
    """A fresh PostgreSQL database whatever the backend under test (for multi-replica tests)."""
    with pg_databases.fresh() as url:
        yield url


@pytest.fixture(scope="session")
def local_engine() -> Iterator[Any]:
    """The real local engine over the embedded models, loaded once for the whole session (the
    engine tests' `engine` is this one too)."""
    from shadowswitch.engines.local import create_engine

    built = create_engine("embedded")
    yield built
    built.close()


@pytest.fixture(scope="session")
def told_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The quick demo told once a session (four tasks a stage, its breaker story left to chance):
    its work directory and its output. The story's test and the dashboard's read its database,
    and neither writes to it (a minute and a half of the lane each saves)."""
    from tests.support.demo import quick_demo

    workdir = tmp_path_factory.mktemp("demo")
    return workdir, quick_demo(workdir, 4, trips=False)


@pytest.fixture
def proxy(tmp_path: Path, upstream: str, db_url: str) -> Iterator[Proxies]:
    """Start a real proxy (uvicorn on a free port) with the given policies; returns its base URL."""
    proxies = Proxies(tmp_path, upstream, db_url)
    with proxies.stack:
        yield proxies


@pytest.fixture(scope="module")
def replay() -> Iterator[str]:
    with running(create_replay_upstream(), ready_path="/v1/models") as url:
        yield url
