"""Every replica's copy of the served learned states, polled from the database.

A promotion or a rollback by any replica or the CLI is seen within one poll (`POLL_S`); the
exemplars are reloaded then, and every `RELOAD_S` anyway so that exclusions by negative feedback
on another replica take effect too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import anyio
import numpy as np
from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.engines.local.learned_state import Unreliable
from shadowswitch.learning import fillers
from shadowswitch.learning.challenger import to_pair
from shadowswitch.learning.deferral import Deferral
from shadowswitch.learning.fit import args_rate
from shadowswitch.learning.head import Head
from shadowswitch.learning.memory import Memory, purposes, turn_key
from shadowswitch.learning.regions import in_force
from shadowswitch.learning.rules import calls_of, learned_rules, usual_parameters
from shadowswitch.learning.tuning import Packed, unpack
from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.tables import Exemplar, RegionCertificate

log = logging.getLogger(__name__)
POLL_S = 1.0
RELOAD_S = 30.0

Rules = tuple[dict[str, dict[str, Any]], Unreliable, dict[str, list[str]]]  # learned values, origins, usual


class ServedMemories:
    def __init__(self, store: ExemplarStore, on_version: Callable[[str, int], None] | None = None):
        self.store = store
        self.on_version = on_version  # a task type's served version changed here (0: the prior)
        self.memories: dict[str, Memory] = {}
        self.certificates: dict[str, RegionCertificate] = {}  # the newest per task type
        self._loaded_at: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None
        self._packed: dict[str, Packed] = {}  # tuned states unpacked, by digest
        self._rules: dict[str, tuple[int, Rules]] = {}  # per task type, by its exemplars' ids

    def get(self, task_type: str) -> Memory | None:
        return self.memories.get(task_type)

    def certified(self, task_type: str, version: int) -> float | None:
        """The certified threshold of `version` of the task type's state, if in force."""
        return in_force(self.certificates.get(task_type), version)

    def invalidate(self, task_type: str) -> None:
        self._loaded_at.pop(task_type, None)

    def refresh(self) -> None:
        """Load the states whose version changed (blocking: call from a worker thread)."""
        versions = self.store.served_versions()
        self._read_certificates()
        for task in set(self.memories) - set(versions):
            del self.memories[task]  # rolled back to the prior
            if self.on_version:
                self.on_version(task, 0)
        now = time.monotonic()
        for task, version in versions.items():
            held = self.memories.get(task)
            stale = now - self._loaded_at.get(task, -RELOAD_S) >= RELOAD_S
            if held is None or held.version != version or stale:
                memory = self.load(task)
                if memory is not None:
                    self.memories[task] = memory
                    if self.on_version and (held is None or held.version != memory.version):
                        self.on_version(task, memory.version)
                self._loaded_at[task] = now

    def _read_certificates(self) -> None:
        found = self.store.certificates.in_force()
        for task, row in found.items():
            known = self.certificates.get(task)
            if known is None or known.id != row.id:
                self.invalidate(task)  # the state's threshold is its certificate's: load it again
        self.certificates = found

    def load(self, task: str) -> Memory | None:
        state = self.store.served(task)
        if state is None:
            return None
        rows = fillers.kept(self.store.load(task, state.encoder, state.exemplar_max_id))
        packed = self._unpacked(state.tuned, state.tuned_sha256) if state.tuned else None
        if packed is not None:  # its exemplars as its tuned encoder read them
            rows = [r for r in rows if (r.id or 0) in packed.vectors]
        pairs = [to_pair(r) for r in rows]
        if packed is not None:
            pairs = packed.read(pairs)
        dim = len(rows[0].vector) // 4 if rows else 0
        vectors = np.stack([p.vector for p in pairs]) if pairs else np.zeros((0, dim))
        constants, unreliable, usual = self._learned(task, rows)
        return Memory(
            version=state.version,
            encoder=state.encoder,
            vectors=vectors.astype(np.float32),
            labels=np.array([r.label for r in rows], dtype=object),
            weight=state.memory_weight,
            min_confidence=_threshold(self.certified(task, state.version), state.min_confidence),
            constants=constants,
            usual=usual,
            calls=np.array([p.call(constants, unreliable) for p in pairs], dtype=np.float64),
            call_prior=args_rate(pairs),
            turns=np.array([turn_key(r.blocked, r.turn) for r in rows], dtype=object),
            purposes=purposes(pairs, dim),
            head=Head.from_bytes(state.head) if state.head else None,
            deferral=Deferral.from_json(((state.figures or {}).get("fitted") or {}).get("deferral")),
            unreliable=unreliable,
            tuned=packed.tuned if packed is not None else None,
            tuned_digest=state.tuned_sha256,
        )

    def _learned(self, task: str, rows: list[Exemplar]) -> Rules:
        """The state's learned values and usual parameters, fitted again only when its exemplars
        changed: the reload every `RELOAD_S` (for exclusions) would otherwise fit them each time,
        0.2 s of the GIL on 400 pairs."""
        key = hash(tuple(r.id for r in rows))
        found = self._rules.get(task)
        if found is None or found[0] != key:
            calls, optional = calls_of(rows)
            found = (key, (*learned_rules(calls, optional), usual_parameters(calls)))
            self._rules[task] = found
        return found[1]

    def _unpacked(self, data: bytes, digest: str | None) -> Packed:
        """A tuned state's layers and vectors, unpacked once (the state is reloaded every
        `RELOAD_S`; the engine keeps its tuned encoder by the same digest)."""
        found = self._packed.get(digest) if digest else None
        if found is None:
            found = unpack(data)
            if digest:
                self._packed = {**dict(list(self._packed.items())[-7:]), digest: found}  # 8 at most
        return found

    def withdrawn(self, row: RegionCertificate) -> None:
        """A withdrawal made here: in force at once, not at the next poll."""
        self.certificates[row.task_type] = row
        self.invalidate(row.task_type)

    async def _run(self) -> None:
        while True:
            try:
                await anyio.to_thread.run_sync(self.refresh)
            except SQLAlchemyError:
                log.exception("learning: could not read the served states; trying again")
            await asyncio.sleep(POLL_S)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="learned-states")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def _threshold(certified: float | None, fitted: float) -> float:
    """The state serves from its certified threshold; uncertified, the pipeline serves none."""
    return fitted if certified is None else certified
