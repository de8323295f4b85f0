"""Learned value origins: a parameter whose values read from one place are usually wrong makes the
served state abstain on values from there, and only there; a replay counts such a call as not
served; the real engine abstains with `unreliable_value:<param>` and keeps its other values."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from shadowswitch.engines.local.conversation import value_origin
from shadowswitch.engines.local.learned_state import Transform
from shadowswitch.learning.fit import Pair, at, decide
from shadowswitch.learning.memory import Memory
from shadowswitch.learning.origins import MIN, unreliable_origins, upper_bound, vetoed
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.learning import AUTH, cli, send_paced, serves, shadow_proxy
from tests.support.learning import ask as learning_ask
from tests.support.policies import ROOMY
from tests.support.wait import eventually

UNLOCK = "unlock_account"


def entry(origin: str, agrees: bool, **extra: Any) -> dict[str, Any]:
    return {"type": "str", "in_text": agrees, "local": True, "agrees": agrees, "origin": origin, **extra}


def calls(origin: str, agreeing: int, total: int) -> list[tuple[str, dict[str, Any]]]:
    return [(UNLOCK, {"username": entry(origin, i < agreeing)}) for i in range(total)]


def test_an_origin_usually_wrong_is_unreliable_and_another_is_not() -> None:
    seen = calls("text:last_user", 0, 6) + calls("text:tool_result", 6, 6)
    assert unreliable_origins(seen) == {UNLOCK: {"username": ("text:last_user",)}}
    assert unreliable_origins(calls("text:last_user", 0, MIN - 1)) == {}  # too few to say
    assert unreliable_origins(calls("text:last_user", 9, 10)) == {}  # right 9 times in 10
    assert unreliable_origins(calls("text:last_user", 4, 20)) == {UNLOCK: {"username": ("text:last_user",)}}
    assert unreliable_origins(calls("text:last_user", 10, 20)) == {}  # the gate tells those apart
    assert upper_bound(5, 5) == 1.0 and 0.4 < upper_bound(0, 5) < 0.5
    assert unreliable_origins([("__no_tool__", {"x": entry("text:last_user", False)})] * 9) == {}


def test_a_value_a_learned_transform_fixes_counts_as_agreeing() -> None:
    seen = [(UNLOCK, {"username": entry("text:last_user", False, transforms=["lower"])})] * 8
    assert unreliable_origins(seen) == {UNLOCK: {"username": ("text:last_user",)}}
    assert unreliable_origins(seen, {UNLOCK: {"username": Transform("lower")}}) == {}


def test_a_replay_counts_a_call_of_an_unreliable_origin_as_not_served() -> None:
    rng = np.random.default_rng(5)
    vector = rng.normal(size=16).astype(np.float32)
    zero_shot = {UNLOCK: 0.9, "__no_tool__": 0.1}

    def pair(i: int, origin: str, agrees: bool) -> Pair:
        status = "agree" if agrees else "differ"
        args = {"username": entry(origin, agrees)}
        return Pair(i, vector / np.linalg.norm(vector), UNLOCK, zero_shot, UNLOCK, status, args)

    pairs = [pair(i, "text:last_user", False) for i in range(8)] + [
        pair(8 + i, "text:tool_result", True) for i in range(8)
    ]
    unreliable = unreliable_origins([(p.label, p.arguments) for p in pairs])
    assert pairs[0].vetoed(unreliable) and not pairs[8].vetoed(unreliable)
    before = at(decide(pairs, [], 0.0, 0.5), 0.5)
    after = at(decide(pairs, [], 0.0, 0.5, unreliable=unreliable), 0.5)
    assert (before["coverage"], before["agreement"]) == (1.0, 0.5)
    assert (after["coverage"], after["agreement"]) == (0.5, 1.0)  # the wrong half abstains
    assert vetoed(pairs[0].arguments, {"username": ("text:tool_result",)}) is None


def request(messages: list[dict[str, Any]]) -> ChatView:
    return ChatView.parse({"model": "m", "messages": messages})


def test_the_origin_names_the_message_a_value_was_read_from() -> None:
    view = request(
        [
            {"role": "system", "content": "You are the help desk."},
            {"role": "user", "content": "Ann is locked out"},
            {"role": "assistant", "content": "Which Ann?"},
            {"role": "tool", "tool_call_id": "c1", "content": '{"username": "ann.smith"}'},
            {"role": "user", "content": "Ann Smith, please unlock her"},
        ]
    )
    at_ = {"source": "text", "start": 0, "end": 3}
    assert value_origin({**at_, "message": 4}, view) == "text:last_user"
    assert value_origin({**at_, "message": 1}, view) == "text:earlier_user"
    assert value_origin({**at_, "message": 3}, view) == "text:tool_result"
    assert value_origin({**at_, "message": 0}, view) == "text:system"
    assert value_origin({"source": "default"}, view) == "default"
    assert value_origin({"source": "text", "message": 99}, view) == "text"
    assert value_origin({}, view) is None


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": UNLOCK,
            "description": "Unlock a user's locked account",
            "parameters": {
                "type": "object",
                "properties": {"username": {"type": "string", "description": "the account's username"}},
                "required": ["username"],
            },
        },
    }
]
POLICY = Policy.model_validate(
    {
        "task_type": "helpdesk",
        "engine": {**ROOMY, "min_confidence": 0.0, "min_margin": 0.0, "allow_no_tool": False},
    }
)


@pytest.mark.slow
def test_the_engine_abstains_on_a_value_of_an_unreliable_origin_and_only_there(local_engine: Any) -> None:
    text = "Please unlock the account of user 'annsmith'"
    view = ChatView.parse({"model": "m", "messages": [{"role": "user", "content": text}], "tools": TOOLS})
    encoder = local_engine.engine.models.encoder_id
    proven = {"calls": np.array([1.0])}  # one pair, far from any request, whose call agreed
    memory = Memory(
        1, encoder, np.zeros((1, 384), np.float32), np.array([UNLOCK], object), 0.0, 0.0, **proven
    )
    plain = local_engine.decide_sync(view, POLICY, memory)
    assert plain.name == UNLOCK and plain.abstain_reason is None, plain
    assert plain.arguments == {"username": "annsmith"}, plain
    origin = value_origin(plain.sources["username"], view)
    assert origin == "text:last_user"
    distrusted = replace(memory, unreliable={UNLOCK: {"username": (origin,)}})
    vetoed_ = local_engine.decide_sync(view, POLICY, distrusted)
    assert vetoed_.abstain_reason == "unreliable_value:username (text:last_user)", vetoed_
    assert vetoed_.arguments == {"username": "annsmith"}  # what it would have said, for learning
    elsewhere = replace(memory, unreliable={UNLOCK: {"username": ("text:tool_result",)}})
    assert local_engine.decide_sync(view, POLICY, elsewhere).abstain_reason is None


def test_the_engine_holds_back_a_tool_whose_calls_rarely_agreed(local_engine: Any) -> None:
    """The real engine fills the call of a tool the state's pairs show unproven (its calls agreed
    in under half of them, or none of them judged) and abstains with `unproven_tool`, keeping the
    values for learning; a tool whose calls agreed is served as before."""
    text = "Please unlock the account of user 'annsmith'"
    view = ChatView.parse({"model": "m", "messages": [{"role": "user", "content": text}], "tools": TOOLS})
    encoder = local_engine.engine.models.encoder_id

    def judged(label: str, agreed: float) -> Memory:  # one pair, whose call of `label` agreed or not
        vectors = np.zeros((1, 384), np.float32)  # no neighbour of any request: only the record counts
        return Memory(1, encoder, vectors, np.array([label], object), 0.0, 0.0, calls=np.array([agreed]))

    held = local_engine.decide_sync(view, POLICY, judged(UNLOCK, 0.0))
    assert held.name == UNLOCK and held.abstain_reason == f"unproven_tool: {UNLOCK}", held
    assert held.arguments == {"username": "annsmith"}  # what it would have said, for learning
    assert local_engine.decide_sync(view, POLICY, judged(UNLOCK, 1.0)).abstain_reason is None
    never = local_engine.decide_sync(view, POLICY, judged("get_weather", 0.0))  # no pair of UNLOCK
    assert never.abstain_reason == f"unproven_tool: {UNLOCK}", never


WEATHER = "get_weather"
PROXY_TOOLS = [
    *TOOLS,
    {
        "type": "function",
        "function": {
            "name": WEATHER,
            "description": "Get the weather forecast for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "Name of the city"}},
                "required": ["city"],
            },
        },
    },
]
USERS = ["annsmith", "bjones", "cwu", "dpatel", "ekim", "fgarcia", "gmuller", "hnguyen", "iross", "jlee"]
USERS += ["kchen", "lbrown", "mdavis", "nwhite", "olopez", "pking", "qhall", "ryoung", "sallen", "tscott"]
CITIES = ["Austin", "Denver", "Seattle", "Boston", "Chicago", "Phoenix", "Atlanta", "Miami", "Dallas"]
CITIES += [
    "Houston",
    "Nashville",
    "Sacramento",
    "Tucson",
    "Omaha",
    "Tulsa",
    "Cleveland",
    "Memphis",
    "Detroit",
]
CITIES += ["Raleigh", "Oakland"]


def agent_stream(users: list[str], cities: list[str], start: int) -> list[tuple[str, dict[str, Any]]]:
    """The agent's large model unlocks by the account id it looked up (never in the user's words)
    and asks the weather for the city said."""
    out: list[tuple[str, dict[str, Any]]] = []
    for i, (user, city) in enumerate(zip(users, cities, strict=True)):
        unlock = {"name": UNLOCK, "arguments": {"username": f"u{start + i}"}}
        out.append((f"Please unlock the account of user '{user}'", unlock))
        out.append((f"What's the weather in {city}?", {"name": WEATHER, "arguments": {"city": city}}))
    return out


@pytest.mark.slow
@pytest.mark.one_backend
def test_a_proxy_learns_an_unreliable_origin_and_abstains_there_only(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    train = agent_stream(USERS, CITIES, 1000)
    test = agent_stream(["uvargas", "wbell"], ["Pittsburgh", "Baltimore"], 5000)
    url, client = shadow_proxy(proxy, local_engine, "helpdesk", replay, dict(train + test))

    def ask(text: str) -> str:
        return learning_ask(client, "helpdesk", PROXY_TOOLS, [{"role": "user", "content": text}])

    send_paced(url, "helpdesk", ask, [text for text, _ in train])

    learned = cli(db_url, tmp_path / "policies0", "helpdesk")
    assert learned["unreliable"] == {UNLOCK: {"username": ["text:last_user"]}}, learned
    assert learned["status"] == "promoted", learned
    change = {"mode": "canary", "percent": 100}
    httpx.put(f"{url}/v1/shadowswitch/rollouts/helpdesk", json=change, headers=AUTH).raise_for_status()
    eventually(partial(serves, url, "helpdesk", 1), timeout_s=10)

    def decided(text: str) -> dict[str, Any]:
        body: dict[str, Any] = httpx.get(f"{url}/v1/shadowswitch/decisions/{ask(text)}", headers=AUTH).json()
        return body

    for text, want in test:
        decision = decided(text)
        if want["name"] == UNLOCK:  # read from the user's words, where the upstream looks it up
            assert decision["path"] == "fallback", decision
            assert decision["abstain_reason"] == "unreliable_value:username (text:last_user)", decision
        else:  # the weather's city, read from the same place, is served as read
            assert decision["path"] == "local" or decision["abstain_reason"].startswith("low_confidence")
            assert decision["path"] != "local" or decision["arguments"] == want["arguments"], decision
