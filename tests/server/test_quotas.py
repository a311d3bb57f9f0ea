"""A hostile tenant cannot exhaust the farm: string limits, call-log quotas, retention by count and
bytes, and log reads in bounded pages, all against a live server over TCP (and MCP where it applies).

Nothing is timed: what happens in the background (retention) is polled for with a generous deadline.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from clients.farm import FarmClient
from server.store import Store

from .conftest import API_KEYS, KEY_A, KEY_B, LiveServer, auth, mcp_session, run

DEADLINE_SECONDS = 120  # for retention, which runs every reap interval in the server's own loop
MEGABYTE_OF_TEXT = 990_000  # with the rest of the request, within the default 1,000,000-byte body limit
USER = "andrew_gaines_1365"  # a retail user


def _episode(c: httpx.Client, env_id: str = "clinic") -> str:
    response = c.post("/episodes", json={"env_id": env_id})
    assert response.status_code == 201, response.text
    episode_id: str = response.json()["episode_id"]
    return episode_id


def _status(c: httpx.Client, episode_id: str) -> dict[str, Any]:
    response = c.get(f"/episodes/{episode_id}", params={"log": "false"})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _lookup(c: httpx.Client, episode_id: str, chars: int = 2000) -> httpx.Response:
    """A read call with ``chars`` characters of text in its arguments (within the 4,096 limit): it
    finds nothing and changes nothing, and its log row holds the text twice (arguments, and the
    error message naming the id), about 4 KB."""
    return c.post(
        f"/episodes/{episode_id}/calls",
        json={"tool": "get_patient_appointments", "arguments": {"patient_id": "x" * chars}},
    )


def _store_size(srv: LiveServer) -> int:
    """Bytes of the server's SQLite store on disk, its write-ahead log included."""
    return sum(path.stat().st_size for path in Path(srv.settings.data_dir).glob("envfarm.db*"))


def _poll(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"not within {DEADLINE_SECONDS} s: {what}"
        time.sleep(0.1)


# -- every string has a limit ------------------------------------------------------------------------


def test_a_megabyte_summary_is_refused_naming_the_limit_and_changes_nothing(make_server: Callable[..., Any]) -> None:
    srv: LiveServer = make_server()
    summary = "x" * MEGABYTE_OF_TEXT
    with srv.http() as c:
        episode_id = _episode(c, "retail")
        before = _status(c, episode_id)
        disk_before = _store_size(srv)
        refused = c.post(
            f"/episodes/{episode_id}/calls",
            json={"tool": "transfer_to_human_agents", "arguments": {"summary": summary, "user_id": USER}},
        )
        assert refused.status_code == 200, refused.text
        out = refused.json()
        assert out["is_error"] and out["error_type"] == "ToolArgumentError"
        assert "'summary'" in out["message"] and "at most 4,096" in out["message"]

        async def over_mcp() -> Any:
            async with mcp_session(f"{srv.base_url}/episodes/{episode_id}/mcp", "2026-07-28") as session:
                return await session.call_tool("transfer_to_human_agents", {"summary": summary, "user_id": USER})

        result = run(over_mcp())
        assert result.is_error and "'summary'" in result.content[0].text and "at most 4,096" in result.content[0].text

        after = _status(c, episode_id)
        assert after["calls"] == before["calls"] + 2  # both refusals are in the trajectory ...
        assert after["log_bytes"] - before["log_bytes"] < 2_000  # ... as notes, not the megabyte twice
        assert _store_size(srv) - disk_before < 200_000  # the database and its write-ahead log
        log = c.get(f"/episodes/{episode_id}").json()["log"]
        assert all("_invalid" in call["arguments"] and call["is_error"] for call in log)
        # A refused call changed nothing (the engine rolls every failure back); a summary within the limit works.
        fine = c.post(
            f"/episodes/{episode_id}/calls",
            json={"tool": "transfer_to_human_agents", "arguments": {"summary": "Refund dispute", "user_id": USER}},
        )
        assert fine.status_code == 200 and not fine.json()["is_error"], fine.text


def test_a_huge_tool_name_or_a_pile_of_short_strings_costs_the_log_a_note(make_server: Callable[..., Any]) -> None:
    """What no limit of a single string catches: a 900,000-character tool name (REST and MCP), 999
    strings of 900 characters under an argument no tool takes, or a list where text belongs. Each call
    is refused as a tool error and logged as a short note: the store grows by kilobytes, not megabytes."""
    srv: LiveServer = make_server()
    name = "get_" + "x" * 900_000
    pile = ["y" * 900] * 999
    with srv.http() as c:
        episode_id = _episode(c, "retail")
        before = _status(c, episode_id)
        disk_before = _store_size(srv)
        calls = [
            {"tool": name, "arguments": {}},
            {"tool": "get_user_details", "arguments": {"user_id": USER, "extra": pile}},
            {"tool": "get_user_details", "arguments": {"user_id": pile}},
            {"tool": "get_user_details", "arguments": {"user_id": USER, "z" * 4000: pile[:5]}},
        ]
        messages = []
        for body in calls:
            refused = c.post(f"/episodes/{episode_id}/calls", json=body)
            assert refused.status_code == 200, refused.text[:300]
            out = refused.json()
            assert out["is_error"], out
            messages.append(out["message"])
        assert messages[0].startswith("Tool 'get_xxx") and "(900,004 characters)" in messages[0]
        assert "'extra'" in messages[1] and "'user_id'" in messages[2]
        assert all(len(m) < 2_000 for m in messages), [len(m) for m in messages]

        async def over_mcp() -> Any:
            async with mcp_session(f"{srv.base_url}/episodes/{episode_id}/mcp", "2026-07-28") as session:
                return await session.call_tool(name, {"extra": pile[:50]})

        result = run(over_mcp())
        assert result.is_error and "(900,004 characters)" in result.content[0].text
        assert len(result.content[0].text) < 2_000

        after = _status(c, episode_id)
        assert after["calls"] == before["calls"] + 5
        kept = len(json.dumps(calls[3]["arguments"])) + len(json.dumps({"extra": pile[:50]}))
        assert after["log_bytes"] - before["log_bytes"] < kept + 5 * 2_000  # notes, not 900 KB a call
        assert _store_size(srv) - disk_before < 400_000
        log = c.get(f"/episodes/{episode_id}").json()["log"]
        assert [len(call["tool"]) < 100 for call in log] == [True] * 5
        assert all("_invalid" in call["arguments"] for call in log[1:3])
        assert log[3]["arguments"] != {} and log[4]["arguments"] == {"extra": pile[:50]}  # small ones kept as sent


def test_tools_list_states_the_limit_the_server_enforces(make_server: Callable[..., Any]) -> None:
    srv: LiveServer = make_server(max_string_chars=300)
    with srv.http() as c:
        tools = {t["name"]: t for t in c.get("/envs/retail").json()["tool_list"]}
        summary = tools["transfer_to_human_agents"]["input_schema"]["properties"]["summary"]
        assert "1 to 300 characters" in summary["description"]
        episode_id = _episode(c, "retail")
        out = c.post(
            f"/episodes/{episode_id}/calls",
            json={"tool": "transfer_to_human_agents", "arguments": {"summary": "y" * 301, "user_id": USER}},
        ).json()
        assert out["is_error"] and "at most 300 are accepted" in out["message"]


# -- call-log quotas -----------------------------------------------------------------------------------


def test_an_episode_past_its_log_quota_is_refused_before_the_call_runs(make_server: Callable[..., Any]) -> None:
    srv: LiveServer = make_server(max_log_bytes_per_episode=20_000)
    with srv.http() as c:
        episode_id = _episode(c)
        assert _lookup(c, episode_id).status_code == 200
        per_call = _status(c, episode_id)["log_bytes"]
        calls = 1
        while (response := _lookup(c, episode_id)).status_code == 200:
            calls += 1
            assert calls < 20, "the quota never applied"
        # Calls are taken while the log is under 20,000 bytes; the one after it reached that is refused.
        assert calls == math.ceil(20_000 / per_call), (calls, per_call)
        assert response.status_code == 413
        error = response.json()["error"]
        assert error["code"] == "quota_exceeded" and error["field"] == "log_bytes"
        assert "ENVFARM_MAX_LOG_BYTES_PER_EPISODE = 20,000" in error["message"]
        status = _status(c, episode_id)
        assert status["calls"] == calls and status["log_bytes"] >= 20_000  # the refused call was not logged

        async def over_mcp() -> Any:
            async with mcp_session(f"{srv.base_url}/episodes/{episode_id}/mcp", "2026-07-28") as session:
                return await session.call_tool("list_providers", {})

        result = run(over_mcp())
        assert result.is_error and "ENVFARM_MAX_LOG_BYTES_PER_EPISODE" in result.content[0].text
        assert _status(c, episode_id)["calls"] == calls
        other = _episode(c)  # the quota is the episode's: another one calls as usual
        assert _lookup(c, other).status_code == 200
    assert srv.metric("envfarm_quota_refusals_total") == 2


def test_a_tenant_past_its_store_quota_is_refused_and_others_are_not(make_server: Callable[..., Any]) -> None:
    srv: LiveServer = make_server(api_keys=API_KEYS, max_store_bytes_per_tenant=30_000)
    with srv.http(KEY_A) as a, srv.http(KEY_B) as b:
        first, second = _episode(a), _episode(a)
        calls = 0
        while (response := _lookup(a, first if calls % 2 else second)).status_code == 200:
            calls += 1
            assert calls < 20, "the quota never applied"
        assert response.status_code == 413
        error = response.json()["error"]
        assert error["code"] == "quota_exceeded" and error["field"] == "store_bytes"
        assert "ENVFARM_MAX_STORE_BYTES_PER_TENANT = 30,000" in error["message"]
        assert _status(a, first)["log_bytes"] + _status(a, second)["log_bytes"] >= 30_000
        refused = a.post("/episodes", json={"env_id": "clinic"})  # a new episode would not help
        assert refused.status_code == 413 and refused.json()["error"]["code"] == "quota_exceeded"
        assert _lookup(b, _episode(b)).status_code == 200  # tenant B has its own quota


# -- retention by count and by bytes -----------------------------------------------------------------


def _closed_episodes(c: httpx.Client, count: int, chars: int) -> list[str]:
    """``count`` episodes, oldest first, each with one call of ``chars`` characters, then closed."""
    ids = []
    for _ in range(count):
        episode_id = _episode(c)
        assert _lookup(c, episode_id, chars).status_code == 200
        assert c.delete(f"/episodes/{episode_id}").status_code == 200
        ids.append(episode_id)
    return ids


def _gone(c: httpx.Client, episode_id: str) -> bool:
    return c.get(f"/episodes/{episode_id}", params={"log": "false"}).status_code == 404


def test_retention_by_count_deletes_a_tenants_oldest_closed_logs(make_server: Callable[..., Any]) -> None:
    srv: LiveServer = make_server(api_keys=API_KEYS, retention_max_episodes_per_tenant=2, reap_interval_seconds=0.2)
    with srv.http(KEY_A) as a, srv.http(KEY_B) as b:
        still_open = _episode(a)
        older_of_b = _closed_episodes(b, 1, 10)  # older than all of A's: A's logs must not push it out
        oldest, older, newer, newest = _closed_episodes(a, 4, 10)
        _poll(lambda: _gone(a, oldest) and _gone(a, older), "the two oldest closed episodes deleted")
        for kept in (newer, newest):
            assert [call["tool"] for call in a.get(f"/episodes/{kept}").json()["log"]] == ["get_patient_appointments"]
        assert _status(a, still_open)["status"] == "open"  # retention is for ended episodes only
        assert _status(b, older_of_b[0])["status"] == "closed"


def test_retention_by_bytes_deletes_the_oldest_closed_logs_beyond_the_limit(make_server: Callable[..., Any]) -> None:
    keep_bytes = 10_500
    srv: LiveServer = make_server(retention_max_bytes_per_tenant=keep_bytes, reap_interval_seconds=0.2)
    with srv.http() as c:
        # Each log is one call of about 4 KB; two fit in the limit, three do not.
        sizes = []
        ids = []
        for episode_id in _closed_episodes(c, 2, 2000):
            sizes.append(_status(c, episode_id)["log_bytes"])
            ids.append(episode_id)
        assert 2 * max(sizes) <= keep_bytes < 3 * min(sizes), sizes  # two fit, three do not
        ids += _closed_episodes(c, 1, 2000)
        _poll(lambda: _gone(c, ids[0]), "the oldest closed log deleted")
        assert not _gone(c, ids[1]) and not _gone(c, ids[2])


# -- log reads in bounded pages ----------------------------------------------------------------------


def test_a_large_log_is_read_in_bounded_pages(make_server: Callable[..., Any]) -> None:
    page_bytes = 20_000
    srv: LiveServer = make_server(log_page_max_bytes=page_bytes)
    with srv.http() as c:
        episode_id = _episode(c)
        for _ in range(30):
            assert _lookup(c, episode_id).status_code == 200
        seqs: list[int] = []
        path: str | None = f"/episodes/{episode_id}/log?limit=1000"
        pages = 0
        while path is not None:
            response = c.get(path)
            assert response.status_code == 200, response.text
            # A page ends once it holds page_bytes of arguments and results: one call more at most.
            assert len(response.content) < page_bytes + 6_000
            page = response.json()
            assert page["total"] == 30 and page["episode_id"] == episode_id
            seqs += [call["seq"] for call in page["items"]]
            path = page["next"]
            pages += 1
        assert seqs == list(range(1, 31)) and pages >= 5
        small = c.get(f"/episodes/{episode_id}/log", params={"after": 28, "limit": 1}).json()
        assert [call["seq"] for call in small["items"]] == [29] and small["next"] is not None

        embedded = c.get(f"/episodes/{episode_id}")  # the status embeds the first page and says where the rest is
        assert len(embedded.content) < page_bytes + 6_000
        status = embedded.json()
        assert status["log"][0]["seq"] == 1 and len(status["log"]) < 30 and status["log_next"]

        async def whole_log() -> Any:
            async with FarmClient(srv.base_url) as farm:
                return await farm.get_episode(episode_id)

        assert [call["seq"] for call in run(whole_log()).log] == list(range(1, 31))  # the client reads every page


def test_log_pages_are_the_tenants_own_and_bad_bounds_are_refused(make_server: Callable[..., Any]) -> None:
    srv: LiveServer = make_server(api_keys=API_KEYS)
    with srv.http(KEY_A) as a:
        episode_id = _episode(a)
        assert httpx.get(f"{srv.base_url}/episodes/{episode_id}/log", headers=auth(KEY_B)).status_code == 404
        for params in ({"limit": 0}, {"limit": 1001}, {"after": -1}, {"after": 2**63}):
            response = a.get(f"/episodes/{episode_id}/log", params=params)
            assert response.status_code == 422, (params, response.text)
        empty = a.get(f"/episodes/{episode_id}/log").json()
        assert empty["items"] == [] and empty["next"] is None and empty["total"] == 0


# -- a store from before log bytes were counted ------------------------------------------------------


_OLD_SCHEMA = (
    "CREATE TABLE episodes (id VARCHAR(64) PRIMARY KEY, tenant VARCHAR(128) NOT NULL, env_id VARCHAR(64) NOT NULL, "
    "task_id VARCHAR(128), status VARCHAR(16) NOT NULL, created_at FLOAT NOT NULL, last_active_at FLOAT NOT NULL, "
    "calls INTEGER NOT NULL)",
    "CREATE TABLE calls (episode_id VARCHAR(64) NOT NULL REFERENCES episodes(id) ON DELETE CASCADE, "
    "seq INTEGER NOT NULL, tool VARCHAR(128) NOT NULL, arguments TEXT NOT NULL, kind VARCHAR(8) NOT NULL, "
    "is_error BOOLEAN NOT NULL, result TEXT, error_type VARCHAR(64), started_at FLOAT NOT NULL, "
    "duration_ms FLOAT NOT NULL, transport VARCHAR(8) NOT NULL, PRIMARY KEY (episode_id, seq))",
    "INSERT INTO episodes VALUES ('ep_old', 'local', 'clinic', NULL, 'closed', 1.0, 2.0, 2)",
    "INSERT INTO calls VALUES ('ep_old', 1, 'list_providers', '{}', 'read', FALSE, '[1, 2]', NULL, 1.0, 1.0, 'rest')",
    "INSERT INTO calls VALUES ('ep_old', 2, 'list_providers', '{\"a\": 1}', 'read', FALSE, NULL, NULL, 2.0, 1.0, 'rest')",
)


def _store_made_before_log_bytes_gets_the_column_filled_in(url: str) -> None:
    old = sa.create_engine(url)
    with old.begin() as db:
        for statement in _OLD_SCHEMA:
            db.exec_driver_sql(statement)
    old.dispose()
    store = Store(url)
    try:
        row = store.get_episode("ep_old")
        assert row is not None and row.log_bytes == len("{}") + len("[1, 2]") + len('{"a": 1}')
        assert store.tenant_log_bytes("local") == row.log_bytes
        assert [c.actor for c in store.calls("ep_old")] == ["agent", "agent"]  # the column came too
        assert row.knowledge == "search"  # and so did the episodes' knowledge mode
        assert store.prune_ended(keep_episodes=1, keep_bytes=row.log_bytes) == 0  # within both limits
        assert store.prune_ended(keep_episodes=0, keep_bytes=row.log_bytes) == 1 and store.get_episode("ep_old") is None
    finally:
        store.close()


def test_a_sqlite_store_made_before_log_bytes_gets_the_column_filled_in(tmp_path: Path) -> None:
    _store_made_before_log_bytes_gets_the_column_filled_in(f"sqlite:///{tmp_path / 'old.db'}")


def test_a_postgresql_store_made_before_log_bytes_gets_the_column_filled_in(postgres_url: str) -> None:
    _store_made_before_log_bytes_gets_the_column_filled_in(postgres_url)


def test_the_log_quota_holds_under_concurrent_calls(make_server: Callable[..., Any]) -> None:
    """Calls to one episode are serialized, so many at once cannot all pass the check before any is logged."""
    srv: LiveServer = make_server(max_log_bytes_per_episode=20_000)
    with srv.http() as c:
        episode_id = _episode(c)
        assert _lookup(c, episode_id).status_code == 200
        per_call = _status(c, episode_id)["log_bytes"]

    async def burst() -> list[int]:
        async with httpx.AsyncClient(base_url=srv.base_url, timeout=60) as http:
            body = {"tool": "get_patient_appointments", "arguments": {"patient_id": "x" * 2000}}
            responses = await asyncio.gather(
                *(http.post(f"/episodes/{episode_id}/calls", json=body) for _ in range(20))
            )
            return [r.status_code for r in responses]

    codes = run(burst())
    assert sorted(set(codes)) == [200, 413] and codes.count(200) + 1 == math.ceil(20_000 / per_call), codes
