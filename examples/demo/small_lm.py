"""`--upstream small-lm`: the embedded SmolLM2-135M generates every answer, as a local agent would.

The tools go into the system prompt, the model writes `{"name": ..., "arguments": {...}}` or plain
text, greedily. What does not parse as a call to an offered tool is a parse failure: the agent
then gets text instead of a call. This is the generative path the seed articles started from.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from examples.demo.simulated import Answer

PROMPT = (
    "You are a travel booking assistant. You can call these tools:\n{tools}\n"
    'To call a tool, answer only with JSON: {{"name": <tool name>, "arguments": {{...}}}}. '
    "When the tools have answered, reply to the customer in one short sentence."
)


class SmallLM:
    name = "smollm2-135m-instruct"
    banner = "SmolLM2-135M-Instruct generating (embedded, CPU)"

    def __init__(self, max_new_tokens: int = 64) -> None:
        from shadowswitch.engines.local import default_cache_dir
        from shadowswitch.engines.local.runtime.models import load_lm

        self.model, self.tokenizer = load_lm("embedded", default_cache_dir())
        self.max_new_tokens = max_new_tokens

    def answer(self, body: dict[str, Any]) -> Answer:
        import torch

        tools = [t.get("function", {}) for t in body.get("tools") or []]
        listing = "\n".join(
            f"- {t.get('name')}({', '.join((t.get('parameters') or {}).get('properties') or {})}): "
            f"{t.get('description', '')}"
            for t in tools
        )
        chat = [{"role": "system", "content": PROMPT.format(tools=listing)}, *_plain(body["messages"])]
        ids = self.tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_tensors="pt")
        ids = ids if isinstance(ids, torch.Tensor) else ids["input_ids"]
        with torch.inference_mode():
            out = self.model.generate(ids, max_new_tokens=self.max_new_tokens, do_sample=False)
        text = self.tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True).strip()
        return parse(text, {str(t.get("name")) for t in tools}) if tools else _text(text)


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The conversation with tool calls and results as text a small chat template understands."""
    out = []
    for m in messages[-6:]:
        if m.get("role") == "system":
            continue
        if m.get("role") == "tool":
            out.append({"role": "user", "content": f"Tool result: {m.get('content')}"})
        elif m.get("tool_calls"):
            calls = [c["function"] for c in m["tool_calls"]]
            out.append({"role": "assistant", "content": json.dumps(calls[0])})
        else:
            out.append({"role": str(m.get("role")), "content": str(m.get("content") or "")})
    return out


def parse(text: str, offered: set[str]) -> Answer:
    """A call to an offered tool with object arguments, or a parse failure (the text as the answer)."""
    found = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        call = json.loads(found[0]) if found else None
    except ValueError:
        call = None
    if not isinstance(call, dict) or call.get("name") not in offered:
        return Answer(_text(text).message, malformed=True)
    arguments = call.get("arguments")
    function = {
        "name": call["name"],
        "arguments": json.dumps(arguments if isinstance(arguments, dict) else {}),
    }
    tool_call = {"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function", "function": function}
    return Answer({"role": "assistant", "content": None, "tool_calls": [tool_call]})


def _text(text: str) -> Answer:
    return Answer({"role": "assistant", "content": text or "(no answer)"})
