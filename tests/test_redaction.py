"""What must not leak: personal data in stored prompts, upstream keys anywhere, internals in errors.

Through a real proxy, real upstreams over HTTP (one echoes the Authorization header in its
error body) and the real database; the database is read directly, whole, at the end.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
import sqlalchemy
from pydantic import ValidationError

from shadowswitch.redact import default_redactor, safe_text
from shadowswitch.server.settings import Settings
from tests.support.clients import client, decision
from tests.support.keys import OPERATOR, agent, decision_of, make_key
from tests.support.upstreams import FaultyUpstream

PERSONAL = (
    "I am jane.doe+travel@example.com, call me on +44 20 7946 0958 or (555) 123-4567; "
    "pay with 4111 1111 1111 1111. Fly out 2025-03-14, 2 adults, order AB123456."
)
SECRETS = ("jane.doe+travel@example.com", "7946 0958", "123-4567", "4111 1111 1111 1111")
KEY_ENV = "SHADOWSWITCH_TEST_UPSTREAM_KEY"
KEY = "sk-faults-ZEBRA-7c1e9d5b20aa"


def shout(text: str) -> str:
    """A custom redactor for the `module:function` setting."""
    return text.upper()


def test_default_redactor_masks_contacts_and_cards_but_not_dates_or_ids() -> None:
    redacted = default_redactor(PERSONAL)
    assert not [s for s in SECRETS if s in redacted]
    assert redacted.count("[phone]") == 2 and "[email]" in redacted and "[card]" in redacted
    assert "2025-03-14" in redacted and "AB123456" in redacted and "2 adults" in redacted


def test_safe_text_masks_keys_and_cuts_internals() -> None:
    text = safe_text(
        f'denied: "Bearer {KEY}" Traceback (most recent call last):\n  File "/srv/app/x.py", line 3',
        [KEY],
    )
    assert KEY not in text and "Traceback" not in text and "/srv" not in text
    assert "denied" in text


def ask(url: str, content: str = PERSONAL) -> str:
    raw = client(url).chat.completions.with_raw_response.create(
        model="m",
        messages=[{"role": "system", "content": "travel agent"}, {"role": "user", "content": content}],
    )
    return raw.headers["x-shadowswitch-decision-id"]


def test_stored_prompts_are_redacted_by_default(proxy: Any, upstream: str) -> None:
    url = proxy(store_prompts=True)
    stored = decision(url, ask(url))["prompt"]
    assert not [s for s in SECRETS if s in stored]
    assert "[email]" in stored and "[card]" in stored and "2025-03-14" in stored
    seen = httpx.get(upstream.removesuffix("/v1") + "/requests").json()
    assert any(PERSONAL in str(r["body"]["messages"]) for r in seen)  # the upstream still gets it all


def test_redaction_can_be_switched_off_or_replaced(proxy: Any) -> None:
    url = proxy(store_prompts=True, redact="none")
    assert PERSONAL in decision(url, ask(url))["prompt"]
    url = proxy(store_prompts=True, redact="tests.test_redaction:shout")
    assert PERSONAL.upper() in decision(url, ask(url))["prompt"]
    url = proxy()  # prompts off: nothing at all
    assert decision(url, ask(url))["prompt"] is None


@pytest.mark.parametrize("spec", ["nosuchmodule:f", "tests.test_redaction:missing", "justaname"])
def test_a_redactor_that_cannot_load_is_refused_at_start(spec: str) -> None:
    with pytest.raises(ValidationError, match="redact"):
        Settings(redact=spec)


# -- upstream keys -----------------------------------------------------------------------------


@pytest.fixture
def faulty(monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultyUpstream]:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FaultyUpstream() as server:
        yield server


def everything_in(db_url: str) -> str:
    """Every row of every table, as text."""
    engine = sqlalchemy.create_engine(db_url)
    with engine.connect() as conn:
        tables = sqlalchemy.inspect(conn).get_table_names()
        rows = [
            str(row) for table in tables for row in conn.execute(sqlalchemy.text(f'SELECT * FROM "{table}"'))
        ]
    engine.dispose()
    return "\n".join(rows)


def test_upstream_keys_are_never_stored_logged_or_echoed(
    proxy: Any, faulty: FaultyUpstream, db_url: str, caplog: pytest.LogCaptureFixture, capfd: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    policy = {
        "task_type": "keyed",
        "upstream": {"model": None, "api_base": faulty.base_url, "api_key_env": KEY_ENV, "timeout_s": 1},
    }
    url = proxy(policy, store_prompts=True)
    seen: list[str] = []
    for model in ("echo-auth", "status-500", "status-429", "notjson", "reset", "hang", "fine"):
        response = httpx.post(
            url + "/v1/chat/completions",
            json={"model": model, "messages": [{"role": "user", "content": f"key test {model}"}]},
            headers={"X-Shadowswitch-Task": "keyed"},
            timeout=30,
        )
        seen += [response.text, str(response.headers)]
        seen.append(str(decision(url, response.headers["x-shadowswitch-decision-id"])))
    stream = client(url).chat.completions.create(
        model="cut",
        messages=[{"role": "user", "content": "key test stream"}],
        stream=True,
        extra_headers={"X-Shadowswitch-Task": "keyed"},
    )
    with pytest.raises(openai.APIError) as raised:
        list(stream)
    seen.append(str(raised.value))
    assert f"Bearer {KEY}" in faulty.authorizations  # the key was really sent upstream ...
    assert "invalid credentials: [redacted]" in seen[0] or "Bearer [redacted]" in seen[0]
    captured = capfd.readouterr()
    seen += [caplog.text, captured.out, captured.err, everything_in(db_url)]
    leaks = [text[:300] for text in seen if KEY in text or KEY[-12:] in text]
    assert leaks == []  # ... and nowhere else


CALLER = "sk-caller-OKAPI-93be0f7d11"  # the agent's own provider key, in passthrough


def test_a_passthrough_callers_key_reaches_the_upstream_and_nowhere_else(
    proxy: Any, faulty: FaultyUpstream, db_url: str, caplog: pytest.LogCaptureFixture, capfd: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    policy = {
        "task_type": "own",
        "upstream": {"model": None, "api_base": faulty.base_url, "auth": "passthrough", "timeout_s": 1},
    }
    url = proxy(policy, store_prompts=True, admin_token=OPERATOR)
    agent_key = make_key(url, "own-provider")
    headers = {"X-Shadowswitch-Task": "own", "X-Shadowswitch-Key": agent_key}
    seen: list[str] = []
    for model in ("echo-auth", "status-500", "status-429", "notjson", "reset", "fine"):
        response = httpx.post(
            url + "/v1/chat/completions",
            json={"model": model, "messages": [{"role": "user", "content": f"own key {model}"}]},
            headers={**headers, "Authorization": f"Bearer {CALLER}"},
            timeout=30,
        )
        seen += [response.text, str(response.headers)]
        seen.append(str(decision_of(url, response)))
    sdk = openai.OpenAI(base_url=url + "/v1", api_key=CALLER, max_retries=0, default_headers=headers)
    raw = sdk.chat.completions.with_raw_response.create(
        model="fine", messages=[{"role": "user", "content": "hi"}]
    )
    assert raw.parse().choices[0].message.content == "fine"
    seen.append(str(decision_of(url, raw)))
    with pytest.raises(openai.AuthenticationError) as raised:  # the agent key as the bearer: no provider key
        agent(url, agent_key).chat.completions.create(
            model="fine",
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={"X-Shadowswitch-Task": "own"},
        )
    seen.append(str(raised.value))
    assert f"Bearer {CALLER}" in faulty.authorizations  # the caller's key was really sent upstream ...
    assert not [a for a in faulty.authorizations if agent_key in a]  # ... and never the agent key
    captured = capfd.readouterr()
    seen += [caplog.text, captured.out, captured.err, everything_in(db_url)]
    leaks = [
        text[:300]
        for text in seen
        for secret in (CALLER, agent_key)
        if secret in text or secret[-12:] in text
    ]
    assert leaks == []  # ... and nowhere else
