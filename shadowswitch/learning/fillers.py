"""Fillers: replies that only put a call off, counted neither for nor against the engine.

A large model now and then answers "One moment while I check that." where the call was due; the
user says "Sure." and the model makes the call it could have made before. The engine that made
the call at once did not disagree with the model: it was a step ahead. Such a pair would teach the
engine to stall and would count as a miss against its certificate, so it is left out of both.

What marks it is the model's own next step, never the engine's answer: the next request of the
same conversation is the deferred one plus the model's reply, asking nothing, and a user's reply
that adds nothing (a few words, no digit, no address), and the model's answer to it is a call.
Each pair keeps a fingerprint of its request (`turn["request"]`) and, when it is such a next step,
of the request it shows was deferred (`turn["defers"]`); learning drops the deferred ones.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from shadowswitch.request import message_text
from shadowswitch.store.tables import Exemplar

ACK_WORDS = 6  # "Sure, take your time." "ok thanks" "好的，请稍等"
CONTENT = re.compile(r"[\d@]")  # a number, an id or an address says something
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")  # written without spaces: each counts as a word
QUESTION = re.compile(r"[?？]")


def marks(messages: Sequence[dict[str, Any]], calls: bool) -> dict[str, str]:
    """`request`: this request's fingerprint; `defers`: the one it shows was put off, when the
    model answers it with a call (`calls`)."""
    out = {"request": fingerprint(messages)}
    if calls and _after_deferral(messages):
        out["defers"] = fingerprint(messages[:-2])
    return out


def kept(rows: Sequence[Exemplar]) -> list[Exemplar]:
    """`rows` without the pairs a later pair of their conversation shows were a deferral."""
    deferred = {str(r.turn["defers"]) for r in rows if isinstance(r.turn, dict) and r.turn.get("defers")}
    if not deferred:
        return list(rows)
    return [r for r in rows if not (isinstance(r.turn, dict) and r.turn.get("request") in deferred)]


def fingerprint(messages: Sequence[dict[str, Any]]) -> str:
    text = json.dumps(list(messages), sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _after_deferral(messages: Sequence[dict[str, Any]]) -> bool:
    if len(messages) < 3:
        return False
    reply, answer = messages[-2], messages[-1]
    if reply.get("role") != "assistant" or reply.get("tool_calls") or reply.get("function_call"):
        return False
    said, asked = message_text(answer), message_text(reply)
    if answer.get("role") != "user" or not asked.strip() or QUESTION.search(asked):
        return False
    return _words(said) <= ACK_WORDS and not CONTENT.search(said)


def _words(text: str) -> int:
    return len(re.findall(r"\w+", HAN.sub(" ", text))) + len(HAN.findall(text))
