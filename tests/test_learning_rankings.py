"""A value ranking learned end to end: the real proxy and models, a replay upstream, the openai SDK.

Staff write in as "Omar Haddad here, ...". The text offers the directory look-up two values, the
full name and the surname; the engine's filler fills the full name most of the time. This agent's
large model looks people up by surname, every time, which the tool's description does not say.
After a shadow stream and a promotion, the surname is served, read from the text with its span as
its provenance, and a request that names nobody is still never served a name."""

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

LOOKUP, ROOM = "lookup_employee", "book_room"
TRAIN = ["Omar Haddad", "Priya Nair", "Wim Jansen", "Lena Vogel", "Tom Baker", "Ana Lima"]
TRAIN += ["Kofi Mensah", "Sara Berg", "Ivan Petrov", "Mei Tanaka", "Luis Ortega", "Nina Kowalski"]
TRAIN += ["Jonas Weber", "Aisha Bello", "Pedro Alves", "Hana Novak", "Erik Lund", "Rosa Marin"]
TRAIN += ["Yusuf Demir", "Clara Rossi", "Ben Carter", "Ingrid Dahl", "Raj Patel", "Zoe Martin"]
TEST = ["Felix Braun", "Olga Ivanova", "Samir Khan", "Julia Costa"]
PHRASES = [
    "{n} here, my badge stopped working this morning.",
    "{n} here, the door to lab 3 will not open for me.",
    "{n} here, my access card was rejected at the gate.",
]
ROOMS = ["Aurora", "Borealis", "Cedar", "Delta", "Ember", "Fjord", "Granite", "Harbor"]


def tool(name: str, description: str, param: str, about: str) -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": {param: {"type": "string", "description": about}},
        "required": [param],
    }
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


TOOLS = [
    tool(LOOKUP, "Look an employee up in the staff directory", "name", "The employee's name, or part of it"),
    tool(ROOM, "Book a meeting room for today", "room", "The room's name"),
]


def lookups(names: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Each name in two phrasings; the upstream looks up the surname."""
    out = []
    for i, name in enumerate(names):
        for phrase in (PHRASES[i % 3], PHRASES[(i + 1) % 3]):
            out.append((phrase.format(n=name), {"name": LOOKUP, "arguments": {"name": name.split()[-1]}}))
    return out


def ask(client: openai.OpenAI, text: str) -> str:
    return learning_ask(client, "desk", TOOLS, [{"role": "user", "content": text}])


@pytest.mark.one_backend
def test_a_value_ranking_is_learned_and_serves_the_upstreams_value(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    rooms = [(f"Please book the {r} room for 3pm", {"name": ROOM, "arguments": {"room": r}}) for r in ROOMS]
    train, test = lookups(TRAIN) + rooms, lookups(TEST)
    nobody = ("Someone here, my badge stopped working.", {"name": LOOKUP, "arguments": {"name": "Khan"}})
    url, client = shadow_proxy(proxy, local_engine, "desk", replay, dict([*train, *test, nobody]))

    send_paced(url, "desk", partial(ask, client), [text for text, _ in train])

    learned = cli(db_url, tmp_path / "policies0", "desk")
    assert learned["status"] == "promoted", learned
    assert list(learned["rankings"]) == [LOOKUP] and list(learned["rankings"][LOOKUP]) == ["name"], learned
    served = serve_all(proxy, url, "desk")

    def decided(text: str) -> dict[str, Any]:
        return decision(url, ask(client, text))

    results = [(decided(text), want) for text, want in test]
    local = [(d, want) for d, want in results if d["path"] == "local"]
    # the learned threshold varies with the held-out split: some may abstain, none may be wrong
    assert all(d["arguments"] == want["arguments"] for d, want in local), results
    assert len(local) >= len(results) // 2, (
        [(d["abstain_reason"], d["confidence"], d["arguments"]) for d, _ in results],
        learned["fitted"],
        learned["evaluation"],
    )
    source = local[0][0]["argument_sources"]["name"]
    assert source["source"] == "text" and source["text"] == local[0][1]["arguments"]["name"], source
    refused = decided(nobody[0])
    assert refused["path"] == "fallback" and "name" not in (refused["arguments"] or {}), refused

    # Past the threshold (the engine's own fill): the served state fills the surname where the
    # prior fills the full name, from the same text.
    rules = Policy.model_validate(shadow_policy("desk", replay))
    memory = replace(served.get("desk"), min_confidence=0.0)

    def filled(text: str, state: Any) -> Any:
        request = ChatView.parse(
            {"model": "m", "messages": [{"role": "user", "content": text}], "tools": TOOLS}
        )
        return local_engine.decide_sync(request, rules, state)

    before = [filled(text, None).arguments for text, _ in test]
    after = [filled(text, memory) for text, _ in test]
    assert all(c.name == LOOKUP and c.abstain_reason is None for c in after), after
    assert [c.arguments for c in after] == [want["arguments"] for _, want in test], after
    assert before != [c.arguments for c in after], before  # the prior fills the full name somewhere
