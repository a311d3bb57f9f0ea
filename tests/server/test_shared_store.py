"""Replicas sharing one PostgreSQL store: any replica serves any episode, and none forks its state.

Two real farm apps, each under uvicorn on its own port and event loop, point at the same real
PostgreSQL database — what two containers behind a load balancer do.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from envfarm.cli import cli
from envs import Catalog
from server.errors import StoreUnavailable
from server.store import CallRow, EpisodeRow, Store

from .conftest import LiveServer, farm_error, mcp_session, run

CATALOG = Catalog()
TASK = "clinic-001"
BOOKING = {"patient_id": "P0001", "slot_id": "S021", "reason": "Persistent cough for three weeks"}


def _call(srv: LiveServer, episode_id: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    with srv.http() as c:
        response = c.post(f"/episodes/{episode_id}/calls", json={"tool": tool, "arguments": arguments})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.fixture
def replicas(postgres_url: str, make_server: Callable[..., LiveServer]) -> tuple[LiveServer, LiveServer]:
    # postgres_url first: its database is dropped after the servers stop, not under them
    a, b = make_server(database_url=postgres_url), make_server(database_url=postgres_url)
    assert a.service.shared and b.service.shared  # on by default for a database other than SQLite
    return a, b


def test_replicas_take_turns_on_one_episode(replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    with a.http() as c:
        episode_id = c.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
    gold = CATALOG.task(TASK)[1].gold_actions
    for i, action in enumerate(gold):  # A, B, A, B: each replica sees what the other did
        out = _call((a, b)[i % 2], episode_id, action.tool, action.arguments)
        assert not out["is_error"] and out["seq"] == i + 1, out

    # The slot A or B just booked is taken for the other one too.
    again = _call(a if len(gold) % 2 else b, episode_id, "book_appointment", BOOKING)
    assert again["is_error"] and again["seq"] == len(gold) + 1

    async def read_over_mcp() -> Any:
        async with mcp_session(f"{b.base_url}/episodes/{episode_id}/mcp", "2026-07-28") as session:
            return await session.call_tool("get_patient_appointments", {"patient_id": "P0001"})

    appointments = json.loads(run(read_over_mcp()).content[0].text)
    assert [x["slot_id"] for x in appointments if x["status"] == "booked"].count("S021") == 1

    scores = []
    for srv in (a, b):
        with srv.http() as c:
            status = c.get(f"/episodes/{episode_id}").json()
            assert status["calls"] == len(gold) + 2 and [r["seq"] for r in status["log"]] == list(
                range(1, len(gold) + 3)
            )
            answer = {"answer": "Booked A1001 at 10:30; your copay is 20."}
            scores.append(c.post(f"/episodes/{episode_id}/score", json=answer).json())
    assert scores[0] == scores[1] and scores[0]["reward"] == 1.0


def test_racing_replicas_book_a_slot_once(replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    with a.http() as c:
        episode_id = c.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
    for srv in (a, b):  # both hold a live copy before the race
        assert not _call(srv, episode_id, "find_patient_by_email", {"email": "maria.lopez@example.com"})["is_error"]

    attempts = 16
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(
            pool.map(lambda i: _call((a, b)[i % 2], episode_id, "book_appointment", BOOKING), range(attempts))
        )

    assert sum(not r["is_error"] for r in results) == 1, results  # two copies forking would book it twice
    assert sorted(r["seq"] for r in results) == list(range(3, attempts + 3))
    with b.http() as c:
        log = c.get(f"/episodes/{episode_id}").json()["log"]
    assert [r["seq"] for r in log] == list(range(1, attempts + 3))
    assert sum(r["tool"] == "book_appointment" and not r["is_error"] for r in log) == 1
    # Both replicas now agree on the state, whichever one answers.
    rewards = set()
    for srv in (a, b):
        with srv.http() as c:
            rewards.add(c.post(f"/episodes/{episode_id}/score", json={"answer": ""}).json()["reward"])
    assert len(rewards) == 1
    # A's copy was stale from the start (B's read came after A's): at least one call ran again.
    assert a.metric("envfarm_stale_copies_total") >= 1


def test_a_reset_on_one_replica_resets_the_episode_on_the_other(replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    with a.http() as c:
        episode_id = c.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
    assert not _call(b, episode_id, "book_appointment", BOOKING)["is_error"]  # B holds a copy with the booking
    with a.http() as c:
        reset = c.post(f"/episodes/{episode_id}/reset")
        assert reset.status_code == 200 and reset.json()["calls"] == 2
    again = _call(b, episode_id, "book_appointment", BOOKING)  # B's copy is stale: the slot is free again
    assert not again["is_error"] and again["content"]["appointment_id"] == "A1001" and again["seq"] == 3
    with b.http() as c:
        kinds = [r["kind"] for r in c.get(f"/episodes/{episode_id}").json()["log"]]
    assert kinds == ["write", "reset", "write"]
    assert b.metric("envfarm_stale_copies_total") == 1


def test_a_fork_on_one_replica_starts_from_what_the_other_committed(replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    with a.http() as c:
        source = c.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
    booked = _call(a, source, "book_appointment", BOOKING)["content"]["appointment_id"]
    with b.http() as c:
        fork = c.post("/episodes", json={"fork_of": source}).json()["episode_id"]
    taken = _call(b, fork, "book_appointment", BOOKING)  # the fork holds A's booking: the slot is taken
    assert taken["is_error"] and taken["seq"] == 2
    cancelled = _call(a, fork, "cancel_appointment", {"appointment_id": booked})  # and any replica serves it
    assert not cancelled["is_error"] and cancelled["seq"] == 3


def test_an_episode_closed_on_one_replica_is_closed_on_the_other(replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    with a.http() as c:
        episode_id = c.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
    _call(b, episode_id, "list_insurance_plans", {})  # B holds a live copy
    with a.http() as c:
        assert c.delete(f"/episodes/{episode_id}").json()["status"] == "closed"
    with b.http() as c:
        response = c.post(f"/episodes/{episode_id}/calls", json={"tool": "list_insurance_plans", "arguments": {}})
        assert response.status_code == 410 and response.json()["error"]["code"] == "episode_ended", response.text
        assert c.get(f"/episodes/{episode_id}").json()["status"] == "closed"


# -- the store itself, on both databases ------------------------------------------------------------------


def _row(seq: int, **changes: Any) -> CallRow:
    values: dict[str, Any] = {
        "seq": seq,
        "tool": "t",
        "arguments": {"k": "ünï", "n": seq},
        "kind": "write",
        "is_error": False,
        "result": {"ok": True, "items": [1, 2]},
        "error_type": None,
        "started_at": 1000.0 + seq,
        "duration_ms": 0.5,
        "transport": "rest",
    }
    values.update(changes)
    return CallRow(**values)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Any) -> Any:
    url = f"sqlite:///{tmp_path / 'store.db'}" if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    s = Store(url)
    yield s
    s.close()


def test_store_logs_and_commits_calls_in_order(store: Store) -> None:
    now = time.time()
    store.create_episode(EpisodeRow("ep_1", "t", "clinic", None, "open", now, now, 0))
    store.append_calls([("ep_1", _row(1)), ("ep_1", _row(2, kind="read", is_error=True, error_type="StateError"))])
    assert store.commit_call("ep_1", _row(3)) == "committed"
    assert store.commit_call("ep_1", _row(3, tool="other")) == "stale"  # number 3 is taken
    assert store.commit_call("ep_1", _row(5)) == "stale"  # and 4 is next, not 5
    logged = store.calls("ep_1")
    assert [c.seq for c in logged] == [1, 2, 3] and logged[0].arguments == {"k": "ünï", "n": 1}
    assert logged[0].result == {"ok": True, "items": [1, 2]} and logged[1].is_error is True
    assert [c.seq for c in store.calls("ep_1", replay_log=True, upto=2)] == [1]
    row = store.get_episode("ep_1")
    assert row is not None and row.calls == 3 and row.last_active_at == 1003.0

    assert store.commit_call("ep_1", _row(4, tool="(reset)", kind="reset")) == "committed"
    assert store.commit_call("ep_1", _row(5)) == "committed"
    assert [c.seq for c in store.calls("ep_1", replay_log=True)] == [5]  # the state since the reset
    assert [c.seq for c in store.calls("ep_1", replay_log=True, upto=3)] == [1, 3]  # and before it
    assert store.calls("ep_1")[3].kind == "reset"
    row = store.get_episode("ep_1")
    assert row is not None and row.calls == 5 and row.last_active_at == 1005.0

    store.touch("ep_1", 500.0)  # never back in time
    assert store.get_episode("ep_1").last_active_at == 1005.0  # type: ignore[union-attr]
    store.set_status("ep_1", "closed")
    assert store.commit_call("ep_1", _row(6)) == "ended"
    assert [c.seq for c in store.calls("ep_1")] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("nonsense", "Could not parse"),
        ("mysql://envfarm:s3cret@127.0.0.1:1/farm", "MySQLdb"),  # no such driver installed
        ("postgresql+psycopg://envfarm:s3cret@127.0.0.1:1/farm", "Connection refused"),
        ("postgres://envfarm:s3cret@127.0.0.1:1/farm", "use postgresql+psycopg://"),  # the scheme others use
        ("postgresql+psycopg://...", "its host is not a valid host name"),  # the docs' placeholder pasted as is
    ],
)
def test_a_bad_store_url_is_one_line_naming_it_without_its_password(url: str, says: str) -> None:
    with pytest.raises(StoreUnavailable) as info:
        Store(url)
    assert info.value.field == "database_url" and says in str(info.value) and "s3cret" not in str(info.value)

    result = CliRunner().invoke(cli, ["serve", "--database-url", url, "--catalog", str(CATALOG.root)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().startswith("error: Cannot") and "s3cret" not in result.output


def test_a_replica_whose_store_is_gone_says_so_and_records_nothing(
    postgres_server: str, postgres_url: str, make_server: Callable[..., LiveServer]
) -> None:
    srv = make_server(database_url=postgres_url)
    with srv.http() as c:
        episode_id = c.post("/episodes", json={"task_id": TASK}).json()["episode_id"]
        assert not _call(srv, episode_id, "book_appointment", BOOKING)["is_error"]
        assert c.get("/healthz").json()["store"] == "ok"

        with psycopg.connect(postgres_server, autocommit=True) as admin:  # the database disappears
            admin.execute(f"DROP DATABASE {postgres_url.rsplit('/', 1)[1]} WITH (FORCE)")

        health = c.get("/healthz")
        assert health.status_code == 503 and health.json()["store"] == "unreachable"
        failed = c.post(f"/episodes/{episode_id}/calls", json={"tool": "list_insurance_plans", "arguments": {}})
        assert failed.status_code == 503 and failed.json()["error"]["code"] == "store_unavailable", failed.text
        assert srv.service.in_memory == 0  # the copy that ran the unrecorded call is gone
        # Whatever else needs the store says so too: 503 with the JSON error, over REST and MCP.
        for response in (
            c.get(f"/episodes/{episode_id}"),
            c.post("/episodes", json={"task_id": TASK}),
            c.post(f"/episodes/{episode_id}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ):
            assert response.status_code == 503, response.text
            assert farm_error(response)["code"] == "store_unavailable"
