"""Spec SQL that tries to allocate without bound, read the wall clock or build a huge statement is
stopped with a typed error, and the process stays within 512 MB of where it was (peak RSS)."""

from __future__ import annotations

import re
import resource
import sqlite3
import threading
from typing import Any

import pydantic
import pytest

from envs import Environment
from envs.engine.sandbox import LIMITS
from envs.engine.thread_io import temp_file_bytes
from envs.errors import SandboxError, SpecError, ToolError
from envs.formats.spec import EnvSpec

PEAK_GROWTH_KB = 512 * 1024  # ru_maxrss is in KB on Linux


def _spec(tools: list[dict[str, Any]], *, table_extra: dict[str, Any] | None = None, rows: int = 3) -> EnvSpec:
    return EnvSpec.model_validate(
        {
            "id": "hostile",
            "name": "Hostile",
            "sector": "testing",
            "description": "Hostile SQL.",
            "policy": "",
            "clock": "2026-03-02T09:00:00",
            "tables": [
                {
                    "name": "things",
                    "description": "Things.",
                    "primary_key": ["thing_id"],
                    "columns": [{"name": "thing_id", "type": "text"}, {"name": "label", "type": "text"}],
                    **(table_extra or {}),
                }
            ],
            "seed": {"things": [{"thing_id": f"T{i:04d}", "label": "x"} for i in range(rows)]},
            "tools": tools,
        }
    )


def _read(name: str, sql: str) -> dict[str, Any]:
    return {"name": name, "kind": "read", "description": "A tool.", "steps": [{"kind": "return", "sql": sql}]}


BOMBS = {
    "printf": "SELECT printf('%.*c', 999999999, 'x') AS v",
    "zeroblob": "SELECT zeroblob(999999999) AS v",
    "replace": "SELECT replace(printf('%.*c', 1000000, 'x'), 'x', printf('%.*c', 1000, 'y')) AS v",
    "group_concat": "SELECT group_concat(printf('%.*c', 1000000, 'x')) AS v FROM "
    "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 900) SELECT x FROM c)",
    "four_columns": "SELECT printf('%.*c', 999999999, 'a') AS a, printf('%.*c', 999999999, 'b') AS b, "
    "printf('%.*c', 999999999, 'c') AS c, printf('%.*c', 999999999, 'd') AS d",
    "like": "SELECT printf('%.*c', 100000, 'a') LIKE printf('%.*c', 20000, '%') || 'b' AS v",
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_a_memory_bomb_in_one_step_stops_at_the_length_limit(name):
    """Either SQLite refuses ("string or blob too big", a typed tool error) or the function gives NULL
    (printf does): no value past ``LIMITS[LENGTH]`` is ever made, and peak memory stays put."""
    env = Environment(_spec([_read(name, BOMBS[name])]))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        rows = env.episode().call_tool(name, {}).content
    except ToolError as exc:
        assert re.search("too big|too complex|pattern", str(exc)), exc
    else:
        assert all(v is None or len(v) <= LIMITS[sqlite3.SQLITE_LIMIT_LENGTH] for r in rows for v in r.values())
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < PEAK_GROWTH_KB
    assert env.episode().query("SELECT count(*) AS n FROM things") == [{"n": 3}]  # the env stays usable


def test_a_costly_seed_is_stopped_by_the_build_budget(monkeypatch):
    import envs.engine.compile

    monkeypatch.setattr(envs.engine.compile, "BUILD_STEPS", 10_000)
    with pytest.raises(SpecError, match="building the seed database took more than 10,000 SQLite steps"):
        Environment(_spec([_read("list", "SELECT * FROM things")], rows=5000))


@pytest.mark.parametrize(
    ("sql", "expected"),
    [  # 'now' spelled out is refused at load; these build it
        ("SELECT date('no' || 'w') AS v", "2026-03-02"),
        ("SELECT datetime() AS v", "2026-03-02 09:00:00"),
        ("SELECT unixepoch() AS v", 1772442000),
        ("SELECT strftime('%Y-%m-%d %H', upper('no' || 'w')) AS v", "2026-03-02 09"),
        ("SELECT datetime('no' || 'w', 'local' || 'time', '+1 day') AS v", "2026-03-03 09:00:00"),
        ("SELECT julianday(' NOW ' || '') AS v", 2461101.875),
        ("SELECT date('2025-01-31', '+1 month') AS v", "2025-03-03"),  # dates that are not now: SQLite's own rules
    ],
)
def test_the_wall_clock_is_out_of_reach(sql, expected):
    env = Environment(_spec([_read("clock", sql)]))
    assert env.episode().call_tool("clock", {}).content == [{"v": expected}]


def test_json_nested_too_deep_to_read_stays_text():
    deep = "SELECT printf('%.*c', 100000, '[') || printf('%.*c', 100000, ']') AS v"
    env = Environment(
        _spec([{**_read("deep", deep), "steps": [{"kind": "return", "sql": deep, "json_columns": ["v"]}]}])
    )
    (row,) = env.episode().call_tool("deep", {}).content
    assert isinstance(row["v"], str) and len(row["v"]) == 200_000


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.update(tools=[d["tools"][0] | {"name": f"t{i}"} for i in range(501)]), "at most 500 items"),
        (lambda d: d["seed"].update(things=[{"thing_id": f"T{i}", "label": "x"} for i in range(200_001)]), "200,000"),
        (lambda d: d["seed"]["things"][0].update(label="x" * 100_001), r"seed\.things\[0\]\.label has 100,001"),
        (lambda d: d["tools"][0]["steps"][0].update(sql="SELECT " + "1 + " * 6000 + "1 AS v"), "at most 20000"),
    ],
    ids=["tools", "seed-rows", "seed-value", "sql-length"],
)
def test_a_spec_past_a_size_limit_is_refused_naming_the_limit(change, says):
    data = _spec([_read("list", "SELECT * FROM things")]).model_dump(mode="json")
    change(data)
    with pytest.raises(pydantic.ValidationError, match=says):
        EnvSpec.model_validate(data)


_KEYS = (
    "(WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000) "
    "SELECT printf('%.*c', 1000000, 'k') || n AS x FROM c)"
)
SPILLS = {  # each sorts 3 GB of 1 MB keys: SQLite spills them to temporary files
    "order_by": f"SELECT count(*) AS v FROM (SELECT x FROM {_KEYS} ORDER BY x)",
    "group_by": f"SELECT count(*) AS v FROM (SELECT x, count(*) FROM {_KEYS} GROUP BY x)",
    "count_distinct": f"SELECT count(DISTINCT x) AS v FROM {_KEYS}",
}


class _TempFiles:
    """The largest total size of SQLite's temporary files this process held, sampled every 2 ms."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, temp_file_bytes())

    def __enter__(self) -> _TempFiles:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.mark.parametrize("name", sorted(SPILLS))
def test_a_sort_that_spills_stops_before_64_mb_of_temporary_files(name):
    """With no time limit at all: the spill alone stops it, as a typed error, and changes nothing."""
    env = Environment(_spec([_read(name, SPILLS[name])]), time_limit=None)
    episode = env.episode()
    with (
        _TempFiles() as temp,
        pytest.raises(SandboxError, match=r"temporary files .*: at most 33,554,432 bytes a call"),
    ):
        episode.call_tool(name, {})
    assert temp.peak < 64 * 2**20, temp.peak
    assert episode.query("SELECT count(*) AS n FROM things") == [{"n": 3}]  # the episode stays usable
    small = Environment(_spec([_read("sorted", "SELECT thing_id FROM things ORDER BY label, thing_id DESC")]))
    assert small.episode().call_tool("sorted", {}).content[0] == {"thing_id": "T0002"}  # sorts in memory run


def test_spills_running_at_once_are_bounded_together(monkeypatch):
    """Two spills on two threads, each under its own limit (raised here to 1 GB), pass the process's
    limit together: the largest is interrupted first, then the other, and the process never held
    much more than that limit."""
    from envs.engine.watchdog import WATCHDOG

    monkeypatch.setattr(WATCHDOG, "max_temp_bytes", 2**30)
    monkeypatch.setattr(WATCHDOG, "max_process_temp_bytes", 48 * 2**20)
    env = Environment(_spec([_read("spill", SPILLS["order_by"])]), time_limit=None)
    errors: list[BaseException] = []

    def spill() -> None:
        try:
            env.episode().call_tool("spill", {})
        except BaseException as exc:
            errors.append(exc)

    with _TempFiles() as temp:
        threads = [threading.Thread(target=spill) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(errors) == 2 and all(isinstance(e, SandboxError) and "temporary files" in str(e) for e in errors), errors
    assert temp.peak < 2 * 48 * 2**20, temp.peak
