"""``POST /episodes {"fork_of": id}``: a new episode in another's current state, which then goes its own way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from .conftest import API_KEYS, KEY_A, KEY_B, LiveServer, auth

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
    return sorted(f"{a['appointment_id']}:{a['status']}" for a in appointments)


def test_a_fork_starts_from_the_source_state_and_then_goes_its_own_way(client: httpx.Client) -> None:
    source = client.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
    _call(client, source, "list_providers", {})  # a read: not part of the state, not copied
    booked = _call(client, source, "book_appointment", BOOKING)["content"]["appointment_id"]
    _call(client, source, "book_appointment", {**BOOKING, "slot_id": "S999"})  # a failed write: not copied either

    created = client.post("/episodes", json={"fork_of": source})
    assert created.status_code == 201, created.text
    fork = created.json()
    assert fork["task_id"] == TASK and fork["env_id"] == "clinic" and fork["episode_id"] != source
    assert fork["mcp_url"].endswith(f"/episodes/{fork['episode_id']}/mcp") and fork["instruction"]
    fork_id = fork["episode_id"]

    assert _booked(client, fork_id) == _booked(client, source)
    assert (
        client.post(f"/episodes/{fork_id}/score", json=ANSWER).json()
        == client.post(f"/episodes/{source}/score", json=ANSWER).json()
    )
    log = client.get(f"/episodes/{fork_id}").json()["log"]
    assert [(r["seq"], r["tool"], r["kind"], r["transport"]) for r in log[:1]] == [
        (1, "book_appointment", "write", "fork")
    ]
    assert log[0]["arguments"] == BOOKING and log[0]["result"]["appointment_id"] == booked

    # From here on, each its own: the fork cancels, the source books another slot; ids go on from the copy.
    assert not _call(client, fork_id, "cancel_appointment", {"appointment_id": booked})["is_error"]
    other = _call(client, source, "book_appointment", {**BOOKING, "slot_id": "S022"})["content"]["appointment_id"]
    assert f"{booked}:cancelled" in _booked(client, fork_id) and f"{other}:booked" not in _booked(client, fork_id)
    assert f"{booked}:booked" in _booked(client, source) and f"{other}:booked" in _booked(client, source)
    again = _call(client, fork_id, "book_appointment", {**BOOKING, "slot_id": "S022"})["content"]["appointment_id"]
    assert again == other  # the same call on the same state gives the same id in both


def test_a_fork_of_a_reset_episode_copies_only_what_followed_the_reset(client: httpx.Client) -> None:
    source = client.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
    _call(client, source, "book_appointment", BOOKING)
    client.post(f"/episodes/{source}/reset")
    _call(client, source, "book_appointment", {**BOOKING, "slot_id": "S022"})
    fork_id = client.post("/episodes", json={"fork_of": source}).json()["episode_id"]
    assert _booked(client, fork_id) == _booked(client, source)
    status = client.get(f"/episodes/{fork_id}").json()
    copied = [(r["tool"], r["arguments"]["slot_id"]) for r in status["log"] if r["transport"] == "fork"]
    assert copied == [("book_appointment", "S022")] and status["calls"] == 2  # the copy, then _booked's read


def test_a_fork_is_durable_and_a_closed_episode_can_be_forked(
    make_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    first = make_server(data_dir=tmp_path / "farm")
    with first.http() as c:
        source = c.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
        _call(c, source, "book_appointment", BOOKING)
        c.delete(f"/episodes/{source}")
        fork_id = c.post("/episodes", json={"fork_of": source}).json()["episode_id"]  # from a closed one
        before = _booked(c, fork_id)
        assert "A1001:booked" in before
    first.stop()

    second = make_server(data_dir=tmp_path / "farm")  # a restart: the fork is rebuilt from its own log
    with second.http() as c:
        assert _booked(c, fork_id) == before
        assert c.post(f"/episodes/{fork_id}/score", json=ANSWER).json()["reward"] == 1.0


def test_forks_are_bound_to_the_tenant_and_to_the_source_task(make_server: Callable[..., LiveServer]) -> None:
    srv = make_server(api_keys=API_KEYS)
    with srv.http(KEY_A) as a:
        source = a.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
        stolen = httpx.post(f"{srv.base_url}/episodes", json={"fork_of": source}, headers=auth(KEY_B), timeout=20)
        assert stolen.status_code == 404 and stolen.json()["error"]["code"] == "episode_not_found"
        assert a.post("/episodes", json={"fork_of": source, "task_id": TASK, "env_id": "clinic"}).status_code == 201
        other_task = a.post("/episodes", json={"fork_of": source, "task_id": "clinic-002"})
        assert other_task.status_code == 409 and other_task.json()["error"]["field"] == "task_id"
        other_env = a.post("/episodes", json={"fork_of": source, "env_id": "retail"})
        assert other_env.status_code == 409 and other_env.json()["error"]["field"] == "env_id"
        unknown = a.post("/episodes", json={"fork_of": "ep_nope"})
        assert unknown.status_code == 404 and "ep_nope" in unknown.json()["error"]["message"]
