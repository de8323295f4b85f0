"""`bench zh --tasks demo`: the demo's decision steps, and what counts as the right call."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from bench.zh.demo_tasks import judge, steps
from examples.travel_agent.task_sets import tasks_in


def test_each_task_is_replayed_as_one_step_per_call_and_one_text_step_per_turn() -> None:
    for lang in ("en", "zh"):
        for task in tasks_in(lang):
            replay = list(steps(task, lang))
            expected = [c for t in task.turns for c in (*t.calls, None)]
            assert [s.expected for s in replay] == expected
    flight = list(steps(tasks_in("zh")[0], "zh"))
    messages = flight[1].request["messages"]
    assert messages[-1]["role"] == "tool" and '"origin": "Paris"' in messages[-1]["content"]
    assert "旅行社" in messages[0]["content"] and flight[1].backend.bookings == flight[0].backend.bookings


def choice(name: str | None, arguments: dict[str, object] | None = None) -> SimpleNamespace:
    kind = "tool" if name else "no_tool"
    return SimpleNamespace(
        kind=kind,
        name=name,
        arguments=arguments,
        trace=SimpleNamespace(candidates=[]),
        abstain_reason=None,
        confidence=0.9,
        margin=0.5,
    )


def test_a_call_is_right_when_the_booking_system_cannot_tell_it_from_the_expected_one() -> None:
    search, reply, booking, _ = steps(tasks_in("zh")[0], "zh")
    same = {"origin": "Paris", "destination": "罗马", "date": "2027年3月14日"}
    assert judge(search, choice("search_flights", same), 0.5, 0.05)["call_ok"]
    wrong = dict(booking.expected.arguments, passenger_name="乘客王芳")  # type: ignore[union-attr]
    assert not judge(booking, choice("book_flight", wrong), 0.5, 0.05)["call_ok"]
    assert judge(reply, choice(None), 0.5, 0.05)["no_tool_ok"]
    assert not judge(search, choice("search_flights", same), 0.95, 0.05)["served"]


@pytest.mark.integration  # a process of its own
def test_the_bench_module_runs_as_a_script_with_the_zh_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.cli", "zh", "--tasks", "nope"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "choose dev or demo" in out.stdout + out.stderr
