"""Learning end to end: the real proxy with the real embedded models, a replay upstream answering
as the agent's large model does, the openai SDK as client, the CLI in a subprocess."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.support.learning import (
    AUTH,
    TOKEN,
    TOOLS,
    agrees,
    ask_support,
    cli,
    requests,
    send_paced,
    serves,
    shadow_policy,
    shadow_proxy,
    status,
)
from tests.support.learning import ask as ask_with
from tests.support.learning import ask_support as ask
from tests.support.wait import eventually


# The store's PostgreSQL side is tested in test_learning_state.py; this one loads the models.
@pytest.mark.one_backend
def test_shadow_pairs_teach_the_local_choice(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    train = requests(range(0, 4), range(16))  # 48 pairs, four phrasings of each kind
    test = requests(range(0, 4), range(101, 104))  # requests like them: the same phrasings, other orders
    url, client = shadow_proxy(
        proxy, local_engine, "support", replay, {text: answer for text, answer in train + test}
    )

    learning = partial(status, url, "support")
    ids = send_paced(url, "support", partial(ask, client), [text for text, _ in train])
    before = learning()
    assert before["served_version"] == 0 and before["thresholds"]["source"] == "policy"
    assert (before["recent"]["agreement"] or 0) * before["recent"]["coverage"] < 0.5

    policies = tmp_path / "policies0"
    assert cli(db_url, policies, "support", "--dry-run")["status"] == "judged"
    learned = cli(db_url, policies, "support")
    assert learned["status"] == "promoted", learned
    assert learned["fitted"]["encoder"]["tuned"] is False  # too few pairs to tune the encoder on
    audit = httpx.get(f"{url}/v1/shadowswitch/audit?task=support", headers=AUTH).json()
    assert audit[0]["kind"] == "learn_promote" and "evaluation" in json.loads(audit[0]["reason"])

    change = {"mode": "canary", "percent": 100}
    httpx.put(f"{url}/v1/shadowswitch/rollouts/support", json=change, headers=AUTH).raise_for_status()
    eventually(lambda: learning()["served_version"] == 1 and serves(url, "support", 1), timeout_s=180)
    served = proxy.app(url).state.shadowswitch.learning.memories  # this replica's copy, polled
    eventually(lambda: getattr(served.get("support"), "version", None) == 1, timeout_s=10)
    decisions = []
    for text, want in test:
        decision = httpx.get(f"{url}/v1/shadowswitch/decisions/{ask(client, text)}", headers=AUTH).json()
        decisions.append((decision, want))
    agreed = [agrees(d, w) for d, w in decisions]
    assert sum(agreed) >= len(test) - 2, decisions
    refused = [d for d, w in decisions if "content" in w]
    assert any(d["chosen"] == "__no_tool__" for d in refused)  # no-tool exemplars: no refund tool
    escalated = [d for d, w in decisions if w.get("name") == "escalate_order" and agrees(d, w)]
    assert escalated and escalated[0]["argument_sources"]["priority"]["source"] == "learned"

    after = learning()
    assert after["served_version"] == 1 and after["curve"]
    feedback = {"decision_id": ids[0], "success": False, "reason": "wrong order"}
    httpx.post(f"{url}/v1/shadowswitch/feedback", json=feedback).raise_for_status()
    assert learning()["excluded"] == 1

    assert cli(db_url, policies, "rollback", "support")["served_version"] == 0
    eventually(lambda: learning()["served_version"] == 0 and serves(url, "support", 0), timeout_s=180)


@pytest.mark.one_backend
def test_a_pair_keeps_the_question_the_users_yes_answers(
    proxy: Any, local_engine: Any, replay: str, db_url: str
) -> None:
    """A "yes" after the agent's question: the pair keeps the reply's vector and the user's opening
    words' beside the user's last words (what the trained head tells the write from a reply by),
    and the decision record keeps none of the vectors but its shadow run."""
    import numpy as np

    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore

    yes = "Yes, go ahead."
    answer = {"name": "refund_order", "arguments": {"order_id": "AB123456"}}
    url, client = shadow_proxy(proxy, local_engine, "support", replay, {yes: answer})
    messages = [
        {"role": "user", "content": "I would like a refund for AB123456"},
        {"role": "assistant", "content": "AB123456 qualifies for a refund. Shall I refund it now?"},
        {"role": "user", "content": yes},
    ]
    decision_id = ask_with(client, "support", TOOLS, messages)
    first = ask_support(client, "where is my order AB654321")  # no reply yet: no context
    store = ExemplarStore(db.make_engine(db_url))
    eventually(lambda: len(store.load("support", store.newest_encoder("support") or "")) == 2, timeout_s=120)
    rows = {r.decision_id: r for r in store.load("support", store.newest_encoder("support") or "")}
    context = np.frombuffer(rows[decision_id].context or b"", dtype=np.float32)
    assert context.shape == np.frombuffer(rows[decision_id].vector, dtype=np.float32).shape
    assert abs(float(np.linalg.norm(context)) - 1.0) < 1e-3
    assert rows[first].context is None
    opening = np.frombuffer(rows[decision_id].opening or b"", dtype=np.float32)  # "a refund for AB123456"
    assert opening.shape == context.shape and not np.allclose(opening, context)
    assert rows[first].opening is None  # its last user turn is its opening
    record = httpx.get(f"{url}/v1/shadowswitch/decisions/{decision_id}", headers=AUTH).json()
    assert record["shadow"] and not {"context", "opening"} & set(record["shadow"])


@pytest.mark.one_backend
def test_a_pair_the_engine_could_not_fill_is_no_served_miss(
    proxy: Any, local_engine: Any, replay: str, db_url: str
) -> None:
    """The engine picks the upstream's tool but abstains on the ranking (below the policy's
    confidence), so learning fills that tool in the background: a required value found nowhere
    makes the pair `missing` (never served), not a call that merely left a value out, which
    learning would count against the certificate as a miss it served."""
    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore

    text = "Please refund my order, the parcel never came."
    answer = {"name": "refund_order", "arguments": {"order_id": "AB123456"}}  # an id it never said
    httpx.post(replay + "/answers", json={text: answer}).raise_for_status()
    policy = shadow_policy("support", replay)
    policy["engine"]["min_confidence"] = 0.999  # every choice abstains before its values are filled
    url = proxy(policy, local_factory=lambda: local_engine, admin_token=TOKEN, learn_interval_s=0)
    client = openai.OpenAI(base_url=url + "/v1", api_key="x")
    decision_id = ask(client, text)
    store = ExemplarStore(db.make_engine(db_url))
    eventually(lambda: bool(store.load("support", store.newest_encoder("support") or "")), timeout_s=120)
    record = httpx.get(f"{url}/v1/shadowswitch/decisions/{decision_id}", headers=AUTH).json()
    assert record["shadow"]["name"] == "refund_order"  # its own choice, on the ranking alone
    assert record["shadow"]["abstain_reason"].startswith("low_confidence")
    (row,) = store.load("support", store.newest_encoder("support") or "")
    assert row.local_tool == "refund_order"
    assert row.args_status == "missing", row.arguments
