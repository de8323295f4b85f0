"""Admin roles and the dashboard's session: through a real proxy, over plain HTTP with cookies."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from shadowswitch.access.roles import parse_admin_tokens
from shadowswitch.access.session import make_session, read_session
from tests.support.clients import TASK
from tests.support.policies import TRAVEL
from tests.support.wait import eventually

VIEWER, OPERATOR = "viewer-token-a81f", "operator-token-77c2"
TOKENS = f"vera:viewer:{VIEWER},otto:operator:{OPERATOR}"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_viewer_reads_but_cannot_change_a_rollout_and_the_audit_names_the_operator(proxy: Any) -> None:
    url = proxy(TRAVEL, admin_tokens=TOKENS)
    rollout = f"{url}/v1/shadowswitch/rollouts/{TASK}"
    assert httpx.get(rollout, headers=bearer(VIEWER)).json()["mode"] == "off"
    assert httpx.get(rollout).status_code == 401
    change = {"mode": "shadow", "reason": "try it"}
    refused = httpx.put(rollout, json=change, headers=bearer(VIEWER))
    assert refused.status_code == 403 and refused.json()["error"]["type"] == "permission_error"
    assert httpx.get(rollout, headers=bearer(VIEWER)).json()["mode"] == "off"
    keys = httpx.post(f"{url}/v1/shadowswitch/keys", json={"name": "a"}, headers=bearer(VIEWER))
    assert keys.status_code == 403
    assert httpx.put(rollout, json=change, headers=bearer(OPERATOR)).json()["mode"] == "shadow"
    audit = httpx.get(f"{url}/v1/shadowswitch/audit", params={"task": TASK}, headers=bearer(VIEWER)).json()
    assert audit[0]["kind"] == "set" and audit[0]["actor"] == "api:otto"


def test_the_single_admin_token_stays_an_operator_named_admin(proxy: Any) -> None:
    url = proxy(TRAVEL, admin_token=OPERATOR, admin_tokens=f"vera:viewer:{VIEWER}")
    rollout = f"{url}/v1/shadowswitch/rollouts/{TASK}"
    assert httpx.put(rollout, json={"percent": 5}, headers=bearer(OPERATOR)).status_code == 200
    assert httpx.put(rollout, json={"percent": 6}, headers=bearer(VIEWER)).status_code == 403
    audit = httpx.get(f"{url}/v1/shadowswitch/audit", headers=bearer(VIEWER)).json()
    assert audit[0]["actor"] == "api:admin" and audit[0]["new"]["percent"] == 5


def test_the_dashboard_session_is_signed_expires_and_logs_out(proxy: Any) -> None:
    url = proxy(TRAVEL, admin_tokens=TOKENS, session_ttl_s=2)
    with httpx.Client(base_url=url) as browser:
        assert browser.get("/dashboard").status_code == 401
        signed = browser.post("/dashboard/login", data={"token": VIEWER})
        assert signed.status_code == 303
        cookie = browser.cookies["shadowswitch_session"]
        assert VIEWER not in cookie and cookie.startswith("vera.")
        page = browser.get("/dashboard")
        assert page.status_code == 200 and "vera (viewer)" in page.text and "Sign out" in page.text
        forged = cookie.replace("vera.", "otto.", 1)
        assert httpx.get(url + "/dashboard", cookies={"shadowswitch_session": forged}).status_code == 401
        eventually(
            lambda: browser.get("/dashboard").status_code == 401, timeout_s=5, what="the session expires"
        )

        browser.cookies.clear()
        browser.post("/dashboard/login", data={"token": OPERATOR})
        assert browser.get("/dashboard").status_code == 200
        out = browser.post("/dashboard/logout")
        assert out.status_code == 303 and out.headers["location"] == "/dashboard/login"
        assert "shadowswitch_session" not in browser.cookies
        assert browser.get("/dashboard").status_code == 401


def test_admin_tokens_parse_with_their_roles_and_refuse_bad_entries() -> None:
    vera, otto = parse_admin_tokens(TOKENS)
    assert (vera.name, vera.role, otto.role) == ("vera", "viewer", "operator")
    assert otto.may("viewer") and not vera.may("operator")
    for bad in ("vera:admin:SECRET-1", "vera:viewer:", "vera:viewer:SECRET-2,vera:operator:SECRET-3"):
        with pytest.raises(ValueError) as raised:
            parse_admin_tokens(bad)
        assert "admin token" in str(raised.value) and "SECRET" not in str(raised.value)


def test_a_session_cookie_is_refused_once_expired_tampered_or_its_token_removed() -> None:
    admins = parse_admin_tokens(TOKENS)
    cookie = make_session(admins[0], ttl_s=60, now=1000.0)
    assert read_session(cookie, admins, now=1059.0) == admins[0]
    assert read_session(cookie, admins, now=1060.0) is None
    name, expires, signature = cookie.split(".")
    assert read_session(f"{name}.{int(expires) + 3600}.{signature}", admins, now=1000.0) is None
    assert read_session(cookie, admins[1:], now=1000.0) is None
    assert read_session("garbage", admins) is None
