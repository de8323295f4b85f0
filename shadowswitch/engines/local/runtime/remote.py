"""The models behind serving engines (`engine.backend: remote`), so the proxy stays light.

- The sentence encoder through any OpenAI-compatible `/embeddings` (TEI, Infinity, vLLM).
- The LM's scoring through the legacy completions API with `echo` and `logprobs: 0`, which vLLM
  answers with the log-prob of every prompt token (SGLang speaks the same API; untested): a
  request's prefix and each continuation go as one prompt of token ids, the first alone and then
  the rest in one request, so the server's prefix cache can hold the shared part.
- Grammar-constrained values through vLLM's `structured_outputs` (its JSON-schema decoding).

Calls block: they run on the engine's own thread, as the in-process models do. A server that
cannot be reached, times out or answers 5xx raises `EngineUnavailable`: the request goes
generative, and the breaker does not count it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import httpx
import torch

from shadowswitch.engines.local.runtime.encoder import CachedEncoder
from shadowswitch.engines.local.runtime.lm import Prompt, PromptWriter
from shadowswitch.engines.local.runtime.models import ENCODER_ID
from shadowswitch.errors import EngineError, EngineUnavailable

TIMEOUT_S = 10.0  # a decision waits this long at most; then the upstream answers
BATCH = 64  # texts per embeddings request


class RemoteServer:
    """One serving engine: JSON over HTTP, its errors said in the engine's terms."""

    def __init__(self, url: str, unlisted: str, timeout_s: float = TIMEOUT_S) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.client = httpx.Client(base_url=url, timeout=timeout_s)
        self.model = self._served_model(unlisted)

    def _served_model(self, unlisted: str) -> str:
        """The model it serves, which requests name: the first `/models` lists, or `unlisted`
        where the server has no such list (TEI serves one model and ignores the name)."""
        try:
            data = self.call("GET", "/models").get("data") or []
        except EngineError as exc:
            if isinstance(exc, EngineUnavailable) or "HTTP 404" not in exc.message:
                raise
            return unlisted
        if not data or not isinstance(data[0], dict) or "id" not in data[0]:
            raise EngineError(f"{self.url}/models lists no model")
        return str(data[0]["id"])

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            response = self.client.request(method, path, json=body)
        except httpx.TimeoutException:
            raise EngineUnavailable(f"{self.url}{path} did not answer within {self.timeout_s:g} s") from None
        except httpx.HTTPError as exc:
            raise EngineUnavailable(f"{self.url}{path} cannot be reached ({type(exc).__name__})") from None
        if response.status_code >= 500 or response.status_code == 429:
            raise EngineUnavailable(f"{self.url}{path} answered HTTP {response.status_code}")
        if response.status_code >= 400:
            raise EngineError(f"{self.url}{path} answered HTTP {response.status_code}: {response.text[:300]}")
        try:
            answer = response.json()
        except ValueError:
            raise EngineError(f"{self.url}{path} answered something other than JSON") from None
        if not isinstance(answer, dict):
            raise EngineError(f"{self.url}{path} answered {type(answer).__name__}, not an object")
        return answer


class RemoteEncoder(CachedEncoder):
    """A sentence encoder behind an OpenAI-compatible embeddings server. Its name is the model the
    server serves: name it `all-MiniLM-L6-v2` (the embedded encoder) and the packaged prior holds."""

    def __init__(self, url: str, cache_size: int = 8192) -> None:
        super().__init__(cache_size)
        self.server = RemoteServer(url, unlisted=ENCODER_ID)
        self.name = self.server.model
        self.dim = int(self._encode(["dimension"]).shape[1])

    @property
    def cache_key(self) -> list[str]:
        return [self.server.url, self.name]

    def _encode(self, texts: Sequence[str]) -> torch.Tensor:
        if not texts:
            return torch.zeros(0, self.dim)
        rows: list[list[float]] = []
        for k in range(0, len(texts), BATCH):
            chunk = list(texts[k : k + BATCH])
            body = {"model": self.name, "input": chunk, "encoding_format": "float"}
            data = self.server.call("POST", "/embeddings", body).get("data")
            if not isinstance(data, list) or len(data) != len(chunk):
                raise EngineError(
                    f"{self.server.url}/embeddings answered {len(data or [])} vectors for {len(chunk)}"
                )
            rows += [item["embedding"] for item in sorted(data, key=lambda item: item["index"])]
        # Unit vectors whatever the server does: similarities are dot products.
        return torch.nn.functional.normalize(torch.tensor(rows, dtype=torch.float32), dim=-1)


class RemoteLanguageModel(PromptWriter):
    """The LM behind vLLM or SGLang. Prompts are written and tokenized here, with the model's own
    tokenizer (loaded from `engine.model`, without its weights), and sent as token ids, so the
    server scores exactly the tokens the in-process LM would."""

    def __init__(self, url: str, tokenizer: Any, name: str) -> None:
        super().__init__(tokenizer)
        self.server = RemoteServer(url, unlisted=name)
        self.vocab_size = len(tokenizer)

    def score_after(
        self, fixed: Prompt, variable: Prompt, continuations: Sequence[Sequence[int]]
    ) -> list[list[float]]:
        """Per-token log-probs of each continuation after `fixed + variable`."""
        head = self.ids(self.text(fixed)) + self.ids(self.text(variable))
        conts = [list(c) for c in continuations]
        asked = [k for k, c in enumerate(conts) if c]
        out: list[list[float]] = [[] for _ in conts]
        # The first continuation alone, then the rest in one request: a server's prefix cache holds
        # only what it has computed, so prompts sent together would each compute the shared head.
        for part in (asked[:1], asked[1:]):
            if part:
                self._score(head, conts, part, out)
        return out

    def _score(
        self, head: list[int], conts: list[list[int]], part: list[int], out: list[list[float]]
    ) -> None:
        body = {
            "model": self.server.model,
            "prompt": [head + conts[k] for k in part],
            "max_tokens": 0,
            "echo": True,
            "logprobs": 0,
            "temperature": 0,
        }
        choices = self.server.call("POST", "/completions", body).get("choices") or []
        if len(choices) != len(part):
            raise EngineError(
                f"{self.server.url}/completions answered {len(choices)} for {len(part)} prompts"
            )
        for choice in choices:
            k = part[int(choice["index"])]
            logprobs = (choice.get("logprobs") or {}).get("token_logprobs") or []
            scores = logprobs[len(head) : len(head) + len(conts[k])]
            if len(scores) != len(conts[k]) or any(s is None for s in scores):
                raise EngineError(f"{self.server.url}/completions gave no log-prob for some prompt tokens")
            out[k] = [float(s) for s in scores]

    def decode(self, fixed: Prompt, variable: Prompt, schema: dict[str, Any], max_tokens: int) -> Any:
        """The value the model writes after the prompt, constrained to `schema` by the server;
        raises ValueError when it does not finish (as the in-process decoder does)."""
        body = {
            "model": self.server.model,
            "prompt": self.ids(self.text(fixed)) + self.ids(self.text(variable)),
            "max_tokens": max_tokens,
            "temperature": 0,
            "structured_outputs": {"json": schema},
        }
        choices = self.server.call("POST", "/completions", body).get("choices") or [{}]
        if choices[0].get("finish_reason") == "length":
            raise ValueError("value did not finish within the token budget")
        return json.loads(choices[0].get("text") or "")
