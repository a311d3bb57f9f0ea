"""``envfarm bench load``: a soak of many MCP clients against one farm, and its memory afterwards.

A real ``envfarm serve`` subprocess on loopback; ``clients`` concurrent clients of the official
``mcp`` SDK, each in a loop for ``seconds``: create an episode (REST), open its MCP endpoint, make
``calls_per_episode`` tool calls, close the episode. Reported: calls/s, call latency p50/p99, errors
(there must be none), and the server's resident memory before, at its peak and after every episode
was closed (the ratio after/before shows whether closed episodes give their memory back).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ..threaded import free_port
from .serve import READ_CALL, WRITE_CALL, BenchError, _bench_env, _farm_command, _server

BENCH_TASK = "clinic-001"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise BenchError(f"no resident memory figure for process {pid}")


async def _client_loop(base: str, deadline: float, per_episode: int, latencies: list[float], errors: list[str]) -> int:
    episodes = 0
    async with httpx2.AsyncClient(timeout=60) as http, httpx.AsyncClient(base_url=base, timeout=60) as rest:
        while time.perf_counter() < deadline:
            created = await rest.post("/episodes", json={"task_id": BENCH_TASK})
            if created.status_code != 201:
                errors.append(f"create: {created.status_code}")
                continue
            episode = created.json()
            try:
                async with Client(streamable_http_client(episode["mcp_url"], http_client=http)) as client:
                    for i in range(per_episode):
                        tool, arguments = WRITE_CALL if i % 5 == 4 else READ_CALL
                        t0 = time.perf_counter()
                        result = await client.call_tool(tool, arguments)
                        latencies.append((time.perf_counter() - t0) * 1e3)
                        if result.is_error:
                            errors.append(f"{tool}: {result.content}")
            except Exception as exc:  # counted, not raised: a soak reports what failed
                errors.append(f"session: {type(exc).__name__}: {exc}")
            closed = await rest.delete(f"/episodes/{episode['episode_id']}")
            if closed.status_code != 200:
                errors.append(f"close: {closed.status_code}")
            episodes += 1
    return episodes


async def _soak(base: str, clients: int, seconds: float, per_episode: int, pid: int, peak: list[float]) -> Any:
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()

    async def watch() -> None:
        while True:
            peak.append(_rss_mb(pid))
            await asyncio.sleep(0.5)

    watcher = asyncio.create_task(watch())
    try:
        episodes = await asyncio.gather(
            *(_client_loop(base, deadline, per_episode, latencies, errors) for _ in range(clients))
        )
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    return latencies, errors, sum(episodes), time.perf_counter() - started


def bench_load(
    *,
    clients: int = 16,
    seconds: float = 20.0,
    calls_per_episode: int = 20,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Run the soak; return a JSON-serializable report."""
    port = free_port()
    pids: list[int] = []
    with tempfile.TemporaryDirectory() as tmp, _server(_farm_command(port, tmp), port, _bench_env(), pids) as base:
        pid = pids[0]
        warm = httpx.post(base + "/episodes", json={"task_id": BENCH_TASK}, timeout=30)
        if warm.status_code != 201:
            raise BenchError(f"could not create an episode: {warm.status_code} {warm.text[:200]}")
        httpx.delete(f"{base}/episodes/{warm.json()['episode_id']}", timeout=30)
        before = _rss_mb(pid)
        peak: list[float] = [before]
        progress(f"{clients} clients for {seconds:g} s")
        latencies, errors, episodes, elapsed = asyncio.run(_soak(base, clients, seconds, calls_per_episode, pid, peak))
        open_left = httpx.get(base + "/episodes", params={"status": "open"}, timeout=30).json()["total"]
        time.sleep(1.0)  # the flusher and the allocator settle
        after = _rss_mb(pid)
    if not latencies:
        raise BenchError("no call completed")
    ordered = sorted(latencies)
    return {
        "benchmark": "load",
        "clients": clients,
        "seconds": round(elapsed, 1),
        "episodes": episodes,
        "calls": len(latencies),
        "calls_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(ordered), 3),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
        "errors": len(errors),
        "error_samples": errors[:5],
        "episodes_left_open": open_left,
        "rss_mb": {"before": round(before, 1), "peak": round(max(peak), 1), "after": round(after, 1)},
        "rss_after_over_before": round(round(after, 1) / round(before, 1), 3),  # of the figures shown
    }
