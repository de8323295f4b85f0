"""A SIMULATED large model: answers the travel agent's task set the way a good model would.

It is not a language model. It knows the task sets, English and Chinese (examples.travel_agent.
task_sets), and answers in the customer's language: for a user turn
it recognises, it makes the expected calls one after another, repeats one that came back with an
error (as a good model corrects itself), follows the offered tools' descriptions (IATA codes when
the flight search asks for them), and then answers in a sentence. A seeded share of its calls
are malformed (arguments that are not JSON), as real models' are now and then. Text it does not
recognise gets a best-effort tool call by word overlap, so any request has an answer.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from dataclasses import dataclass
from typing import Any

from examples.travel_agent.data import CITIES, CITY_NAMES_ZH
from examples.travel_agent.task_sets import LANGUAGES, tasks_in
from examples.travel_agent.tasks import Call

MODEL_NAME = "simulated-large-model"
HAN = re.compile(r"[\u4e00-\u9fff]")
BANNER = "SIMULATED large model (not an LM: it knows the demo's task set; seeded latency and errors)"
NUMBER_WORDS = {
    w: i + 1
    for i, w in enumerate(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])
}


@dataclass(frozen=True)
class Answer:
    message: dict[str, Any]
    malformed: bool = False


class SimulatedModel:
    """The travel agent's model; another example agent's model is a subclass with its own `turns`
    (and `reply`, `next_call` where its conversations differ)."""

    def __init__(self, error_rate: float = 0.03, seed: int = 7) -> None:
        self.error_rate = error_rate
        self.seed = seed
        self.turns: dict[str, Any] = self.known_turns()

    def known_turns(self) -> dict[str, Any]:
        """User text → the turn (its expected `.calls`, each with `.name` and `.arguments`)."""
        return {t.user: t for lang in LANGUAGES for task in tasks_in(lang) for t in task.turns}

    def next_call(self, turn: Any, results: list[dict[str, Any]]) -> Any:
        """The turn's next expected call, or None once all are done: a call whose result was an
        error is made again (the model corrects itself)."""
        done = sum(1 for r in results if not str(r.get("content", "")).startswith("error"))
        return turn.calls[done] if done < len(turn.calls) else None

    def reply(self, results: list[dict[str, Any]], chinese: bool = False) -> str:
        return reply(results, chinese)

    def answer(self, body: dict[str, Any]) -> Answer:
        messages = body.get("messages") or []
        tools = [t.get("function", {}) for t in body.get("tools") or [] if isinstance(t, dict)]
        start, text = _last_user(messages)
        results = [m for m in messages[start + 1 :] if m.get("role") == "tool"]
        turn = self.turns.get(text)
        if turn is not None:
            call = self.next_call(turn, results)
        else:
            call = None if results or not tools else guess_call(text, tools)
        offered = {t.get("name"): t for t in tools}
        if call is None or call.name not in offered or body.get("tool_choice") == "none":
            return Answer(
                {"role": "assistant", "content": self.reply(results, chinese=bool(HAN.search(text)))}
            )
        arguments = follow_description(call, offered[call.name])
        rng = random.Random(f"{self.seed}:{json.dumps(messages, sort_keys=True)}")
        malformed = rng.random() < self.error_rate
        encoded = json.dumps(arguments)
        if malformed:  # the classic: a call cut off before its closing brace
            encoded = encoded[:-1]
        function = {"name": call.name, "arguments": encoded}
        tool_call = {"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function", "function": function}
        return Answer({"role": "assistant", "content": None, "tool_calls": [tool_call]}, malformed)


def _last_user(messages: list[dict[str, Any]]) -> tuple[int, str]:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            content = messages[i].get("content")
            return i, content if isinstance(content, str) else json.dumps(content)
    return -1, ""


def follow_description(call: Call, tool: dict[str, Any]) -> dict[str, Any]:
    """The expected arguments, in the form the offered tool's parameters ask for."""
    props = (tool.get("parameters") or {}).get("properties") or {}
    arguments = dict(call.arguments)
    for name, value in call.arguments.items():
        about = str((props.get(name) or {}).get("description", ""))
        city = CITY_NAMES_ZH.get(value, value) if isinstance(value, str) else None
        if "IATA" in about and city in CITIES:
            arguments[name] = CITIES[city][0]
    return arguments


def reply(results: list[dict[str, Any]], chinese: bool = False) -> str:
    if not results:
        if chinese:
            return "不客气！行程上还有什么需要我帮忙的吗？"
        return "You're welcome! Is there anything else I can do for your trip?"
    last = str(results[-1].get("content", ""))
    if last.startswith("error"):
        problem = last.removeprefix("error: ")
        return f"抱歉，没有办成：{problem}" if chinese else f"Sorry, that did not work: {problem}"
    if chinese:
        return f"办好了。预订系统的结果如下：{last[:240]}"
    return f"Done. Here is what the booking system says: {last[:240]}"


def guess_call(text: str, tools: list[dict[str, Any]]) -> Call:
    """Best effort for text outside the task set: the tool sharing most words, values from the text."""
    words = set(re.findall(r"[a-z]+", text.lower()))

    def overlap(tool: dict[str, Any]) -> int:
        about = f"{str(tool.get('name', '')).replace('_', ' ')} {tool.get('description', '')}".lower()
        return len(words & set(re.findall(r"[a-z]+", about)))

    tool = max(tools, key=overlap)
    params = tool.get("parameters") or {}
    props = params.get("properties") or {}
    return Call(
        str(tool.get("name")), {k: _value(text, props.get(k) or {}) for k in params.get("required") or []}
    )


def _value(text: str, schema: dict[str, Any]) -> Any:
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("type") in ("integer", "number"):
        digits = re.search(r"\d+(\.\d+)?", text)
        if digits:
            return float(digits[0]) if schema["type"] == "number" else int(float(digits[0]))
        return next((n for w, n in NUMBER_WORDS.items() if re.search(rf"\b{w}\b", text.lower())), 1)
    if schema.get("type") == "boolean":
        return True
    names = re.findall(r"(?<!^)(?<![.!?] )\b([A-Z][a-z]+(?: [A-Z][a-z]+)*)", text)
    return names[0] if names else text[:40]
