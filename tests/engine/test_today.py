"""The day relative dates are read from: the one the agent's instructions state, else the clock's.

`stated_today` and the filler are pure logic (tests/support/arguments.py's filler, no model); the
last test fills a call with the real engine."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import Any

from shadowswitch.engines.local.arguments.today import CLOCK, Today, stated_today
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.arguments import FILLER
from tests.support.policies import ROOMY

DAY = {"type": "string", "description": "The day, YYYY-MM-DD"}
SCHEMA = {"type": "object", "properties": {"day": DAY}, "required": ["day"]}


def view(system: str, role: str = "system", text: str = "hi") -> ChatView:
    messages = [{"role": role, "content": system}, {"role": "user", "content": text}]
    return ChatView.parse({"model": "m", "messages": messages})


def test_the_day_a_system_or_developer_message_states_is_today() -> None:
    assert stated_today(view("Today is Wednesday 2027-03-10; write dates as YYYY-MM-DD.")) == Today(
        date(2027, 3, 10)
    )
    assert stated_today(view("Current date: March 3, 2025.", "developer")) == Today(date(2025, 3, 3))
    assert stated_today(view("Today's date is 10 March 2027")) == Today(date(2027, 3, 10))
    assert stated_today(view("今天是2024年5月1日。")) == Today(date(2024, 5, 1))
    assert stated_today(view("Be brief.")) == CLOCK  # nothing stated: the clock's day
    assert stated_today(view("Today is 2027-03-10.", "user")) == CLOCK  # only the agent's instructions


def test_a_stated_day_that_cannot_be_read_or_two_days_make_it_unsure() -> None:
    assert stated_today(view("Today is a busy day.")) == Today(unsure=True)
    assert stated_today(view("Today is 2027-03-10. Later on: today is 2027-03-11.")) == Today(unsure=True)


def test_relative_days_are_read_from_the_stated_day_and_not_at_all_when_unsure() -> None:
    stated = FILLER.fill(SCHEMA, "Book it for tomorrow please", today=Today(date(2027, 3, 10)))
    assert stated.arguments == {"day": "2027-03-11"}, stated
    assert stated.sources["day"]["text"] == "tomorrow"
    clock = FILLER.fill(SCHEMA, "Book it for tomorrow please")
    assert clock.arguments == {"day": (date.today() + timedelta(days=1)).isoformat()}, clock
    unsure = FILLER.fill(SCHEMA, "Book it for tomorrow please", today=Today(unsure=True))
    assert unsure.arguments == {} and unsure.missing == ["day"], unsure  # never a guess
    written = FILLER.fill(SCHEMA, "Book it for 2027-04-01 please", today=Today(unsure=True))
    assert written.arguments == {"day": "2027-04-01"}, written  # a date written out is still read


def test_the_engine_reads_tomorrow_from_the_prompts_day(local_engine: Any) -> None:
    props = {"start": DAY, "end": DAY}
    parameters = {"type": "object", "properties": props, "required": ["start", "end"]}
    tool = {
        "name": "set_out_of_office",
        "description": "Set an out-of-office reply",
        "parameters": parameters,
    }
    system = "You are the help desk. Today is Wednesday 2027-03-10; write dates as YYYY-MM-DD."
    request = ChatView.parse(
        {
            "model": "m",
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": "I'm away from tomorrow until Friday, set my out-of-office"},
            ],
            "tools": [{"type": "function", "function": tool}],
        }
    )
    policy = Policy.model_validate(
        {
            "task_type": "t",
            "engine": ROOMY,
            "upstream": {"model": "openai/x", "api_base": "http://127.0.0.1:9/v1"},
        }
    )
    choice = asyncio.run(local_engine.fill_tool(request, policy, "set_out_of_office"))
    assert choice.abstain_reason is None, choice
    assert choice.arguments == {"start": "2027-03-11", "end": "2027-03-12"}, choice
