"""The console in headless Chromium (Debian's ``chromium``, installed by scripts/setup; driven by
Playwright, which downloads no browser) against a live farm: browsing the catalog, watching an
episode's calls arrive while a client makes them, its score, tenants, hostile text, and an eval run's
failed trial.

Screenshots go to ``test-artifacts/console/`` (git-ignored) for a person to look at. Waits are for
what the page shows, with generous deadlines; nothing is timed.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from envs.paths import BUILTIN_CATALOG

from ...chromium import CHROMIUM_FLAGS, chromium
from ..conftest import API_KEYS, CLINIC_BOOKING, KEY_A, KEY_B, call_rest, mcp_session, run
from .eval_runs import RUN_ID, write_run
from .hostile import ALL, IMG, hostile_catalog

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "console"
DEADLINE_MS = 20_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(DEADLINE_MS)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    yield p
    context.close()
    assert errors == []  # no script error on any page


def _shot(page: Page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _not_pwned(page: Page) -> None:
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_browse_the_catalog_to_an_environment_and_a_task(make_server, page: Page):
    srv = make_server(catalog=BUILTIN_CATALOG)
    page.goto(srv.base_url + "/")
    expect(page).to_have_url(srv.base_url + "/console/")
    expect(page.locator("#envs tbody tr")).to_have_count(2)
    for row in range(2):  # the quality measures load into each row
        expect(page.locator("#envs tbody tr").nth(row).locator("td.num")).to_have_count(3 + 6)
    _shot(page, "catalog")

    page.get_by_role("link", name="Clinic").click()
    expect(page.locator("h1").first).to_contain_text("Clinic")
    expect(page.locator("#policy .markdown h1")).to_have_text("Clinic front desk policy")
    page.locator("#tool-book_appointment summary").click()
    expect(page.locator("#tool-book_appointment pre.json").first).to_be_visible()
    expect(page.locator("#quality dl.measures")).to_be_visible()
    page.locator("#dependencies input.filter").fill("cancel_appointment")  # one tool, and those around it
    expect(page.locator("#deps-table tbody tr:visible")).to_have_count(2)  # itself, and the tool it needs
    page.locator("#dependencies input.filter").fill("")
    expect(page.locator("#deps-table tbody tr:visible")).to_have_count(12)
    _shot(page, "environment")

    page.locator("#tasks").get_by_role("link", name="clinic-001").click()
    expect(page.locator(".instruction")).to_contain_text("Dr. Osei on Wednesday morning")
    expect(page.locator("ol.gold li")).to_have_count(4)  # local mode is the local admin
    _shot(page, "task")


def _mcp_call(url: str, tool: str, arguments: dict[str, Any], key: str | None = None) -> Any:
    """One tool call with the real MCP client, in a thread of its own (Playwright holds this one's loop)."""

    async def call() -> Any:
        async with mcp_session(url, "2026-07-28", key) as c:
            return await c.call_tool(tool, arguments)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(run, call()).result(timeout=60)


def test_calls_appear_live_then_the_score_and_its_diff(make_server, page: Page):
    srv = make_server(catalog=BUILTIN_CATALOG)
    with srv.http() as c:
        created = c.post("/episodes", json={"task_id": "clinic-001"}).json()
        episode = created["episode_id"]
        page.goto(f"{srv.base_url}/console/episodes/{episode}")
        expect(page.locator("#no-calls")).to_be_visible()
        expect(page.locator("#poller")).to_be_attached()

        # a client calls tools while the page is open: the calls appear without a reload
        _mcp_call(created["mcp_url"], "find_patient_by_email", {"email": "maria.lopez@example.com"})
        expect(page.locator("#call-1 .tool")).to_have_text("find_patient_by_email")
        expect(page.locator("#no-calls")).to_be_hidden()
        call_rest(c, episode, "find_patient_by_email", {"email": IMG})  # an error whose message holds markup
        call_rest(c, episode, "book_appointment", {**CLINIC_BOOKING, "slot_id": "S022", "reason": ALL})
        expect(page.locator("#call-3 .tool")).to_have_text("book_appointment")
        expect(page.locator("#call-2")).to_have_class("call failed kind-read actor-agent")
        expect(page.locator("#call-2 .args")).to_contain_text("<img src=x onerror=")  # shown as the text it is
        expect(page.locator("#call-3 .args")).to_contain_text("<script>window.__pwned=1</script>")
        expect(page.locator("#call-count")).to_have_text("3")
        assert page.locator("article.call").count() == 3  # each call once
        _not_pwned(page)

        # scored through REST: the page shows the reward and the field-level diff
        assert c.post(f"/episodes/{episode}/score", json={"answer": "Booked you in."}).json()["reward"] == 0.0
        expect(page.locator("#score .reward")).to_have_text("0.00")
        expect(page.locator("#score .diff").first).to_be_visible()
        expect(page.locator("#score .diff-changed").first).to_contain_text("slot_id")
        _shot(page, "episode")

        c.delete(f"/episodes/{episode}")
        expect(page.locator("#episode-status .status")).to_have_text("closed")
        expect(page.locator("#poller")).to_have_count(0)  # ended: the page stops asking
        _not_pwned(page)


def test_a_tenant_signs_in_and_never_sees_another_tenants_episode(make_server, page: Page):
    srv = make_server(catalog=BUILTIN_CATALOG, api_keys=API_KEYS)
    with srv.http(KEY_A) as a, srv.http(KEY_B) as b:
        mine = a.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
        theirs = b.post("/episodes", json={"task_id": "clinic-002"}).json()["episode_id"]
        call_rest(b, theirs, "find_patient_by_email", {"email": "maria.lopez@example.com"})

        page.goto(srv.base_url + "/console/episodes")
        expect(page).to_have_url(srv.base_url + "/console/login?next=/console/episodes")
        page.fill("#key", "wrong-key-0000000000")
        page.click("button[type=submit]")
        expect(page.locator("#login-error")).to_be_visible()
        page.fill("#key", KEY_A)
        page.click("button[type=submit]")
        expect(page).to_have_url(srv.base_url + "/console/episodes")
        expect(page.locator(".badge")).to_have_text("tenantA")
        expect(page.locator("#episodes")).to_contain_text(mine)
        assert theirs not in page.content()
        assert page.evaluate("document.cookie") == ""  # the key is HttpOnly: no script can read it
        _shot(page, "episodes")

        response = page.goto(f"{srv.base_url}/console/episodes/{theirs}")
        assert response is not None and response.status == 404
        assert "maria" not in page.content()

        # the list refreshes itself: an episode started now appears, the other tenant's still does not
        page.goto(srv.base_url + "/console/episodes")
        later = a.post("/episodes", json={"env_id": "clinic"}).json()["episode_id"]
        b.post("/episodes", json={"env_id": "clinic"})
        expect(page.locator("#episodes")).to_contain_text(later)
        assert page.locator("#episodes tbody tr").count() == 2

        page.get_by_role("button", name="Sign out").click()
        expect(page).to_have_url(srv.base_url + "/console/login")
        page.goto(srv.base_url + "/console/episodes")
        expect(page).to_have_url(srv.base_url + "/console/login?next=/console/episodes")


def test_hostile_environment_text_does_not_run(make_server, page: Page, tmp_path: Path):
    srv = make_server(catalog=hostile_catalog(tmp_path / "catalog"))
    for path in ("/console/", "/console/envs/clinic", "/console/tasks/clinic-001"):
        page.goto(srv.base_url + path)
        expect(page.locator("main")).to_contain_text("<script>window.__pwned=1</script>")
        assert page.locator("main img, main svg, main a[href^='javascript']").count() == 0
        _not_pwned(page)


def test_open_an_eval_run_and_a_failed_trials_trajectory(make_server, page: Page, tmp_path: Path):
    srv = make_server(catalog=BUILTIN_CATALOG, runs_dir=tmp_path / "runs")
    with srv.http() as c:
        write_run(tmp_path / "runs", c)
    page.goto(srv.base_url + "/console/")
    page.get_by_role("link", name="Runs").click()
    page.get_by_role("link", name=RUN_ID).click()
    expect(page.locator("#run-envs tbody tr").first).to_contain_text("clinic")  # the worst first
    _shot(page, "run")
    page.locator("#run-tasks a.trial-mark.bad").click()
    expect(page.locator("h1")).to_contain_text("clinic-001 trial 0")
    expect(page.locator("#trajectory")).to_contain_text("Booked you at 11:30.")
    expect(page.locator("#trajectory")).to_contain_text("<script>window.__pwned=1</script>")
    expect(page.locator("#score .diff-changed").first).to_contain_text("slot_id")
    expect(page.locator("#expected ol.gold li")).to_have_count(4)
    _not_pwned(page)
    _shot(page, "trial")
