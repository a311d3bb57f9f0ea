"""Episodes: creation, live state, serialized calls with durable logging, scoring, expiry.

An episode's live state is an in-memory SQLite database (an ``envs.Episode``). Its call log in the
store is the durable truth: when the live state is absent — after a restart, or after eviction —
it is rebuilt by replaying the logged successful write calls. Calls to one episode are serialized
by a per-episode lock; different episodes run concurrently.

Durability: a successful write call's log row is committed before its result is returned; if
logging fails, the live state is dropped (to be rebuilt from the log) and the caller gets an error,
so no client ever sees a write succeed that a restart would lose. Calls that change nothing (reads
and failed calls) are trajectory only: they are buffered and written in batches from a worker thread (every
``FLUSH_INTERVAL`` seconds, and always before the next write, so the log keeps call order). A crash
can lose at most that interval of read-call trajectory, never state.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import anyio

from envs import Catalog, Environment, Episode, Score, Task, score_episode
from envs.errors import EnvFarmError, ToolError

from .auth import Principal
from .errors import EpisodeEnded, EpisodeNotFound, LimitExceeded, NoTask, ReplayFailed, ServiceError, StoreUnavailable
from .metrics import Metrics
from .settings import Settings
from .store import CallRow, EpisodeRow, Store

log = logging.getLogger("envfarm.server")
FLUSH_INTERVAL = 0.05
_FLUSH_BATCH = 512


@dataclass(frozen=True)
class CallOutcome:
    """What a tool call produced: content on success, or an error type and message for the agent."""

    seq: int
    content: Any = None
    is_error: bool = False
    error_type: str | None = None
    message: str | None = None
    duration_ms: float = 0.0


@dataclass
class LiveEpisode:
    """An episode whose state is in memory."""

    row: EpisodeRow
    env: Environment
    task: Task | None
    state: Episode
    seq: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class EpisodeService:
    """Creates, runs, scores and expires episodes for every tenant."""

    def __init__(self, settings: Settings, catalog: Catalog, store: Store, metrics: Metrics) -> None:
        self.settings = settings
        self.catalog = catalog
        self.store = store
        self.metrics = metrics
        self._envs: dict[str, Environment] = {}
        self._live: OrderedDict[str, LiveEpisode] = OrderedDict()
        self._rebuild_locks: dict[str, asyncio.Lock] = {}
        self._pending: list[tuple[str, CallRow]] = []
        self._flushing = asyncio.Lock()  # held while a batch is written from a worker thread

    # -- environments ----------------------------------------------------------------------------------
    def environment(self, env_id: str) -> Environment:
        """The compiled environment (with the server's step budget), compiled once."""
        env = self._envs.get(env_id)
        if env is None:
            env = self._envs[env_id] = Environment(self.catalog.get(env_id).spec, step_budget=self.settings.step_budget)
        return env

    # -- lifecycle -------------------------------------------------------------------------------------
    async def create(self, principal: Principal, *, task_id: str | None, env_id: str | None) -> LiveEpisode:
        """Start an episode of a task, or free play in an environment."""
        task: Task | None = None
        if task_id is not None:
            entry, task = self.catalog.task(task_id)
            if env_id is not None and env_id != entry.spec.id:
                raise ServiceError(f"Task '{task_id}' belongs to env '{entry.spec.id}', not '{env_id}'", field="env_id")
            env_id = entry.spec.id
        elif env_id is None:
            raise ServiceError("Give a task_id, or an env_id for free play", field="task_id")
        env = self.environment(env_id)
        open_now = self.store.count_open(principal.tenant)
        if open_now >= self.settings.max_live_episodes_per_tenant:
            raise LimitExceeded(
                f"Tenant '{principal.tenant}' already has {open_now} open episodes "
                f"(limit {self.settings.max_live_episodes_per_tenant}); close some first",
                field="episodes",
            )
        now = time.time()
        row = EpisodeRow(
            id="ep_" + secrets.token_urlsafe(18),
            tenant=principal.tenant,
            env_id=env_id,
            task_id=task.id if task else None,
            status="open",
            created_at=now,
            last_active_at=now,
            calls=0,
        )
        state = env.episode(task)
        self.store.create_episode(row)
        live = LiveEpisode(row=row, env=env, task=task, state=state, seq=0)
        self._remember(live)
        self.metrics.episodes_created.labels(env=env_id).inc()
        log.info("episode created", extra={"episode_id": row.id, "env": env_id, "task": row.task_id})
        return live

    def row(self, principal: Principal, episode_id: str) -> EpisodeRow:
        """The episode's record; other tenants' episodes do not exist for this principal."""
        live = self._live.get(episode_id)
        row = live.row if live is not None else self.store.get_episode(episode_id)
        if row is None or row.tenant != principal.tenant:
            raise EpisodeNotFound(episode_id)
        return row

    async def live(self, principal: Principal, episode_id: str) -> LiveEpisode:
        """The episode's live state, rebuilt from its log if it is not in memory."""
        live = self._live.get(episode_id)
        if live is not None and live.row.tenant == principal.tenant:
            self._live.move_to_end(episode_id)
            return live
        row = self.row(principal, episode_id)
        if row.status != "open":
            raise EpisodeEnded(f"Episode '{episode_id}' is {row.status}", field="episode_id")
        lock = self._rebuild_locks.setdefault(episode_id, asyncio.Lock())
        async with lock:
            live = self._live.get(episode_id)
            if live is None:
                await self.settle()  # rows in flight carry sequence numbers the rebuild must continue from
                live = self._rebuild(row)
        self._rebuild_locks.pop(episode_id, None)
        return live

    def _rebuild(self, row: EpisodeRow) -> LiveEpisode:
        env = self.environment(row.env_id)
        task = self.catalog.task(row.task_id)[1] if row.task_id else None
        state = env.episode(task)
        try:
            for call in self.store.calls(row.id, writes_only=True):
                state.call_tool(call.tool, call.arguments)
        except ToolError as exc:
            state.close()
            raise ReplayFailed(f"Episode '{row.id}' cannot be rebuilt from its log: {exc}") from exc
        fresh = self.store.get_episode(row.id) or row
        live = LiveEpisode(row=fresh, env=env, task=task, state=state, seq=fresh.calls)
        self._remember(live)
        self.metrics.replays.inc()
        log.info("episode rebuilt from log", extra={"episode_id": row.id, "env": row.env_id})
        return live

    def _remember(self, live: LiveEpisode) -> None:
        self._live[live.row.id] = live
        self._live.move_to_end(live.row.id)
        if len(self._live) > self.settings.max_episodes_in_memory:
            # Evict least recently used first, but never an episode with a call in flight: its
            # in-memory state would fork from the copy a later request rebuilds from the log.
            idle = [k for k, v in self._live.items() if not v.lock.locked() and k != live.row.id]
            for episode_id in idle[: len(self._live) - self.settings.max_episodes_in_memory]:
                self._forget(episode_id)
        self.metrics.episodes_live.set(len(self._live))

    def _forget(self, episode_id: str) -> None:
        if any(item[0] == episode_id for item in self._pending):
            self.flush()
        live = self._live.pop(episode_id, None)
        if live is not None:
            live.state.close()
        self.metrics.episodes_live.set(len(self._live))

    # -- calls -----------------------------------------------------------------------------------------
    async def call(
        self, principal: Principal, episode_id: str, tool: str, arguments: Any, *, transport: str
    ) -> CallOutcome:
        """Run one tool call, log it durably, and return what the agent should see."""
        live = await self.live(principal, episode_id)
        async with live.lock:
            if live.seq >= self.settings.max_calls_per_episode:
                raise LimitExceeded(
                    f"Episode '{episode_id}' reached its limit of {self.settings.max_calls_per_episode} calls",
                    field="calls",
                )
            started = time.time()
            t0 = time.perf_counter()
            outcome_kw: dict[str, Any]
            try:
                result = live.state.call_tool(tool, arguments)
                outcome_kw = {"content": result.content}
            except ToolError as exc:
                outcome_kw = {"is_error": True, "error_type": type(exc).__name__, "message": str(exc)}
            except EnvFarmError as exc:  # pragma: no cover - engine invariants; reported, never a traceback
                log.exception("tool call failed", extra={"episode_id": episode_id, "tool": tool})
                outcome_kw = {"is_error": True, "error_type": "InternalError", "message": f"Internal error: {exc}"}
            duration_ms = (time.perf_counter() - t0) * 1e3
            seq = live.seq + 1
            spec = live.env.tools.get(tool)
            row = CallRow(
                seq=seq,
                tool=tool,
                arguments=arguments if isinstance(arguments, dict) else {"_invalid": repr(arguments)},
                kind=spec.kind if spec else "unknown",
                is_error=bool(outcome_kw.get("is_error")),
                result=outcome_kw.get("content") if not outcome_kw.get("is_error") else outcome_kw.get("message"),
                error_type=outcome_kw.get("error_type"),
                started_at=started,
                duration_ms=duration_ms,
                transport=transport,
            )
            self._log_call(episode_id, row, durable=row.kind == "write" and not row.is_error)
            live.seq = seq
            live.row = EpisodeRow(**{**live.row.__dict__, "calls": seq, "last_active_at": started})
        outcome = "error" if row.is_error else "ok"
        self.metrics.calls.labels(env=live.env.spec.id, tool=tool if spec else "(unknown)", outcome=outcome).inc()
        self.metrics.call_latency.labels(env=live.env.spec.id).observe(time.perf_counter() - t0)
        log.debug("tool call", extra={"episode_id": episode_id, "tool": tool, "outcome": outcome, "ms": duration_ms})
        return CallOutcome(seq=seq, duration_ms=duration_ms, **outcome_kw)

    def _log_call(self, episode_id: str, row: CallRow, *, durable: bool) -> None:
        if not durable:
            self._pending.append((episode_id, row))
            if len(self._pending) >= _FLUSH_BATCH:
                self.flush()
            return
        batch, self._pending = [*self._pending, (episode_id, row)], []
        try:
            self.store.append_calls(batch)
        except Exception as exc:
            # The in-memory state holds a write the log lacks: drop it; the log is the truth.
            self._pending = [item for item in batch[:-1] if item[0] != episode_id] + self._pending
            self._forget(episode_id)
            log.exception("could not log call", extra={"episode_id": episode_id, "tool": row.tool})
            raise StoreUnavailable("The episode store is unavailable; the call was not recorded") from exc

    def flush(self) -> None:
        """Write buffered trajectory rows (reads and failed calls) to the store."""
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        try:
            self.store.append_calls(batch)
        except Exception:
            self._pending = batch + self._pending
            raise

    async def flush_in_background(self) -> None:
        """Write buffered rows from a worker thread, so the event loop keeps serving calls meanwhile."""
        async with self._flushing:
            if not self._pending:
                return
            batch, self._pending = self._pending, []
            try:
                await anyio.to_thread.run_sync(self.store.append_calls, batch)
            except Exception:
                self._pending = batch + self._pending
                raise

    async def settle(self) -> None:
        """Wait for any batch in flight, then write what is still buffered: the log is complete after."""
        async with self._flushing:
            self.flush()

    async def score(self, principal: Principal, episode_id: str, answer: str) -> Score:
        """Score the episode's current state against its task."""
        live = await self.live(principal, episode_id)
        if live.task is None:
            raise NoTask(f"Episode '{episode_id}' is free play in '{live.env.spec.id}'; it has no task to score")
        async with live.lock:
            return score_episode(live.env, live.task, live.state, answer)

    async def close(self, principal: Principal, episode_id: str) -> EpisodeRow:
        """End the episode: its state leaves memory; its log stays until retention ends."""
        row = self.row(principal, episode_id)
        await self.settle()
        if row.status == "open":
            self.store.set_status(episode_id, "closed")
        self._forget(episode_id)
        log.info("episode closed", extra={"episode_id": episode_id})
        return self.store.get_episode(episode_id) or row

    def reap(self, now: float | None = None) -> tuple[list[str], int]:
        """Expire idle episodes and purge logs past retention. Returns (expired ids, purged count)."""
        now = time.time() if now is None else now
        self.flush()
        idle = [
            e for e, live in self._live.items() if live.row.last_active_at < now - self.settings.episode_ttl_seconds
        ]
        for episode_id in idle:  # the live copy knows of calls newer than the store's view
            self.store.touch(episode_id, self._live[episode_id].row.last_active_at)
        expired = self.store.expire_idle(now - self.settings.episode_ttl_seconds)
        for episode_id in expired:
            self._forget(episode_id)
        purged = self.store.purge(now - self.settings.episode_ttl_seconds - self.settings.retention_seconds)
        if expired or purged:
            log.info("reaped episodes", extra={"expired": len(expired), "purged": purged})
        return expired, purged

    @property
    def in_memory(self) -> int:
        """How many episodes have their state in memory."""
        return len(self._live)

    def expires_at(self, row: EpisodeRow) -> float:
        return row.last_active_at + self.settings.episode_ttl_seconds

    def close_all(self) -> None:
        self.flush()
        for episode_id in list(self._live):
            self._forget(episode_id)
