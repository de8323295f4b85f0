"""Whether an optional parameter is set, learned end to end: the real proxy and models, a replay
upstream, the openai SDK.

Staff book meeting rooms. The booking tool takes the room, and optionally the head count and the
host. This agent's large model never passes the head count, whatever the user says, and names the
host whenever the user says whose meeting it is; the tool's description says neither. The engine's
prior sets the head count when the text gives one and leaves the host out (its value scores under
the prior's threshold for a name). After a shadow stream and a promotion, the served calls set
each as the upstream does, the host read from the text with its span as its provenance, and a
request that gives no host is never served one."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import openai
import pytest

from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.learning import ask as learning_ask
from tests.support.learning import cli, decision, send_paced, serve_all, shadow_policy, shadow_proxy

BOOK = "book_room"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": BOOK,
            "description": "Book a meeting room for today",
            "parameters": {
                "type": "object",
                "properties": {
                    "room": {"type": "string", "description": "The room's name"},
                    "attendees": {"type": "integer", "description": "How many people will attend"},
                    "host": {"type": "string", "description": "Who hosts the meeting"},
                },
                "required": ["room"],
            },
        },
    }
]
ROOMS = ["Aurora", "Borealis", "Cedar", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Iris", "Juniper"]
ROOMS += ["Atlas", "Beacon", "Comet", "Dune", "Echo", "Falcon"]
NAMES = ["Omar Haddad", "Priya Nair", "Wim Jansen", "Lena Vogel", "Tom Baker", "Ana Lima", "Kofi Mensah"]
NAMES += ["Sara Berg", "Ivan Petrov", "Mei Tanaka", "Luis Ortega", "Nina Kowalski", "Jonas Weber"]
TEST_ROOMS, TEST_NAMES = ["Kestrel", "Linden", "Maple"], ["Felix Braun", "Olga Ivanova", "Samir Khan"]


def bookings(rooms: list[str], names: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Per room: a head count given (left out), a host named (set), neither."""
    out = []
    for i, room in enumerate(rooms):
        call = {"name": BOOK, "arguments": {"room": room}}
        out.append((f"Please book the {room} room for 3pm, we are {i + 4} people", call))
        host = {"name": BOOK, "arguments": {"room": room, "host": names[i % len(names)]}}
        out.append((f"Book the {room} room for {names[i % len(names)]}'s team meeting", host))
        out.append((f"Please book the {room} room for 3pm", call))
    return out


def ask(client: openai.OpenAI, text: str) -> str:
    return learning_ask(client, "rooms", TOOLS, [{"role": "user", "content": text}])


@pytest.mark.one_backend
def test_whether_an_optional_parameter_is_set_is_learned_and_served(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    train, test = bookings(ROOMS, NAMES), bookings(TEST_ROOMS, TEST_NAMES)
    url, client = shadow_proxy(proxy, local_engine, "rooms", replay, dict([*train, *test]))
    rules = Policy.model_validate(shadow_policy("rooms", replay))

    def filled(text: str, state: Any) -> Any:
        request = ChatView.parse(
            {"model": "m", "messages": [{"role": "user", "content": text}], "tools": TOOLS}
        )
        return local_engine.decide_sync(request, rules, state)

    before = [filled(text, None).arguments for text, _ in test]
    assert [a for a in before if "attendees" in a] and not [a for a in before if "host" in a], before

    send_paced(url, "rooms", partial(ask, client), [text for text, _ in train])

    learned = cli(db_url, tmp_path / "policies0", "rooms")
    assert learned["status"] == "promoted", learned
    assert set(learned["rankings"][BOOK]) == {"attendees", "host"}, learned["rankings"]
    assert all("set:" in weights for weights in learned["rankings"][BOOK].values()), learned
    served = serve_all(proxy, url, "rooms")

    def decided(text: str) -> dict[str, Any]:
        return decision(url, ask(client, text))

    results = [(decided(text), want) for text, want in test]
    local = [(d, want) for d, want in results if d["path"] == "local"]
    wrong = [(d["arguments"], want) for d, want in local if d["arguments"] != want["arguments"]]
    assert not wrong, wrong
    assert len(local) >= len(results) // 2, [(d["abstain_reason"], d["confidence"]) for d, _ in results]
    hosted = [d for d, want in local if "host" in want["arguments"]]
    assert hosted, results
    source = hosted[0]["argument_sources"]["host"]
    assert source["source"] == "text" and source["text"] == hosted[0]["arguments"]["host"], source

    # Past the threshold (the engine's own fill): the served state sets each parameter as the
    # upstream does, from the same text, where the prior did not.
    memory = replace(served.get("rooms"), min_confidence=0.0)
    after = [filled(text, memory) for text, _ in test]
    assert all(c.name == BOOK and c.abstain_reason is None for c in after), after
    assert [c.arguments for c in after] == [want["arguments"] for _, want in test], after
