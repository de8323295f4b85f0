"""The engine set loads a model source a request names when it is not loaded (a server away at
start, a reloaded policy's model), in the background, and a failed one at most every
RETRY_LOAD_S."""

from __future__ import annotations

import pytest

from shadowswitch.engines import engine_set
from shadowswitch.engines.engine_set import EngineSet
from shadowswitch.policy.models import ModelSource
from tests.support.scripted_engine import ScriptedEngine
from tests.support.wait import eventually

REMOTE = ModelSource("embedded", "http://127.0.0.1:7997", None)


def test_a_source_that_failed_at_start_is_loaded_once_a_request_names_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine_set, "RETRY_LOAD_S", 0.3)
    attempts: list[ModelSource] = []

    def build(source: ModelSource) -> ScriptedEngine:
        attempts.append(source)
        if len(attempts) == 1:
            raise ConnectionError("the encoder's server is not up yet")
        return ScriptedEngine()

    engines = EngineSet.load([REMOTE], build)
    assert engines.engines == {} and engines.failed(REMOTE)
    assert not engines.serves(REMOTE)  # within RETRY_LOAD_S of the failure: not tried again
    assert len(attempts) == 1
    eventually(lambda: engines.serves(REMOTE), timeout_s=5, what="loaded on a later request")
    assert len(attempts) == 2 and not engines.failed(REMOTE)


def test_a_source_is_loaded_once_however_many_requests_ask_while_it_loads() -> None:
    import threading

    gate = threading.Event()
    attempts: list[ModelSource] = []

    def build(source: ModelSource) -> ScriptedEngine:
        attempts.append(source)
        assert gate.wait(5)
        return ScriptedEngine()

    engines = EngineSet({}, build)
    assert not any(engines.serves(REMOTE) for _ in range(20))
    gate.set()
    eventually(lambda: engines.serves(REMOTE), timeout_s=5, what="loaded")
    assert attempts == [REMOTE]
