"""A reply that only puts a call off ("One moment while I check that." "Sure." then the call) is
left out of learning: its pair neither teaches the engine to stall nor counts against it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shadowswitch.learning.fillers import fingerprint, kept, marks
from shadowswitch.store import db
from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.tables import Exemplar
from tests.support.learning import TOOLS, ask, cli, shadow_proxy, status
from tests.support.wait import eventually

ASKED = [{"role": "user", "content": "where is my order AB123456"}]


def then(reply: str, answer: str) -> list[dict[str, Any]]:
    return [*ASKED, {"role": "assistant", "content": reply}, {"role": "user", "content": answer}]


@pytest.mark.unit
def test_only_a_reply_asking_nothing_then_a_bare_yes_then_a_call_marks_a_filler() -> None:
    filler = then("One moment while I check that.", "Sure, take your time.")
    assert marks(filler, calls=True) == {"request": fingerprint(filler), "defers": fingerprint(ASKED)}
    assert "defers" not in marks(filler, calls=False)  # the model replied again: no call was put off
    assert "defers" in marks(then("我查一下，请稍等。", "好的，谢谢"), calls=True)
    for reply, answer in (
        ("Which order do you mean?", "Sure."),  # a question: the answer matters
        ("One moment while I check that.", "It's AB654321 actually."),  # the user added a value
        ("One moment while I check that.", "ok and please also tell me when my other parcel comes"),
        ("请问是哪一个订单？", "好的"),  # a question, written in Chinese
        ("我查一下。", "请帮我把那双跑鞋退掉吧"),  # ten words without spaces: a request, not a yes
    ):
        assert "defers" not in marks(then(reply, answer), calls=True), (reply, answer)


@pytest.mark.unit
def test_learning_keeps_every_pair_but_the_ones_put_off() -> None:
    def row(turn: dict[str, Any]) -> Exemplar:
        return Exemplar(task_type="t", decision_id="d", encoder="e", vector=b"", label="x", turn=turn)

    first, stalled, after = row({"request": "a"}), row({"request": "b"}), row({"request": "c", "defers": "b"})
    assert kept([first, stalled, after]) == [first, after]
    plain = row({})
    assert kept([first, plain]) == [first, plain]


@pytest.mark.one_backend
def test_through_the_proxy_the_filler_pair_is_stored_and_left_out_of_learning(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    call = {"name": "lookup_order", "arguments": {"order_id": "AB123456"}}
    answers = {ASKED[0]["content"]: {"content": "One moment while I check that."}, "Sure.": call}
    url, client = shadow_proxy(proxy, local_engine, "support", replay, answers)
    ask(client, "support", TOOLS, ASKED)
    eventually(lambda: status(url, "support")["pairs"] >= 1, timeout_s=60)
    ask(client, "support", TOOLS, then("One moment while I check that.", "Sure."))
    eventually(lambda: status(url, "support")["pairs"] >= 2, timeout_s=60)
    store = ExemplarStore(db.make_engine(db_url))
    assert [r.label for r in store.load("support", store.newest_encoder("support") or "")] == [
        "__no_tool__",
        "lookup_order",
    ]
    assert status(url, "support")["fillers"] == 1  # what `learn` and the served state leave out
    learned = cli(db_url, tmp_path / "policies0", "support", "--dry-run")
    assert learned["pairs"] == 1 and learned["status"] == "not_enough_pairs"
