"""The console's eval-run pages over real HTTP: the runs, a run's figures (worst environment first,
failed tasks first), a failed trial's trajectory beside the expected outcome, and who may see them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from envs.paths import BUILTIN_CATALOG

from ..conftest import API_KEYS, KEY_A, KEY_ADMIN
from .eval_runs import EPISODE_ID, RUN_ID, write_run
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
        missing = c.get(f"/console/runs/{RUN_ID}/trials/clinic-001/7")
        assert missing.status_code == 404
        # headed in words, the code beside; the Runs link kept, and the way back is to the runs
        assert "<h1>Not found <span" in missing.text and "<code>" in missing.text
        assert 'href="/console/runs" aria-current="page">Runs</a>' in missing.text
        assert '<a href="/console/runs">Back to the runs</a>' in missing.text
    assert "Dr. Osei on Wednesday morning" in page and "Booked you at 11:30." in page  # messages, answer
    assert "book_appointment" in page and "4.2 ms" in page  # the tool call
    (user_call,) = re.findall(r'<article class="call actor-user">.*?</article>', page, flags=re.S)
    assert "check_status_bar" in user_call and '<span class="tag actor-user"' in user_call  # the user's own
    assert 'class="reward fail">0.00' in page and "S022" in page and "S021" in page  # score: actual, expected
    assert 'id="expected"' in page and "list_open_slots" in page  # the gold path
    assert SCRIPT not in page and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    # the assistant's call reads as its tool and its arguments, not as JSON text escaped inside JSON
    assert 'calls <code class="tool">book_appointment</code>' in page and "&#34;arguments&#34;: &#34;{" not in page
    assert "&#34;slot_id&#34;: &#34;S022&#34;" in page
    assert f'href="/console/episodes/{EPISODE_ID}"' in page  # the trial's episode is a link


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


def _malformed_run(root: Path, name: str, records: list[str], report: str, run: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "results.jsonl").write_text("\n".join(records) + "\n")
    (folder / "report.json").write_text(report)
    (folder / "run.json").write_text(run)


def test_malformed_run_folders_are_shown_as_malformed_never_a_server_error(make_server, tmp_path: Path):
    """Wrong types, missing fields and JSON nested 50,000 deep, in every file a run folder has."""
    root = tmp_path / "runs"
    deep = "[" * 50_000 + "]" * 50_000
    good = {"task_id": "clinic-001", "trial": 0, "env_id": "clinic", "reward": 1.0}
    _malformed_run(
        root,
        "types",
        [
            json.dumps({**good, "trial": "abc"}),
            json.dumps({**good, "task_id": "clinic-002", "reward": "high", "latency": "slow", "turns": {"a": 1}}),
            json.dumps({**good, "task_id": "retail-001", "tool_calls": [{"tool": "x", "latency_ms": "fast"}]}),
            json.dumps({**good, "task_id": "clinic-003", "messages": "hello", "tool_calls": {"a": 1}}),
        ],
        json.dumps(
            {
                "overall": {"pass_hat": ["0.5"], "avg_reward": "good", "trials": 3},
                "by_env": {"clinic": {"pass_hat": {"1": "x"}, "avg_reward": [1]}, "retail": "oops"},
                "failures": [{"signature": "s", "tasks": "clinic-001"}, "text"],
                "infra_errors": "none",
                "created_at": "yesterday",
                "run": ["not", "a", "dict"],
            }
        ),
        "[1, 2, 3]",
    )
    _malformed_run(
        root,
        "deep",
        [f'{{"task_id": "clinic-001", "trial": 0, "messages": {deep}}}', json.dumps({**good, "trial": 1})],
        deep,
        '{"agent": ' + deep + "}",
    )
    _malformed_run(root, "huge-time", [json.dumps(good)], json.dumps({"created_at": 1e300}), "{}")
    srv = make_server(catalog=BUILTIN_CATALOG, runs_dir=root)
    pages = ["/console/runs"]
    for run_id in ("types", "deep", "huge-time"):
        pages += [f"/console/runs/{run_id}", f"/console/runs/{run_id}/trials/clinic-001/1"]
    pages += ["/console/runs/types/trials/clinic-002/0", "/console/runs/types/trials/retail-001/0"]
    pages += ["/console/runs/types/trials/clinic-003/0", "/console/runs/huge-time/trials/clinic-001/0"]
    with srv.http() as c:
        answers = {path: c.get(path) for path in pages}
    assert {p: r.status_code for p, r in answers.items() if r.status_code not in (200, 404)} == {}
    assert answers["/console/runs"].text.count("malformed") >= 2
    types = answers["/console/runs/types"].text
    assert 'id="malformed"' in types and "results.jsonl line 1" in types and "report.json" in types
    assert "run.json: not a JSON object" in types
    assert "nested" in answers["/console/runs/deep"].text
    assert answers["/console/runs/types/trials/clinic-002/0"].status_code == 200
    assert answers["/console/runs/deep/trials/clinic-001/1"].status_code == 200
    assert answers["/console/runs/huge-time/trials/clinic-001/0"].status_code == 200


def test_policy_links_stay_on_the_site():
    from server.console.pages import markdown

    text = "[a](//evil.example/x) [b](https://evil.example) [c](javascript:alert(1)) [d](#rules) [e](docs/a.md)"
    html = str(markdown(text))
    assert '<a href="#rules">d</a>' in html and '<a href="docs/a.md">e</a>' in html
    assert html.count("<a ") == 2  # the others stay text
