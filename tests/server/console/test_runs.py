"""The console's eval-run pages over real HTTP: the runs, a run's figures (worst environment first,
failed tasks first), a failed trial's trajectory beside the expected outcome, and who may see them."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from envs.paths import BUILTIN_CATALOG

from ..conftest import API_KEYS, KEY_A, KEY_ADMIN
from .eval_runs import RUN_ID, write_run
from .hostile import SCRIPT, Markup


def _page(c: httpx.Client, path: str) -> str:
    r = c.get(path)
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    assert Markup(r.text).active() == [], path
    return r.text


@pytest.fixture
def runs_farm(make_server, tmp_path: Path):
    """A local farm whose runs folder holds one run, written with this farm's scores."""
    srv = make_server(catalog=BUILTIN_CATALOG, runs_dir=tmp_path / "runs")
    with srv.http() as c:
        write_run(tmp_path / "runs", c)
    return srv


def test_the_runs_page_lists_runs_with_their_headline(runs_farm):
    with runs_farm.http() as c:
        page = _page(c, "/console/runs")
        assert 'href="/console/runs"' in _page(c, "/console/")  # the console links to them
    assert f'href="/console/runs/{RUN_ID}"' in page and "my-model" in page
    assert "0.833" in page  # pass^1: three tasks, one of them passed once in two trials


def test_a_run_page_puts_the_worst_environment_and_the_failed_task_first(runs_farm):
    with runs_farm.http() as c:
        page = _page(c, f"/console/runs/{RUN_ID}")
    envs = re.findall(r'<td><a href="/console/envs/([a-z]+)">', page)
    assert envs == ["clinic", "retail"]  # clinic lost a trial
    tasks = re.findall(r'<td><a href="/console/tasks/([a-z0-9-]+)"><code>', page)
    assert tasks == ["clinic-001", "clinic-002", "retail-001"]
    assert f'class="trial-mark bad" href="/console/runs/{RUN_ID}/trials/clinic-001/0"' in page
    assert "pass^2" in page
    assert re.search(r'id="failures".*appointments\.slot_id.*clinic-001', page, re.S)  # the report's failures


def test_a_failed_trial_shows_its_trajectory_score_diff_and_the_expected_outcome(runs_farm):
    with runs_farm.http() as c:
        page = _page(c, f"/console/runs/{RUN_ID}/trials/clinic-001/0")
        assert c.get(f"/console/runs/{RUN_ID}/trials/clinic-001/7").status_code == 404
    assert "Dr. Osei on Wednesday morning" in page and "Booked you at 11:30." in page  # messages, answer
    assert "book_appointment" in page and "4.2 ms" in page  # the tool call
    assert 'class="reward fail">0.00' in page and "S022" in page and "S021" in page  # score: actual, expected
    assert 'id="expected"' in page and "list_open_slots" in page  # the gold path
    assert SCRIPT not in page and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page


def test_runs_are_for_admin_keys_and_only_folders_of_the_runs_folder(make_server, tmp_path: Path):
    srv = make_server(catalog=BUILTIN_CATALOG, runs_dir=tmp_path / "runs", api_keys=API_KEYS)
    (tmp_path / "runs").mkdir()
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "results.jsonl").write_text("{}\n")
    with srv.http(KEY_A) as tenant, srv.http(KEY_ADMIN) as admin:
        assert tenant.get("/console/runs").status_code == 403
        assert 'href="/console/runs"' not in _page(tenant, "/console/")
        assert "No run folders" in _page(admin, "/console/runs")
        for run_id in ("..%2Fsecret", "%2E%2E", ".hidden", "nope"):
            assert admin.get(f"/console/runs/{run_id}").status_code == 404, run_id


def test_without_a_runs_folder_there_are_no_runs_pages(make_server):
    srv = make_server(catalog=BUILTIN_CATALOG)
    with srv.http() as c:
        assert c.get("/console/runs").status_code == 404
        assert 'href="/console/runs"' not in _page(c, "/console/")
