"""A sequence learned end to end: the real proxy and models, a replay upstream, the openai SDK.

The agent searches, then books, then answers in text, all on the same user message: the engine
reads the same words at each step, so only the request's state (what already ran this turn) can
tell the steps apart. After a shadow stream and a promotion, the same user text gets the search
first and the booking once the search has run."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.support.learning import AUTH, TOKEN, agrees, cli, has_pairs, serves
from tests.support.wait import eventually

CITIES = ["Oslo", "Lisbon", "Madrid", "Vienna", "Prague", "Dublin", "Athens", "Berlin", "Warsaw", "Zurich"]
SEARCH = "search_flights"
BOOK = "book_flight"


def tool(name: str, description: str) -> dict[str, Any]:
    properties = {"city": {"type": "string", "description": "Destination city"}}
    parameters = {"type": "object", "properties": properties, "required": ["city"]}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


TOOLS = [tool(SEARCH, "Search flights to a city"), tool(BOOK, "Book a flight to a city")]
PHRASES = ["Get me on the cheapest flight to {c}", "I need the cheapest fare to {c} please"]


def steps(text: str, city: str) -> list[tuple[list[dict[str, Any]], dict[str, Any]]]:
    """The turn's three requests (messages so far) and the upstream's answer to each."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
    out = []
    for i, name in enumerate((SEARCH, BOOK)):
        out.append((list(messages), {"name": name, "arguments": {"city": city}}))
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": name, "arguments": f'{{"city": "{city}"}}'},
        }
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": '{"ok": true}'},
        ]
    out.append((list(messages), {"content": f"Done: your flight to {city} is booked."}))
    return out


def turns(cities: list[str]) -> list[tuple[str, str]]:
    return [(phrase.format(c=city), city) for city in cities for phrase in PHRASES]


def ask(client: openai.OpenAI, messages: list[dict[str, Any]]) -> str:
    raw = client.chat.completions.with_raw_response.create(
        model="travel-agent",
        messages=messages,  # type: ignore[arg-type]
        tools=TOOLS,  # type: ignore[arg-type]
        extra_headers={"X-Shadowswitch-Task": "trips"},
    )
    return raw.headers["x-shadowswitch-decision-id"]


@pytest.mark.one_backend
def test_the_same_text_gets_the_next_tool_once_the_first_has_run(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    train, test = turns(CITIES[:8] * 2), turns(CITIES[8:])
    answers = {
        f"{text}#{n}": answer
        for text, city in train + test
        for n, (_, answer) in enumerate(steps(text, city))
    }
    httpx.post(replay + "/answers", json=answers).raise_for_status()
    policy = {
        "task_type": "trips",
        "upstream": {"model": "openai/replay", "api_base": replay + "/v1", "timeout_s": 10},
        "rollout": {"mode": "shadow"},
        "engine": {"scorer": "embedding", "target_agreement": 0.9, "learn": True},
    }
    url = proxy(policy, local_factory=lambda: local_engine, admin_token=TOKEN, learn_interval_s=0)
    client = openai.OpenAI(base_url=url + "/v1", api_key="x")

    def learning() -> dict[str, Any]:
        body: dict[str, Any] = httpx.get(f"{url}/v1/shadowswitch/learning/trips", headers=AUTH).json()
        return body

    sent = 0
    for text, city in train:  # paced by step: the pairs are stored in the order an agent sends them
        for messages, _ in steps(text, city):
            ask(client, messages)
            sent += 1
            eventually(partial(has_pairs, learning, sent), timeout_s=180, interval_s=0.1)
    learned = cli(db_url, tmp_path / "policies0", "trips")
    assert learned["status"] == "promoted", learned

    change = {"mode": "canary", "percent": 100}
    httpx.put(f"{url}/v1/shadowswitch/rollouts/trips", json=change, headers=AUTH).raise_for_status()
    eventually(lambda: learning()["served_version"] == 1 and serves(url, "trips", 1), timeout_s=180)
    records = learning()["tools"]  # the served state's record of the engine's calls, per tool
    assert records
    assert all(0 <= r["record"] <= 1 and r["agreed"] <= r["judged"] <= r["pairs"] for r in records)
    chosen: list[tuple[Any, Any]] = []
    for text, city in test:
        for messages, want in steps(text, city)[:2]:
            decision = httpx.get(
                f"{url}/v1/shadowswitch/decisions/{ask(client, messages)}", headers=AUTH
            ).json()
            chosen.append((decision["chosen"], agrees(decision, want)))
    # The same words: the search first, and the booking once the search has run, served locally.
    assert [c for c, _ in chosen] == [SEARCH, BOOK] * len(test), chosen
    assert sum(ok for _, ok in chosen) >= len(chosen) - 1, chosen
