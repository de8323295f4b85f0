"""A rewrite learned end to end: the real proxy and models, a replay upstream, the openai SDK.

The agent's large model writes a city the way its weather service wants it, "Austin" →
"Austin, TX", every time; for the local time it adds the state only now and then. The tools'
descriptions say neither. After a shadow stream and a promotion, the weather's city is served
rewritten with its provenance (`learned_transform`, the state version), the time's city is not
rewritten (an inconsistent rewrite is not learned), and a city the tables cannot place, or no city
at all, is never served: the engine abstains `missing_value:city`."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.learning import AUTH, cli, send_paced, shadow_policy, shadow_proxy
from tests.support.learning import ask as learning_ask
from tests.support.wait import eventually

WEATHER, TIME = "get_weather", "get_local_time"
TRAIN = ["Austin", "Denver", "Seattle", "Boston", "Chicago", "Phoenix", "Atlanta", "Miami"]
TRAIN += ["Dallas", "Houston", "Nashville", "Sacramento", "Tucson", "Omaha", "Tulsa", "Cleveland"]
TRAIN += ["Memphis", "Louisville", "Detroit", "Minneapolis", "Raleigh", "Oakland", "Tampa", "Honolulu"]
TEST = ["Pittsburgh", "Baltimore", "Milwaukee", "Fresno"]
STATES = {"Pittsburgh": "PA", "Baltimore": "MD", "Milwaukee": "WI", "Fresno": "CA", "Los Gatos": "CA"}
PHRASES = {
    WEATHER: ["What's the weather in {c}?", "Will it rain in {c} tomorrow?", "How warm is it in {c} now?"],
    TIME: ["What time is it in {c}?", "What's the local time in {c}?", "Tell me the current time in {c}"],
}


def tool(name: str, description: str) -> dict[str, Any]:
    properties = {"city": {"type": "string", "description": "Name of the city"}}
    parameters = {"type": "object", "properties": properties, "required": ["city"]}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


TOOLS = [
    tool(WEATHER, "Get the weather forecast for a city"),
    tool(TIME, "Get the current local time in a city"),
]


def stream(cities: list[str], states: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """Each city asked about both tools; the upstream always adds the state for the weather, and
    for the time only every other city."""
    out = []
    for i, city in enumerate(cities):
        placed = f"{city}, {states[city]}"
        for name, phrases in PHRASES.items():
            written = placed if name == WEATHER or i % 2 else city
            text = phrases[i % len(phrases)].format(c=city)
            out.append((text, {"name": name, "arguments": {"city": written}}))
    return out


def ask(client: openai.OpenAI, text: str) -> str:
    return learning_ask(client, "travel", TOOLS, [{"role": "user", "content": text}])


@pytest.mark.one_backend
def test_a_consistent_rewrite_is_learned_and_served_with_its_provenance(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    places = local_engine.region_of
    train = stream(TRAIN, {c: (places(c) or "").split(", ")[-1] for c in TRAIN})
    test = stream(TEST, STATES)
    unplaced = ("What's the weather in Los Gatos?", {"name": WEATHER, "arguments": {"city": "Los Gatos, CA"}})
    no_city = ("What's the weather like?", {"name": WEATHER, "arguments": {"city": "Lisbon, Portugal"}})
    answers = dict(train + test + [unplaced, no_city])
    url, client = shadow_proxy(proxy, local_engine, "travel", replay, answers)

    send_paced(url, "travel", partial(ask, client), [text for text, _ in train])

    learned = cli(db_url, tmp_path / "policies0", "travel")
    assert learned["status"] == "promoted", learned
    assert learned["transforms"] == {WEATHER: {"city": "region"}}, learned  # not the time's: half rewritten
    change = {"mode": "canary", "percent": 100}
    httpx.put(f"{url}/v1/shadowswitch/rollouts/travel", json=change, headers=AUTH).raise_for_status()
    served = proxy.app(url).state.shadowswitch.learning.memories  # this replica's copy, polled
    eventually(lambda: getattr(served.get("travel"), "version", None) == 1, timeout_s=10)
    constants = served.get("travel").constants
    assert getattr(constants.get(WEATHER, {}).get("city"), "name", None) == "region", constants
    assert "city" not in constants.get(TIME, {}), constants  # half rewritten: not learned

    def decided(text: str) -> dict[str, Any]:
        body: dict[str, Any] = httpx.get(
            f"{url}/v1/shadowswitch/decisions/{ask(client, text)}", headers=AUTH
        ).json()
        return body

    weather = [(decided(text), want) for text, want in test if want["name"] == WEATHER]
    # the learned threshold varies with the held-out split: some may abstain, none may be wrong
    served_weather = [(d, want) for d, want in weather if d["path"] == "local"]
    assert all(d["arguments"] == want["arguments"] for d, want in served_weather), weather
    rewritten = [d for d, _ in served_weather]
    assert len(rewritten) >= len(weather) // 2, weather
    source = rewritten[0]["argument_sources"]["city"]
    assert source["source"] == "learned_transform" and source["transform"] == "region", source
    assert source["state_version"] == 1 and source["from"] == source["text"] and source["from"] in TEST
    times = [decided(text) for text, want in test if want["name"] == TIME]
    assert all(d["abstain_reason"] or d["argument_sources"]["city"]["source"] == "text" for d in times), times

    for text, _ in (unplaced, no_city):  # not in the tables, not in the text: never served
        decision = decided(text)
        # an abstention, or "no tool" (the upstream answers): never a city served locally
        assert decision["path"] == "fallback" and "city" not in (decision["arguments"] or {}), decision
    # Past the threshold (the engine's own fill with the served state): a city the rewrite cannot
    # place is missing, never served as read; one it can is rewritten.
    memory = replace(served.get("travel"), min_confidence=0.0)
    rules = Policy.model_validate(shadow_policy("travel", replay))

    def filled(text: str) -> Any:
        request = ChatView.parse(
            {"model": "m", "messages": [{"role": "user", "content": text}], "tools": TOOLS}
        )
        return local_engine.decide_sync(request, rules, memory)

    placed, unknown = filled(test[0][0]), filled(unplaced[0])
    assert placed.name == WEATHER and placed.abstain_reason is None, placed
    assert placed.arguments == test[0][1]["arguments"], placed
    assert unknown.name == WEATHER and unknown.abstain_reason == "missing_value:city", unknown
    assert not unknown.arguments, unknown

    assert cli(db_url, tmp_path / "policies0", "rollback", "travel")["served_version"] == 0
    eventually(lambda: served.get("travel") is None, timeout_s=10)  # rollback drops the transform
