"""``envfarm mcp`` on a cold cache (no default catalog generated yet): ``initialize`` is answered at
once, with the real SDK client over stdio. A reference environment needs nothing generated; a
synthesized one is generated alone while the session starts, and requests that need it wait for it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from envfarm.cli import main
from envs import Catalog
from server.mcp_adapter import build_server
from server.stdio import LocalEpisode, Opening, open_local
from synthesis.domains.ontology import load_ontology

from .conftest import run
from .test_stdio import exit_report, params

#: MCP Inspector gives up after 15 s: a cold start must answer without waiting for the default
#: catalog (minutes). That it does not wait is asserted on the cache (no catalog was built); how long
#: it takes is printed here and measured by ``envfarm bench stdio``, never asserted.
SYNTHESIZED = load_ontology()[0].id


def cold(cache: Path, *args: str) -> StdioServerParameters:
    """``envfarm mcp ARGS`` with an empty cache and first-use generation allowed."""
    p = params(*args)
    env = {k: v for k, v in os.environ.items() if k not in ("ENVFARM_NO_GENERATE", "ENVFARM_CATALOG")}
    return p.model_copy(update={"env": {**env, "ENVFARM_CACHE_DIR": str(cache)}})


async def timed_session(server: StdioServerParameters, errlog, work):
    """Start the server, time ``initialize`` (from launching the process), then run ``work(client)``."""
    from mcp.client.stdio import stdio_client

    t0 = time.perf_counter()
    async with Client(stdio_client(server, errlog=errlog), mode="legacy") as c:
        initialized = time.perf_counter() - t0
        return initialized, await work(c)


def test_cold_cache_serves_a_reference_task_at_once_and_generates_nothing(tmp_path):
    cache = tmp_path / "cache"
    entry, _ = Catalog().task("retail-001")

    async def work(c):
        return [t.name for t in (await c.list_tools()).tools]

    with (tmp_path / "stderr.txt").open("w") as err:
        initialized, tools = run(timed_session(cold(cache, "mcp", "--task", "retail-001"), err, work))
    print(f"cold-cache initialize, reference task: {initialized:.2f} s")
    assert tools == [t.name for t in entry.spec.tools]
    assert not cache.exists() or not [p for p in cache.iterdir() if p.name.startswith(("catalog-", "envs-"))]


def test_cold_cache_answers_initialize_while_a_synthesized_env_is_generated(tmp_path):
    cache = tmp_path / "cache"
    stderr = tmp_path / "stderr.txt"

    async def tools(c):
        return [t.name for t in (await c.list_tools()).tools]

    with stderr.open("w") as err:
        initialized, names = run(timed_session(cold(cache, "mcp", "--env", SYNTHESIZED), err, tools))
    print(f"cold-cache initialize, synthesized environment: {initialized:.2f} s")
    [generated] = cache.glob(f"envs-*/{SYNTHESIZED}")
    assert not list(cache.glob("catalog-*"))  # the one environment alone, not the catalog first
    assert names == [t["name"] for t in json.loads((generated / "spec.json").read_text())["tools"]]
    assert not list(cache.rglob("*.tmp*"))
    assert (
        f"envfarm: the default catalog is not built yet: generating environment '{SYNTHESIZED}' alone "
        "(about a second; `envfarm catalog build` generates the whole catalog ahead of time)"
    ) in stderr.read_text()

    # A task of that environment, on another cold cache: its gold actions reach the gold state.
    entry = Catalog([generated.parent]).get(SYNTHESIZED)
    task = entry.tasks[0]
    stderr = tmp_path / "stderr2.txt"

    async def gold(c):
        return [await c.call_tool(a.tool, a.arguments) for a in task.gold_actions]

    server = cold(tmp_path / "cache2", "mcp", "--task", task.id, "--score-on-exit")
    with stderr.open("w") as err:
        initialized, results = run(timed_session(server, err, gold))
    print(f"cold-cache initialize, synthesized task: {initialized:.2f} s")
    assert not list((tmp_path / "cache2").glob("catalog-*"))
    assert not any(r.is_error for r in results)
    score = exit_report(stderr)["score"]
    assert score["task_id"] == task.id and score["components"]["state"] == 1.0


def test_a_missing_task_of_a_synthesized_env_is_an_error_after_initialize(tmp_path):
    stderr = tmp_path / "stderr.txt"
    missing = f"{SYNTHESIZED}-999"

    async def work(c):
        with pytest.raises(MCPError) as listed:
            await c.list_tools()
        called = await c.call_tool("anything", {})
        return str(listed.value), called

    with stderr.open("w") as err:
        initialized, (listed, called) = run(
            timed_session(cold(tmp_path / "cache", "mcp", "--task", missing), err, work)
        )
    print(f"cold-cache initialize, missing task: {initialized:.2f} s")
    assert not list((tmp_path / "cache").glob("catalog-*"))
    assert listed.startswith(f"Task '{missing}' doesn't exist. Did you mean '{SYNTHESIZED}-")
    assert called.is_error and called.content[0].text == listed
    text = stderr.read_text()
    assert f"error: {listed}\n" in text and text.count(f"error: {listed}") == 1  # said once, no traceback
    assert "Traceback" not in text


@pytest.fixture
def cold_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ENVFARM_NO_GENERATE", raising=False)
    return tmp_path / "cache"


def test_ids_that_cannot_be_in_the_catalog_are_refused_before_serving(cold_cache, capsys):
    assert main(["mcp", "--task", "retial-001"]) == 1
    assert capsys.readouterr().err.startswith("error: Task 'retial-001' doesn't exist. Did you mean 'retail-001'")
    typo = SYNTHESIZED[:-1]
    assert main(["mcp", "--task", f"{typo}-001"]) == 1
    assert f"error: Task '{typo}-001' doesn't exist. Did you mean '{SYNTHESIZED}-001'" in capsys.readouterr().err
    assert main(["mcp", "--env", typo]) == 1
    assert f"error: Environment '{typo}' doesn't exist. Did you mean '{SYNTHESIZED}'" in capsys.readouterr().err
    assert not cold_cache.exists() or not list(cold_cache.iterdir())  # nothing was generated for them


def test_initialize_does_not_wait_for_the_episode_and_a_failure_to_open_it_is_reported():
    entry, task = Catalog().task("clinic-001")
    release = threading.Event()

    def slow() -> LocalEpisode:
        assert release.wait(30)
        return open_local(entry, task)

    def broken() -> LocalEpisode:
        raise RuntimeError("disk on fire")

    async def session(open_episode):
        opening = Opening(open_episode)
        async with anyio.create_task_group() as tg:
            tg.start_soon(opening.run)
            async with Client(build_server(opening.resolve), mode="legacy") as c:
                release.set()  # initialize has been answered while the episode was still being opened
                try:
                    return [t.name for t in (await c.list_tools()).tools]
                except MCPError as exc:
                    return str(exc)

    assert run(session(slow)) == [t.name for t in entry.spec.tools]
    assert run(session(broken)) == "the episode could not be opened (RuntimeError: disk on fire)"


def test_a_knowledge_base_variant_is_made_alone_on_a_cold_cache(cold_cache, capsys):
    """``<domain>_kb`` is made from its domain's environment when the catalog is not built; a domain
    without a variant is refused before anything is served."""
    from envfarm.catalogs import episode_source
    from synthesis.knowledge import SUFFIX

    entry, task = episode_source(None, "library_loans_kb-001", None, notice=lambda _: None)()
    assert entry.spec.id == "library_loans_kb" and task is not None and task.id == "library_loans_kb-001"
    assert task.required_documents and any(c.tool == "search_help_articles" for c in task.gold_actions)
    assert main(["mcp", "--env", "after_school_programs" + SUFFIX]) == 1  # too few tasks a document decides
    assert f"error: Environment 'after_school_programs{SUFFIX}' doesn't exist" in capsys.readouterr().err
