"""The "generate" baselines: the same small LM writes the tool call as JSON, free or constrained.

Both see the same prompt: the chat template with the tools described in the
system prompt (SmolLM2's template has no tool support), greedy decoding.
The constrained one masks the logits with xgrammar so that only a JSON object
`{"name": <offered tool>, "arguments": <that tool's schema>}` or
`{"name": null}` (no tool) can come out.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from bench.bfcl.checker import Call
from bench.bfcl.data import BfclCase

INSTRUCTIONS = (
    "You are a function-calling assistant. You can call these tools:\n{tools}\n\n"
    'To call a tool, reply with only a JSON object: {{"name": "<tool name>", "arguments": '
    '{{"<parameter>": <value>}}}}. If none of the tools fits the request, reply with '
    '{{"name": null}}.'
)
NO_TOOL_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "null"}},
    "required": ["name"],
    "additionalProperties": False,
}


@dataclass
class Generation:
    """One baseline answer: the raw text, the calls parsed from it (None: unparseable)."""

    text: str
    calls: list[Call] | None
    latency_ms: float
    new_tokens: int
    timings_ms: dict[str, float] = field(default_factory=dict)
    error: str | None = None


def system_prompt(case: BfclCase) -> str:
    """The tools as compact JSON function docs, and how to answer."""
    functions = [tool["function"] for tool in case.tools]
    return INSTRUCTIONS.format(tools=json.dumps(functions, separators=(",", ":")))


def prompt_messages(case: BfclCase) -> list[dict[str, str]]:
    """The case's turns with the tool instructions put first in (or as) the system message."""
    messages = [dict(m) for m in case.request["messages"]]
    instructions = system_prompt(case)
    if messages and messages[0]["role"] == "system":
        messages[0]["content"] = instructions + "\n\n" + messages[0]["content"]
        return messages
    return [{"role": "system", "content": instructions}, *messages]


def call_from_object(obj: Any) -> list[Call] | None:
    """A decoded JSON value → calls ([] for an explicit no-tool), None if it is not a call."""
    if isinstance(obj, list):
        calls = [call_from_object(item) for item in obj]
        return None if any(c is None for c in calls) else [x for c in calls for x in c or []]
    if not isinstance(obj, dict) or "name" not in obj:
        return None
    if obj["name"] is None:
        return []
    arguments = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return None
    if not isinstance(obj["name"], str) or not isinstance(arguments, dict):
        return None
    return [Call(obj["name"], arguments)]


def parse_calls(text: str) -> list[Call] | None:
    """Calls from generated text: the first JSON value in it; plain text means no call."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return []
    try:
        obj, _ = json.JSONDecoder().raw_decode(text[min(starts) :])
    except json.JSONDecodeError:
        return None
    return call_from_object(obj)


def call_schema(case: BfclCase) -> dict[str, Any]:
    """anyOf {name: const tool, arguments: its schema} over the offered tools, plus no-tool."""
    options: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {
                "name": {"const": tool["function"]["name"]},
                "arguments": tool["function"].get("parameters", {"type": "object"}),
            },
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for tool in case.tools
    ]
    return {"anyOf": [*options, NO_TOOL_SCHEMA]}


def json_complete(text: str) -> bool:
    """True once the text holds a whole JSON object (what a free generation should stop at)."""
    start = text.find("{")
    if start < 0:
        return False
    try:
        json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError:
        return False
    return True


def json_done_criterion(tokenizer: Any, prompt_len: int) -> Any:
    """A transformers StoppingCriteria: stop free generation when a JSON object is complete.

    Without it the model would pad a finished call with prose up to the token
    limit, and the baseline would look slower than it needs to be.
    """
    import torch
    from transformers import StoppingCriteria

    class JsonDone(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            text = tokenizer.decode(input_ids[0, prompt_len:], skip_special_tokens=True)
            return torch.tensor([json_complete(text)], dtype=torch.bool)

    return JsonDone()


class Generator:
    """Runs both baselines on one loaded causal LM (greedy, `max_new_tokens` at most)."""

    def __init__(self, model: Any, tokenizer: Any, max_new_tokens: int = 128) -> None:
        import xgrammar as xgr

        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=model.config.vocab_size)
        self.compiler = xgr.GrammarCompiler(info, cache_enabled=False)

    def warm_up(self) -> None:
        """One short generation, so the first measured case pays no first-call costs."""
        import torch

        ids = self.tokenizer("Hello", return_tensors="pt")
        with torch.inference_mode():
            self.model.generate(
                **ids, max_new_tokens=2, do_sample=False, pad_token_id=self.tokenizer.eos_token_id
            )

    def free(self, case: BfclCase) -> Generation:
        """Free JSON generation: write the call as text, then parse it."""
        start = time.perf_counter()
        text, new_tokens = self._generate(case, [], stop_at_json=True)
        latency = (time.perf_counter() - start) * 1000
        return Generation(text, parse_calls(text), latency, new_tokens, {"generate": latency})

    def constrained(self, case: BfclCase) -> Generation:
        """Grammar-constrained generation: only a schema-valid call or no-tool can come out."""
        import xgrammar as xgr

        start = time.perf_counter()
        try:
            grammar = self.compiler.compile_json_schema(
                json.dumps(call_schema(case)), any_whitespace=False, strict_mode=True
            )
        except (RuntimeError, ValueError) as exc:  # a schema xgrammar cannot compile
            latency = (time.perf_counter() - start) * 1000
            return Generation("", None, latency, 0, {}, f"grammar: {exc}"[:300])
        compiled = time.perf_counter()
        text, new_tokens = self._generate(case, [xgr.contrib.hf.LogitsProcessor(grammar)])
        end = time.perf_counter()
        timings = {"grammar": (compiled - start) * 1000, "generate": (end - compiled) * 1000}
        return Generation(text, parse_calls(text), (end - start) * 1000, new_tokens, timings)

    def _generate(self, case: BfclCase, processors: list[Any], stop_at_json: bool = False) -> tuple[str, int]:
        import torch

        ids = self.tokenizer.apply_chat_template(
            prompt_messages(case),
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
        )
        prompt_len = ids["input_ids"].shape[1]
        stops = [json_done_criterion(self.tokenizer, prompt_len)] if stop_at_json else None
        with torch.inference_mode():
            out = self.model.generate(
                **ids,
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                logits_processor=processors or None,
                stopping_criteria=stops,
                pad_token_id=self.tokenizer.eos_token_id,
            )
        new = out[0, prompt_len:]
        return self.tokenizer.decode(new, skip_special_tokens=True), int(new.shape[0])


def load_generator(model_spec: str = "embedded", max_new_tokens: int = 128) -> Generator:
    """Load the LM (the engine's loader and cache, so both sides use the same weights)."""
    from shadowswitch.engines.local.runtime.models import default_cache_dir, load_lm

    model, tokenizer = load_lm(model_spec, default_cache_dir())
    return Generator(model, tokenizer, max_new_tokens)
