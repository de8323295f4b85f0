"""The generative path: forward a Chat Completions request to an upstream through LiteLLM."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import random
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from shadowswitch.errors import UpstreamError, UpstreamRateLimited, UpstreamTimeout
from shadowswitch.policy.models import Upstream
from shadowswitch.redact import safe_text

log = logging.getLogger(__name__)
T = TypeVar("T")
RETRY_STATUSES = {500, 502, 503}  # answers that say "try again"; 504 already spent the wait
MAX_WAIT_S = 2.0  # a longer Retry-After is the agent's to honour, not ours to sit out
# Failures of the connection itself (builtin, httpx, aiohttp): the request may not have arrived.
NETWORK_ERRORS = {"ConnectionError", "NetworkError", "RemoteProtocolError", "ClientConnectionError"}
LITELLM_PREFIX = re.compile(r"^(?:(?:litellm\.)?\w*(?:Error|Exception|Timeout)\s*[:-]\s*)+")

# Parameters that shadowswitch or LiteLLM own; everything else goes to the upstream as sent.
_OWN = {"model", "messages", "stream", "metadata", "api_base", "api_key", "base_url", "timeout"}
# A cost-map entry for an upstream model LiteLLM does not list: free, and nothing else claimed.
UNLISTED_PRICE = {
    "input_cost_per_token": 0.0,
    "output_cost_per_token": 0.0,
    "cache_creation_input_token_cost": 0.0,  # named, or LiteLLM warns once per model
    "cache_read_input_token_cost": 0.0,
    "litellm_provider": "openai",
    "mode": "chat",
}
MAX_LISTED = 256  # the request may name the model: bound what it can add to LiteLLM's map


def _litellm() -> Any:
    import litellm  # after `stay_offline()` at start-up: its cost map then loads from disk

    litellm.suppress_debug_info = True
    # No LiteLLM callback is ever registered here (shadowswitch records every call itself), so its
    # per-chunk logging work (a thread-pool task per streamed chunk) only costs CPU.
    litellm.disable_streaming_logging = True
    return litellm


class LiteLLMEngine:
    """GenerativeEngine over `litellm.acompletion`; upstream errors become UpstreamError, and the
    ones that may pass are retried a bounded number of times."""

    def __init__(self, retries: int = 2, backoff_s: float = 0.25) -> None:
        self._litellm = _litellm()
        self._clients: dict[tuple[Any, ...], Any] = {}
        self._priced: set[str] = set()  # models whose cost-map entry was checked (and made if missing)
        self.retries = retries  # ours, the only retry layer: LiteLLM's and the SDK's are off
        self.backoff_s = backoff_s

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
            # Retries happen in `_retrying` alone, which knows whether a byte was streamed:
            # LiteLLM's own (num_retries) and the OpenAI SDK's (max_retries) would stack on it.
            num_retries=0,
            max_retries=0,
        )
        if upstream.api_base:
            kwargs["api_base"] = upstream.api_base
        if upstream.auth == "passthrough":
            kwargs["api_key"] = upstream.caller_key or "not-given"  # the pipeline refuses a request without
        elif upstream.api_key_env:
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
            self._list_price(kwargs["model"])
        return kwargs

    def _list_price(self, model: str) -> None:
        """Give an OpenAI-compatible upstream's model a zero price in LiteLLM's cost map, once,
        when the map lacks it.

        LiteLLM prices every answer (for its own logs and headers; shadowswitch reads neither),
        several times per call; for a model its map lacks, each look-up searches its naming rules
        and ends in an exception, uncached: about a tenth of a call's CPU. Listed, it is a cached
        hit. Only the price is claimed, no capability, so LiteLLM builds the same request; the
        entry stays out of its provider lists, so no bare model name starts resolving to it."""
        if model in self._priced or len(self._priced) >= MAX_LISTED:
            return
        self._priced.add(model)
        try:
            self._litellm.get_model_info(model)
            return  # listed, or named like a listed family: its look-ups already hit
        except Exception:
            pass
        try:
            self._litellm.register_model({model: dict(UNLISTED_PRICE)}, add_to_provider_model_sets=False)
        except TypeError:  # a LiteLLM without that keyword would add it to its provider lists
            log.debug("LiteLLM cannot list %s without adding it to its provider lists", model)

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
        response = await self._retrying(lambda: self._litellm.acompletion(**kwargs), kwargs)
        body = dict(response.model_dump())
        if not body.get("choices"):
            raise UpstreamError("upstream answered without 'choices'", code="upstream_malformed")
        return body

    async def open_stream(self, request: dict[str, Any], upstream: Upstream) -> AsyncIterator[dict[str, Any]]:
        """Start a stream: failures up to its first chunk raise here, before any byte reaches the
        client, and only they are retried."""
        kwargs = self._kwargs(request, upstream)

        async def start() -> tuple[Any, AsyncIterator[Any]]:
            stream = await self._litellm.acompletion(stream=True, **kwargs)
            iterator = stream.__aiter__()
            try:
                return await iterator.__anext__(), iterator
            except StopAsyncIteration:
                return None, iterator

        first, rest = await self._retrying(start, kwargs)
        return _chunks(first, rest, partial(self.convert, secret=kwargs.get("api_key")))

    async def _retrying(self, attempt: Callable[[], Awaitable[T]], kwargs: dict[str, Any]) -> T:
        """`attempt()`, tried again after a failure that may pass (unreachable, 500/502/503), at most
        `retries` more times, with a growing wait, and never beyond the upstream's timeout."""
        started = time.monotonic()
        for tries in itertools.count(1):
            try:
                return await attempt()
            except Exception as exc:
                error = self.convert(exc, secret=kwargs.get("api_key"))
                wait = self.backoff_s * 2 ** (tries - 1) * random.uniform(0.5, 1.5)
                wait = max(wait, _retry_after_s(exc) or 0.0)
                if (
                    not error.retryable
                    or tries > self.retries
                    or wait > MAX_WAIT_S
                    or time.monotonic() - started + wait > kwargs["timeout"]
                ):
                    if tries > 1:
                        error.message += f" (after {tries} attempts)"
                    raise error from None  # the chain may quote the upstream's body: never log it
                log.warning(
                    "upstream failed (%s); attempt %d of %d in %.2f s",
                    error.message,
                    tries + 1,
                    self.retries + 1,
                    wait,
                )
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    def convert(self, exc: Exception, secret: str | None = None) -> UpstreamError:
        """An upstream failure as the agent should see it: 504 timeout, 429 with its Retry-After,
        the upstream's other 4xx as they are, 502 for the rest; no key or internals in the text."""
        if isinstance(exc, UpstreamError):
            return exc
        text = _message(exc, secret)
        names = _chain(exc)
        status = getattr(exc, "status_code", None)
        if names & {"Timeout", "APITimeoutError", "TimeoutError", "TimeoutException"}:
            return UpstreamTimeout(f"upstream timed out: {text}")
        if names & NETWORK_ERRORS:
            return UpstreamError(f"upstream unreachable: {text}", code="upstream_unreachable", retryable=True)
        if "APIConnectionError" in names:  # LiteLLM could not even build the upstream request
            return UpstreamError(
                f"the request cannot be sent upstream: {text}", status_code=400, code="invalid_request"
            )
        if status == 429:
            return UpstreamRateLimited(f"upstream rate limit: {text}", _retry_after(exc))
        if isinstance(status, int) and 400 <= status < 500 and status != 408:
            return UpstreamError(f"upstream rejected the request: {text}", status_code=status, code=None)
        if isinstance(status, int) and status >= 500 and "HTTPStatusError" in names:
            retryable = status in RETRY_STATUSES
            return UpstreamError(f"upstream failed (HTTP {status}): {text}", retryable=retryable)
        return UpstreamError(f"upstream answered no valid completion: {text}", code="upstream_malformed")


def _chain(exc: BaseException) -> set[str]:
    """The class names (with their bases) along an exception's cause/context chain."""
    names: set[str] = set()
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        names.update(cls.__name__ for cls in type(link).__mro__)
        link = link.__cause__ or link.__context__
    return names


def _message(exc: Exception, secret: str | None) -> str:
    """The upstream's own words, without LiteLLM's class-name prefixes, keys or internals."""
    raw = str(getattr(exc, "message", None) or exc).split(" Original exception:")[0]
    text = LITELLM_PREFIX.sub("", raw.strip()) or type(exc).__name__
    return safe_text(text, [secret] if secret else [])


def _retry_after(exc: Exception) -> str | None:
    for source in (getattr(getattr(exc, "response", None), "headers", None), getattr(exc, "headers", None)):
        try:
            value = source.get("retry-after") if source is not None else None
        except AttributeError:
            continue
        if value:
            return str(value)
    return None


def _retry_after_s(exc: Exception) -> float | None:
    value = _retry_after(exc)
    try:
        return float(value) if value else None
    except ValueError:
        return None  # an HTTP date: too far ahead to wait for here anyway


async def _chunks(
    first: Any, rest: AsyncIterator[Any], convert: Callable[[Exception], UpstreamError]
) -> AsyncIterator[dict[str, Any]]:
    if first is None:
        return
    yield dict(first.model_dump(exclude_none=True))
    count = 1
    try:
        async for chunk in rest:
            count += 1
            yield dict(chunk.model_dump(exclude_none=True))
    except Exception as exc:  # past the first byte: never retried, the client learns in-stream
        error = convert(exc)
        error.message = f"upstream stream broke off after {count} chunks: {error.message}"
        raise error from None
