"""The generative path: forward a Chat Completions request to an upstream through LiteLLM."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

from shadowswitch.errors import UpstreamError, UpstreamTimeout
from shadowswitch.policy.models import Upstream

# Parameters that shadowswitch or LiteLLM own; everything else goes to the upstream as sent.
_OWN = {"model", "messages", "stream", "metadata", "api_base", "api_key", "base_url", "timeout"}


def _litellm() -> Any:
    import litellm  # after `stay_offline()` at start-up: its cost map then loads from disk

    litellm.suppress_debug_info = True
    # No LiteLLM callback is ever registered here (shadowswitch records every call itself), so its
    # per-chunk logging work (a thread-pool task per streamed chunk) only costs CPU.
    litellm.disable_streaming_logging = True
    return litellm


class LiteLLMEngine:
    """GenerativeEngine over `litellm.acompletion`; upstream errors become UpstreamError."""

    def __init__(self) -> None:
        self._litellm = _litellm()
        self._clients: dict[tuple[Any, ...], Any] = {}

    async def warm_up(self) -> None:
        """LiteLLM imports much on its first call (over a second): pay that at start, not on a request."""
        messages = [{"role": "user", "content": "warm-up"}]
        await self._litellm.acompletion(model="openai/warm-up", messages=messages, mock_response="ok")
        stream = await self._litellm.acompletion(
            model="openai/warm-up", messages=messages, mock_response="ok", stream=True
        )
        async for _chunk in stream:
            pass

    def upstream_model(self, request: dict[str, Any], upstream: Upstream) -> str:
        model = upstream.model or str(request.get("model") or "")
        if not model:
            raise UpstreamError("no upstream model: the request has no 'model' and the policy none")
        if upstream.api_base and "/" not in model:
            model = f"openai/{model}"  # a bare name behind an api_base: OpenAI-compatible
        return model

    def _kwargs(self, request: dict[str, Any], upstream: Upstream) -> dict[str, Any]:
        kwargs = {k: v for k, v in request.items() if k not in _OWN and v is not None}
        kwargs.update(
            model=self.upstream_model(request, upstream),
            messages=request["messages"],
            timeout=upstream.timeout_s,
            num_retries=0,
            max_retries=0,
        )
        if upstream.api_base:
            kwargs["api_base"] = upstream.api_base
        if upstream.api_key_env:
            key = os.environ.get(upstream.api_key_env)
            if not key:
                raise UpstreamError(
                    f"environment variable {upstream.api_key_env} (upstream.api_key_env) is not set"
                )
            kwargs["api_key"] = key
        elif upstream.api_base:
            kwargs["api_key"] = "not-needed"  # local OpenAI-compatible servers take any key
        if upstream.api_base and kwargs["model"].startswith("openai/"):
            kwargs["client"] = self._client(upstream.api_base, kwargs["api_key"], upstream.timeout_s)
        return kwargs

    def _client(self, api_base: str, api_key: str, timeout: float) -> Any:
        """One OpenAI client per OpenAI-compatible upstream (and event loop), built as LiteLLM builds
        its own, over its aiohttp transport: a call then skips LiteLLM's per-call client lookup."""
        key = (api_base, api_key, timeout, asyncio.get_running_loop())  # the loop, not its id: ids recur
        if key not in self._clients:
            from litellm.llms.openai.openai import OpenAIChatCompletion
            from openai import AsyncOpenAI

            transport: Any = OpenAIChatCompletion._get_async_http_client()  # LiteLLM's aiohttp one
            self._clients[key] = AsyncOpenAI(
                api_key=api_key,
                base_url=api_base,
                http_client=transport,
                timeout=timeout,
                max_retries=0,
            )
        return self._clients[key]

    async def complete(self, request: dict[str, Any], upstream: Upstream) -> dict[str, Any]:
        kwargs = self._kwargs(request, upstream)
        try:
            response = await self._litellm.acompletion(**kwargs)
        except Exception as exc:
            raise self.convert(exc) from exc
        return dict(response.model_dump())

    async def open_stream(self, request: dict[str, Any], upstream: Upstream) -> AsyncIterator[dict[str, Any]]:
        """Start a stream; connection errors raise here, before any byte reaches the client."""
        kwargs = self._kwargs(request, upstream)
        try:
            stream = await self._litellm.acompletion(stream=True, **kwargs)
            iterator = stream.__aiter__()
            first = await iterator.__anext__()
        except StopAsyncIteration:
            return _chunks(None, None, self)
        except Exception as exc:
            raise self.convert(exc) from exc
        return _chunks(first, iterator, self)

    def convert(self, exc: Exception) -> UpstreamError:
        if isinstance(exc, UpstreamError):
            return exc
        name = type(exc).__name__
        message = str(getattr(exc, "message", None) or exc).strip() or name
        if isinstance(exc, self._litellm.Timeout) or "timeout" in name.lower():
            return UpstreamTimeout(f"upstream timed out: {message}")
        status = getattr(exc, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500 and status != 408:
            return UpstreamError(f"upstream rejected the request: {message}", status_code=status)
        return UpstreamError(f"upstream failed ({name}): {message}", code="upstream_error")


async def _chunks(
    first: Any, rest: AsyncIterator[Any] | None, engine: LiteLLMEngine
) -> AsyncIterator[dict[str, Any]]:
    if first is None or rest is None:
        return
    yield dict(first.model_dump(exclude_none=True))
    try:
        async for chunk in rest:
            yield dict(chunk.model_dump(exclude_none=True))
    except Exception as exc:
        raise engine.convert(exc) from exc
