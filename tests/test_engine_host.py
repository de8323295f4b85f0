"""`serve --workers 2` loads the local models once, in an engine process its workers share.

Real processes: the CLI, uvicorn's two workers, the engine process with the real embedded
models, a real upstream over HTTP, the `openai` SDK as the agent, SQLite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import numpy as np
import pytest
from openai import OpenAI

from bench.overhead.processes import children, process_tree, started
from shadowswitch.engines.host import SharedEngine
from shadowswitch.errors import EngineUnavailable, UnsupportedRequest
from shadowswitch.learning.memory import Memory
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.decisions import recorded_errors
from tests.support.policies import ROOMY, TOOLS, write_policies
from tests.support.servers import free_port
from tests.support.wait import eventually

POLICY = {
    "task_type": "travel",
    "match": {"tools_include": ["search_flights", "book_hotel"]},
    "rollout": {"mode": "canary", "percent": 100},
    "engine": {"min_confidence": 0.0, "min_margin": 0.0, "allow_no_tool": False},
    "breaker": {"consecutive_failures": 2, "reprobe_after_s": 0},
}
HOTEL = [{"role": "user", "content": "Book me a hotel in Rome for 3 nights"}]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _rss_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _engines(root: int) -> list[int]:
    return [p for p in process_tree(root) if "shadowswitch.engines.host" in _cmdline(p)]


@pytest.mark.slow
def test_workers_share_one_engine_and_fall_back_while_it_is_away(tmp_path: Path, upstream: str) -> None:
    policies = write_policies(tmp_path / "policies", upstream, POLICY)
    db = tmp_path / "host.db"
    port = free_port()
    cmd = [sys.executable, "-m", "shadowswitch.cli", "serve", "--workers", "2", "--port", str(port)]
    cmd += ["--policies", str(policies), "--db", f"sqlite:///{db}"]
    with started(cmd, f"http://127.0.0.1:{port}/readyz", tmp_path / "serve.log", timeout_s=300) as server:
        client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)

        def ask() -> tuple[str, str]:
            raw = client.chat.completions.with_raw_response.create(
                model="travel-agent-step", messages=HOTEL, tools=TOOLS
            )
            call = raw.parse().choices[0].message.tool_calls
            assert call and call[0].function.name == "book_hotel"
            return raw.headers["x-shadowswitch-path"], raw.headers["x-shadowswitch-decision-id"]

        engines = _engines(server.pid)
        assert len(engines) == 1, [_cmdline(p) for p in process_tree(server.pid)]
        # /readyz answered from one worker; the other may still be connecting to the engine.
        eventually(lambda: {ask()[0] for _ in range(4)} == {"local"}, timeout_s=60, interval_s=0.5)
        # Enough requests that both workers answer: every one of them locally, by the one engine.
        assert {ask()[0] for _ in range(8)} == {"local"}
        # uvicorn's workers, forked from multiprocessing's forkserver (the forkserver's children)
        forkserver = [p for p in children(server.pid) if "multiprocessing.forkserver" in _cmdline(p)]
        workers = [p for s in forkserver for p in children(s)]
        assert len(workers) == 2
        # The models live in the engine process; a worker holds the proxy, not a second copy.
        assert all(_rss_mb(w) < 0.6 * _rss_mb(engines[0]) for w in workers), (
            [_rss_mb(w) for w in workers],
            _rss_mb(engines[0]),
        )

        os.kill(engines[0], signal.SIGKILL)
        # While it is away: the upstream answers, and the breaker (2 failures trip it) counts nothing.
        away = [ask() for _ in range(4)]
        assert all(path == "fallback" for path, _ in away), away
        errors = recorded_errors(db, [decision for _, decision in away])
        assert all(e and "local engine unavailable" in e for e in errors), errors

        eventually(lambda: len(_engines(server.pid)) == 1, timeout_s=30, what="the engine restarted")
        eventually(lambda: ask()[0] == "local", timeout_s=300, interval_s=1, what="served locally again")


UNLOCK = {
    "type": "function",
    "function": {
        "name": "unlock_account",
        "description": "Unlock a user's account",
        "parameters": {
            "type": "object",
            "properties": {"username": {"type": "string", "description": "the account's username"}},
            "required": ["username"],
        },
    },
}


@pytest.mark.slow
async def test_a_learned_state_crosses_the_socket_once_and_decides_in_the_engine(tmp_path: Path) -> None:
    policy = {"task_type": "helpdesk", "match": {"model": "m"}}
    broken = {
        "task_type": "broken",
        "match": {"model": "b"},
        "engine": {"model": str(tmp_path / "none.gguf")},
    }
    policies = write_policies(tmp_path / "policies", "http://127.0.0.1:9/v1", policy, broken)
    socket = tmp_path / "engine.sock"
    env = {**os.environ, "SHADOWSWITCH_POLICIES": str(policies)}
    with (tmp_path / "engine.log").open("wb") as log:
        command = [sys.executable, "-m", "shadowswitch.engines.host", "--socket", str(socket)]
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        engine = await anyio.to_thread.run_sync(SharedEngine.connect, socket, 300.0)
        posts: list[bool] = []  # whether each POST carried the learned state's bytes
        real = engine._post

        async def counted(job: Any) -> Any:
            posts.append(job.memory is not None)
            return await real(job)

        engine._post = counted  # type: ignore[method-assign]
        text_ = "Please unlock the account of user 'annsmith'"
        view = ChatView.parse(
            {"model": "m", "messages": [{"role": "user", "content": text_}], "tools": [UNLOCK]}
        )
        rules = Policy.model_validate(
            {
                "task_type": "helpdesk",
                "engine": {**ROOMY, "min_confidence": 0.0, "min_margin": 0.0, "allow_no_tool": False},
            }
        )
        empty = Memory(1, "all-MiniLM-L6-v2", np.zeros((0, 384), np.float32), np.array([], object), 0.0, 0.0)
        distrusted = replace(empty, unreliable={"unlock_account": {"username": ("text:last_user",)}})
        plain = await engine.decide(view, rules, empty)
        assert plain.arguments == {"username": "annsmith"} and plain.abstain_reason is None, plain
        vetoed = await engine.decide(view, rules, distrusted)  # the engine applies what it was sent
        assert vetoed.abstain_reason == "unreliable_value:username (text:last_user)", vetoed
        assert (await engine.decide(view, rules, distrusted)).abstain_reason == vetoed.abstain_reason
        # each state asked for once (409), then sent with its bytes; after that, named by digest
        assert posts == [False, True, False, True, False]
        assert await anyio.to_thread.run_sync(engine.region_of, "Paris") == "Paris, France"

        odd = {
            **UNLOCK,
            "function": {**UNLOCK["function"], "parameters": {"type": "object", "$ref": "#/nowhere"}},
        }
        with pytest.raises(UnsupportedRequest):  # the request's fault, said as in one process
            await engine.decide(ChatView.parse({**view.raw, "tools": [odd]}), rules)
        # a policy's model that cannot be loaded: its requests go generative, the others are served
        bad = rules.model_copy(
            update={"engine": rules.engine.model_copy(update={"model": broken["engine"]["model"]})}
        )
        with pytest.raises(EngineUnavailable, match="could not be loaded"):
            await engine.decide(view, bad)
        process.kill()
        process.wait()
        with pytest.raises(EngineUnavailable):
            await engine.decide(view, rules)
    finally:
        process.kill()
        process.wait()
