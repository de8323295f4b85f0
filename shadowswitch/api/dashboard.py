"""GET /dashboard and /dashboard/{task}: the comparison, served by the proxy itself, read-only.

With admin tokens set the pages need one (any role): sent once through a login form, which sets an
HttpOnly cookie holding the admin's name and an expiry signed with the token (never the token
itself; SHADOWSWITCH_SESSION_TTL_S, and a logout), or as a bearer header; never in a URL. Every
page carries a strict CSP (no inline script, no framing); the charts are uPlot and the refresh
htmx, vendored in the package.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from shadowswitch.access.gate import bearer
from shadowswitch.access.roles import AdminToken, match_admin
from shadowswitch.access.session import make_session, read_session
from shadowswitch.analysis.report import build_report, rollout_modes
from shadowswitch.api.deps import AppState, StateDep
from shadowswitch.api.learning import learning_status
from shadowswitch.api.responses import RolloutOut
from shadowswitch.dashboard import series
from shadowswitch.durations import parse_since
from shadowswitch.errors import BadRequest, NotFound
from shadowswitch.learning.versions import certificate_text
from shadowswitch.store.tables import Decision, utcnow

HERE = Path(__file__).resolve().parents[1] / "dashboard"
COOKIE = "shadowswitch_session"
WINDOW = "24h"  # what a page shows unless its `?since=` says otherwise (e.g. 30m, 7d)
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

router = APIRouter(prefix="/dashboard", include_in_schema=False)
templates = Jinja2Templates(directory=HERE / "templates")
templates.env.globals["certificate_text"] = certificate_text


def signed_in(request: Request, state: AppState) -> AdminToken | bool:
    """The admin signed in (by session cookie or bearer token); True with no admin tokens set."""
    if not state.admins:
        return True
    cookie = request.cookies.get(COOKIE)
    if cookie:
        return read_session(cookie, state.admins) or False
    given = bearer(request.headers)
    return (match_admin(given, state.admins) if given else None) or False


def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    response = templates.TemplateResponse(request, name, context, status_code=status)
    response.headers.update(SECURITY_HEADERS)
    return response


@router.get("/login")
async def login_form(request: Request) -> HTMLResponse:
    return page(request, "login.html")


@router.post("/login")
async def login(request: Request, state: StateDep) -> Response:
    given = (parse_qs((await request.body()).decode("utf-8", "replace")).get("token") or [""])[0]
    admin = match_admin(given, state.admins) if given else None
    if admin is None:
        return page(request, "login.html", 401, error="That is not an admin token.")
    ttl = state.settings.session_ttl_s
    response = RedirectResponse("/dashboard", status_code=303)
    secure = request.url.scheme == "https"
    response.set_cookie(
        COOKIE,
        make_session(admin, ttl),
        max_age=int(ttl),
        httponly=True,
        samesite="strict",
        secure=secure,
        path="/dashboard",
    )
    return response


@router.post("/logout")
async def logout() -> Response:
    response = RedirectResponse("/dashboard/login", status_code=303)
    response.delete_cookie(COOKIE, path="/dashboard", httponly=True, samesite="strict")
    return response


def window(since: str) -> timedelta:
    """The page's window from its `?since=`: a bad one is a 400, not a page of nothing."""
    try:
        return parse_since(since)
    except ValueError as exc:
        raise BadRequest(str(exc), param="since") from None


@router.get("")
async def overview(request: Request, state: StateDep, since: str = WINDOW) -> Response:
    if not (who := signed_in(request, state)):
        return page(request, "login.html", 401)
    report, rollouts, _ = await _report(state, None, window(since))
    rows = [
        {**t, "breaker": rollouts.get(t["task_type"], {}).get("breaker", {})} for t in report["task_types"]
    ]
    fragment = request.headers.get("hx-request") == "true"
    name = "overview_rows.html" if fragment else "overview.html"
    return page(request, name, rows=rows, report=report, admin=_shown(who), since=since)


@router.get("/{task}")
async def task_page(request: Request, task: str, state: StateDep, since: str = WINDOW) -> Response:
    if not (who := signed_in(request, state)):
        return page(request, "login.html", 401)
    data = await _task_data(state, task, window(since))
    context = {"task": task, "entry": data["entry"], "data": data, "since": since}
    return page(request, "task.html", admin=_shown(who), **context)


def _shown(who: AdminToken | bool) -> AdminToken | None:
    return who if isinstance(who, AdminToken) else None


@router.get("/{task}/data")
async def task_data(request: Request, task: str, state: StateDep, since: str = WINDOW) -> Response:
    if not signed_in(request, state):
        return JSONResponse({"error": {"message": "sign in at /dashboard/login"}}, status_code=401)
    response = JSONResponse(await _task_data(state, task, window(since)))
    response.headers.update(SECURITY_HEADERS)
    return response


async def _report(
    state: AppState, task: str | None, span: timedelta
) -> tuple[dict[str, Any], dict[str, Any], list[Decision]]:
    """The report of the window, the rollouts by task type, and the decision rows it was made of."""
    await state.recorder.flush()
    until = utcnow()
    since = until - span
    rows = await anyio.to_thread.run_sync(state.decisions.since, since, task)
    rollout_rows = await anyio.to_thread.run_sync(state.rollouts.list)
    ramps = await anyio.to_thread.run_sync(state.rollouts.statuses, rollout_rows)
    report = build_report(rows, since, until, rollout_modes(rollout_rows), ramps)
    shown = {
        r.task_type: {**RolloutOut.of(r).model_dump(mode="json"), "ramp": ramps.get(r.task_type)}
        for r in rollout_rows
    }
    return report, shown, rows


async def _task_data(state: AppState, task: str, span: timedelta) -> dict[str, Any]:
    report, rollouts, rows = await _report(state, task, span)
    if task not in rollouts and not report["task_types"]:
        raise NotFound(f"no task type {task!r}", param="task")
    since, until = datetime.fromisoformat(report["since"]), datetime.fromisoformat(report["until"])
    events = await anyio.to_thread.run_sync(lambda: state.rollouts.audit(task, limit=200))
    entry = report["task_types"][0] if report["task_types"] else None
    learned = None
    if task in state.policies.policies and state.learning is not None:
        learned = (await learning_status(state, task)).model_dump(mode="json")
    return {
        "learning": learned,
        "entry": entry,
        "rollout": rollouts.get(task),
        "series": series.time_series(rows, since, until),
        "latency": series.latency_histogram(rows),
        "rollout_history": series.rollout_history(events, since),
        "disagreements": series.disagreements(rows),
    }
