"""Agent keys as an operator makes them (the admin API) and as an agent uses them (the openai SDK)."""

from __future__ import annotations

from typing import Any

import httpx
import openai

from tests.support.policies import TOOLS

OPERATOR = "operator-token-5d1c"  # SHADOWSWITCH_ADMIN_TOKEN in these tests
ADMIN = {"Authorization": f"Bearer {OPERATOR}"}


def make_key(url: str, name: str, **limits: Any) -> str:
    response = httpx.post(f"{url}/v1/shadowswitch/keys", json={"name": name, **limits}, headers=ADMIN)
    assert response.status_code == 201, response.text
    return str(response.json()["key"])


def revoke(url: str, name: str) -> None:
    response = httpx.delete(f"{url}/v1/shadowswitch/keys/{name}", headers=ADMIN)
    assert response.status_code == 200, response.text


def agent(url: str, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)


def ask(url: str, key: str, task: str | None = None, text: str = "book a hotel in Paris") -> Any:
    """One chat completion as an agent with `key`; the raw response (headers and body)."""
    return agent(url, key).chat.completions.with_raw_response.create(
        model="travel-agent-step",
        messages=[{"role": "user", "content": text}],
        tools=TOOLS,
        extra_headers={"X-Shadowswitch-Task": task} if task else {},
    )


def decision_of(url: str, raw: Any) -> dict[str, Any]:
    decision_id = raw.headers["x-shadowswitch-decision-id"]
    response = httpx.get(f"{url}/v1/shadowswitch/decisions/{decision_id}", headers=ADMIN)
    assert response.status_code == 200, response.text
    return dict(response.json())


def status(url: str, key: str) -> int:
    """The status of one chat completion sent with `key` (200, or the error's)."""
    try:
        ask(url, key)
    except openai.APIStatusError as exc:
        return exc.status_code
    return 200
