"""What every training adapter needs from a farm: the task rows of a dataset, and one live episode per rollout.

``LiveEpisode`` is an episode with its MCP session held by a task of its own, so a trainer can open it
in one asyncio task, call tools from another and close it from a third (frameworks run a rollout's
setup, steps and cleanup in different tasks; an MCP session, like any anyio task group, must be
closed by the task that opened it). It counts the seconds spent waiting on the farm, for throughput
figures that separate the farm's share of a rollout from the policy's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import httpx

from ..errors import ClientError, SelectionError, TransportError
from ..farm import FarmClient, error_from_response
from ..guard import PAGE_SIZE, Pages, send
from ..models import EnvInfo, EpisodeInfo, TaskView
from ..selection import select
from ..tools import ToolDef, ToolOutcome
from ..wire import Score

if TYPE_CHECKING:
    from ..session import EpisodeSession

Transport = Literal["mcp", "rest"]
T = TypeVar("T")
log = logging.getLogger("envfarm.clients")


def _get(http: httpx.Client, path: str, params: dict[str, Any] | None = None) -> httpx.Response:
    response = send(http, "GET", path, params=params)
    if response.status_code >= 400:
        raise error_from_response(response)
    return response


def _get_pages(http: httpx.Client, path: str) -> list[dict[str, Any]]:
    pages = Pages(path)
    while True:
        response = _get(http, path, {"limit": PAGE_SIZE, "offset": pages.offset})
        if not pages.add(response.json(), len(response.content)):
            return pages.items


def load_task_rows(
    server: str, tasks: str = "all", *, api_key: str | None = None, with_user_turn: bool = False
) -> list[dict[str, Any]]:
    """The tasks a training dataset holds, one row each: ``task_id``, ``env_id``, ``instruction`` and
    ``policy`` (the environment's rules, the agent's system prompt). No gold is included.

    Synchronous on purpose: frameworks build datasets from inside a running event loop.

    Args:
        server: the task service's URL.
        tasks: a task selector (``all``, ``env:retail``, ``clinic-001,clinic-002`` ...) or the path of a
            JSONL file written by ``envfarm export tasks``.
        api_key: the farm key, if it has keys.
        with_user_turn: the rollout loop has a simulated user (OpenEnv with a user model): keep the
            tasks of dual-control environments, which are left out otherwise.

    Raises:
        SelectionError: the selector names nothing the farm knows.
        FarmAPIError, TransportError: the farm refused or could not be reached.
        PagingError, ResponseTooLarge: the farm's listings did not end, or a response was too large
            (the bounds are ``clients.guard``'s).

    >>> load_task_rows("http://127.0.0.1:8765", "clinic-001")[0]["task_id"]  # doctest: +SKIP
    'clinic-001'
    """
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx.Client(base_url=server.rstrip("/"), headers=headers, timeout=60) as http:
            envs = [EnvInfo.model_validate(e) for e in _get_pages(http, "/envs")]
            path = Path(tasks)
            if tasks.endswith(".jsonl") and path.is_file():
                lines = path.read_text(encoding="utf-8").splitlines()
                chosen = [TaskView.model_validate(json.loads(line)) for line in lines if line.strip()]
            else:
                every = [TaskView.model_validate(t) for t in _get_pages(http, "/tasks")]
                chosen = select(tasks, [e.id for e in envs], every)
            if not with_user_turn:
                chosen = _single_actor(chosen, {e.id for e in envs if e.dual_control}, tasks)
            policies: dict[str, str] = {}
            for env_id in dict.fromkeys(t.env for t in chosen):
                response = _get(http, f"/envs/{env_id}")
                policies[env_id] = EnvInfo.model_validate(response.json()).policy or ""
    except httpx.TransportError as exc:
        raise TransportError(f"cannot reach the task service at {server}: {exc!r}") from exc
    return [{"task_id": t.id, "env_id": t.env, "instruction": t.instruction, "policy": policies[t.env]} for t in chosen]


def _single_actor(chosen: list[TaskView], dual_envs: set[str], selector: str) -> list[TaskView]:
    """The chosen tasks where only the agent acts. A dual-control task (the user acts too, on their own
    side) needs a user turn, and no trainer loop these adapters plug into has one (the model's first
    text answer ends the rollout): such tasks are left out with a warning, and a selection of nothing
    else is refused. ``envfarm eval --user llm`` runs them (docs/training.md)."""
    dual = [t for t in chosen if t.env in dual_envs]
    if not dual:
        return chosen
    kept = [t for t in chosen if t.env not in dual_envs]
    envs = ", ".join(sorted({t.env for t in dual}))
    why = (
        f"{len(dual)} selected task(s) are of dual-control environments ({envs}): the user acts too, and "
        "a trainer's rollout has no user turn; run them with `envfarm eval --user llm`"
    )
    if not kept:
        raise SelectionError(f"'{selector}' selects only dual-control tasks: {why}")
    log.warning("left out %s", why)
    return kept


class LiveEpisode:
    """One open episode for one rollout: tools, tool calls, score and close, usable from any asyncio task.

    Open it with ``await LiveEpisode.open(farm, task_id)``; ``close()`` ends it (``DELETE``) and must be
    awaited on every path, errors included. ``farm_seconds`` is the time spent waiting on the farm so far.

    Over ``mcp`` (the default) tools come from the episode's MCP ``tools/list`` and calls go through
    MCP; over ``rest`` they come from ``POST /episodes`` and go to ``POST /episodes/{id}/calls``.
    """

    def __init__(self, farm: FarmClient, info: EpisodeInfo, tools: list[ToolDef]) -> None:
        self.farm = farm
        self.info = info
        self.tools = tools
        self.farm_seconds = 0.0
        self.closed = False
        self._session: EpisodeSession | None = None
        self._stop = asyncio.Event()
        self._owner: asyncio.Task[None] | None = None

    @property
    def episode_id(self) -> str:
        """The episode's id."""
        return self.info.episode_id

    async def _timed(self, work: Awaitable[T]) -> T:
        clock = time.perf_counter()
        try:
            return await work
        finally:
            self.farm_seconds += time.perf_counter() - clock

    @classmethod
    async def open(
        cls, farm: FarmClient, task_id: str, *, transport: Transport = "mcp", timeout: float = 60.0
    ) -> LiveEpisode:
        """Create an episode of ``task_id`` and, over MCP, connect to it and list its tools.

        Raises:
            FarmAPIError: the farm refused the episode (unknown task, a limit reached ...).
            TransportError: the farm or the episode's MCP endpoint could not be reached.
        """
        clock = time.perf_counter()
        if transport == "rest":
            info = await farm.create_episode(task_id=task_id)
            tools = [ToolDef(t.name, t.description, dict(t.input_schema)) for t in info.tools]
            episode = cls(farm, info, tools)
        else:
            episode = await cls._open_mcp(farm, task_id, timeout)
        episode.farm_seconds += time.perf_counter() - clock
        return episode

    @classmethod
    async def _open_mcp(cls, farm: FarmClient, task_id: str, timeout: float) -> LiveEpisode:
        from ..session import open_episode  # the mcp extra: REST episodes do without it

        ready: asyncio.Future[LiveEpisode] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()

        async def own() -> None:
            try:
                async with open_episode(farm, task_id=task_id, timeout=timeout) as session:
                    episode = cls(farm, session.info, await session.list_tools())
                    episode._session, episode._stop = session, stop
                    ready.set_result(episode)
                    await stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                    return
                raise

        owner = asyncio.create_task(own(), name=f"envfarm episode of {task_id}")
        try:
            episode = await asyncio.shield(ready)
        except BaseException:
            stop.set()  # also ends an episode the owner opens after this point
            with contextlib.suppress(BaseException):
                await owner
            raise
        episode._owner = owner
        return episode

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call a tool; a refused call is an outcome with ``is_error``, not an exception.

        Raises:
            TransportError: the farm could not be reached (the call may or may not have run).
            FarmAPIError: the farm refused the request itself (the episode is closed, a limit reached).
        """
        if self._session is not None:
            return await self._timed(self._session.call_tool(name, arguments))
        result = await self._timed(self.farm.call_tool(self.episode_id, name, arguments))
        if result.is_error:
            return ToolOutcome(result.message or "tool call failed", is_error=True)
        content = result.content  # a string result reads as itself, as over MCP
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
        return ToolOutcome(text, structured=content)

    async def score(self, answer: str = "") -> Score:
        """Score the episode's current state, and ``answer`` against the task's required outputs."""
        return await self._timed(self.farm.score(self.episode_id, answer))

    async def close(self) -> None:
        """End the episode (idempotent). A failure to close is not raised: the episode expires on its own."""
        if self.closed:
            return
        self.closed = True
        clock = time.perf_counter()
        try:
            if self._owner is not None:
                self._stop.set()  # the owner task leaves the MCP session and deletes the episode
                with contextlib.suppress(Exception):
                    await self._owner
            else:
                with contextlib.suppress(ClientError):
                    await self.farm.close_episode(self.episode_id)
        finally:
            self.farm_seconds += time.perf_counter() - clock


def oracle_turn(task: TaskView, calls_made: int) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The oracle policy's next turn: the next gold action, or (all made) the task's reference answer.

    Returns:
        ``([(tool, arguments)], "")`` while gold actions remain, else ``([], answer)``.

    Raises:
        ClientError: the task was fetched without gold actions (a non-admin key).
    """
    if task.gold_actions is None:
        raise ClientError(f"the oracle needs the gold actions of task {task.id}: use an admin key")
    if calls_made < len(task.gold_actions):
        action = task.gold_actions[calls_made]
        return [(action.tool, dict(action.arguments))], ""
    return [], task.reference_answer
