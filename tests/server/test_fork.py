"""``POST /episodes {"fork_of": id}``: a new episode in another's current state, which then goes its own way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from .conftest import (
    API_KEYS,
    CLINIC_ANSWER,
    CLINIC_BOOKING,
    CLINIC_TASK,
    KEY_A,
    KEY_B,
    LiveServer,
    appointments,
    auth,
    call_rest,
)


def test_a_fork_starts_from_the_source_state_and_then_goes_its_own_way(client: httpx.Client) -> None:
    source = client.post("/episodes", json={"task_id": CLINIC_TASK}).json()["episode_id"]
    call_rest(client, source, "list_providers", {})  # a read: not part of the state, not copied
    booked = call_rest(client, source, "book_appointment", CLINIC_BOOKING)["content"]["appointment_id"]
    failed = {**CLINIC_BOOKING, "slot_id": "S999"}
    assert call_rest(client, source, "book_appointment", failed)["is_error"]  # a failed write: not copied either

    created = client.post("/episodes", json={"fork_of": source})
    assert created.status_code == 201, created.text
    fork = created.json()
    assert fork["task_id"] == CLINIC_TASK and fork["env_id"] == "clinic" and fork["episode_id"] != source
    assert fork["mcp_url"].endswith(f"/episodes/{fork['episode_id']}/mcp") and fork["instruction"]
    fork_id = fork["episode_id"]

    assert appointments(client, fork_id) == appointments(client, source)
    assert (
        client.post(f"/episodes/{fork_id}/score", json=CLINIC_ANSWER).json()
        == client.post(f"/episodes/{source}/score", json=CLINIC_ANSWER).json()
    )
    log = client.get(f"/episodes/{fork_id}").json()["log"]
    assert [(r["seq"], r["tool"], r["kind"], r["transport"]) for r in log[:1]] == [
        (1, "book_appointment", "write", "fork")
    ]
    assert log[0]["arguments"] == CLINIC_BOOKING and log[0]["result"]["appointment_id"] == booked

    # From here on, each its own: the fork cancels, the source books another slot; ids go on from the copy.
    assert not call_rest(client, fork_id, "cancel_appointment", {"appointment_id": booked})["is_error"]
    other = call_rest(client, source, "book_appointment", {**CLINIC_BOOKING, "slot_id": "S022"})["content"][
        "appointment_id"
    ]
    assert f"{booked}:cancelled" in appointments(client, fork_id) and f"{other}:booked" not in appointments(
        client, fork_id
    )
    assert f"{booked}:booked" in appointments(client, source) and f"{other}:booked" in appointments(client, source)
    again = call_rest(client, fork_id, "book_appointment", {**CLINIC_BOOKING, "slot_id": "S022"})["content"][
        "appointment_id"
    ]
    assert again == other  # the same call on the same state gives the same id in both


def test_a_fork_of_a_reset_episode_copies_only_what_followed_the_reset(client: httpx.Client) -> None:
    source = client.post("/episodes", json={"task_id": CLINIC_TASK}).json()["episode_id"]
    call_rest(client, source, "book_appointment", CLINIC_BOOKING)
    client.post(f"/episodes/{source}/reset")
    call_rest(client, source, "book_appointment", {**CLINIC_BOOKING, "slot_id": "S022"})
    fork_id = client.post("/episodes", json={"fork_of": source}).json()["episode_id"]
    assert appointments(client, fork_id) == appointments(client, source)
    status = client.get(f"/episodes/{fork_id}").json()
    copied = [(r["tool"], r["arguments"]["slot_id"]) for r in status["log"] if r["transport"] == "fork"]
    assert copied == [("book_appointment", "S022")] and status["calls"] == 2  # the copy, then _booked's read


def test_a_fork_is_durable_and_a_closed_episode_can_be_forked(
    make_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    first = make_server(data_dir=tmp_path / "farm")
    with first.http() as c:
        source = c.post("/episodes", json={"task_id": CLINIC_TASK}).json()["episode_id"]
        call_rest(c, source, "book_appointment", CLINIC_BOOKING)
        c.delete(f"/episodes/{source}")
        fork_id = c.post("/episodes", json={"fork_of": source}).json()["episode_id"]  # from a closed one
        before = appointments(c, fork_id)
        assert "A1001:booked" in before
    first.stop()

    second = make_server(data_dir=tmp_path / "farm")  # a restart: the fork is rebuilt from its own log
    with second.http() as c:
        assert appointments(c, fork_id) == before
        assert c.post(f"/episodes/{fork_id}/score", json=CLINIC_ANSWER).json()["reward"] == 1.0


def test_forks_are_bound_to_the_tenant_and_to_the_source_task(make_server: Callable[..., LiveServer]) -> None:
    srv = make_server(api_keys=API_KEYS)
    with srv.http(KEY_A) as a:
        source = a.post("/episodes", json={"task_id": CLINIC_TASK}).json()["episode_id"]
        stolen = httpx.post(f"{srv.base_url}/episodes", json={"fork_of": source}, headers=auth(KEY_B), timeout=20)
        assert stolen.status_code == 404 and stolen.json()["error"]["code"] == "episode_not_found"
        assert (
            a.post("/episodes", json={"fork_of": source, "task_id": CLINIC_TASK, "env_id": "clinic"}).status_code == 201
        )
        other_task = a.post("/episodes", json={"fork_of": source, "task_id": "clinic-002"})
        assert other_task.status_code == 409 and other_task.json()["error"]["field"] == "task_id"
        other_env = a.post("/episodes", json={"fork_of": source, "env_id": "retail"})
        assert other_env.status_code == 409 and other_env.json()["error"]["field"] == "env_id"
        unknown = a.post("/episodes", json={"fork_of": "ep_nope"})
        assert unknown.status_code == 404 and "ep_nope" in unknown.json()["error"]["message"]
