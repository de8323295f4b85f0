"""Fuzz runs: the HTTP API from its own OpenAPI schema (schemathesis), policy files and tool
schemas (hypothesis). Each run tries every case and reports the failures rather than stopping
at the first: a failure is a 5xx from the proxy, a policy load that does not end in `file:line`
problems, or a local engine that fails instead of answering or abstaining.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from bench.fuzz.strategies import USER_TEXT, YAML_NOISE, policy_documents, tools
from shadowswitch.errors import PolicyError
from shadowswitch.policy import load_policies

PROBLEM_LINE = re.compile(r"^.+\.ya?ml:\d+: \S")
MAX_KEPT = 20  # failures kept in full per run; the rest are counted


@dataclass
class Report:
    """What one fuzz run tried and what failed."""

    name: str
    tried: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    failed: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def fail(self, **details: Any) -> None:
        self.failed += 1
        if len(self.failures) < MAX_KEPT:
            self.failures.append(details)

    def count(self, status: int) -> None:
        self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1

    def json(self) -> dict[str, Any]:
        return {
            "cases": self.tried,
            "failures": self.failed,
            "statuses": dict(sorted(self.statuses.items())),
            "seconds": round(self.seconds, 1),
            "examples": self.failures,
        }


def _explore(strategy: st.SearchStrategy[Any], examples: int, check: Callable[[Any], None]) -> None:
    """Run `check` on `examples` generated values; no shrinking (failures are recorded, not raised)."""
    run = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )(given(strategy)(check))
    with contextlib.suppress(Unsatisfiable):  # nothing to generate: e.g. bad input for no input
        run()


def fuzz_api(base_url: str, examples: int, headers: dict[str, str] | None = None) -> Report:
    """Every operation of the proxy's OpenAPI schema, with valid and invalid inputs: never a 5xx.
    Chat completions get `examples` cases of each kind, the other operations a tenth of that."""
    import schemathesis
    from schemathesis import GenerationMode

    report = Report("api")
    started = time.monotonic()
    schema = schemathesis.openapi.from_url(base_url + "/openapi.json")
    for result in schema.get_all_operations():
        operation = result.ok()
        share = examples if operation.path == "/v1/chat/completions" else max(2, examples // 10)
        for mode in GenerationMode:

            def call(case: Any) -> None:
                report.tried += 1
                try:
                    response = case.call(base_url=base_url, headers=headers, timeout=60)
                except Exception as exc:  # the connection died: as bad as a 5xx
                    report.fail(operation=case.operation.label, error=repr(exc), body=_short(case.body))
                    return
                report.count(response.status_code)
                if response.status_code >= 500:
                    report.fail(
                        operation=case.operation.label,
                        status=response.status_code,
                        response=response.text[:300],
                        body=_short(case.body),
                        query=case.query,
                    )

            _explore(operation.as_strategy(generation_mode=mode), share, call)
    report.seconds = time.monotonic() - started
    return report


def fuzz_policies(examples: int) -> Report:
    """Policy directories of mangled policies and broken YAML: loading ends in a PolicySet or in
    PolicyError lines `file:line: field: message`, never in another exception."""
    report = Report("policies")
    started = time.monotonic()
    documents = st.lists(policy_documents().map(yaml.safe_dump) | YAML_NOISE, min_size=1, max_size=3)

    def load(texts: list[str]) -> None:
        report.tried += 1
        with tempfile.TemporaryDirectory() as folder:
            for index, text in enumerate(texts):
                (Path(folder) / f"p{index}.yaml").write_text(text, encoding="utf-8", errors="surrogateescape")
            try:
                load_policies(Path(folder))
                report.count(0)
            except PolicyError as exc:
                report.count(1)
                bad = [p for p in exc.problems if not PROBLEM_LINE.match(p)]
                if bad:
                    report.fail(kind="problem without file:line", problems=bad, files=texts)
            except Exception as exc:
                report.fail(kind=type(exc).__name__, error=str(exc)[:300], files=texts)

    _explore(documents, examples, load)
    report.seconds = time.monotonic() - started
    return report


def fuzz_tool_schemas(
    base_url: str, task: str, examples: int, headers: dict[str, str] | None = None
) -> Report:
    """Odd tool schemas to a task type served locally: the proxy answers 200 (or refuses the
    request with a 4xx) and the local engine answers or abstains, never fails with an error."""
    report = Report("tool_schemas")
    started = time.monotonic()

    def ask(case: tuple[list[dict[str, Any]], str]) -> None:
        offered, text = case
        report.tried += 1
        body = {"model": "fuzz", "messages": [{"role": "user", "content": text}], "tools": offered}
        response = httpx.post(
            base_url + "/v1/chat/completions", json=body, headers={"X-Shadowswitch-Task": task}, timeout=120
        )
        report.count(response.status_code)
        if response.status_code >= 500:
            report.fail(status=response.status_code, response=response.text[:300], tools=offered)
            return
        decision_id = response.headers.get("x-shadowswitch-decision-id")
        if response.status_code == 200 and decision_id:
            found = httpx.get(
                f"{base_url}/v1/shadowswitch/decisions/{decision_id}", headers=headers, timeout=30
            )
            record = (
                found.json() if found.status_code == 200 else {"error": f"decision: HTTP {found.status_code}"}
            )
            if record.get("error"):
                report.fail(path=record.get("path"), error=record["error"][:300], tools=offered)

    _explore(st.tuples(tools(), USER_TEXT), examples, ask)
    report.seconds = time.monotonic() - started
    return report


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 500 else text[:500] + "…"
