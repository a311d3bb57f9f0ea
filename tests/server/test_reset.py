"""``POST /episodes/{id}/reset``: back to the initial state, same id and MCP URL, and a log that says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from .conftest import (
    API_KEYS,
    CLINIC_ANSWER,
    CLINIC_BOOKING,
    CLINIC_TASK,
    KEY_A,
    KEY_ADMIN,
    KEY_B,
    LiveServer,
    appointments,
    auth,
    call_rest,
    mcp_session,
    run,
)


def test_reset_restores_the_initial_state_and_keeps_the_mcp_url(client: httpx.Client) -> None:
    fresh = client.post("/episodes", json={"task_id": CLINIC_TASK}).json()
    created = client.post("/episodes", json={"task_id": CLINIC_TASK}).json()
    episode_id = created["episode_id"]
    initial = appointments(client, episode_id)
    assert call_rest(client, episode_id, "book_appointment", CLINIC_BOOKING)["content"]["appointment_id"] == "A1001"
    assert client.post(f"/episodes/{episode_id}/score", json=CLINIC_ANSWER).json()["reward"] == 1.0

    reset = client.post(f"/episodes/{episode_id}/reset")
    assert reset.status_code == 200, reset.text
    assert reset.json()["status"] == "open" and reset.json()["calls"] == 3 and reset.json()["log"] is None

    assert appointments(client, episode_id) == initial
    fresh_score = client.post(f"/episodes/{fresh['episode_id']}/score", json=CLINIC_ANSWER).json()
    assert client.post(f"/episodes/{episode_id}/score", json=CLINIC_ANSWER).json() == fresh_score
    # Generated ids start over too: the same booking gets the same id as in a fresh episode.
    assert call_rest(client, episode_id, "book_appointment", CLINIC_BOOKING)["content"]["appointment_id"] == "A1001"

    async def over_the_same_mcp_url() -> Any:
        async with mcp_session(created["mcp_url"], "2026-07-28") as session:
            return await session.call_tool("get_patient_appointments", {"patient_id": "P0001"})

    seen = json.loads(run(over_the_same_mcp_url()).content[0].text)
    assert sorted(f"{a['appointment_id']}:{a['status']}" for a in seen) == sorted([*initial, "A1001:booked"])

    log = client.get(f"/episodes/{episode_id}").json()["log"]
    assert [(r["seq"], r["tool"], r["kind"], r["transport"]) for r in log] == [
        (1, "get_patient_appointments", "read", "rest"),
        (2, "book_appointment", "write", "rest"),
        (3, "(reset)", "reset", "rest"),
        (4, "get_patient_appointments", "read", "rest"),
        (5, "book_appointment", "write", "rest"),
        (6, "get_patient_appointments", "read", "mcp"),
    ]


def test_a_reset_is_durable_and_a_rebuild_replays_only_what_follows_it(
    make_server: Callable[..., LiveServer], tmp_path: Any
) -> None:
    first = make_server(data_dir=tmp_path / "farm")
    with first.http() as c:
        episode_id = c.post("/episodes", json={"task_id": CLINIC_TASK}).json()["episode_id"]
        call_rest(c, episode_id, "book_appointment", CLINIC_BOOKING)
        assert c.post(f"/episodes/{episode_id}/reset").status_code == 200
        later = {**CLINIC_BOOKING, "slot_id": "S022"}
        assert not call_rest(c, episode_id, "book_appointment", later)["is_error"]
        before = appointments(c, episode_id)
        score = c.post(f"/episodes/{episode_id}/score", json=CLINIC_ANSWER).json()
    first.stop()

    second = make_server(data_dir=tmp_path / "farm")  # a restart: the state is rebuilt from the log
    with second.http() as c:
        assert appointments(c, episode_id) == before
        assert c.post(f"/episodes/{episode_id}/score", json=CLINIC_ANSWER).json() == score
    assert second.metric("envfarm_episode_replays_total") == 1


def test_reset_is_bound_to_the_tenant_and_to_open_episodes(make_server: Callable[..., LiveServer]) -> None:
    srv = make_server(api_keys=API_KEYS, max_calls_per_episode=2)
    with srv.http(KEY_A) as a:
        episode_id = a.post("/episodes", json={"task_id": CLINIC_TASK}).json()["episode_id"]
        other = httpx.post(f"{srv.base_url}/episodes/{episode_id}/reset", headers=auth(KEY_B), timeout=20)
        assert other.status_code == 404 and other.json()["error"]["code"] == "episode_not_found"

        call_rest(a, episode_id, "list_providers", {})
        assert a.post(f"/episodes/{episode_id}/reset").status_code == 200
        limited = a.post(f"/episodes/{episode_id}/reset")  # a reset is logged like a call, and counts
        assert limited.status_code == 429 and limited.json()["error"]["field"] == "calls"

        a.delete(f"/episodes/{episode_id}")
        ended = a.post(f"/episodes/{episode_id}/reset")
        assert ended.status_code == 410 and ended.json()["error"]["code"] == "episode_ended"
    assert srv.metric("envfarm_episode_resets_total", KEY_ADMIN) == 1
