"""CI: the product wheel works on its own.

Builds the wheel, checks what it holds (shadowswitch only: no bench/, examples/, tests/), installs
it with --no-deps into a fresh venv that sees the project's installed dependencies (a .pth naming
this venv's site-packages; .pth files there are not processed, so the editable install of the
source tree is not importable), then, from a temporary directory outside the source tree, runs
`shadowswitch db upgrade` on a fresh SQLite file and serves one real request: `shadowswitch serve`
with a one-policy directory (mode off) in front of a tiny upstream, asked through the openai SDK.

Run with the project's venv: `.venv/bin/python .ci/wheel_check.py` (`make wheel-check`).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import httpx
from openai import OpenAI

ROOT = Path(__file__).resolve().parents[1]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
    for name, description in (("search_flights", "Find flights to a city"), ("book_hotel", "Book a hotel"))
]
ANSWER = {"name": "search_flights", "arguments": '{"city": "Lisbon"}'}


def run(command: list[str | Path], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    started = time.monotonic()
    out = subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, command))}\n{out.stdout}\n{out.stderr}")
    print(f"{time.monotonic() - started:5.1f} s  {' '.join(Path(str(p)).name for p in command[:4])}")
    return out.stdout


def build_wheel(work: Path) -> Path:
    """From a copy of what the wheel is made of, so no build/ or egg-info lands in the tree."""
    source = work / "source"
    shutil.copytree(
        ROOT / "shadowswitch", source / "shadowswitch", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    # No build isolation: the project's venv has setuptools, and CI needs no index for this.
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", work, source])
    (wheel,) = work.glob("shadowswitch-*.whl")
    return wheel


def check_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (dist_info,) = {name.split("/")[0] for name in names if name.split("/")[0].endswith(".dist-info")}
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"shadowswitch", dist_info}, f"the wheel holds more than the product: {sorted(tops)}"
    for lab in ("bench/", "examples/", "tests/"):
        assert not any(name.startswith(lab) or f"/{lab}" in name for name in names), f"{lab} in the wheel"
    assert "shadowswitch/store/migrations/env.py" in names
    assert "shadowswitch/store/migrations/script.py.mako" in names
    assert any(name.startswith("shadowswitch/store/migrations/versions/0001_") for name in names)
    assert f"{dist_info}/licenses/LICENSE" in names
    # Every file of the package the repository tracks ships (package-data misses nothing).
    tracked = run(["git", "-C", ROOT, "ls-files", "shadowswitch"]).split()
    missing = sorted(set(tracked) - set(names))
    assert tracked and not missing, f"tracked but not in the wheel: {missing}"
    # Only the console script: no plugin entry point naming a module the wheel lacks.
    declared = [line.replace(" ", "") for line in entry_points.splitlines() if "=" in line]
    assert declared == ["shadowswitch=shadowswitch.cli:main"], entry_points


def fresh_venv(work: Path, wheel: Path) -> Path:
    assert sys.prefix != sys.base_prefix, "run this with the project's venv python"
    venv = work / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    (site,) = venv.glob("lib/python*/site-packages")
    (site / "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel])
    return venv


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Upstream(BaseHTTPRequestHandler):
    """The large model: always calls search_flights for Lisbon."""

    requests: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Upstream.requests.append(body)
        reply = {
            "id": "chatcmpl-tiny",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "tiny"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": "call_1", "type": "function", "function": ANSWER}],
                    },
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def write_policies(directory: Path, upstream_url: str) -> Path:
    directory.mkdir()
    (directory / "_defaults.yaml").write_text(
        f"upstream:\n  model: openai/tiny\n  api_base: {upstream_url}\n  timeout_s: 10\n"
    )
    (directory / "pick_tool.yaml").write_text(
        "task_type: pick_tool\n"
        "match:\n  model: travel-agent-step\n  tools_include: [search_flights, book_hotel]\n"
        'rollout:\n  mode: "off"\n  percent: 0\n'
        "engine:\n  model: embedded\n  candidates: tools\n"
    )
    return directory


@contextmanager
def served(venv: Path, run_dir: Path, policies: Path, db_url: str, env: dict[str, str]) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [venv / "bin" / "shadowswitch", "serve", "--port", str(port), "--policies", policies]
    command += ["--db", db_url, "--no-models"]
    log = run_dir / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(part) for part in command], cwd=run_dir, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                sys.exit(f"serve exited {process.returncode}:\n{log.read_text()}")
            try:
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                sys.exit(f"serve not ready in 120 s:\n{log.read_text()}")
            time.sleep(0.2)
        print(f"{time.monotonic() - deadline + 120:5.1f} s  shadowswitch serve (until ready)")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def main() -> None:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="shadowswitch-wheel-") as tmp:
        work = Path(tmp)
        wheel = build_wheel(work)
        check_contents(wheel)
        venv = fresh_venv(work, wheel)
        run_dir = work / "run"  # outside the source tree: nothing of it on the path
        run_dir.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}
        python = venv / "bin" / "python"

        where = run([python, "-c", "import shadowswitch; print(shadowswitch.__file__)"], run_dir, env)
        assert where.startswith(str(venv)), f"shadowswitch comes from {where.strip()}, not the wheel"
        for lab in ("bench", "examples", "tests"):
            probe = f"import importlib.util as u; print(u.find_spec({lab!r}) is None)"
            assert run([python, "-c", probe], run_dir, env).strip() == "True", f"{lab} is importable"
        commands = run([venv / "bin" / "shadowswitch", "--help"], run_dir, env)
        assert " db " in commands and " bench " not in commands and " demo " not in commands, commands

        db_path = run_dir / "shadowswitch.db"
        db_url = f"sqlite:///{db_path}"
        print(run([venv / "bin" / "shadowswitch", "db", "upgrade", "--db", db_url], run_dir, env).strip())

        with (
            upstream() as upstream_url,
            served(venv, run_dir, write_policies(run_dir / "policies", upstream_url), db_url, env) as url,
        ):
            client = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
            reply = client.chat.completions.create(
                model="travel-agent-step",
                messages=[{"role": "user", "content": "Flights to Lisbon next Friday, please."}],
                tools=TOOLS,  # type: ignore[arg-type]
            )
        calls = reply.choices[0].message.tool_calls or []
        assert [call.model_dump()["function"] for call in calls] == [ANSWER], reply
        assert len(Upstream.requests) == 1, Upstream.requests
        with sqlite3.connect(db_path) as connection:
            (decisions,) = connection.execute("SELECT count(*) FROM decision").fetchone()
        assert decisions == 1, f"{decisions} decisions recorded"
    print(
        f"wheel ok: {wheel.name}, served one request from a fresh venv in {time.monotonic() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
