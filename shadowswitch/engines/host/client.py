"""`SharedEngine`: a worker's local engine, answered by the host's engine process (server.py)."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import httpx

from shadowswitch.engines.base import Choice
from shadowswitch.engines.host import wire
from shadowswitch.engines.priority import in_background
from shadowswitch.errors import EngineError, EngineUnavailable, UnsupportedRequest
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

if TYPE_CHECKING:
    from shadowswitch.engines.local.learned_state import LearnedState

log = logging.getLogger(__name__)
BASE = "http://engine"  # the host part of a URL on a Unix socket is never looked up
# A decision waits for the others batched with it; on 2 busy cores that is seconds, not minutes.
TIMEOUT = httpx.Timeout(60.0, connect=2.0)
READY_WAIT_S = 900.0  # loading the models on a slow machine, the first time (dequantising)


class SharedEngine:
    """A `ModelEngine` for every model: the engine process decides; this worker loads nothing.

    A worker that cannot reach the engine (stopped, restarting, loading a model) gets
    `EngineUnavailable`: the request goes generative and the breaker does not count it."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket
        self.digests = wire.Digests()
        self._client: httpx.AsyncClient | None = None
        self._sync: httpx.Client | None = None

    @classmethod
    def connect(cls, socket: Path, wait_s: float = READY_WAIT_S) -> SharedEngine:
        """Wait (blocking: call it off the event loop) until the engine process has its models."""
        deadline, said = time.monotonic() + wait_s, False
        with httpx.Client(transport=httpx.HTTPTransport(uds=str(socket)), base_url=BASE, timeout=5) as client:
            while True:
                try:
                    if client.get("/health").status_code == 200:
                        return cls(socket)
                except httpx.TransportError:
                    pass  # not listening yet
                if time.monotonic() > deadline:
                    raise EngineUnavailable(
                        f"the engine process on {socket} did not get ready in {wait_s:.0f} s"
                    )
                if not said:
                    log.info("waiting for the engine process on %s to load the models", socket)
                    said = True
                time.sleep(0.5)

    @property
    def ready(self) -> bool:
        return True  # a request that finds it away falls back without counting (`EngineUnavailable`)

    async def decide(self, request: ChatView, policy: Policy, memory: LearnedState | None = None) -> Choice:
        return await self._ask(wire.Job(request, policy, background=in_background()), memory)

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: LearnedState | None = None
    ) -> Choice:
        return await self._ask(wire.Job(request, policy, tool, background=True), memory)

    def region_of(self, name: str) -> str | None:
        """The engine's place table (learning's `region` rewrite). Blocking: not on the event loop."""
        if self._sync is None:  # one pooled client for every lookup (httpx clients are thread-safe)
            transport = httpx.HTTPTransport(uds=str(self.socket))
            self._sync = httpx.Client(transport=transport, base_url=BASE, timeout=5)
        try:
            found: str | None = self._sync.get("/region", params={"name": name}).json()["region"]
            return found
        except (httpx.HTTPError, ValueError, KeyError):
            return None  # unsure: no rewrite is explained by it

    async def _ask(self, job: wire.Job, memory: LearnedState | None) -> Choice:
        if memory is not None:
            job.memory_digest, data = await anyio.to_thread.run_sync(self.digests.of, memory)
        answer = await self._post(job)
        if answer is None and memory is not None:  # the engine has not seen this state yet
            job.memory = data
            answer = await self._post(job)
        if isinstance(answer, Choice):
            return answer
        if isinstance(answer, wire.Failure):
            raise {"unsupported": UnsupportedRequest, "unavailable": EngineUnavailable}.get(
                answer.kind, EngineError
            )(answer.message)
        raise EngineError(f"the engine process answered {type(answer).__name__}")

    async def _post(self, job: wire.Job) -> Choice | wire.Failure | None:
        body = await anyio.to_thread.run_sync(wire.dump, job) if job.memory else wire.dump(job)
        try:
            response = await self.client.post(
                "/job", content=body, headers={"content-type": wire.CONTENT_TYPE}
            )
        except httpx.TransportError as exc:  # stopped, restarting, or killed mid-request
            raise EngineUnavailable(f"the engine process cannot be reached ({type(exc).__name__})") from None
        if response.status_code == wire.MEMORY_UNKNOWN:
            return None
        if response.status_code != 200:
            raise EngineUnavailable(f"the engine process answered HTTP {response.status_code}")
        answer: Choice | wire.Failure = wire.load(response.content)
        return answer

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:  # made on the worker's event loop, on first use
            transport = httpx.AsyncHTTPTransport(uds=str(self.socket))
            self._client = httpx.AsyncClient(transport=transport, base_url=BASE, timeout=TIMEOUT)
        return self._client
