"""``POST /episodes/{id}/reset``: back to the initial state, same id and MCP URL, and a log that says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from .conftest import API_KEYS, KEY_A, KEY_ADMIN, KEY_B, LiveServer, auth, mcp_session, run

TASK = "clinic-001"
BOOKING = {"patient_id": "P0001", "slot_id": "S021", "reason": "Persistent cough for three weeks"}
ANSWER = {"answer": "Booked A1001 at 10:30; your copay is 20."}


def _call(c: httpx.Client, episode_id: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    response = c.post(f"/episodes/{episode_id}/calls", json={"tool": tool, "arguments": arguments})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _booked(c: httpx.Client, episode_id: str) -> list[str]:
    appointments = _call(c, episode_id, "get_patient_appointments", {"patient_id": "P0001"})["content"]
    return sorted(a["appointment_id"] for a in appointments if a["status"] == "booked")


def test_reset_restores_the_initial_state_and_keeps_the_mcp_url(client: httpx.Client) -> None:
    fresh = client.post("/episodes", json={"task_id": TASK}).json()
    created = client.post("/episodes", json={"task_id": TASK}).json()
    episode_id = created["episode_id"]
    initial = _booked(client, episode_id)
    assert _call(client, episode_id, "book_appointment", BOOKING)["content"]["appointment_id"] == "A1001"
    assert client.post(f"/episodes/{episode_id}/score", json=ANSWER).json()["reward"] == 1.0

    reset = client.post(f"/episodes/{episode_id}/reset")
    assert reset.status_code == 200, reset.text
    assert reset.json()["status"] == "open" and reset.json()["calls"] == 3 and reset.json()["log"] is None

    assert _booked(client, episode_id) == initial
    fresh_score = client.post(f"/episodes/{fresh['episode_id']}/score", json=ANSWER).json()
    assert client.post(f"/episodes/{episode_id}/score", json=ANSWER).json() == fresh_score
    # Generated ids start over too: the same booking gets the same id as in a fresh episode.
    assert _call(client, episode_id, "book_appointment", BOOKING)["content"]["appointment_id"] == "A1001"

    async def over_the_same_mcp_url() -> Any:
        async with mcp_session(created["mcp_url"], "2026-07-28") as session:
            return await session.call_tool("get_patient_appointments", {"patient_id": "P0001"})

    seen = run(over_the_same_mcp_url()).structured_content["result"]
    assert sorted(a["appointment_id"] for a in seen if a["status"] == "booked") == sorted([*initial, "A1001"])

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
        episode_id = c.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
        _call(c, episode_id, "book_appointment", BOOKING)
        assert c.post(f"/episodes/{episode_id}/reset").status_code == 200
        later = {**BOOKING, "slot_id": "S022"}
        assert not _call(c, episode_id, "book_appointment", later)["is_error"]
        before = _booked(c, episode_id)
        score = c.post(f"/episodes/{episode_id}/score", json=ANSWER).json()
    first.stop()

    second = make_server(data_dir=tmp_path / "farm")  # a restart: the state is rebuilt from the log
    with second.http() as c:
        assert _booked(c, episode_id) == before
        assert c.post(f"/episodes/{episode_id}/score", json=ANSWER).json() == score
    assert second.metric("envfarm_episode_replays_total") == 1


def test_reset_is_bound_to_the_tenant_and_to_open_episodes(make_server: Callable[..., LiveServer]) -> None:
    srv = make_server(api_keys=API_KEYS, max_calls_per_episode=2)
    with srv.http(KEY_A) as a:
        episode_id = a.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
        other = httpx.post(f"{srv.base_url}/episodes/{episode_id}/reset", headers=auth(KEY_B), timeout=20)
        assert other.status_code == 404 and other.json()["error"]["code"] == "episode_not_found"

        _call(a, episode_id, "list_providers", {})
        assert a.post(f"/episodes/{episode_id}/reset").status_code == 200
        limited = a.post(f"/episodes/{episode_id}/reset")  # a reset is logged like a call, and counts
        assert limited.status_code == 429 and limited.json()["error"]["field"] == "calls"

        a.delete(f"/episodes/{episode_id}")
        ended = a.post(f"/episodes/{episode_id}/reset")
        assert ended.status_code == 410 and ended.json()["error"]["code"] == "episode_ended"
    assert srv.metric("envfarm_episode_resets_total", KEY_ADMIN) == 1
