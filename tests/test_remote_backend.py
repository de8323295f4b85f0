"""`engine.backend: remote`: the local engine's models behind real serving engines on the CPU.

Infinity serves the embedded sentence encoder (OpenAI-compatible `/embeddings`), vLLM's CPU build
the embedded LM (prompt log-probs through `echo`, values through its JSON-schema decoding). The
engine over them decides as the embedded one does; through `serve` and the `openai` SDK a request
is answered locally, and while a server is away the upstream answers and the breaker counts
nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from bench.overhead.processes import started, stop
from bench.serving import infinity, vllm
from shadowswitch.engines.local import create_engine
from shadowswitch.errors import EngineUnavailable
from shadowswitch.policy.models import ModelSource, Policy
from shadowswitch.request import ChatView
from tests.support.decisions import recorded_errors
from tests.support.engine_requests import TOOLS, ask
from tests.support.policies import ROOMY, write_policies
from tests.support.policies import TOOLS as TRAVEL_TOOLS
from tests.support.servers import free_port
from tests.support.wait import eventually

pytestmark = pytest.mark.slow

REQUESTS = [
    "What's the weather like in Paris in fahrenheit?",
    "Book a flight from Boston to Denver for 3 people",
    "Area of a triangle with base 10 and height 4",
    "Email bob@example.com that the meeting moved to 3pm",
    "Tell me a joke",
    "is it cold in Oslo",
]
ANY = Policy.model_validate({"task_type": "any", "engine": {**ROOMY, "min_confidence": 0, "min_margin": 0}})


@pytest.fixture(scope="module")
def lm_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    with vllm(port, tmp_path_factory.mktemp("vllm")):
        yield f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def encoder_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    with infinity(port, tmp_path_factory.mktemp("infinity")):
        yield f"http://127.0.0.1:{port}"


def test_the_remote_engine_decides_as_the_embedded_one(
    local_engine: Any, encoder_url: str, lm_url: str
) -> None:
    remote = create_engine(ModelSource("embedded", encoder_url, lm_url))
    try:
        assert remote.engine.models.lm is None and remote.engine.models.encoder is None  # no weights here
        for text in REQUESTS:
            request = ChatView.parse(ask(text, TOOLS))
            here, there = local_engine.decide_sync(request, ANY), remote.decide_sync(request, ANY)
            assert (there.kind, there.name, there.arguments, there.abstain_reason) == (
                here.kind,
                here.name,
                here.arguments,
                here.abstain_reason,
            ), text
            # bfloat16 on both sides, summed in other orders: close, not equal
            assert there.confidence == pytest.approx(here.confidence, abs=0.03), text
    finally:
        remote.close()


def test_the_lm_server_writes_a_value_to_its_schema(lm_url: str) -> None:
    from shadowswitch.engines.local.runtime.chat import System, Turn
    from shadowswitch.engines.local.runtime.models import default_cache_dir, load_tokenizer
    from shadowswitch.engines.local.runtime.remote import RemoteLanguageModel

    lm = RemoteLanguageModel(lm_url, load_tokenizer("embedded", default_cache_dir()), "unlisted")
    schema = {"type": "string", "enum": ["economy", "business"]}
    value = lm.decode(System("Fill in the call."), Turn("Fly me in business class", '{"cabin": '), schema, 8)
    assert value in ("economy", "business")


def test_a_server_that_is_not_there_is_said_at_load() -> None:
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(EngineUnavailable, match="cannot be reached"):
        create_engine(ModelSource("embedded", None, nowhere))


def test_serve_answers_locally_and_falls_back_while_the_encoder_is_away(
    tmp_path: Path, upstream: str, lm_url: str
) -> None:
    encoder_port = free_port()
    policy = {
        "task_type": "travel",
        "match": {"tools_include": ["search_flights", "book_hotel"]},
        "rollout": {"mode": "canary", "percent": 100},
        "engine": {
            "min_confidence": 0.0,
            "min_margin": 0.0,
            "allow_no_tool": False,
            "backend": "remote",
            "remote": {"embeddings_url": f"http://127.0.0.1:{encoder_port}", "scoring_url": lm_url},
        },
        "breaker": {"consecutive_failures": 2, "reprobe_after_s": 0},
    }
    policies = write_policies(tmp_path / "policies", upstream, policy)
    db, port = tmp_path / "remote.db", free_port()
    cmd = [sys.executable, "-m", "shadowswitch.cli", "serve", "--port", str(port)]
    cmd += ["--policies", str(policies), "--db", f"sqlite:///{db}"]
    client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)

    def ask_hotel(city: str) -> tuple[str, str]:
        messages = [{"role": "user", "content": f"Book me a hotel in {city} for 3 nights"}]
        raw = client.chat.completions.with_raw_response.create(
            model="travel-agent-step", messages=messages, tools=TRAVEL_TOOLS
        )
        call = raw.parse().choices[0].message.tool_calls
        assert call and call[0].function.name == "book_hotel"
        return raw.headers["x-shadowswitch-path"], raw.headers["x-shadowswitch-decision-id"]

    serving = started(cmd, f"http://127.0.0.1:{port}/readyz", tmp_path / "serve.log", timeout_s=300)
    with infinity(encoder_port, tmp_path) as encoder, serving:
        assert ask_hotel("Rome")[0] == "local"
        stop(encoder.proc)
        # New texts, so no vector is in the engine's cache: each needs the encoder.
        away = [ask_hotel(city) for city in ("Lima", "Oslo", "Kyiv", "Pune")]
        assert [path for path, _ in away] == ["fallback"] * 4
        errors = recorded_errors(db, [decision for _, decision in away])
        assert all(e and "local engine unavailable" in e and "cannot be reached" in e for e in errors)
        # Back: served locally at once, so the breaker (2 failures trip it) counted none of those.
        with infinity(encoder_port, tmp_path):
            eventually(lambda: ask_hotel("Nice")[0] == "local", timeout_s=30, what="served locally")
