"""The console's pages over real HTTP (no browser): what each page holds, that hostile text stays text,
and that the console sees exactly what its key sees (sign-in, cookie, tenants, admin-only parts)."""

from __future__ import annotations

import hashlib
import html
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from envs.paths import BUILTIN_CATALOG
from server.console.episode_pages import PAGE_CALLS
from server.console.session import COOKIE

from ..conftest import API_KEYS, CLINIC_BOOKING, KEY_A, KEY_ADMIN, KEY_B, auth, call_rest
from .hostile import ALL, IMG, SCRIPT, Markup, hostile_catalog

HTMX_SHA256 = "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"  # htmx.org@2.0.11 dist/htmx.min.js


@pytest.fixture
def local(make_server):
    return make_server(catalog=BUILTIN_CATALOG)


@pytest.fixture
def keyed(make_server):
    return make_server(catalog=BUILTIN_CATALOG, api_keys=API_KEYS)


def _page(c: httpx.Client, path: str) -> str:
    r = c.get(path)
    assert r.status_code == 200, (path, r.status_code, r.text[:500])
    assert r.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert Markup(r.text).active() == [], path
    return r.text


def test_root_opens_the_console_and_the_catalog_lists_every_environment(local):
    with local.http() as c:
        r = c.get("/")
        assert r.status_code == 307 and r.headers["location"] == "/console/"
        page = _page(c, "/console/")
        assert 'href="/console/envs/retail"' in page and 'href="/console/envs/clinic"' in page
        cells = _page(c, "/console/envs/clinic/quality?view=cells")
        # refusal, writes used, policy-only, dependent, incoherent, ambiguous: as the header names them
        # ("—": nothing to count, once shown as "0/0" beside "0/5")
        assert re.findall(r">([^<]*)</td>", cells) == ["0%", "5/5", "—", "0%", "—", "0/5"]
        # each column says what it counts, in its tooltip and in the legend under the table
        assert 'title="Share of tasks where the agent must decline' in page and 'id="measure-help"' in page
        assert page.count("(measure ") >= 5 and "quality measure (docs/synthesis.md)" not in page
        assert "/console/envs/retail" not in _page(c, "/console/?sector=healthcare")
        # the console is not part of the API's contract
        assert not any(p.startswith("/console") or p == "/" for p in c.get("/openapi.json").json()["paths"])


def test_environment_page_shows_policy_tables_tools_dependencies_and_tasks(local):
    with local.http() as c:
        page = _page(c, "/console/envs/clinic")
    assert "<h1>Clinic front desk policy</h1>" in page  # the policy's Markdown, rendered
    assert "<code>appointments</code>" in page and "seed rows" in page
    assert "references patients (patient_id)" in page  # a foreign key, in words
    assert 'id="tool-book_appointment"' in page and "Advertised input schema" in page
    assert "guarded by the tool" in page  # the rules a tool enforces
    needs = re.search(r'href="#tool-book_appointment"><code>book_appointment</code>.*?</tr>', page, re.S)
    assert needs and "find_patient_by_email" in needs.group()  # book_appointment needs a patient id
    assert 'href="/console/tasks/clinic-001"' in page


def test_task_page_shows_the_gold_path_and_checks_to_admin_keys_only(keyed):
    with keyed.http(KEY_ADMIN) as c:
        admin = _page(c, "/console/tasks/clinic-001")
    with keyed.http(KEY_A) as c:
        tenant = _page(c, "/console/tasks/clinic-001")
    for page in (admin, tenant):
        assert "Dr. Osei on Wednesday morning" in page and "maria.lopez@example.com" in page
    assert "Gold path" in admin and "book_appointment" in admin and "Only one new appointment" in admin
    assert "Gold path" not in tenant and "book_appointment" not in tenant and "Only one new appointment" not in tenant
    assert "admin keys only" in tenant


def test_unknown_ids_are_html_404_pages(local):
    with local.http() as c:
        for path, code in [("/console/envs/nope", "env_not_found"), ("/console/tasks/nope", "task_not_found")]:
            r = c.get(path)
            assert r.status_code == 404 and code in r.text and r.headers["content-type"].startswith("text/html")
        assert c.get("/console/episodes/ep_nope").status_code == 404
        assert c.get("/console/episodes?offset=-1").status_code == 422
        episode = c.post("/episodes", json={"env_id": "clinic"}).json()["episode_id"]
        assert c.get(f"/console/episodes/{episode}/live?after={2**64}").status_code == 422


def test_static_files_ship_with_the_package_and_htmx_is_the_vendored_release(local):
    with local.http() as c:
        htmx = c.get("/console/static/htmx.min.js")
        assert htmx.status_code == 200 and hashlib.sha256(htmx.content).hexdigest() == HTMX_SHA256
        assert c.get("/console/static/console.css").status_code == 200
        assert c.get("/console/static/console.js").status_code == 200


def test_episode_page_shows_calls_and_then_the_score_with_its_diff(local):
    with local.http() as c:
        episode = c.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
        call_rest(c, episode, "find_patient_by_email", {"email": "maria.lopez@example.com"})
        call_rest(c, episode, "book_appointment", {**CLINIC_BOOKING, "slot_id": "S022"})  # the wrong slot
        failed = call_rest(c, episode, "book_appointment", {**CLINIC_BOOKING, "slot_id": "S999"})
        assert failed["is_error"]
        page = _page(c, f"/console/episodes/{episode}")
        assert page.count('class="call') == 3 and "Not scored yet" in page and 'id="poller"' in page
        assert "error: " in page and "S999" in page
        live = _page(c, f"/console/episodes/{episode}/live?after=2")
        assert 'id="call-3"' in live and 'id="call-2"' not in live and 'hx-swap-oob="true"' in live
        # the redrawn status card keeps the MCP URL the page showed
        assert f"/episodes/{episode}/mcp</code>" in page and f"/episodes/{episode}/mcp</code>" in live
        assert c.post(f"/episodes/{episode}/score", json={"answer": "Booked."}).json()["reward"] == 0.0
        page = _page(c, f"/console/episodes/{episode}")
        assert 'class="reward fail">0.00' in page and "S022" in page and "S021" in page  # actual and expected
        assert "Booked." in page
        listed = _page(c, "/console/episodes")
        assert episode in listed and "0.00" in listed
        c.delete(f"/episodes/{episode}")
        assert 'id="poller"' not in _page(c, f"/console/episodes/{episode}")  # ended: nothing more to poll


def test_hostile_text_is_text_on_every_page(make_server, tmp_path: Path):
    srv = make_server(catalog=hostile_catalog(tmp_path / "catalog"))
    with srv.http() as c:
        pages = {p: _page(c, p) for p in ("/console/", "/console/envs/clinic", "/console/tasks/clinic-001")}
        episode = c.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
        call_rest(c, episode, "find_patient_by_email", {"email": ALL})
        call_rest(c, episode, "book_appointment", {**CLINIC_BOOKING, "reason": ALL})
        c.post(f"/episodes/{episode}/score", json={"answer": ALL})
        pages["episode"] = _page(c, f"/console/episodes/{episode}")
    for name, page in pages.items():
        assert SCRIPT not in page and IMG not in page, name
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in pages["/console/envs/clinic"]  # shown, as text
    assert "&lt;img src=x onerror=" in pages["episode"]


def test_without_a_key_the_console_asks_for_one(keyed):
    with httpx.Client(base_url=keyed.base_url) as c:
        r = c.get("/console/episodes?status=open")
        assert r.status_code == 303 and r.headers["location"] == "/console/login?next=/console/episodes%3Fstatus%3Dopen"
        assert c.get("/console/envs/clinic", headers={"HX-Request": "true"}).status_code == 401
        assert "API key" in _page(c, "/console/login")
        assert c.post("/console/login", headers=auth("not-a-key-0000000000")).status_code == 401
        assert c.get("/console/episodes", headers={"Cookie": f"{COOKIE}=not-a-key-0000000000"}).status_code == 303
        assert c.get("/console/static/console.js").status_code == 200  # the sign-in page's assets need no key


def test_local_mode_needs_no_sign_in(local):
    with httpx.Client(base_url=local.base_url) as c:
        assert c.get("/console/login?next=/console/episodes").headers["location"] == "/console/episodes"
        assert "local mode" in _page(c, "/console/")


def test_signing_in_sets_an_http_only_strict_cookie_for_the_console_only(keyed):
    with httpx.Client(base_url=keyed.base_url) as c:
        r = c.post("/console/login", headers=auth(KEY_A))
        assert r.status_code == 204
        cookie = r.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}={KEY_A};")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/console" in cookie
        assert "Secure" not in cookie  # plain HTTP on loopback: a Secure cookie would never come back
        c.cookies.clear()  # sent by hand below
        jar = {"Cookie": f"{COOKIE}={KEY_A}"}
        assert "tenantA" in c.get("/console/episodes", headers=jar).text
        # the cookie is the console's: the API and MCP never take it for a key
        assert c.get("/episodes", headers=jar).status_code == 401
        assert c.post("/episodes", headers=jar, json={"task_id": "clinic-001"}).status_code == 401
        out = c.post("/console/logout", headers=jar)
        assert out.status_code == 303 and f'{COOKIE}=""' in out.headers["set-cookie"]


def test_sign_in_goes_back_only_to_console_pages(keyed):
    with httpx.Client(base_url=keyed.base_url) as c:
        for target in ("//evil.example/x", "https://evil.example/", "/docs", "/console\\@evil"):
            page = c.get("/console/login", params={"next": target}).text
            assert 'data-next="/console/"' in page, target


def test_a_tenant_sees_only_its_own_episodes(keyed):
    with keyed.http(KEY_A) as a, keyed.http(KEY_B) as b:
        mine = a.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
        theirs = b.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
        call_rest(b, theirs, "find_patient_by_email", {"email": "maria.lopez@example.com"})
        b.post(f"/episodes/{theirs}/score", json={"answer": "x"})
        listed = _page(a, "/console/episodes")
        assert mine in listed and theirs not in listed
        for path in (f"/console/episodes/{theirs}", f"/console/episodes/{theirs}/live?after=0"):
            r = a.get(path)
            assert r.status_code == 404 and "maria" not in r.text, path
        assert theirs in _page(b, "/console/episodes")


def test_a_quality_measure_that_fails_shows_as_unknown_not_as_a_page_waiting_forever(local, monkeypatch):
    def broken(entry):
        raise RuntimeError("replay failed")

    monkeypatch.setattr("server.console.catalog_pages.env_quality", broken)
    with local.http() as c:
        assert re.findall(r">([^<]*)</td>", _page(c, "/console/envs/clinic/quality?view=cells")) == ["?"] * 6
        assert "<dd>?</dd>" in _page(c, "/console/envs/clinic/quality")


def test_a_long_log_comes_a_page_at_a_time_until_every_call_is_shown(local):
    with local.http() as c:
        episode = c.post("/episodes", json={"env_id": "clinic"}).json()["episode_id"]
        for _ in range(PAGE_CALLS + 5):
            call_rest(c, episode, "list_insurance_plans", {})
        c.post(f"/episodes/{episode}/reset")
        c.delete(f"/episodes/{episode}")
        page = _page(c, f"/console/episodes/{episode}")
        assert page.count('<article class="call') == PAGE_CALLS
        assert f"live?after={PAGE_CALLS}" in page  # ended, but not all shown yet: the page goes on asking
        rest = _page(c, f"/console/episodes/{episode}/live?after={PAGE_CALLS}")
        assert rest.count('<article class="call') == 6 and 'id="poller"' not in rest
        assert "went back to its initial state" in rest  # the reset, as the log keeps it


def test_behind_an_https_public_url_the_cookie_is_secure(make_server):
    srv = make_server(catalog=BUILTIN_CATALOG, api_keys=API_KEYS, public_url="https://farm.example.org")
    with httpx.Client(base_url=srv.base_url) as c:
        cookie = c.post("/console/login", headers=auth(KEY_A)).headers["set-cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie


def test_a_task_page_starts_an_episode_whose_page_gives_a_snippet_that_connects(local):
    """ "Start an episode" on a task's page makes one under the viewer's key and opens its page, with
    the MCP URL and a Python snippet that, run as shown, lists the episode's tools."""
    with local.http() as c:
        assert 'action="/console/tasks/clinic-001/episodes"' in _page(c, "/console/tasks/clinic-001")
        started = c.post("/console/tasks/clinic-001/episodes")
        assert started.status_code == 303 and started.headers["location"].startswith("/console/episodes/ep_")
        episode_id = started.headers["location"].rsplit("/", 1)[1]
        assert c.get(f"/episodes/{episode_id}").json()["task_id"] == "clinic-001"
        page = _page(c, started.headers["location"])
        assert f"/episodes/{episode_id}/mcp</code>" in page
        assert c.post("/console/tasks/nowhere-001/episodes").status_code == 404
    snippet = re.search(r'id="client-snippet">.*?<pre>(.*?)</pre>', page, re.S)
    assert snippet is not None
    code = html.unescape(snippet.group(1))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "'list_providers'" in done.stdout


def test_a_task_without_documents_offers_no_prompt_modes(local):
    with local.http() as c:
        assert "?knowledge=" not in _page(c, "/console/tasks/clinic-001")
