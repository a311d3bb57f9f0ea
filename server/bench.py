"""``envfarm bench serve``: tool calls per second through the farm beside a bare MCP server, and the
memory of many live episodes.

Both servers run as real uvicorn subprocesses (one worker) on loopback and are driven by the
official Python ``mcp`` client in this process, so the ratio farm / bare is measured in one run on
the same machine. The farm's calls include argument validation, the SQLite engine and the durable
call log (one committed store row per call).
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from envs import Catalog
from envs.errors import EnvFarmError

from .auth import Principal
from .episodes import EpisodeService
from .metrics import Metrics
from .settings import Settings
from .store import Store

BENCH_TASK = "clinic-001"
READ_CALL = ("find_patient_by_email", {"email": "maria.lopez@example.com"})


class BenchError(EnvFarmError):
    """A benchmark could not run (a server did not start, a call failed)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _server(cmd: list[str], port: int, env: dict[str, str]) -> Iterator[str]:
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while True:
            if proc.poll() is not None:
                raise BenchError(f"server exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
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


async def _sequential(url: str, tool: str, args: dict[str, Any], n: int) -> float:
    async with httpx2.AsyncClient(timeout=60) as http, Client(streamable_http_client(url, http_client=http)) as c:
        await c.list_tools()
        for _ in range(min(50, n)):
            await c.call_tool(tool, args)
        t0 = time.perf_counter()
        for _ in range(n):
            r = await c.call_tool(tool, args)
            if r.is_error:
                raise BenchError(f"bench call failed: {r.content}")
        return n / (time.perf_counter() - t0)


async def _concurrent(urls: list[str], tool: str, args: dict[str, Any], per_client: int) -> float:
    async def one(url: str, start: asyncio.Event) -> None:
        async with httpx2.AsyncClient(timeout=60) as http, Client(streamable_http_client(url, http_client=http)) as c:
            await c.list_tools()
            await start.wait()
            for _ in range(per_client):
                await c.call_tool(tool, args)

    start = asyncio.Event()
    tasks = [asyncio.create_task(one(u, start)) for u in urls]
    await asyncio.sleep(1.0)  # let every client connect first
    t0 = time.perf_counter()
    start.set()
    await asyncio.gather(*tasks)
    return len(urls) * per_client / (time.perf_counter() - t0)


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


def _interleaved(pairs: list[tuple[Callable[[], float], Callable[[], float]]], rounds: int) -> tuple[float, float]:
    """Alternate the two measurements round by round; return their medians (robust to a noisy machine)."""
    a, b = [], []
    for i in range(rounds):
        first, second = pairs[0] if i % 2 == 0 else (pairs[0][1], pairs[0][0])
        x, y = first(), second()
        if i % 2 == 0:
            a.append(x)
            b.append(y)
        else:
            a.append(y)
            b.append(x)
    return statistics.median(a), statistics.median(b)


def bench_serve(
    *,
    calls: int = 2000,
    clients: int = 32,
    per_client: int = 100,
    rounds: int = 9,
    memory_counts: tuple[int, ...] = (1000, 10000),
    progress: Callable[[str], None] = lambda s: None,
) -> dict[str, Any]:
    """Run the serving benchmark; return a JSON-serializable report.

    Both servers run at the same time; rounds alternate between them and the medians are compared,
    so load from other processes hits both sides alike.
    """
    env = {
        **os.environ,
        "ENVFARM_MAX_CALLS_PER_EPISODE": str(10**9),
        "ENVFARM_LOG_LEVEL": "WARNING",
        "ENVFARM_NO_GENERATE": "1",
    }
    result: dict[str, Any] = {"benchmark": "serve", "cpus": os.cpu_count(), "tool": READ_CALL[0], "rounds": rounds}
    bare_port, farm_port = _free_port(), _free_port()
    progress("starting servers")
    with (
        tempfile.TemporaryDirectory() as data,
        _server([sys.executable, "-m", "server.bench_bare", "--port", str(bare_port)], bare_port, env) as bare_base,
        _server(
            [sys.executable, "-m", "envfarm", "serve", "--port", str(farm_port), "--data-dir", data], farm_port, env
        ) as farm_base,
    ):
        bare_url = bare_base + "/mcp"

        def episode() -> str:
            r = httpx.post(farm_base + "/episodes", json={"task_id": BENCH_TASK}, timeout=30)
            r.raise_for_status()
            return str(r.json()["mcp_url"])

        farm_url = episode()
        farm_urls = [episode() for _ in range(clients)]
        per_round = max(10, calls // rounds)
        progress("sequential calls")
        farm_seq, bare_seq = _interleaved(
            [
                (
                    lambda: asyncio.run(_sequential(farm_url, *READ_CALL, per_round)),
                    lambda: asyncio.run(_sequential(bare_url, "echo", {"v": "x"}, per_round)),
                )
            ],
            rounds,
        )
        # The same bare server echoing a result as large as the farm's: separates per-call overhead from the
        # cost of carrying a real record through both SDKs.
        sample = httpx.post(
            farm_url.removesuffix("/mcp") + "/calls", json={"tool": READ_CALL[0], "arguments": READ_CALL[1]}, timeout=30
        ).json()["content"]
        farm_same, bare_same = _interleaved(
            [
                (
                    lambda: asyncio.run(_sequential(farm_url, *READ_CALL, per_round)),
                    lambda: asyncio.run(_sequential(bare_url, "echo", {"v": sample}, per_round)),
                )
            ],
            rounds,
        )
        progress(f"{clients} concurrent clients")
        per_client_round = max(5, per_client // rounds)
        farm_conc, bare_conc = _interleaved(
            [
                (
                    lambda: asyncio.run(_concurrent(farm_urls, *READ_CALL, per_client_round)),
                    lambda: asyncio.run(_concurrent([bare_url] * clients, "echo", {"v": "x"}, per_client_round)),
                )
            ],
            rounds,
        )
    result["sequential_calls_per_s"] = {
        "envfarm": round(farm_seq, 1),
        "bare_mcp": round(bare_seq, 1),
        "ratio": round(farm_seq / bare_seq, 3),
    }
    result["sequential_same_payload_calls_per_s"] = {
        "envfarm": round(farm_same, 1),
        "bare_mcp_echo": round(bare_same, 1),
        "ratio": round(farm_same / bare_same, 3),
    }
    result[f"concurrent_{clients}_calls_per_s"] = {
        "envfarm": round(farm_conc, 1),
        "bare_mcp": round(bare_conc, 1),
        "ratio": round(farm_conc / bare_conc, 3),
    }
    result["target_ratio"] = 0.9
    progress("live episode memory")
    result["live_episode_memory"] = live_episode_memory(memory_counts)
    return result
