"""A promoted tuned state serves through the real proxy: its tuned layers and its exemplars' tuned
vectors, stored as a learning run stores them (`tuning.pack`, `store.promote`, the certificate
row), are loaded by the replica and read each request's words (the real embedded encoder, the
openai SDK as the agent's client). Learning's side of it (which runs tune, both challengers
judged) is tests/test_tuning.py and tests/test_learning_concurrency.py."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
import openai
import pytest
from sqlmodel import Session

from shadowswitch.engines.local.runtime import finetune
from shadowswitch.engines.local.runtime.encoder import Encoder
from shadowswitch.learning import regions, tuning
from shadowswitch.learning.certificate import certify
from shadowswitch.learning.challenger import to_pair
from shadowswitch.store import db
from shadowswitch.store.exemplars import ExemplarStore, learning_event
from shadowswitch.store.tables import EngineState, Exemplar
from tests.support.asks import ASKS
from tests.support.learning import AUTH, TOKEN, serves
from tests.support.wait import eventually

pytestmark = pytest.mark.slow
TASK = "helpdesk"
TOOLS = [
    {"type": "function", "function": {"name": name, "description": name.replace("_", " "), "parameters": {}}}
    for name in ASKS
]


def promote_tuned(db_url: str, models: Any) -> str:
    """Tune on the asks, store them as pairs and a promoted tuned state (version 1) with a
    certified region, as a learning run would; the state's digest."""
    labelled = {text: label for label, texts in ASKS.items() for text in texts}
    tuned = finetune.tune(models.encoder, models.encoder_tokenizer, labelled, seed=1)
    assert tuned is not None
    frozen = Encoder(models.encoder, models.encoder_tokenizer)
    texts = list(labelled)
    vectors = frozen.embed(texts).numpy()
    store = ExemplarStore(db.make_engine(db_url))
    rows = [
        Exemplar(
            task_type=TASK, decision_id=f"d{i:030d}", encoder=frozen.name, vector=vectors[i].tobytes(),
            label=labelled[text], tools_key="k", zero_shot={t: 1 / 3 for t in ASKS},
            local_tool=labelled[text], args_status="agree", texts={"query": text}, step=0,
        )
        for i, text in enumerate(texts)
    ]  # fmt: skip
    with Session(store.engine) as session:
        session.add_all(rows)
        session.commit()
        for r in rows:
            session.refresh(r)
    pairs = [to_pair(r) for r in rows]
    read = tuning.Tuning({r.id or 0: r.texts["query"] for r in rows}).reader(tuned)
    packed = tuning.pack(tuned, read(pairs))
    digest = hashlib.sha256(packed).hexdigest()
    state = EngineState(
        task_type=TASK, version=0, status="served", encoder=frozen.name, exemplar_max_id=pairs[-1].id,
        memory_weight=1.0, min_confidence=0.0, figures={}, tuned=packed, tuned_sha256=digest,
    )  # fmt: skip
    version = store.promote(state, learning_event(TASK, "test", "learn_promote", "tuned")).version
    region = certify([0.5] * 80, [1.0] * 80, 0.95)  # a region: confidence ≥ 0.5
    regions.record_promoted(store, TASK, version, region, 0)
    return digest


def test_a_promoted_tuned_state_reads_requests_with_its_layers(
    proxy: Any, local_engine: Any, db_url: str
) -> None:
    db.upgrade(db_url)
    digest = promote_tuned(db_url, local_engine.models)
    policy = {
        "task_type": TASK,
        "rollout": {"mode": "canary", "percent": 100, "compare_percent": 0},
        "engine": {"scorer": "embedding", "learn": False, "min_margin": 0, "certify": True},
    }
    url = proxy(policy, local_factory=lambda: local_engine, admin_token=TOKEN)
    eventually(lambda: serves(url, TASK, 1), timeout_s=30)
    client = openai.OpenAI(base_url=url + "/v1", api_key="x")
    readers = local_engine.engine.tuned
    for text, tool in (
        ("i cannot log in, my password is not accepted any more", "reset_password"),
        ("the printer near my desk keeps jamming", "report_printer"),
    ):
        raw = client.chat.completions.with_raw_response.create(
            model="m",
            messages=[{"role": "user", "content": text}],
            tools=TOOLS,  # type: ignore[arg-type]
            extra_headers={"X-Shadowswitch-Task": TASK},
        )
        decision = httpx.get(
            f"{url}/v1/shadowswitch/decisions/{raw.headers['x-shadowswitch-decision-id']}", headers=AUTH
        ).json()
        assert decision["state_version"] == 1, decision
        assert raw.headers["x-shadowswitch-path"] == "local", decision
        calls = raw.parse().choices[0].message.tool_calls
        assert calls and calls[0].function.name == tool, decision  # type: ignore[union-attr]
    assert readers.encoders.get(digest) is not None  # the state's words were read with its layers
