"""``envfarm bench isolation``: one tenant's hostile calls must not slow other tenants down.

A farm (a real ``envfarm serve`` subprocess, with two tenants) serves tenant B's read calls alone,
then while tenant A's clients keep sending calls that once stalled the event loop, one kind per
phase, each twice: to the same farm, and to another farm process on this machine. The second is
the floor: what A's load costs B through the machine alone (its cores, A's own clients), which no
farm can take away; the farm isolates tenants as well as separate processes do when the two
ratios are alike. The kinds: a query that never ends (stopped by the per-call time limit), a list
of 6,000 distinct objects (77 KB) for a ``uniqueItems`` parameter (refused before the schema since
lists hold at most ``MAX_ARRAY_ITEMS``), the longest list accepted (1,000 ids), a flood of
megabyte text fields (refused past ``ENVFARM_MAX_STRING_CHARS``) beside the longest notes a tool
accepts, until tenant A's call-log quota refuses it (the farms run with lower quotas), and
8 clients reading a 500-call log (4 MB) page after page, a sort that spills to temporary files
(stopped at ``envs.engine.watchdog.MAX_TEMP_BYTES``), and 20,000 sockets from another loopback address that
send half a request's headers and wait (held up to the header deadline, or refused past the
per-address cap). Tenant A's clients are processes of their
own, so the client measuring B shares no GIL with them. Reported: B's latency percentiles per
phase, their ratio to B alone (measured in the same run, so the machine's noise cancels), the
floor's ratio, A's call durations and outcomes (413s and tool errors are what A should get), every
5xx seen (there must be none), and per farm process its resident memory and the bytes of its data
folder before and after each phase, and the peak bytes of SQLite temporary files it held.
"""

from __future__ import annotations

import multiprocessing
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from envs.engine.thread_io import temp_file_bytes
from envs.engine.watchdog import WATCHDOG

from ..connections import default_max_connections, raise_open_file_limit
from ..settings import Settings
from ..threaded import free_port
from .hostile import (
    BYSTANDER,
    FLOOD_ADDRESS,
    FLOOD_CHARS,
    LAB_SPEC,
    LAB_TASK,
    LOG_CALLS,
    LONGEST_LIST_CALL,
    MAX_BODY_BYTES,
    TENANT_KEYS,
    UNIQUE_ITEMS_CALL,
    attack,
    build_log,
    episode,
    write_lab_catalog,
)
from .load import _rss_mb
from .serve import BenchError, _bench_env, _farm_command, _server

__all__ = ["LAB_SPEC", "LAB_TASK", "LONGEST_LIST_CALL", "UNIQUE_ITEMS_CALL", "bench_isolation", "write_lab_catalog"]

KINDS = ("spin", "spill", "unique_items", "longest_list", "text_flood", "log_reads", "header_flood")
#: Sockets the header flood holds open in all (the file-descriptor limit of the farm in the review).
IDLE_SOCKETS = 20_000
#: The bench farms' quotas: low enough that the flood reaches tenant A's store quota in its phase.
MAX_LOG_BYTES_PER_EPISODE, MAX_STORE_BYTES_PER_TENANT = 16_000_000, 64_000_000
#: The longest the flood phase goes on (B measuring all along) for tenant A to reach its quota.
FLOOD_SECONDS = 120.0
# how long an attacker process may take to start and send its first call: a spawned interpreter that
# imports the farm's client takes minutes, not seconds, on a machine whose cores are busy elsewhere
START_SECONDS = 300


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "calls": len(ordered),
        "p50_ms": round(statistics.median(ordered), 3),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
        "max_ms": round(ordered[-1], 3),
    }


def _bystander_calls(client: httpx.Client, episode_id: str, n: int, server_errors: list[int]) -> list[float]:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = client.post(f"/episodes/{episode_id}/calls", json={"tool": "list_things"})
        samples.append((time.perf_counter() - t0) * 1e3)
        if r.status_code != 200 or r.json().get("is_error"):
            server_errors.append(r.status_code)
    return samples


def _store_bytes(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except FileNotFoundError:  # a journal removed meanwhile
            pass
    return total


class _Watch:
    """A farm process's resident memory (sampled every 50 ms) and its data folder's bytes, phase by phase."""

    def __init__(self, pid: int, data_dir: Path) -> None:
        self.pid, self.data_dir = pid, data_dir
        self.start_rss, self.start_store = _rss_mb(pid), _store_bytes(data_dir)
        self.peak = self.phase_peak = self.start_rss
        self.temp_peak = self.phase_temp_peak = 0
        self.phases: dict[str, dict[str, Any]] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(0.05):
            try:
                rss = _rss_mb(self.pid)
            except (OSError, BenchError):
                return
            self.peak, self.phase_peak = max(self.peak, rss), max(self.phase_peak, rss)
            temp = temp_file_bytes(self.pid)
            self.temp_peak, self.phase_temp_peak = max(self.temp_peak, temp), max(self.phase_temp_peak, temp)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        rss, store = _rss_mb(self.pid), _store_bytes(self.data_dir)
        self.phase_peak, self.phase_temp_peak = rss, 0
        yield
        after_rss, after_store = _rss_mb(self.pid), _store_bytes(self.data_dir)
        self.phases[name] = {
            "rss_mb": {"before": round(rss, 1), "after": round(after_rss, 1), "peak": round(self.phase_peak, 1)},
            "store_bytes": {"before": store, "after": after_store, "growth": after_store - store},
            "temp_file_bytes_peak": self.phase_temp_peak,
        }

    def report(self) -> dict[str, Any]:
        self._done.set()
        self._thread.join()
        rss, store = _rss_mb(self.pid), _store_bytes(self.data_dir)
        return {
            "pid_rss_mb": {
                "start": round(self.start_rss, 1),
                "end": round(rss, 1),
                "peak": round(self.peak, 1),
                "growth_to_peak": round(self.peak - self.start_rss, 1),
            },
            "store_bytes": {"start": self.start_store, "end": store, "growth": store - self.start_store},
            "temp_file_bytes_peak": self.temp_peak,
            "phases": self.phases,
        }


def _phase(
    base: str,
    kind: str,
    clients: int,
    measure: Callable[[int], list[float]],
    calls: int,
    target: str | None = None,
    sockets: int = 0,
) -> tuple[list[float], list[float], list[int], dict[str, int], bool]:
    """B's latencies while ``clients`` processes of tenant A send ``kind`` calls to ``base`` (for the
    flood, until every client is refused by the tenant's store quota, at most ``FLOOD_SECONDS``);
    also A's call durations, A's 5xx, how A's calls ended, and whether the quota refused every client."""
    # Each attacker is a process of its own: in this one, its threads would take the GIL from the
    # client measuring tenant B, and B's figures would show the client.
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    ready, full = ctx.Semaphore(0), ctx.Semaphore(0)
    results = ctx.Queue()
    each = sockets // clients
    procs = [
        ctx.Process(target=attack, args=(base, kind, stop, ready, full, target, results, each)) for _ in range(clients)
    ]
    for proc in procs:
        proc.start()
    # measure only once every attacker sends (a spawned process takes a second or more to start)
    for _ in procs:
        if not ready.acquire(timeout=START_SECONDS):
            raise BenchError(f"an attacking client did not start sending {kind} calls within {START_SECONDS} s")
    time.sleep(0.2)  # their first calls are in flight
    started = time.perf_counter()
    samples = measure(calls)
    refused = 0
    while kind == "text_flood" and refused < clients and time.perf_counter() - started < FLOOD_SECONDS:
        samples += measure(max(1, calls // 10))
        while full.acquire(block=False):
            refused += 1
    stop.set()
    durations: list[float] = []
    codes: list[int] = []
    outcomes: dict[str, int] = {}
    for _ in procs:
        d, c, o = results.get(timeout=120)
        durations += d
        codes += c
        for key, n in o.items():
            outcomes[key] = outcomes.get(key, 0) + n
    for proc in procs:
        proc.join()
    return samples, durations, codes, outcomes, refused == clients


def bench_isolation(
    *,
    calls: int = 400,
    attackers: int = 4,
    readers: int = 8,
    log_calls: int = LOG_CALLS,
    time_limit: float = 2.0,
    tenant_quota_bytes: int = MAX_STORE_BYTES_PER_TENANT,
    idle_sockets: int = IDLE_SOCKETS,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Tenant B's latency alone, beside ``attackers`` processes of tenant A's hostile calls (``readers``
    for the log reads of a ``log_calls``-call episode) to the same farm, and beside the same calls to
    another farm process on this machine (the floor: what sharing the machine costs, whatever the
    farm does). The text flood runs until tenant A's store reaches ``tenant_quota_bytes``."""
    raise_open_file_limit()  # as the farms do: their connection caps are figured from the same limit
    env = {
        **_bench_env(),
        "ENVFARM_MAX_LOG_BYTES_PER_EPISODE": str(MAX_LOG_BYTES_PER_EPISODE),
        "ENVFARM_MAX_STORE_BYTES_PER_TENANT": str(tenant_quota_bytes),
        "ENVFARM_API_KEYS": TENANT_KEYS,
        "ENVFARM_STEP_BUDGET": str(10**12),  # the spin is stopped by the clock
        "ENVFARM_CALL_TIME_LIMIT_SECONDS": str(time_limit),
        "ENVFARM_MAX_BODY_BYTES": str(MAX_BODY_BYTES),
    }
    beside: dict[str, list[float]] = {}
    floor: dict[str, list[float]] = {}
    attack_ms: dict[str, list[float]] = {}
    attack_ms_other: dict[str, list[float]] = {}
    outcomes: dict[str, dict[str, int]] = {}
    outcomes_other: dict[str, dict[str, int]] = {}
    quota_reached: dict[str, bool] = {}
    attack_errors: list[int] = []
    errors: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        write_lab_catalog(Path(tmp) / "catalog")
        env["ENVFARM_CATALOG"] = str(Path(tmp) / "catalog")
        port, other_port = free_port(), free_port()
        pids: list[int] = []
        with (
            _server(_farm_command(port, tmp + "/data"), port, env, pids) as base,
            _server(_farm_command(other_port, tmp + "/other"), other_port, env, pids) as other_farm,
        ):
            watches = {base: _Watch(pids[0], Path(tmp) / "data"), other_farm: _Watch(pids[1], Path(tmp) / "other")}
            bystander = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {BYSTANDER}"}, timeout=120)
            with bystander:
                mine = episode(bystander, env_id="lab")
                _bystander_calls(bystander, mine, 50, errors)  # warm-up
                progress(f"tenant A's {log_calls}-call logs, on both farms")
                logs: dict[str, tuple[str, int]] = {}
                for target, watch in watches.items():
                    with watch.phase("build_log"):
                        logs[target] = build_log(target, log_calls)
                progress("tenant B alone")
                alone = _bystander_calls(bystander, mine, calls, errors)
                for kind in KINDS:
                    for target, into, durations_into, outcomes_into in (
                        (base, beside, attack_ms, outcomes),
                        (other_farm, floor, attack_ms_other, outcomes_other),
                    ):
                        where = "the same farm" if target == base else "another farm process"
                        clients = readers if kind == "log_reads" else attackers
                        progress(f"tenant B beside {clients} clients of tenant A sending {kind} calls to {where}")
                        with watches[target].phase(kind):
                            into[kind], durations, codes, outcomes_into[kind], reached = _phase(
                                target,
                                kind,
                                clients,
                                lambda n: _bystander_calls(bystander, mine, n, errors),
                                calls,
                                logs[target][0],
                                idle_sockets,
                            )
                        durations_into[kind] = durations
                        attack_errors += codes
                        if kind == "text_flood":
                            quota_reached["same_farm" if target == base else "other_farm"] = reached
            processes = {"same_farm": watches[base].report(), "other_farm": watches[other_farm].report()}
    quiet = _percentiles(alone)
    phases = {kind: _percentiles(samples) for kind, samples in beside.items()}
    floors = {kind: _percentiles(samples) for kind, samples in floor.items()}

    def ratios(of: dict[str, dict[str, float]], key: str) -> dict[str, float]:
        return {kind: round(p[key] / quiet[key], 3) for kind, p in of.items()}

    p99, floor_p99 = ratios(phases, "p99_ms"), ratios(floors, "p99_ms")
    over_floor = {kind: round(p99[kind] / floor_p99[kind], 3) for kind in p99}
    return {
        "benchmark": "isolation",
        "time_limit_s": time_limit,
        "attackers": attackers,
        "log_readers": readers,
        "bystander_alone": quiet,
        "bystander_beside": phases,
        "bystander_beside_other_farm": floors,
        "p99_ratio": p99,
        "p50_ratio": ratios(phases, "p50_ms"),
        "floor_p99_ratio": floor_p99,
        "floor_p50_ratio": ratios(floors, "p50_ms"),
        "p99_over_floor": over_floor,
        # A's calls while B measured: on the same farm A is paced, so it makes fewer than on its own.
        "attack_calls": {k: _percentiles(v) for k, v in attack_ms.items() if v},
        "attack_calls_other_farm": {k: _percentiles(v) for k, v in attack_ms_other.items() if v},
        # how A's calls ended: refusals (413 with the quota's field, tool errors) are expected
        "attack_outcomes": outcomes,
        "attack_outcomes_other_farm": outcomes_other,
        "flood": {
            "text_chars": FLOOD_CHARS,
            "max_body_bytes": MAX_BODY_BYTES,
            "max_log_bytes_per_episode": MAX_LOG_BYTES_PER_EPISODE,
            "max_store_bytes_per_tenant": tenant_quota_bytes,
            "quota_reached": quota_reached,
        },
        "log_episode": {"calls": log_calls, "log_bytes": next(iter(logs.values()))[1]},
        "header_flood": {
            "idle_sockets": idle_sockets,
            "from_address": FLOOD_ADDRESS,
            # the farms run with the defaults (and this process's open-file limit)
            "connection_cap": default_max_connections(),
            "per_address_cap": Settings.model_fields["max_connections_per_address"].default,
        },
        "farm_processes": processes,
        "acceptance": {
            "p99_over_floor": {kind: over_floor[kind] for kind in ("text_flood", "log_reads")},
            "p99_over_floor_target": 3,
            "rss_growth_to_peak_mb": {k: p["pid_rss_mb"]["growth_to_peak"] for k, p in processes.items()},
            "rss_growth_target_mb": 512,
            "store_growth_bytes": {k: p["store_bytes"]["growth"] for k, p in processes.items()},
            "store_quota_bytes_per_tenant": tenant_quota_bytes,
            "spill_temp_file_bytes_peak": {
                k: p["phases"]["spill"]["temp_file_bytes_peak"] for k, p in processes.items()
            },
            # every call under 64 MB; the process under the watchdog's limit for all calls at once (and a poll's slack)
            "temp_file_bytes_target_per_call": 64 * 2**20,
            "temp_file_bytes_target_per_process": WATCHDOG.max_process_temp_bytes + 64 * 2**20,
        },
        "server_errors": errors + attack_errors,
    }
