"""``envfarm bench serve``: tool calls per second through the farm beside a bare MCP server, and the
memory of many live episodes.

Both servers run as real uvicorn subprocesses (one worker) on loopback and are driven by the
official Python ``mcp`` client in this process, so the ratio farm / bare is measured in one run on
the same machine. The farm's calls include argument validation, the SQLite engine and the durable
call log (one committed store row per call).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from envs import Catalog
from envs.errors import EnvFarmError

from ..auth import Principal
from ..episodes import EpisodeService
from ..metrics import Metrics
from ..settings import Settings
from ..store import Store
from ..threaded import free_port

BENCH_TASK = "clinic-001"
READ_CALL = ("find_patient_by_email", {"email": "maria.lopez@example.com"})
WRITE_CALL = ("update_patient_contact", {"patient_id": "P0001", "phone": "+15550199"})


class BenchError(EnvFarmError):
    """A benchmark could not run (a server did not start, a call failed)."""


@contextmanager
def _server(cmd: list[str], port: int, env: dict[str, str], pids: list[int] | None = None) -> Iterator[str]:
    # stderr goes to a file, not a pipe: nobody reads a pipe while the server runs, and a full one would block it
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=errors)
        if pids is not None:
            pids.append(proc.pid)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.time() + 30
            while True:
                if proc.poll() is not None:
                    errors.seek(0)
                    raise BenchError(f"server exited: {errors.read().decode(errors='replace')[-2000:]}")
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if time.time() > deadline:
                    raise BenchError(f"server on port {port} did not start")
                time.sleep(0.1)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@dataclass(frozen=True)
class _Target:
    """One server under test: where, and which call to repeat."""

    url: str
    tool: str
    arguments: dict[str, Any]


async def _call(client: Client, target: _Target) -> None:
    r = await client.call_tool(target.tool, target.arguments)
    if r.is_error:
        raise BenchError(f"bench call to {target.url} failed: {r.content}")


async def _paired_sequential(a: _Target, b: _Target, calls: int, block: int) -> tuple[float, float]:
    """Calls/s of ``a`` and of ``b``, one client each, alternating every ``block`` calls.

    Blocks of a few dozen calls put both servers under the same machine load (this VM's speed
    drifts within seconds), so their ratio is far steadier than two separate runs.
    """
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for target in (a, b):
            http = await stack.enter_async_context(httpx2.AsyncClient(timeout=60))
            client = await stack.enter_async_context(Client(streamable_http_client(target.url, http_client=http)))
            await client.list_tools()
            for _ in range(min(50, calls)):
                await _call(client, target)
            clients.append((client, target))
        elapsed = [0.0, 0.0]
        for i in range(max(1, calls // block)):
            for side in (0, 1) if i % 2 == 0 else (1, 0):
                client, target = clients[side]
                t0 = time.perf_counter()
                for _ in range(block):
                    await _call(client, target)
                elapsed[side] += time.perf_counter() - t0
        done = max(1, calls // block) * block
        return done / elapsed[0], done / elapsed[1]


async def _paired_concurrent(a: list[_Target], b: list[_Target], rounds: int, per_client: int) -> tuple[float, float]:
    """Calls/s of ``a`` and of ``b``, each a set of concurrent clients, alternating burst by burst."""
    async with contextlib.AsyncExitStack() as stack:
        sides = []
        for targets in (a, b):
            clients = []
            for target in targets:
                http = await stack.enter_async_context(httpx2.AsyncClient(timeout=60))
                client = await stack.enter_async_context(Client(streamable_http_client(target.url, http_client=http)))
                await client.list_tools()
                clients.append((client, target))
            sides.append(clients)

        async def burst(clients: list[tuple[Client, _Target]]) -> float:
            async def one(client: Client, target: _Target) -> None:
                for _ in range(per_client):
                    await _call(client, target)

            t0 = time.perf_counter()
            await asyncio.gather(*(one(c, t) for c, t in clients))
            return time.perf_counter() - t0

        await burst(sides[0])
        await burst(sides[1])
        elapsed = [0.0, 0.0]
        for i in range(rounds):
            for side in (0, 1) if i % 2 == 0 else (1, 0):
                elapsed[side] += await burst(sides[side])
        return (
            rounds * per_client * len(a) / elapsed[0],
            rounds * per_client * len(b) / elapsed[1],
        )


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


async def _create_many(service: EpisodeService, principal: Principal, env_id: str, n: int) -> None:
    for _ in range(n):
        await service.create(principal, task_id=None, env_id=env_id)


def live_episode_memory(counts: tuple[int, ...] = (1000, 10000), env_id: str = "retail") -> dict[str, Any]:
    """RSS growth for N live episodes of the largest reference environment, in this process."""
    out: dict[str, Any] = {"env": env_id}
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            settings = Settings(
                data_dir=Path(tmp) / str(n), max_live_episodes_per_tenant=n + 1, max_episodes_in_memory=n + 1
            )
            store = Store(settings.store_url())
            service = EpisodeService(settings, Catalog(settings.catalog), store, Metrics())
            env = service.environment(env_id)
            principal = Principal(tenant="bench", admin=True)
            before = _rss_mb()

            t0 = time.perf_counter()
            asyncio.run(_create_many(service, principal, env_id, n))
            elapsed = time.perf_counter() - t0
            grown = _rss_mb() - before
            out[str(n)] = {
                "rss_growth_mb": round(grown, 1),
                "kb_per_episode": round(grown * 1000 / n, 1),
                "image_kb": round(len(env.image) / 1000, 1),
                "create_per_s": round(n / elapsed),
            }
            service.close_all()
            store.close()
    return out


def _bench_env() -> dict[str, str]:
    return {
        **os.environ,
        "ENVFARM_MAX_CALLS_PER_EPISODE": str(10**9),
        "ENVFARM_LOG_LEVEL": "WARNING",
        "ENVFARM_NO_GENERATE": "1",
    }


def _farm_command(port: int, data_dir: str) -> list[str]:
    return [sys.executable, "-m", "envfarm", "serve", "--port", str(port), "--data-dir", data_dir]


def _new_episode(base: str, call: tuple[str, dict[str, Any]]) -> tuple[str, _Target]:
    r = httpx.post(base + "/episodes", json={"task_id": BENCH_TASK}, timeout=30)
    r.raise_for_status()
    return str(r.json()["episode_id"]), _Target(str(r.json()["mcp_url"]), *call)


def _ratio(name: str, value: float, baseline_name: str, baseline: float) -> dict[str, Any]:
    return {name: round(value, 1), baseline_name: round(baseline, 1), "ratio": round(value / baseline, 3)}


def _repeated_sequential(
    name: str, a: _Target, baseline_name: str, b: _Target, *, calls: int, block: int, repeats: int
) -> dict[str, Any]:
    """``_paired_sequential`` ``repeats`` times: medians, and every run's ratio (this machine's speed
    drifts between runs, so one figure alone says little about the next)."""
    runs = [asyncio.run(_paired_sequential(a, b, calls, block)) for _ in range(repeats)]
    out = _ratio(name, statistics.median(r[0] for r in runs), baseline_name, statistics.median(r[1] for r in runs))
    ratios = [r[0] / r[1] for r in runs]
    out["ratio"] = round(statistics.median(ratios), 3)
    out["ratio_runs"] = [round(x, 3) for x in ratios]
    # What one call costs more than the baseline's, in time: a ratio depends on how fast this machine runs
    # the client as much as on the server, the difference much less.
    extra = [1e3 / r[0] - 1e3 / r[1] for r in runs]
    out["extra_ms_per_call"] = round(statistics.median(extra), 3)
    out["extra_ms_runs"] = [round(x, 3) for x in extra]
    return out


def bench_shared_store(
    database_url: str,
    *,
    calls: int = 1000,
    clients: int = 32,
    per_client: int = 100,
    rounds: int = 4,
    block: int = 25,
    progress: Callable[[str], None] = lambda s: None,
) -> dict[str, Any]:
    """A farm on a shared store (``database_url``, e.g. PostgreSQL) beside one on the embedded SQLite
    store, driven alternately: what committing every call to a shared database costs."""
    env = _bench_env()
    shared_port, embedded_port = free_port(), free_port()
    result: dict[str, Any] = {"database": database_url.split(":", 1)[0].split("+")[0]}
    with (
        tempfile.TemporaryDirectory() as data,
        _server(
            _farm_command(shared_port, data + "/shared"), shared_port, {**env, "ENVFARM_DATABASE_URL": database_url}
        ) as shared_base,
        _server(_farm_command(embedded_port, data + "/embedded"), embedded_port, env) as embedded_base,
    ):
        shared_ids: list[str] = []
        for label, call in (("read", READ_CALL), ("write", WRITE_CALL)):
            progress(f"shared store: sequential {label} calls")
            shared_id, shared = _new_episode(shared_base, call)
            shared_ids.append(shared_id)
            on_shared, on_embedded = asyncio.run(
                _paired_sequential(shared, _new_episode(embedded_base, call)[1], calls, block)
            )
            result[f"sequential_{label}_calls_per_s"] = _ratio("shared", on_shared, "embedded", on_embedded)
        progress(f"shared store: {clients} concurrent clients")
        many = [_new_episode(shared_base, READ_CALL) for _ in range(clients)]
        shared_ids += [episode_id for episode_id, _ in many]
        on_shared, on_embedded = asyncio.run(
            _paired_concurrent(
                [target for _, target in many],
                [_new_episode(embedded_base, READ_CALL)[1] for _ in range(clients)],
                rounds,
                max(1, per_client // rounds),
            )
        )
        result[f"concurrent_{clients}_calls_per_s"] = _ratio("shared", on_shared, "embedded", on_embedded)
        result["shared_calls_logged"] = sum(
            httpx.get(f"{shared_base}/episodes/{e}", params={"log": "false"}, timeout=30).json()["calls"]
            for e in shared_ids
        )
    return result


def bench_serve(
    *,
    calls: int = 2000,
    clients: int = 32,
    per_client: int = 100,
    rounds: int = 10,
    block: int = 25,
    repeats: int = 3,
    memory_counts: tuple[int, ...] = (1000, 10000),
    progress: Callable[[str], None] = lambda s: None,
) -> dict[str, Any]:
    """Run the serving benchmark; return a JSON-serializable report.

    Both servers run at the same time and are driven alternately, ``block`` sequential calls or one
    concurrent burst at a time, so load from other processes hits both sides alike.
    """
    env = _bench_env()
    result: dict[str, Any] = {
        "benchmark": "serve",
        "cpus": os.cpu_count(),
        "tool": READ_CALL[0],
        "sequential_block": block,
        "sequential_repeats": repeats,
        "concurrent_rounds": rounds,
    }
    bare_port, farm_port = free_port(), free_port()
    progress("starting servers")
    with (
        tempfile.TemporaryDirectory() as data,
        _server([sys.executable, "-m", "server.bench.bare", "--port", str(bare_port)], bare_port, env) as bare_base,
        _server(_farm_command(farm_port, data), farm_port, env) as farm_base,
    ):
        bare = _Target(bare_base + "/mcp", "echo", {"v": "x"})

        episode_ids: list[str] = []

        def episode() -> _Target:
            episode_id, target = _new_episode(farm_base, READ_CALL)
            episode_ids.append(episode_id)
            return target

        farm = episode()
        progress("sequential calls")
        result["sequential_calls_per_s"] = _repeated_sequential(
            "envfarm", farm, "bare_mcp", bare, calls=calls, block=block, repeats=repeats
        )
        # The same bare server echoing a result as large as the farm's: separates per-call overhead from the
        # cost of carrying a real record through both SDKs.
        sample = httpx.post(
            farm.url.removesuffix("/mcp") + "/calls", json={"tool": farm.tool, "arguments": farm.arguments}, timeout=30
        ).json()["content"]
        progress("sequential calls, same payload")
        result["sequential_same_payload_calls_per_s"] = _repeated_sequential(
            "envfarm",
            farm,
            "bare_mcp_echo",
            _Target(bare.url, "echo", {"v": sample}),
            calls=calls,
            block=block,
            repeats=repeats,
        )
        progress(f"{clients} concurrent clients")
        farm_conc, bare_conc = asyncio.run(
            _paired_concurrent(
                [episode() for _ in range(clients)], [bare] * clients, rounds, max(1, per_client // rounds)
            )
        )
        # What the farm itself logged: proof that every measured call went through it.
        result["farm_calls_logged"] = sum(
            httpx.get(f"{farm_base}/episodes/{e}", timeout=30).json()["calls"] for e in episode_ids
        )
    result[f"concurrent_{clients}_calls_per_s"] = _ratio("envfarm", farm_conc, "bare_mcp", bare_conc)
    result["target_ratio"] = 0.9
    progress("live episode memory")
    result["live_episode_memory"] = live_episode_memory(memory_counts)
    return result
