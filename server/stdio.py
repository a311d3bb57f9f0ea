"""One episode over stdio, for desktop MCP clients (``envfarm mcp --task ID``).

The episode lives in this process only; nothing is written to the farm's store. stdout carries the
protocol, so everything else (the score on exit) goes to stderr.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

from envs import CatalogEntry, Environment, Episode, Score, Task, score_episode
from envs.errors import ToolError

from .episodes import CallOutcome
from .mcp_adapter import build_server


@dataclass
class LocalEpisode:
    """An episode held in this process, with its trajectory."""

    env: Environment
    task: Task | None
    state: Episode
    trajectory: list[dict[str, Any]] = field(default_factory=list)

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        t0 = time.perf_counter()
        seq = len(self.trajectory) + 1
        try:
            result = self.state.call_tool(tool, arguments)
            outcome = CallOutcome(seq=seq, content=result.content)
        except ToolError as exc:
            outcome = CallOutcome(seq=seq, is_error=True, error_type=type(exc).__name__, message=str(exc))
        ms = (time.perf_counter() - t0) * 1e3
        self.trajectory.append({"tool": tool, "arguments": arguments, "is_error": outcome.is_error, "ms": ms})
        return CallOutcome(**{**outcome.__dict__, "duration_ms": ms})


def open_local(entry: CatalogEntry, task: Task | None) -> LocalEpisode:
    env = entry.environment
    return LocalEpisode(env=env, task=task, state=env.episode(task))


async def serve_stdio(episode: LocalEpisode) -> None:
    """Serve ``episode`` over this process's stdin/stdout until the client disconnects."""

    async def resolve(ctx: Any) -> LocalEpisode:
        return episode

    server = build_server(resolve)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def run_stdio(
    entry: CatalogEntry, task: Task | None, answer: Callable[[], str] = lambda: ""
) -> tuple[LocalEpisode, Score | None]:
    """Run the stdio server to completion; return the episode and, for a task, its final score.

    ``answer`` gives the agent's final answer once the client has left: stdio carries no such text,
    so the caller says where to find it (``envfarm mcp --answer-file``).
    """
    episode = open_local(entry, task)
    anyio.run(serve_stdio, episode)
    score = score_episode(episode.env, task, episode.state, answer()) if task is not None else None
    return episode, score
