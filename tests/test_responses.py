"""The API's response models give the JSON the routes gave as plain dicts: same keys, same order."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter
from fastapi.datastructures import DefaultPlaceholder
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel

from shadowswitch.analysis.report import build_report
from shadowswitch.api import admin, chat, report
from shadowswitch.api.report_body import Report
from shadowswitch.api.responses import (
    AuditEventOut,
    DecisionOut,
    ListedRollout,
    ModelCard,
    ModelList,
    RolloutOut,
)
from shadowswitch.rollouts.ramp_status import ramp_json
from shadowswitch.rollouts.store.rows import aggregate
from shadowswitch.states import AuditKind, Circuit, RolloutMode
from shadowswitch.store.tables import AuditEvent, Decision, Rollout

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_a_rollout_keeps_its_wire_shape() -> None:
    row = Rollout(task_type="pick", mode=RolloutMode.CANARY, percent=25.0, updated_at=AT)
    row.breaker_state, row.tripped_at = Circuit.OPEN, AT
    body = json.loads(RolloutOut.of(row).model_dump_json())
    assert list(body) == ["task_type", "mode", "percent", "breaker", "updated_at", "ramp"]
    assert body["mode"] == "canary" and body["percent"] == 25.0 and body["ramp"] is None
    assert body["breaker"] == {
        "state": "open",
        "consecutive_failures": 0,
        "tripped_at": AT.isoformat(),
        "reprobe_at": None,
        "reprobe_wait_s": None,
        "half_open_successes": 0,
        "failure_ids": [],
    }
    listed = ListedRollout(**dict(RolloutOut.of(row)), configured=False).model_dump(mode="json")
    assert list(listed)[-1] == "configured" and listed["configured"] is False


def test_an_audit_event_keeps_its_wire_shape() -> None:
    event = AuditEvent(
        id=7, at=AT, task_type="pick", actor="cli:ana", kind=AuditKind.SET, old_mode="off", old_percent=0.0
    )
    event.new_mode, event.new_percent, event.reason = "canary", 5.0, "go"
    body = json.loads(AuditEventOut.of(event).model_dump_json())
    assert body == {
        "id": 7,
        "at": AT.isoformat(),
        "task_type": "pick",
        "actor": "cli:ana",
        "kind": "set",
        "old": {"mode": "off", "percent": 0.0},
        "new": {"mode": "canary", "percent": 5.0},
        "reason": "go",
        "decision_ids": [],
        "figures": None,
    }


def body_of(router: APIRouter, path: str, value: BaseModel) -> bytes:
    """The bytes the route at `path` sends for `value`, by its own response settings (FastAPI's
    two ways: json.dumps through the response class, or the model's own JSON)."""
    (route,) = [r for r in router.routes if isinstance(r, APIRoute) and r.path.endswith(path)]
    field, unset = route.response_field, route.response_model_exclude_unset
    assert field is not None
    if isinstance(route.response_class, DefaultPlaceholder):
        return bytes(field.serialize_json(value, exclude_unset=unset))
    return bytes(route.response_class(field.serialize(value, mode="json", exclude_unset=unset)).body)


def dumped(data: Any) -> bytes:
    """What a route that returned `data` as a plain dict sent (JSONResponse: json.dumps)."""
    return bytes(JSONResponse(data).body)


def test_a_decision_is_its_row_but_the_sticky_hash_byte_for_byte() -> None:
    row = Decision(
        id="d1",
        created_at=AT,
        task_type="pick",
        path="local",
        route="local",
        mode="canary",
        sticky_hash="h" * 64,
        stream=False,
        latency_ms=12.5,
        valid=True,
        chosen="search_flights",
        arguments={"city": "Lisboa", "note": "né 中"},
        argument_sources={"city": {"source": "span"}},
        confidence=1.2e-05,  # json.dumps writes 1.2e-05, pydantic's own JSON 0.000012
        margin=0.25,
        candidates=[{"name": "search_flights", "score": 3.5e-07}],
        timings_ms={"decide": 4.0},
        shadow={"path": "generative", "latency_ms": 80.1},
        agreement=False,
    )
    old = row.model_dump(mode="json")
    del old["sticky_hash"]
    assert set(DecisionOut.model_fields) == set(old), "a new column: publish it or leave it out here"
    # the keys now come in the table's column order; a row loaded by SQLAlchemy dumped them in its
    # load order (stream, timings_ms, prompt, ...), so only the order differs from before
    assert list(DecisionOut.model_fields) == [name for name in Decision.model_fields if name in old]
    in_column_order = {name: old[name] for name in DecisionOut.model_fields}
    for path in ("/decisions/{decision_id}", "/feedback"):
        assert body_of(admin.router, path, DecisionOut.of(row)) == dumped(in_column_order)


def test_models_keep_openais_list_shape() -> None:
    listed = ModelList(data=[ModelCard(id="travel-agent-step", owned_by="shadowswitch:travel")])
    assert body_of(chat.router, "/v1/models", listed) == dumped(
        {
            "object": "list",
            "data": [
                {
                    "id": "travel-agent-step",
                    "object": "model",
                    "created": 0,
                    "owned_by": "shadowswitch:travel",
                }
            ],
        }
    )


def report_rows() -> list[Decision]:
    """Every kind of row the report counts: each path, errors, abstentions, judged outcomes,
    priced and unpriced upstream calls, shadow runs (ran, failed, skipped) and compared pairs."""

    def row(i: int, path: str, **fields: Any) -> Decision:
        task = fields.pop("task_type", "pick")
        return Decision(
            id=f"d{i}", created_at=AT, task_type=task, path=path, route=path, mode="canary", **fields
        )

    return [
        row(1, "local", valid=True, success=True, latency_ms=3.25, agreement=True, chosen="a"),
        row(2, "local", valid=True, success=False, latency_ms=4.5, abstain_reason="missing_value:city"),
        row(
            3,
            "local",
            valid=False,
            latency_ms=2.0,
            agreement=False,
            chosen="a",
            shadow={"path": "generative"},
        ),
        row(4, "generative", status_code=502, latency_ms=900.0, error="upstream down"),
        row(
            5,
            "generative",
            valid=True,
            success=True,
            latency_ms=410.123,
            upstream_model="openai/gpt-4o-mini",
            prompt_tokens=7,
            completion_tokens=3,
            shadow={"path": "local", "latency_ms": 5.5, "name": "a", "kind": "tool"},
            agreement=False,
            chosen="a",
        ),
        row(6, "generative", shadow={"path": "local", "error": "boom"}, prompt_tokens=9),
        row(7, "fallback", shadow={"path": "generative", "skipped": "comparison queue full"}),
        row(8, "generative", task_type="other", upstream_model="openai/scripted", prompt_tokens=1),
    ]


def test_the_report_is_what_build_report_gives_byte_for_byte() -> None:
    ramping = Rollout(task_type="pick", mode=RolloutMode.CANARY, percent=5.0, ramp_state="running")
    ramping.ramp_since, ramping.ramp_note = AT, "started"
    ramps = {"pick": ramp_json(aggregate(ramping)), "other": None}
    modes = {"pick": ("canary", 5.0), "other": ("off", 0.0)}
    built = build_report(report_rows(), AT - timedelta(hours=1), AT, modes, ramps)
    built["task_types"][1]["learning"] = {"task_type": "pick", "pairs": 3, "curve": [{"coverage": 0.5}]}
    assert [list(t).count("learning") for t in built["task_types"]] == [0, 1]  # "other" learns nothing
    assert built["task_types"][1]["ramp"]["state"] == "running"
    assert built["task_types"][1]["success_difference"] is not None
    assert body_of(report.router, "/report", Report.model_validate(built)) == dumped(built)
