"""The Chinese task set: its own words, the English ids and calls, solved end to end over real HTTP."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

import pytest
from openai import OpenAI

from examples.demo.servers import serving
from examples.demo.stages import run_tasks, summarise
from examples.demo.upstream import Simulated, create_upstream
from examples.travel_agent.__main__ import main as agent_cli
from examples.travel_agent.agent import TravelAgent
from examples.travel_agent.backend import Backend, parse_date
from examples.travel_agent.tasks import TASKS, fresh_backend
from examples.travel_agent.tasks_zh import TASKS_ZH, from_today, next_week
from shadowswitch.engines.local.languages.zh.dates import zh_date_spans

HAN = re.compile(r"[\u4e00-\u9fff]")
READ_ONLY = {"search_flights", "search_hotels", "get_booking", "get_weather", "convert_currency"}


@pytest.fixture(scope="module")
def simulated() -> Iterator[str]:
    with serving(create_upstream(Simulated((0.0, 0.0), error_rate=0.0))) as url:
        yield url


def test_the_chinese_tasks_mirror_the_english_ones_in_their_own_words() -> None:
    assert [t.id for t in TASKS_ZH] == [t.id for t in TASKS]
    english = {turn.user for task in TASKS for turn in task.turns}
    for zh, en in zip(TASKS_ZH, TASKS, strict=True):
        assert [[c.name for c in t.calls] for t in zh.turns] == [[c.name for c in t.calls] for t in en.turns]
        for turn in zh.turns:
            assert HAN.search(turn.user) and turn.user not in english, (zh.id, turn.user)
    assert len({t.user for task in TASKS_ZH for t in task.turns}) == sum(len(task.turns) for task in TASKS_ZH)


def test_every_expected_call_works_and_a_task_fails_when_nothing_was_done() -> None:
    for task in TASKS_ZH:
        backend = fresh_backend()
        changes = any(c.name not in READ_ONLY for t in task.turns for c in t.calls)
        assert task.check(backend) is not changes, task.id  # nothing done fails a task that changes things
        for turn in task.turns:
            for call in turn.calls:
                backend.call(call.name, dict(call.arguments))
        assert task.check(backend), task.id


def test_the_booking_system_takes_chinese_cities_dates_and_names() -> None:
    backend = Backend()
    found = backend.call("search_hotels", {"city": "布拉格", "check_in": "6月9日", "nights": 2})
    assert found["city"] == "Prague" and found["check_in"] == "2027-06-09"
    made = backend.call(
        "book_hotel", {"hotel_id": "H-PRG-1", "check_in": "2027年6月9日", "nights": 2, "guest_name": "刘洋"}
    )
    assert made["traveller"] == "刘洋" and made["check_in"] == "2027-06-09"
    assert parse_date("12月2号") == "2027-12-02"


def test_relative_days_are_the_ones_the_engine_reads() -> None:
    today = date(2026, 12, 2)  # a Wednesday
    assert next_week(0, today) == "2026-12-07" and from_today(1, today) == "2026-12-03"
    read = {(text, value) for text, value, *_ in zh_date_spans("下周一取车，明天出发", today)}
    assert ("下周一", next_week(0, today)) in read and ("明天", from_today(1, today)) in read


def test_a_good_model_completes_every_chinese_task(simulated: str) -> None:
    results = run_tasks(simulated, TASKS_ZH, tag="zh", concurrency=4, lang="zh")
    assert [r.task_id for r in results if not r.success] == []
    calls = sum(len(turn.calls) for task in TASKS_ZH for turn in task.turns)
    assert summarise(results).steps == calls + sum(len(task.turns) for task in TASKS_ZH)


def test_the_simulated_model_answers_in_chinese_and_writes_airport_codes_when_asked(simulated: str) -> None:
    client = OpenAI(base_url=f"{simulated}/v1", api_key="x")
    task = next(t for t in TASKS_ZH if t.id == "flight-01")
    assert TravelAgent(client, tools_version="v2", lang="zh").run(task).success  # 巴黎 → CDG
    answer = client.chat.completions.create(
        model="travel-agent", messages=[{"role": "user", "content": task.turns[0].user}]
    )
    assert HAN.search(answer.choices[0].message.content or "")


def test_the_agent_runs_the_chinese_tasks_from_its_command_line(
    simulated: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--base-url", f"{simulated}/v1", "--lang", "zh", "--tasks", "cancel-01,car-02"]
    assert agent_cli(argv) == 0
    assert "2/2 tasks succeeded" in capsys.readouterr().out
