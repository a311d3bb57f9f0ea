"""``envfarm bench stdio``: what ``envfarm mcp`` costs before it answers ``initialize``.

A desktop client (Claude Desktop, Cursor, MCP Inspector) starts ``envfarm mcp`` as a process and waits
for its answer to ``initialize``; Inspector gives up after 15 s. Measured: the CPU seconds the process
has used (user + system, from ``/proc``) and the wall time when the answer arrives, for a reference
environment's task (nothing to generate: a warm start). The floor, measured in the same run the same
way, is a process that imports the MCP SDK's server modules and answers ``initialize`` by hand: what
any Python server on this SDK pays before its own code runs. The ratio of the medians is the figure
to compare across machines.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from .serve import BenchError

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}

#: The floor: import what the SDK's stdio server needs, then answer initialize.
SDK_FLOOR = """
import sys, json
import mcp.server.lowlevel, mcp.server.stdio, mcp.types
request = json.loads(sys.stdin.readline())
reply = {"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": "2025-11-25",
         "capabilities": {}, "serverInfo": {"name": "floor", "version": "1"}}}
sys.stdout.write(json.dumps(reply) + "\\n")
sys.stdout.flush()
sys.stdin.readline()
"""


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15 of stat; after the ")" of the command name they are 12 and 13
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _one_start(command: list[str], env: dict[str, str]) -> dict[str, float]:
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            t0 = time.perf_counter()
            proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
            proc.stdin.flush()
            line = proc.stdout.readline()
            wall = time.perf_counter() - t0
            cpu = _cpu_seconds(proc.pid) if line else 0.0  # still running: the answer is out, nothing else asked
        finally:
            proc.kill()
    answer = json.loads(line) if line.strip() else {}
    if "result" not in answer:
        raise BenchError(f"{' '.join(command[:6])} did not answer initialize: {line[:200]!r}")
    return {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3)}


def _summary(starts: list[dict[str, float]]) -> dict[str, Any]:
    return {
        "cpu_s": round(statistics.median(s["cpu_s"] for s in starts), 3),
        "wall_s": round(statistics.median(s["wall_s"] for s in starts), 3),
        "cpu_s_runs": [s["cpu_s"] for s in starts],
    }


def bench_stdio(
    *, runs: int = 5, task: str = "retail-001", progress: Callable[[str], None] = lambda _: None
) -> dict[str, Any]:
    """``envfarm mcp --task TASK`` and the SDK floor, started alternately ``runs`` times each."""
    if not os.path.exists(f"/proc/{os.getpid()}/stat"):
        raise BenchError("bench stdio reads CPU time from /proc: Linux only")
    env = {**os.environ, "ENVFARM_NO_GENERATE": "1", "ENVFARM_LOG_LEVEL": "WARNING"}
    farm = [sys.executable, "-m", "envfarm", "mcp", "--task", task]
    floor = [sys.executable, "-c", SDK_FLOOR]
    farm_starts, floor_starts = [], []
    for i in range(runs):  # alternately, so the machine's drifting speed hits both alike
        progress(f"start {i + 1} of {runs}")
        farm_starts.append(_one_start(farm, env))
        floor_starts.append(_one_start(floor, env))
    mine, base = _summary(farm_starts), _summary(floor_starts)
    return {
        "benchmark": "stdio",
        "task": task,
        "runs": runs,
        "envfarm_mcp": mine,
        "sdk_floor": base,
        "cpu_ratio": round(mine["cpu_s"] / base["cpu_s"], 3) if base["cpu_s"] else None,
        "extra_cpu_s": round(mine["cpu_s"] - base["cpu_s"], 3),
    }
