"""``envfarm bench isolation``: one tenant's hostile calls must not slow other tenants down.

A farm (a real ``envfarm serve`` subprocess, with two tenants) serves tenant B's read calls alone,
then while tenant A's clients keep sending calls that once stalled the event loop, one kind per
phase, each twice: to the same farm, and to another farm process on this machine. The second is
the floor: what A's load costs B through the machine alone (its cores, A's own clients), which no
farm can take away; the farm isolates tenants as well as separate processes do when the two
ratios are alike. The kinds: a query that never ends (stopped by the per-call time limit), a list
of 6,000 distinct objects (77 KB) for a ``uniqueItems`` parameter (refused before the schema since
lists hold at most ``MAX_ARRAY_ITEMS``), and the longest list accepted (1,000 ids). Tenant A's
clients are processes of their own, so the client measuring B shares no GIL with them. Reported: B's latency
percentiles per phase, their ratio to B alone (measured in the same run, so the machine's noise
cancels), the floor's ratio, A's call durations, and every 5xx seen (there must be none).
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from envs import paths
from envs.arguments import MAX_ARRAY_ITEMS

from ..threaded import free_port
from .serve import BenchError, _bench_env, _farm_command, _server

TENANT_KEYS = "bench-key-aaaaaaaa attacker;bench-key-bbbbbbbb bystander"
ATTACKER, BYSTANDER = "bench-key-aaaaaaaa", "bench-key-bbbbbbbb"

#: An environment whose tools misbehave on purpose (also used by the server's stall tests).
LAB_SPEC: dict[str, Any] = {
    "format_version": 1,
    "id": "lab",
    "name": "Lab",
    "sector": "testing",
    "description": "Tools that misbehave on purpose.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        {
            "name": "things",
            "description": "Things.",
            "primary_key": ["thing_id"],
            "columns": [{"name": "thing_id", "type": "text"}, {"name": "label", "type": "text"}],
        }
    ],
    "invariants": [],
    "tools": [
        {
            "name": "spin",
            "kind": "read",
            "description": "Counts for ever.",
            "steps": [
                {
                    "kind": "return",
                    "shape": "value",
                    "sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
                }
            ],
        },
        {
            "name": "broken_text",
            "kind": "read",
            "description": "Returns text that is not valid Unicode.",
            "steps": [{"kind": "return", "shape": "value", "sql": "SELECT 'a' || char(55296) || 'b'"}],
        },
        {
            "name": "broken_json",
            "kind": "read",
            "description": "Returns JSON whose string holds a lone surrogate.",
            "steps": [{"kind": "return", "shape": "one", "json_columns": ["j"], "sql": "SELECT '\"a\\ud800b\"' AS j"}],
        },
        {
            "name": "list_things",
            "kind": "read",
            "description": "Lists things.",
            "steps": [{"kind": "return", "sql": "SELECT * FROM things ORDER BY thing_id"}],
        },
        {
            "name": "mint",
            "kind": "write",
            "description": "Makes n things.",
            "parameters": {
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 1}},
                "required": ["n"],
                "additionalProperties": False,
            },
            "steps": [
                {
                    "kind": "exec",
                    "sql": "INSERT INTO things (thing_id, label) SELECT new_id('T'), 'made' FROM "
                    "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < :n) SELECT x FROM c)",
                },
                {"kind": "return", "shape": "value", "sql": "SELECT count(*) FROM things"},
            ],
        },
    ],
}
LAB_TASK = {
    "id": "lab-001",
    "env": "lab",
    "instruction": "Make 40,000 things.",
    "gold_actions": [{"tool": "mint", "arguments": {"n": 40000}}],
    "reward_basis": ["state"],
}
#: The longest list the engine accepts (``MAX_ARRAY_ITEMS`` distinct ids).
LONGEST_LIST_CALL = {
    "tool": "return_delivered_order_items",
    "arguments": {
        "order_id": "#W0000000",
        "item_ids": [f"ITM{i:06d}" for i in range(MAX_ARRAY_ITEMS)],
        "payment_method_id": "gift_card_0000000",
    },
}
UNIQUE_ITEMS_CALL = {
    "tool": "return_delivered_order_items",
    "arguments": {
        "order_id": "#W0000000",
        "item_ids": [{"item": i} for i in range(6000)],
        "payment_method_id": "gift_card_0000000",
    },
}


def write_lab_catalog(catalog: Path) -> None:
    """A catalog of retail plus the lab environment."""
    shutil.copytree(paths.BUILTIN_CATALOG / "retail", catalog / "retail")
    lab = catalog / "lab"
    lab.mkdir(parents=True)
    (lab / "spec.json").write_text(json.dumps(LAB_SPEC), encoding="utf-8")
    (lab / "seed.json").write_text(json.dumps({"things": [{"thing_id": "T0001", "label": "first"}]}), encoding="utf-8")
    (lab / "policy.md").write_text("# Lab\n", encoding="utf-8")
    (lab / "tasks.json").write_text(json.dumps([LAB_TASK]), encoding="utf-8")


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "calls": len(ordered),
        "p50_ms": round(statistics.median(ordered), 3),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
        "max_ms": round(ordered[-1], 3),
    }


def _episode(client: httpx.Client, **body: Any) -> str:
    r = client.post("/episodes", json=body)
    if r.status_code != 201:
        raise BenchError(f"could not create an episode: {r.status_code} {r.text[:200]}")
    return str(r.json()["episode_id"])


def _bystander_calls(client: httpx.Client, episode: str, n: int, server_errors: list[int]) -> list[float]:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = client.post(f"/episodes/{episode}/calls", json={"tool": "list_things"})
        samples.append((time.perf_counter() - t0) * 1e3)
        if r.status_code >= 500 or r.json().get("is_error"):
            server_errors.append(r.status_code)
    return samples


def _attack(base: str, kind: str, stop: Any, ready: Any, results: Any) -> None:
    """One client of tenant A sending ``kind`` calls until ``stop``; releases ``ready`` as it starts
    sending; puts (durations ms, 5xx codes)."""
    headers = {"Authorization": f"Bearer {ATTACKER}", "content-type": "application/json"}
    durations: list[float] = []
    codes: list[int] = []
    with httpx.Client(base_url=base, headers=headers, timeout=120) as c:
        episode = _episode(c, env_id="lab") if kind == "spin" else _episode(c, task_id="retail-001")
        call = {"spin": {"tool": "spin"}, "unique_items": UNIQUE_ITEMS_CALL, "longest_list": LONGEST_LIST_CALL}[kind]
        body = json.dumps(call).encode()
        ready.release()
        while not stop.is_set():
            t0 = time.perf_counter()
            r = c.post(f"/episodes/{episode}/calls", content=body)
            durations.append((time.perf_counter() - t0) * 1e3)
            if r.status_code >= 500:
                codes.append(r.status_code)
    results.put((durations, codes))


def _phase(base: str, kind: str, attackers: int, measure: Callable[[], list[float]]) -> tuple[list[float], Any]:
    """B's latencies while ``attackers`` processes of tenant A send ``kind`` calls to ``base``;
    also (A's call durations, A's 5xx)."""
    # Each attacker is a process of its own: in this one, its threads would take the GIL from the
    # client measuring tenant B, and B's figures would show the client.
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    ready = ctx.Semaphore(0)
    results = ctx.Queue()
    procs = [ctx.Process(target=_attack, args=(base, kind, stop, ready, results)) for _ in range(attackers)]
    for proc in procs:
        proc.start()
    # measure only once every attacker sends (a spawned process takes a second or more to start)
    for _ in procs:
        if not ready.acquire(timeout=120):
            raise BenchError(f"an attacking client did not start sending {kind} calls within 120 s")
    time.sleep(0.2)  # their first calls are in flight
    samples = measure()
    stop.set()
    durations: list[float] = []
    codes: list[int] = []
    for _ in procs:
        d, c = results.get(timeout=120)
        durations += d
        codes += c
    for proc in procs:
        proc.join()
    return samples, (durations, codes)


def bench_isolation(
    *, calls: int = 400, attackers: int = 4, time_limit: float = 2.0, progress: Callable[[str], None] = lambda _: None
) -> dict[str, Any]:
    """Tenant B's latency alone, beside ``attackers`` processes of tenant A's hostile calls to the
    same farm, and beside the same calls to another farm process on this machine (the floor: what
    sharing the machine costs, whatever the farm does)."""
    env = {
        **_bench_env(),
        "ENVFARM_API_KEYS": TENANT_KEYS,
        "ENVFARM_STEP_BUDGET": str(10**12),  # the spin is stopped by the clock
        "ENVFARM_CALL_TIME_LIMIT_SECONDS": str(time_limit),
    }
    with tempfile.TemporaryDirectory() as tmp:
        write_lab_catalog(Path(tmp) / "catalog")
        env["ENVFARM_CATALOG"] = str(Path(tmp) / "catalog")
        port, other_port = free_port(), free_port()
        with (
            _server(_farm_command(port, tmp + "/data"), port, env) as base,
            _server(_farm_command(other_port, tmp + "/other"), other_port, env) as other_farm,
        ):
            bystander = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {BYSTANDER}"}, timeout=120)
            with bystander:
                mine = _episode(bystander, env_id="lab")
                errors: list[int] = []
                _bystander_calls(bystander, mine, 50, errors)  # warm-up
                progress("tenant B alone")
                alone = _bystander_calls(bystander, mine, calls, errors)
                attack_ms: dict[str, list[float]] = {}
                attack_ms_other: dict[str, list[float]] = {}
                attack_errors: list[int] = []
                beside: dict[str, list[float]] = {}
                floor: dict[str, list[float]] = {}
                for kind in ("spin", "unique_items", "longest_list"):
                    for target, into, durations_into in (
                        (base, beside, attack_ms),
                        (other_farm, floor, attack_ms_other),
                    ):
                        where = "the same farm" if target == base else "another farm process"
                        progress(f"tenant B beside {attackers} clients of tenant A sending {kind} calls to {where}")
                        into[kind], (durations, codes) = _phase(
                            target, kind, attackers, lambda: _bystander_calls(bystander, mine, calls, errors)
                        )
                        durations_into[kind] = durations
                        attack_errors += codes
    quiet = _percentiles(alone)
    phases = {kind: _percentiles(samples) for kind, samples in beside.items()}
    floors = {kind: _percentiles(samples) for kind, samples in floor.items()}

    def ratios(of: dict[str, dict[str, float]], key: str) -> dict[str, float]:
        return {kind: round(p[key] / quiet[key], 3) for kind, p in of.items()}

    p99, floor_p99 = ratios(phases, "p99_ms"), ratios(floors, "p99_ms")
    return {
        "benchmark": "isolation",
        "time_limit_s": time_limit,
        "attackers": attackers,
        "bystander_alone": quiet,
        "bystander_beside": phases,
        "bystander_beside_other_farm": floors,
        "p99_ratio": p99,
        "p50_ratio": ratios(phases, "p50_ms"),
        "floor_p99_ratio": floor_p99,
        "floor_p50_ratio": ratios(floors, "p50_ms"),
        "p99_over_floor": {kind: round(p99[kind] / floor_p99[kind], 3) for kind in p99},
        # A's calls while B measured: on the same farm A is paced, so it makes fewer than on its own.
        "attack_calls": {k: _percentiles(v) for k, v in attack_ms.items() if v},
        "attack_calls_other_farm": {k: _percentiles(v) for k, v in attack_ms_other.items() if v},
        "server_errors": errors + attack_errors,
    }
