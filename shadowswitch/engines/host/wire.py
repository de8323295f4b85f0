"""What crosses the engine socket: a job and its answer, pickled; learned states by digest."""

from __future__ import annotations

import hashlib
import pickle
import weakref
from dataclasses import dataclass
from typing import Any

from shadowswitch.engines.base import Choice
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

CONTENT_TYPE = "application/x-python-pickle"
MEMORY_UNKNOWN = 409  # the engine has not seen this learned state: send it again with its bytes


@dataclass
class Job:
    """One request for the engine: decide, or fill `tool` (learning's pairs)."""

    request: ChatView
    policy: Policy
    tool: str | None = None
    memory_digest: str | None = None
    memory: bytes | None = None  # the pickled state, sent only when the engine asks for it
    background: bool = False  # no user waits for it (engines.priority)


@dataclass
class Failure:
    """The engine's answer when it could not decide: the exception's kind and message."""

    kind: str  # "unsupported" (the request's fault), "error", "unavailable"
    message: str


def dump(value: Job | Choice | Failure) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def load(data: bytes) -> Any:
    return pickle.loads(data)


class Digests:
    """Each learned state pickled once, named by its content's hash: a worker sends a state's
    bytes (a megabyte at 1,000 exemplars) only when the engine asks, not on every request."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[weakref.ref[Any], str, bytes]] = {}

    def of(self, memory: Any) -> tuple[str, bytes]:
        found = self._known.get(id(memory))
        if found is not None and found[0]() is memory:
            return found[1], found[2]
        data = pickle.dumps(memory, protocol=pickle.HIGHEST_PROTOCOL)
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        self._known = {k: v for k, v in self._known.items() if v[0]() is not None}  # drop dead states
        self._known[id(memory)] = (weakref.ref(memory), digest, data)
        return digest, data
