"""One request must never stall or poison the farm for other tenants (against a live server).

A slow call runs in a worker thread under the per-call time limit while other tenants' calls go on;
arguments no tool could take are typed tool errors, not 500s; a call row the store refuses is
isolated so everyone else's rows, and writes, still go through.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from envs.engine import tool_calls
from server.bench.isolation import UNIQUE_ITEMS_CALL, write_lab_catalog
from server.store import CallRow

from .conftest import API_KEYS, KEY_A, KEY_ADMIN, KEY_B, auth

# Beside another worker's tests the clock these tests read is no longer the farm's alone (scripts/test).
pytestmark = pytest.mark.alone


@pytest.fixture
def farm(make_server, tmp_path: Path) -> Any:
    write_lab_catalog(tmp_path / "catalog")
    # a spin is stopped by the clock, not by the step budget
    return make_server(catalog=tmp_path / "catalog", api_keys=API_KEYS, step_budget=10**12, call_time_limit_seconds=2.0)


@pytest.fixture
def minting_farm(make_server, tmp_path: Path) -> Any:
    """The same farm with room for 40,000 inserts in one call on a slow, busy machine: these tests are
    about how many ids an episode may make, not about the clock."""
    write_lab_catalog(tmp_path / "catalog")
    return make_server(
        catalog=tmp_path / "catalog", api_keys=API_KEYS, step_budget=10**12, call_time_limit_seconds=120.0
    )


def _episode(client: Any, **body: Any) -> str:
    created = client.post("/episodes", json=body)
    assert created.status_code == 201, created.text
    return str(created.json()["episode_id"])


def test_a_slow_call_ends_in_a_tool_error_while_other_tenants_are_served(farm):
    with farm.http(KEY_A) as a, farm.http(KEY_B) as b:
        slow_episode = _episode(a, env_id="lab")
        other = _episode(b, env_id="lab")
        outcome: dict[str, Any] = {}

        def slow() -> None:
            outcome["response"] = a.post(f"/episodes/{slow_episode}/calls", json={"tool": "spin"})
            outcome["done_after"] = len(served)

        served: list[int] = []
        thread = threading.Thread(target=slow)
        thread.start()
        while thread.is_alive() and len(served) < 200:
            r = b.post(f"/episodes/{other}/calls", json={"tool": "list_things"})
            assert r.status_code == 200 and not r.json()["is_error"], r.text
            served.append(r.status_code)
        thread.join()
        # the other tenant got answers while the spin ran: its calls did not queue behind it
        assert outcome["done_after"] >= 5, outcome
        response = outcome["response"]
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["is_error"] and "exceeded its time limit of 2 s" in body["message"]
        again = a.post(f"/episodes/{slow_episode}/calls", json={"tool": "list_things"})  # the episode still works
        assert again.status_code == 200 and not again.json()["is_error"]


def test_a_huge_unique_list_is_refused_quickly_naming_the_field(farm):
    with farm.http(KEY_A) as a:
        episode = _episode(a, task_id="retail-001")
        r = a.post(f"/episodes/{episode}/calls", json=UNIQUE_ITEMS_CALL)  # 6,000 distinct objects, ~77 KB
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["is_error"] and body["error_type"] == "ToolArgumentError" and "item_ids" in body["message"]


@pytest.mark.parametrize(
    ("raw_arguments", "says", "mcp_parses"),
    [
        ('{"n": 99999999999999999999999}', "does not fit in 64 bits", True),
        # the MCP SDK's own JSON parser refuses these first: a JSON-RPC parse error (-32700), not a tool call
        ('{"n": 1, "note": "\\ud800"}', "lone surrogate", False),
        ('{"n": ' + "[" * 300 + "1" + "]" * 300 + "}", "nested deeper than 32 levels", False),
    ],
    ids=["int-beyond-int64", "lone-surrogate", "nested-300-deep"],
)
def test_arguments_no_tool_could_take_are_tool_errors_over_rest_and_mcp(farm, raw_arguments, says, mcp_parses):
    with farm.http(KEY_A) as a:
        episode = _episode(a, env_id="lab")
        body = '{"tool": "mint", "arguments": ' + raw_arguments + "}"
        r = a.post(f"/episodes/{episode}/calls", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 200, r.text
        assert r.json()["is_error"] and says in r.json()["message"]
        rpc = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "mint", "arguments": '
        mcp = a.post(
            f"/episodes/{episode}/mcp",
            content=rpc + raw_arguments + "}}",
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2025-11-25",
            },
        )
        if mcp_parses:
            assert mcp.status_code == 200, mcp.text
            result = mcp.json()["result"]
            assert result["isError"] and says in result["content"][0]["text"]
        else:
            assert mcp.status_code == 400 and mcp.json()["error"]["code"] == -32700, mcp.text
        farm.service.flush()
        detail = a.get(f"/episodes/{episode}", params={"log": "true"})  # the log still reads back
        assert detail.status_code == 200, detail.text
        assert all(not c["is_error"] or "_invalid" in c["arguments"] for c in detail.json()["log"])


def test_a_result_that_is_not_valid_unicode_is_a_tool_error_or_served_escaped(farm):
    with farm.http(KEY_A) as a:
        episode = _episode(a, env_id="lab")
        text = a.post(f"/episodes/{episode}/calls", json={"tool": "broken_text"})  # SQLite cannot decode it
        assert text.status_code == 200 and text.json()["is_error"], text.text
        assert "Could not decode to UTF-8" in text.json()["message"]
        inner = a.post(f"/episodes/{episode}/calls", json={"tool": "broken_json"})  # JSON can carry it escaped
        assert inner.status_code == 200 and not inner.json()["is_error"], inner.text
        assert inner.json()["content"] == {"j": "a\ufffdb"}
        farm.service.flush()
        log = a.get(f"/episodes/{episode}", params={"log": "true"})
        assert log.status_code == 200, log.text
        assert [c["tool"] for c in log.json()["log"]] == ["broken_text", "broken_json"]


def test_a_call_row_the_store_refuses_does_not_block_anyone_else(farm):
    with farm.http(KEY_A) as a, farm.http(KEY_B) as b:
        episode_a = _episode(a, env_id="lab")
        episode_b = _episode(b, env_id="lab")
        # a row the store cannot take (its episode does not exist), buffered ahead of everyone's rows
        poison = CallRow(
            seq=1,
            tool="list_things",
            arguments={},
            kind="read",
            is_error=False,
            result=None,
            error_type=None,
            started_at=0.0,
            duration_ms=0.0,
            transport="rest",
        )
        farm.service.call_log.buffer("ep_gone", poison)
        for _ in range(3):
            assert a.post(f"/episodes/{episode_a}/calls", json={"tool": "list_things"}).status_code == 200
        write = b.post(f"/episodes/{episode_b}/calls", json={"tool": "mint", "arguments": {"n": 2}})
        assert write.status_code == 200 and write.json()["content"] == 3, write.text  # durable, so flushed first
        farm.service.flush()
        log_a = a.get(f"/episodes/{episode_a}", params={"log": "true"}).json()["log"]
        assert [c["tool"] for c in log_a] == ["list_things"] * 3
        assert farm.metric("envfarm_unstorable_call_rows_total", KEY_ADMIN) == 1
        farm.service.reap()  # expiry keeps working
        assert not farm.service.call_log.has_pending("ep_gone")


def test_many_new_ids_then_score(minting_farm):
    with minting_farm.http(KEY_A) as a:
        episode = _episode(a, task_id="lab-001")
        made = a.post(f"/episodes/{episode}/calls", json={"tool": "mint", "arguments": {"n": 40000}})
        assert made.status_code == 200 and made.json()["content"] == 40001, made.text
        score = a.post(f"/episodes/{episode}/score", json={"answer": ""})
        assert score.status_code == 200, score.text
        assert score.json()["reward"] == 1.0


def test_past_the_id_limit_calls_are_tool_errors_and_scoring_still_answers(minting_farm, monkeypatch):
    # The server runs in this process; lab-001's gold run makes 40,000 ids, exactly the limit here.
    monkeypatch.setattr(tool_calls, "MAX_IDS_PER_EPISODE", 40_000)
    with minting_farm.http(KEY_A) as a:
        episode = _episode(a, task_id="lab-001")
        made = a.post(f"/episodes/{episode}/calls", json={"tool": "mint", "arguments": {"n": 40_000}})
        assert made.status_code == 200 and not made.json()["is_error"], made.text
        refused = a.post(f"/episodes/{episode}/calls", json={"tool": "mint", "arguments": {"n": 1}})
        assert refused.status_code == 200, refused.text
        body = refused.json()
        assert body["is_error"] and body["error_type"] == "IdLimitReached", body
        assert "this episode has created the most records it may: 40,000" in body["message"]
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "mint", "arguments": {"n": 1}}}
        over_mcp = a.post(
            f"/episodes/{episode}/mcp",
            json=rpc,
            headers={"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"},
        )
        assert over_mcp.status_code == 200, over_mcp.text
        result = over_mcp.json()["result"]
        assert result["isError"] and "the most records it may" in result["content"][0]["text"], result
        score = a.post(f"/episodes/{episode}/score", json={"answer": ""})
        assert score.status_code == 200, score.text
        assert score.json()["reward"] == 1.0  # the refused call changed nothing


def test_bearer_scheme_is_case_insensitive_as_http_says(farm):
    with farm.http() as anonymous:
        r = anonymous.get("/episodes", headers={"Authorization": f"bearer {KEY_A}"})
        assert r.status_code == 200, r.text  # RFC 7235: the auth-scheme is case-insensitive
        assert anonymous.get("/episodes", headers=auth("wrong-key")).status_code == 401


def _paced(farm: Any, tenant: str) -> float:
    text = httpx.get(farm.base_url + "/metrics", headers=auth(KEY_ADMIN), timeout=20).text
    series = f'envfarm_paced_requests_total{{tenant="{tenant}"}}'
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(series))


def test_a_tenant_calling_back_to_back_beside_another_is_paced_and_the_other_is_not(farm):
    with farm.http(KEY_A) as a, farm.http(KEY_B) as b:
        flooded, other = _episode(a, env_id="lab"), _episode(b, env_id="lab")
        stop = threading.Event()
        codes: list[int] = []

        def flood() -> None:
            with farm.http(KEY_A) as client:
                while not stop.is_set():
                    codes.append(client.post(f"/episodes/{flooded}/calls", json={"tool": "list_things"}).status_code)

        threads = [threading.Thread(target=flood) for _ in range(3)]
        for thread in threads:
            thread.start()
        try:
            for _ in range(150):
                r = b.post(f"/episodes/{other}/calls", json={"tool": "list_things"})
                assert r.status_code == 200 and not r.json()["is_error"], r.text
        finally:
            stop.set()
            for thread in threads:
                thread.join()
    assert codes and set(codes) == {200}  # paced, never refused
    assert _paced(farm, "tenantA") > 0
    assert _paced(farm, "tenantB") == 0
