"""The call log is the truth: a killed server loses nothing, and evicted episodes are rebuilt by replay."""

from __future__ import annotations

import shutil

import httpx

from envs import paths
from server.bench.isolation import write_lab_catalog

from .conftest import farm_error, mcp_session, rpc, run

CANCEL = {"order_id": "#W5143979", "reason": "ordered by mistake"}
NEW_ADDRESS = {
    "user_id": "samuel_newton_9017",
    "label": "other",
    "address1": "1 Test St",
    "city": "Austin",
    "state": "TX",
    "zip": "73301",
}
# (tool, arguments, fails?) — write calls whose guards depend on earlier writes.
WRITES = [
    ("cancel_pending_order", CANCEL, False),
    ("cancel_pending_order", CANCEL, True),  # already cancelled by the call before
    ("add_user_address", NEW_ADDRESS, False),
    ("modify_pending_order_address", {"order_id": "#W5143979", "address_id": "ADR011"}, True),  # cancelled
    ("modify_pending_order_address", {"order_id": "#W1595037", "address_id": "ADR011"}, False),
    ("add_user_address", {**NEW_ADDRESS, "zip": "7330"}, True),  # bad argument
]


def test_sigkill_loses_no_committed_call(tmp_path, spawn):
    data = tmp_path / "data"
    first = spawn(data)
    with httpx.Client(base_url=first.base_url, timeout=20) as c:
        ep = c.post("/episodes", json={"task_id": "retail-011"}).json()
        eid = ep["episode_id"]
        spare = c.post("/episodes", json={"env_id": "clinic"}).json()["episode_id"]
        for tool, args, fails in WRITES:
            out = c.post(f"/episodes/{eid}/calls", json={"tool": tool, "arguments": args}).json()
            assert out["is_error"] is fails, (tool, out)

        async def read_over_mcp():
            async with mcp_session(ep["mcp_url"], "legacy") as m:
                return await m.call_tool("get_user_details", {"user_id": "samuel_newton_9017"})

        assert "ADR1001" in run(read_over_mcp()).content[0].text
        before = c.get(f"/episodes/{eid}").json()
        score_before = c.post(f"/episodes/{eid}/score", json={"answer": "You get 69.99 back."}).json()
    assert before["calls"] == len(WRITES) + 1
    # The extra address is an unexpected change: the score is not perfect, which makes it a sharper check.
    assert score_before["components"] == {"state": 0.0, "outputs": 1.0, "assertions": 1.0}
    assert (score_before["achieved_changes"], score_before["unexpected_changes"]) == (4, 1)
    assert score_before["diff"][0]["extra"][0]["address_id"] == "ADR1001"

    first.kill()
    second = spawn(data)
    with httpx.Client(base_url=second.base_url, timeout=20) as c:
        after = c.get(f"/episodes/{eid}").json()
        assert after == before
        assert [(x["tool"], x["is_error"]) for x in after["log"][: len(WRITES)]] == [(t, f) for t, _, f in WRITES]
        assert after["log"][-1]["transport"] == "mcp"
        assert c.get(f"/episodes/{spare}").json()["status"] == "open"

        assert c.post(f"/episodes/{eid}/score", json={"answer": "You get 69.99 back."}).json() == score_before

        # The replayed state carries on: guards see the earlier writes, ids continue after the logged ones.
        again = c.post(f"/episodes/{eid}/calls", json={"tool": "cancel_pending_order", "arguments": CANCEL}).json()
        assert (
            again["is_error"]
            and again["message"] == "Order #W5143979 is cancelled; only pending orders can be cancelled"
        )
        assert again["seq"] == len(WRITES) + 2
        more = c.post(
            f"/episodes/{eid}/calls", json={"tool": "add_user_address", "arguments": {**NEW_ADDRESS, "label": "work"}}
        ).json()
        assert not more["is_error"] and more["content"]["address_id"] == "ADR1002"
        assert "envfarm_episode_replays_total 1.0" in c.get("/metrics").text


def test_evicted_episode_is_rebuilt_by_replay(make_server):
    srv = make_server(max_episodes_in_memory=1)
    with srv.http() as c:
        one = c.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
        book = {"patient_id": "P0001", "slot_id": "S021", "reason": "cough"}
        assert not c.post(f"/episodes/{one}/calls", json={"tool": "book_appointment", "arguments": book}).json()[
            "is_error"
        ]
        assert "envfarm_episode_replays_total 0.0" in c.get("/metrics").text
        two = c.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]  # evicts episode one
        assert c.get("/healthz").json()["episodes_in_memory"] == 1

        again = c.post(f"/episodes/{one}/calls", json={"tool": "book_appointment", "arguments": book}).json()
        assert again["is_error"] and again["seq"] == 2  # the booking survived eviction: the slot is taken
        text = c.get("/metrics").text
        assert "envfarm_episode_replays_total 1.0" in text
        assert "envfarm_episodes_live 1.0" in text

        # Episode two was evicted in turn; it is rebuilt with its own (empty) log.
        fresh = c.post(f"/episodes/{two}/calls", json={"tool": "book_appointment", "arguments": book}).json()
        assert not fresh["is_error"] and fresh["content"]["appointment_id"] == "A1001"
        assert "envfarm_episode_replays_total 2.0" in c.get("/metrics").text
        answer = "A1001 at 10:30, copay 20"
        assert c.post(f"/episodes/{one}/score", json={"answer": answer}).json()["reward"] == 1.0
        assert "envfarm_episode_replays_total 3.0" in c.get("/metrics").text


def test_a_write_the_store_refuses_is_not_kept(make_server):
    srv = make_server()
    book = {"patient_id": "P0001", "slot_id": "S021", "reason": "cough"}
    with srv.http() as c:
        eid = c.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
        with srv.service.store.engine.begin() as conn:  # the log table disappears under the server
            conn.exec_driver_sql("ALTER TABLE calls RENAME TO calls_gone")
        refused = c.post(f"/episodes/{eid}/calls", json={"tool": "book_appointment", "arguments": book})
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "store_unavailable"
        assert srv.service.in_memory == 0  # the copy holding the unlogged booking is gone
        with srv.service.store.engine.begin() as conn:
            conn.exec_driver_sql("ALTER TABLE calls_gone RENAME TO calls")
        again = c.post(f"/episodes/{eid}/calls", json={"tool": "book_appointment", "arguments": book}).json()
        assert not again["is_error"] and again["seq"] == 1  # rebuilt from the log: the slot was never booked


def test_an_episode_whose_environment_left_the_catalog_is_a_clear_error(make_server, tmp_path):
    catalog = tmp_path / "catalog"
    shutil.copytree(paths.BUILTIN_CATALOG / "clinic", catalog / "clinic")
    shutil.copytree(paths.BUILTIN_CATALOG / "retail", catalog / "retail")
    first = make_server(data_dir=tmp_path / "farm", catalog=catalog)
    with first.http() as c:
        created = c.post("/episodes", json={"task_id": "clinic-001"}).json()
    first.stop()
    shutil.rmtree(catalog / "clinic")  # the catalog changes while the server is down

    second = make_server(data_dir=tmp_path / "farm", catalog=catalog)
    episode_id = created["episode_id"]
    mcp_url = f"{second.base_url}/episodes/{episode_id}/mcp"
    with second.http() as c:
        assert c.get(f"/episodes/{episode_id}").json()["status"] == "open"  # its record and log are still there
        for response, status, request_id in (
            (c.post(f"/episodes/{episode_id}/calls", json={"tool": "list_providers"}), 409, None),
            (rpc(mcp_url, "tools/list"), 200, 1),  # over MCP, answered by MCP with the request's id
        ):
            assert response.status_code == status, response.text
            err = farm_error(response, request_id)
            assert err["code"] == "replay_failed" and "'clinic'" in err["message"] and err["field"] == "episode_id"


def test_a_write_accepted_once_is_rebuilt_after_restart_however_slow_the_machine_is_now(make_server, tmp_path):
    """A write that ran within its time limit is replayed under the step budget alone: the farm
    restarted with a time limit the write's replay cannot meet (as on a machine loaded by others)
    still rebuilds the episode, instead of answering 409 replay_failed until the load stops."""
    catalog = tmp_path / "catalog"
    write_lab_catalog(catalog)
    first = make_server(data_dir=tmp_path / "farm", catalog=catalog, call_time_limit_seconds=60)
    with first.http() as c:
        episode_id = c.post("/episodes", json={"env_id": "lab"}).json()["episode_id"]
        made = c.post(f"/episodes/{episode_id}/calls", json={"tool": "mint", "arguments": {"n": 40_000}}).json()
        assert not made["is_error"] and made["content"] == 40_001, made
    first.stop()

    second = make_server(data_dir=tmp_path / "farm", catalog=catalog, call_time_limit_seconds=0.001)
    with second.http() as c:
        # the limit holds for new calls ...
        other = c.post("/episodes", json={"env_id": "lab"}).json()["episode_id"]
        slow = c.post(f"/episodes/{other}/calls", json={"tool": "mint", "arguments": {"n": 40_000}}).json()
        assert slow["is_error"] and "time limit of 0.001 s" in slow["message"], slow
        # ... not for the replay of one accepted before
        after = c.post(f"/episodes/{episode_id}/calls", json={"tool": "broken_text"})
        assert after.status_code == 200, after.text  # not 409 replay_failed: rebuilt, and the call ran
        assert after.json()["seq"] == 2  # (on a busy machine even this call may pass 1 ms: no matter)
    assert second.metric("envfarm_episode_replays_total") == 1
    third = make_server(data_dir=tmp_path / "farm", catalog=catalog, call_time_limit_seconds=60)
    with third.http() as c:  # and what was rebuilt holds the write
        things = c.post(f"/episodes/{episode_id}/calls", json={"tool": "list_things"}).json()
        assert len(things["content"]) == 40_001


def test_a_rebuild_starts_from_the_state_after_the_last_costly_write(make_server, tmp_path):
    """A write past ``snapshot_after_seconds`` leaves the state after it in the store: after a restart
    the episode is rebuilt from there, running only the writes after it; a reset drops it."""
    catalog = tmp_path / "catalog"
    write_lab_catalog(catalog)
    settings = {"data_dir": tmp_path / "farm", "catalog": catalog, "call_time_limit_seconds": 60}
    first = make_server(**settings, snapshot_after_seconds=0.05)
    with first.http() as c:
        episode_id = c.post("/episodes", json={"env_id": "lab"}).json()["episode_id"]
        url = f"/episodes/{episode_id}/calls"
        assert c.post(url, json={"tool": "mint", "arguments": {"n": 40_000}}).json()["content"] == 40_001
        assert c.post(url, json={"tool": "mint", "arguments": {"n": 1}}).json()["content"] == 40_002
    first.stop()

    second = make_server(**settings)
    with second.http() as c:
        things = c.post(url, json={"tool": "list_things"}).json()
        assert len(things["content"]) == 40_002
        assert second.metric("envfarm_episode_replays_total") == 1
        # the 40,000 were not made again: at most the cheap write after them was (if it took under 50 ms)
        assert second.metric("envfarm_replayed_calls_total") <= 1
        assert c.post(f"/episodes/{episode_id}/reset").status_code == 200
        assert c.post(url, json={"tool": "mint", "arguments": {"n": 2}}).json()["content"] == 3
    second.stop()

    third = make_server(**settings)
    with third.http() as c:  # after the reset, the snapshot is not where a rebuild starts
        assert [t["thing_id"] for t in c.post(url, json={"tool": "list_things"}).json()["content"]][:1] == ["T0001"]
        assert len(c.post(url, json={"tool": "list_things"}).json()["content"]) == 3
        assert third.metric("envfarm_replayed_calls_total") == 1
