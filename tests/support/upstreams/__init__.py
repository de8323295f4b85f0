"""The upstreams the tests start: the shared offline ones (examples/upstreams/, which the lab
reaches too) and `faulty`, which only the tests need."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from examples.upstreams.replay import create_replay_upstream
from examples.upstreams.scripted import answer, create_upstream
from examples.upstreams.stub import StubUpstream
from tests.support.servers import running
from tests.support.upstreams.faulty import RETRY_AFTER_S, FaultyUpstream

__all__ = [
    "RETRY_AFTER_S",
    "FaultyUpstream",
    "StubUpstream",
    "answer",
    "create_replay_upstream",
    "create_upstream",
    "scripted_upstream",
]


@contextlib.contextmanager
def scripted_upstream(keep_alive_s: float = 5) -> Iterator[str]:
    """The scripted upstream over real HTTP; yields its base URL, ending in /v1. A long
    `keep_alive_s` keeps idle connections open: with uvicorn's 5 s default, a pooled connection
    the server closes just as the proxy reuses it fails the request (no retries), a race a loaded
    machine makes likely."""
    with running(create_upstream(), ready_path="/v1/models", timeout_keep_alive=keep_alive_s) as url:
        yield url + "/v1"
