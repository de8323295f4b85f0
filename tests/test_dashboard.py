"""The comparison dashboard in a real headless browser (Debian's chromium through Playwright).

A shadow run through the real proxy with the real engine gives the pages data; every page must
load with no console error and no failed request, draw its charts, and keep the token.
Screenshots go to tests/artifacts/; the demo's story, with SHADOWSWITCH_UPDATE_SCREENSHOTS=1,
to docs/img/dashboard.png, the README's picture.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.wait import eventually

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).parent / "artifacts"
TOKEN = "s3cret-dashboard-token"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.fail("chromium is not installed: apt-get install -y chromium (`make test` does, as root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


class Watched:
    """A page that remembers console errors and failed requests."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1366, "height": 900})
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"failed: {r.url}"))
        self.page.on("response", lambda r: r.status >= 400 and self.problems.append(f"{r.status}: {r.url}"))

    def open(self, url: str) -> Any:
        self.page.goto(url, wait_until="networkidle")
        return self.page


def shadow_traffic(url: str) -> None:
    """Four requests in shadow, each waited for until its pair is stored (read with the token)."""
    from tests.support.local_path import ask

    for text in ["What's the weather like in Lisbon today?", "Book a hotel room in Paris for 2 nights"] * 2:
        decision = f"{url}/v1/shadowswitch/decisions/{ask(url, text).headers['x-shadowswitch-decision-id']}"
        eventually(
            lambda d=decision: httpx.get(d, headers=BEARER).json().get("agreement") is not None,
            timeout_s=60,
            interval_s=0.2,
            what="the shadow run stores its pair",
        )


def test_pages_load_draw_their_charts_and_keep_the_token(proxy: Any, local_engine: Any, browser: Any) -> None:
    from tests.support.local_path import policy

    ARTIFACTS.mkdir(exist_ok=True)
    url = proxy(
        {**policy(), "rollout": {"mode": "shadow"}}, local_factory=lambda: local_engine, admin_token=TOKEN
    )
    shadow_traffic(url)

    anonymous = Watched(browser)
    page = anonymous.page
    response = page.goto(url + "/dashboard/pick_tool")
    assert response.status == 401 and page.locator("input[name=token]").count() == 1
    assert "s3cret" not in page.content()
    assert httpx.get(url + "/dashboard/pick_tool/data").status_code == 401
    page.fill("input[name=token]", "wrong")
    page.click("button[type=submit]")
    assert "not an admin token" in page.content()

    signed = Watched(browser)
    page = signed.open(url + "/dashboard/login")
    page.fill("input[name=token]", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert page.url.endswith("/dashboard") and TOKEN not in page.url
    row = page.locator("#overview-rows tr", has_text="pick_tool")
    assert row.count() == 1 and "shadow" in row.inner_text()
    pairs = row.locator("td").nth(4).inner_text()  # the report, its JSON and /metrics count the same
    report = httpx.get(url + "/v1/shadowswitch/report", params={"since": "1h"}, headers=BEARER).json()
    (entry,) = [t for t in report["task_types"] if t["task_type"] == "pick_tool"]
    metrics = httpx.get(url + "/metrics").text
    assert pairs == str(entry["comparison"]["pairs"]) == "4"
    assert 'shadowswitch_pairs_total{agree="true",level="tool",task_type="pick_tool"} 4.0' in metrics
    page.screenshot(path=str(ARTIFACTS / "dashboard-overview.png"), full_page=True)

    page = signed.open(url + "/dashboard/pick_tool")
    for chart in ("latency", "agreement", "success", "rollout"):
        canvas = page.locator(f"#chart-{chart} canvas")
        assert canvas.count() == 1 and canvas.bounding_box()["width"] > 300, chart
    assert page.locator("table.diff tr").count() == 5  # a header and the 4 disagreeing calls
    assert "get_weather" in page.locator("table.diff").inner_text()
    page.screenshot(path=str(ARTIFACTS / "dashboard-task.png"), full_page=True)
    headers = httpx.get(url + "/dashboard/login").headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "unsafe-inline" not in headers["content-security-policy"]
    assert signed.problems == []
    assert anonymous.problems and all("401" in p for p in anonymous.problems), anonymous.problems


def test_an_empty_dashboard_says_so(proxy: Any, browser: Any) -> None:
    url = proxy()
    watched = Watched(browser)
    page = watched.open(url + "/dashboard")
    assert "No decisions in the last 24h yet" in page.content()
    assert watched.problems == []


# `SHADOWSWITCH_UPDATE_SCREENSHOTS=1`: tell the whole story and make the page the README's picture.
UPDATE = os.environ.get("SHADOWSWITCH_UPDATE_SCREENSHOTS") == "1"
PICTURE = Path(__file__).resolve().parents[1] / "docs" / "img" / "dashboard.png"


def story_window(db_url: str) -> str:
    """A `?since=` in whole minutes from the demo's switch to shadow, so the charts show its story."""
    from shadowswitch.rollouts.store.repository import RolloutRepository
    from shadowswitch.store import db as database

    events = RolloutRepository(database.make_engine(db_url)).audit("travel", limit=50)
    shadow = min(e.at.replace(tzinfo=e.at.tzinfo or UTC) for e in events if e.new_mode == "shadow")
    return f"{math.ceil(((datetime.now(UTC) - shadow).total_seconds() + 15) / 60)}m"


def test_the_task_page_tells_the_demo_story(
    tmp_path: Path, browser: Any, request: pytest.FixtureRequest
) -> None:
    """Shadow, canary 25% and 100%, then a broken upgrade that trips the breaker: the demo's own
    database, served by a proxy that loads no model, draws every chart, the rollout's steps and
    the trip. With SHADOWSWITCH_UPDATE_SCREENSHOTS=1 the whole task set is told and the page
    becomes docs/img/dashboard.png; otherwise a few tasks, and the page goes to tests/artifacts/."""
    from shadowswitch.rollouts.store.repository import RolloutRepository
    from shadowswitch.server.app import create_app
    from shadowswitch.server.settings import Settings
    from shadowswitch.store import db as database
    from tests.support.demo import quick_demo
    from tests.support.servers import running

    ARTIFACTS.mkdir(exist_ok=True)
    if UPDATE:  # the whole task set, at a large model's pace
        quick_demo(tmp_path, 0, latency="0.3-0.8")
        workdir = tmp_path
    else:
        workdir = request.getfixturevalue("told_demo")[0]  # the session's quick demo
    db_url = f"sqlite:///{workdir / 'shadowswitch.db'}"
    # whether a short run's broken upgrade trips the breaker depends on what was certified
    tripped = RolloutRepository(database.make_engine(db_url)).get("travel").breaker_state == "open"
    settings = Settings(  # reads the story: no learning, no spool
        db_url=db_url, policies=workdir / "policies", load_models=False, spool_max_bytes=0, learn_interval_s=0
    )
    with running(create_app(settings)) as url:
        since = story_window(db_url)
        watched = Watched(browser)
        page = watched.open(f"{url}/dashboard/travel?since={since}")
        assert f"last {since}" in page.locator("header").inner_text()
        assert not tripped or "breaker open" in page.content()
        for chart in ("latency", "agreement", "success", "rollout"):
            canvas = page.locator(f"#chart-{chart} canvas")
            assert canvas.count() == 1 and canvas.bounding_box()["width"] > 300, chart
        marks = page.locator("ul.marks").inner_text()
        assert "a quarter of customers local" in marks and (not tripped or "trip breaker" in marks)
        data = httpx.get(f"{url}/dashboard/travel/data", params={"since": since}).json()
        percent = data["rollout_history"]["percent"]
        assert 25 in percent and 100 in percent  # up the canary
        assert not tripped or percent[-1] == 0  # back at the trip
        assert any(rate is not None for rate in data["series"]["agreement"]["rate"])  # shadow pairs
        if UPDATE:  # the picture tells the story only with real disagreements in it
            assert page.locator("table.diff tr").count() > 1, "no disagreement in the whole story"
        page.screenshot(path=str(PICTURE if UPDATE else ARTIFACTS / "dashboard-demo.png"), full_page=True)
        assert watched.problems == []
