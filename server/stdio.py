"""One episode over stdio, for desktop MCP clients (``envfarm mcp --task ID``).

The episode lives in this process only; nothing is written to the farm's store. stdout carries the
protocol, so everything else (the score on exit) goes to stderr. The session starts before the
episode is open, so a client's ``initialize`` is answered at once even when the environment must
first be generated.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.stdio import stdio_server

from envs.errors import EnvFarmError, ToolError
from envs.schemas.dialects import DEFAULT_DIALECT, Dialect

from .mcp_adapter import McpError, build_server
from .outcomes import CallOutcome

if TYPE_CHECKING:
    from envs import CatalogEntry, Environment, Episode, Score, Task


@dataclass
class LocalEpisode:
    """An episode held in this process, with its trajectory."""

    env: Environment
    task: Task | None
    state: Episode
    trajectory: list[dict[str, Any]] = field(default_factory=list)
    actor: str = "agent"  # stdio serves the agent's side
    knowledge: str = "search"  # the documents, if any, are searched with tools

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


class Opening:
    """An episode being opened while its session already runs: ``initialize`` needs nothing of it,
    and requests that do (``resolve``) wait for it. If it cannot be opened, they fail with the reason.
    """

    def __init__(self, open_episode: Callable[[], LocalEpisode]) -> None:
        self._open = open_episode
        self._done = anyio.Event()
        self.episode: LocalEpisode | None = None
        self.error: Exception | None = None

    async def run(self) -> None:
        """Open the episode in a worker thread (it may be generated first, which takes a second)."""
        try:
            self.episode = await anyio.to_thread.run_sync(self._open)
        except Exception as exc:
            self.error = exc
        finally:
            self._done.set()

    async def resolve(self, ctx: Any = None) -> LocalEpisode:
        await self._done.wait()
        if self.episode is None:
            exc = self.error
            if isinstance(exc, EnvFarmError):
                raise McpError(str(exc))
            raise McpError(f"the episode could not be opened ({type(exc).__name__}: {exc})")
        return self.episode


async def serve_stdio(open_episode: Callable[[], LocalEpisode], dialect: Dialect = DEFAULT_DIALECT) -> LocalEpisode:
    """Serve the episode ``open_episode`` makes over this process's stdin/stdout until the client
    disconnects; return it. The session starts at once; the episode is opened meanwhile (``Opening``).
    Tools are listed in the schema dialect ``dialect``.

    Raises:
        Exception: what ``open_episode`` raised, once the client has left.
    """
    opening = Opening(open_episode)
    server = build_server(opening.resolve, dialect=dialect)
    async with anyio.create_task_group() as tg:
        tg.start_soon(opening.run)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    if opening.episode is None:
        assert opening.error is not None
        raise opening.error
    return opening.episode


def run_stdio(
    source: Callable[[], tuple[CatalogEntry, Task | None]],
    answer: Callable[[], str] = lambda: "",
    dialect: Dialect = DEFAULT_DIALECT,
) -> tuple[LocalEpisode, Score | None]:
    """Run the stdio server to completion; return the episode and, for a task, its final score.

    ``source`` gives the environment and task to serve; it is called while the session starts, so
    it may take a while (generate the environment). ``answer`` gives the agent's final answer once
    the client has left: stdio carries no such text, so the caller says where to find it
    (``envfarm mcp --answer-file``). Tools are listed in the schema dialect ``dialect``.
    """
    from envs import score_episode

    episode = anyio.run(serve_stdio, lambda: open_local(*source()), dialect)
    task = episode.task
    score = score_episode(episode.env, task, episode.state, answer()) if task is not None else None
    return episode, score
