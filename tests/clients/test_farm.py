"""``FarmClient`` and ``open_episode`` against the real farm over TCP."""

from __future__ import annotations

import asyncio

import pytest

from clients import FarmAPIError, FarmClient, RetryPolicy, TransportError, open_episode
from envs import Catalog


def run(coro):
    return asyncio.run(coro)


def test_catalog_views(farm_url):
    async def go():
        async with FarmClient(farm_url) as farm:
            return (
                await farm.list_envs(),
                await farm.get_env("clinic"),
                await farm.list_tasks("clinic"),
                await farm.list_tasks(),
            )

    envs, clinic, clinic_tasks, every = run(go())
    catalog = Catalog()  # after the test-wide isolation: the reference environments
    assert [e.id for e in envs] == catalog.ids()
    assert clinic.policy == catalog.get("clinic").spec.policy
    assert [t.name for t in clinic.tool_list] == [t.name for t in catalog.get("clinic").spec.tools]
    assert [t.id for t in clinic_tasks] == [t.id for t in catalog.get("clinic").tasks]
    assert len(every) == sum(len(catalog.get(i).tasks) for i in catalog.ids())
    assert all(t.is_admin_view for t in every)  # local mode: the caller is the admin


def test_errors_are_typed_with_status_code_and_message(farm_url):
    async def go():
        async with FarmClient(farm_url) as farm:
            with pytest.raises(FarmAPIError) as missing:
                await farm.get_task("clinic-01")
            with pytest.raises(FarmAPIError) as bad:
                await farm.create_episode(task_id="")
            return missing.value, bad.value

    missing, bad = run(go())
    assert (missing.status, missing.code, missing.field) == (404, "task_not_found", "task_id")
    assert "Did you mean 'clinic-001'" in missing.message
    assert str(missing).startswith("task service error 404 task_not_found:")
    assert bad.status in (400, 404, 422)


def test_unreachable_service_is_a_transport_error():
    async def go():
        async with FarmClient("http://127.0.0.1:9", retry=RetryPolicy(max_attempts=2, base_delay=0.0)) as farm:
            await farm.list_envs()

    with pytest.raises(TransportError, match="cannot reach the task service"):
        run(go())


def test_open_episode_yields_a_connected_mcp_session_and_closes_it(farm_url):
    async def go():
        async with FarmClient(farm_url) as farm:
            async with open_episode(farm, task_id="clinic-001") as ep:
                tools = await ep.list_tools()
                found = await ep.call_tool("find_patient_by_email", {"email": "maria.lopez@example.com"})
                failed = await ep.call_tool("cancel_appointment", {"appointment_id": "nope"})
                score = await ep.score("")
                episode_id = ep.episode_id
            closed = await farm.get_episode(episode_id)
            async with open_episode(farm, task_id="clinic-001", keep=True) as ep:
                kept_id = ep.episode_id
            kept = await farm.get_episode(kept_id, log=False)
            rest = await farm.call_tool(kept_id, "find_patient_by_email", {"email": "nobody@example.com"})
            await farm.close_episode(kept_id)
            return tools, found, failed, score, closed, kept, rest

    tools, found, failed, score, closed, kept, rest = run(go())
    catalog = Catalog()
    assert [t.name for t in tools] == [t.name for t in catalog.get("clinic").spec.tools]
    assert not found.is_error and found.structured["patient_id"] == "P0001"
    assert failed.is_error and "nope" in failed.text
    assert score.task_id == "clinic-001" and score.reward == 0.0
    assert closed.status == "closed" and [c["tool"] for c in closed.log] == [
        "find_patient_by_email",
        "cancel_appointment",
    ]
    assert kept.status != "closed" and kept.log is None
    assert rest.is_error and rest.message


def test_a_reset_episode_keeps_its_mcp_session_and_a_fork_keeps_its_state(farm_url):
    booking = {"patient_id": "P0001", "slot_id": "S021", "reason": "Persistent cough for three weeks"}

    async def go():
        async with FarmClient(farm_url) as farm, open_episode(farm, task_id="clinic-001") as ep:
            first = await ep.call_tool("book_appointment", booking)
            taken = await ep.call_tool("book_appointment", booking)
            fork = await farm.create_episode(fork_of=ep.episode_id)  # holds the booking
            status = await ep.reset()
            again = await ep.call_tool("book_appointment", booking)
            in_fork = await farm.call_tool(fork.episode_id, "book_appointment", booking)
            await farm.close_episode(fork.episode_id)
            mine = {e.episode_id: e.status for e in await farm.list_episodes()}
            return first, taken, status, again, in_fork, mine, ep.episode_id, fork.episode_id

    first, taken, status, again, in_fork, mine, episode_id, fork_id = run(go())
    assert mine[episode_id] == "open" and mine[fork_id] == "closed"
    assert in_fork.is_error  # the fork kept the state the reset left behind
    assert not first.is_error and taken.is_error  # the slot is taken, until the reset frees it
    assert status.status == "open" and status.calls == 3
    assert not again.is_error and again.structured == first.structured
