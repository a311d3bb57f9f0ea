"""The per-call time limit holds inside one costly SQL function call (``envs.engine.watchdog``).

The step budget's progress handler only runs every 10,000 virtual-machine steps; a query of a few
hundred steps, each a ``replace()`` over a 1 MB string, never reaches it and ran for as long as it
liked. The watchdog interrupts it at the deadline.
"""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from envs import Environment
from envs.catalog import load_env
from envs.engine.watchdog import Watchdog
from envs.errors import ToolError
from envs.formats.spec import EnvSpec

# 300 rows, each a replace() over a fresh 1 MB string: about 10 s here without an interrupt, and
# well under 10,000 VM steps, so the progress handler never sees the clock
HEAVY = (
    "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 300) "
    "SELECT sum(length(replace(printf('%.*c', 1000000 + x, 'x'), 'x', 'y'))) AS v FROM r"
)


def _env_with(sql: str, *, time_limit: float) -> Environment:
    data = load_env("clinic").spec.model_dump(mode="json")
    data["tools"].append(
        {"name": "probe", "kind": "read", "description": "A probe.", "steps": [{"kind": "return", "sql": sql}]}
    )
    return Environment(EnvSpec.model_validate(data), step_budget=10**12, time_limit=time_limit)


def test_one_costly_function_per_step_is_stopped_at_the_time_limit() -> None:
    episode = _env_with(HEAVY, time_limit=0.5).episode()
    with pytest.raises(ToolError, match="time limit"):
        episode.call_tool("probe")
    # the episode is unharmed and its next call is not interrupted by a stale deadline
    assert episode.call_tool("list_insurance_plans").content is not None


def test_a_call_that_ends_in_time_leaves_nothing_armed() -> None:
    from envs.engine.watchdog import WATCHDOG

    episode = _env_with("SELECT 1 AS v", time_limit=30).episode()
    for _ in range(50):
        episode.call_tool("probe")
    assert WATCHDOG.armed() == 0


def test_the_watchdog_interrupts_only_the_connection_whose_deadline_passed() -> None:
    dog = Watchdog()
    slow = sqlite3.connect(":memory:", check_same_thread=False)
    quiet = sqlite3.connect(":memory:", check_same_thread=False)
    expired: list[str] = []
    dog.arm(slow, time.monotonic() + 0.2, lambda: expired.append("slow"))
    token = dog.arm(quiet, time.monotonic() + 0.2, lambda: expired.append("quiet"))
    dog.disarm(token)  # ended in time
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["slow"] = slow.execute(HEAVY.replace("AS v", "")).fetchone()
        except sqlite3.OperationalError as exc:
            outcome["slow"] = str(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(timeout=120)
    assert outcome["slow"] == "interrupted" and expired == ["slow"]
    assert quiet.execute("SELECT 41 + 1").fetchone() == (42,)
