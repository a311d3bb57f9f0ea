"""Episodes: creation, live state, serialized calls with durable logging, scoring, expiry.

An episode's live state is an in-memory SQLite database (an ``envs.Episode``). Its call log in the
store is the durable truth: when the live state is absent — after a restart, or after eviction —
it is rebuilt by replaying the logged successful write calls. Calls to one episode are serialized
by a per-episode lock; different episodes run concurrently.

Durability: a successful write call's log row is committed before its result is returned; if
logging fails, the live state is dropped (to be rebuilt from the log) and the caller gets an error,
so no client ever sees a write succeed that a restart would lose. Calls that change nothing (reads
and failed calls) are trajectory only: they are buffered and written in batches (every
``FLUSH_INTERVAL`` seconds, and always before the next write, so the log keeps call order). A crash
can lose at most that interval of read-call trajectory, never state.

Replicas sharing one store (``Settings.store_is_shared``): any replica can serve any episode, so
another may have logged calls since this one's in-memory copy was made. Every call is then
committed before it returns, as the episode's next sequence number (``Store.commit_call``); if
another replica took that number, the copy is stale: it is dropped, rebuilt from the log, and the
call runs again on the current state. Scores are taken on a copy checked against the store.

Batches are written on the event loop, not from a worker thread: a thread running SQLAlchemy
competes with the loop for the GIL at every system call the loop makes, which cost each request
more than writing its row inline does (``call_log``: a row the store refuses is isolated there).
Tool calls, scoring and rebuilds run in worker threads (``workers``) under the engine's per-call
time limit: one slow call must not hold every other tenant's calls.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from envs import Catalog, Environment, Episode, Score, Task, score_episode
from envs.errors import EnvFarmError, SpecError, ToolError, UnknownEnvironment, UnknownTask, shown_name

from .auth import Principal
from .call_log import CallLog, loggable_arguments, loggable_result
from .errors import (
    Conflict,
    EpisodeEnded,
    EpisodeNotFound,
    LimitExceeded,
    NoTask,
    QuotaExceeded,
    ReplayFailed,
    ServiceError,
    StoreUnavailable,
)
from .metrics import Metrics
from .outcomes import CallOutcome, served
from .quotas import TenantLogBytes, check_episode, check_tenant
from .settings import Settings
from .snapshots import Snapshots
from .store import RESET_KIND, CallRow, EpisodeRow, Store, arguments_text, call_bytes
from .workers import Workers

log = logging.getLogger("envfarm.server")
T = TypeVar("T")
FLUSH_INTERVAL = 0.05
_STALE_RETRIES = 8  # a call losing the race to other replicas this often in a row gives up
RESET_TOOL = "(reset)"  # the ``tool`` of a logged reset: no tool name can look like it


@dataclass
class LiveEpisode:
    """An episode whose state is in memory."""

    row: EpisodeRow  # as created or loaded; ``seq`` and ``last_active_at`` are the current values
    env: Environment
    task: Task | None
    state: Episode
    seq: int
    last_active_at: float
    log_bytes: int = 0  # bytes its call log holds, buffered rows included
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    dropped: bool = False  # left memory while a caller waited for its lock: that caller starts over

    def current_row(self) -> EpisodeRow:
        return dataclasses.replace(
            self.row, calls=self.seq, last_active_at=self.last_active_at, log_bytes=self.log_bytes
        )


class EpisodeService:
    """Creates, runs, scores and expires episodes for every tenant."""

    def __init__(self, settings: Settings, catalog: Catalog, store: Store, metrics: Metrics) -> None:
        self.settings = settings
        self.catalog = catalog
        self.store = store
        self.metrics = metrics
        self._envs: dict[str, Environment] = {}
        self._compile_locks: dict[str, threading.Lock] = {}
        self._live: OrderedDict[str, LiveEpisode] = OrderedDict()
        self._rebuild_locks: dict[str, asyncio.Lock] = {}
        self.call_log = CallLog(store, metrics)
        self.tenant_bytes = TenantLogBytes(store)
        self.snapshots = Snapshots(store)
        self.shared = settings.store_is_shared()
        self.workers = Workers(settings.call_threads)

    # -- environments ----------------------------------------------------------------------------------
    def environment(self, env_id: str) -> Environment:
        """The compiled environment (with the server's step budget), compiled once. Compiling builds
        the seed database and can take seconds (a hostile spec up to the build's time limit), so it
        is called from worker threads, never on the event loop; two first episodes of one environment
        compile it once."""
        env = self._envs.get(env_id)
        if env is not None:
            return env
        with self._compile_locks.setdefault(env_id, threading.Lock()):
            env = self._envs.get(env_id)
            if env is None:
                spec = self.catalog.get(env_id).spec  # raises InvalidEnvironment once a build failed
                try:
                    env = Environment(
                        spec,
                        step_budget=self.settings.step_budget,
                        time_limit=self.settings.call_time_limit_seconds,
                        max_string_chars=self.settings.max_string_chars,
                    )
                except SpecError as exc:  # a build that failed (or timed out) would fail again: not retried
                    self.metrics.env_builds.labels(env=env_id, outcome="failed").inc()
                    raise self.catalog.mark_invalid(env_id, exc) from None
                self.metrics.env_builds.labels(env=env_id, outcome="built").inc()
                self._envs[env_id] = env
        return env

    def _fresh_state(self, env_id: str, task: Task | None) -> tuple[Environment, Episode]:
        env = self.environment(env_id)
        return env, env.episode(task)

    async def _off_loop(self, principal: Principal, fn: Callable[[], T], release: Callable[[T], None]) -> T:
        """``fn()`` in a worker thread; if the request is cancelled meanwhile, what ``fn`` made is
        handed to ``release`` once it is done instead of being left open."""
        job = asyncio.ensure_future(self.workers.run(principal.tenant, fn))
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            job.add_done_callback(lambda done: None if done.cancelled() or done.exception() else release(done.result()))
            raise

    # -- lifecycle -------------------------------------------------------------------------------------
    async def create(
        self, principal: Principal, *, task_id: str | None, env_id: str | None, fork_of: str | None = None
    ) -> LiveEpisode:
        """Start an episode of a task, free play in an environment, or a fork of another episode."""
        if fork_of is not None:
            return await self._fork(principal, fork_of, task_id=task_id, env_id=env_id)
        task: Task | None = None
        if task_id is not None:
            entry, task = self.catalog.task(task_id)
            if env_id is not None and env_id != entry.spec.id:
                raise Conflict(f"Task '{task_id}' belongs to env '{entry.spec.id}', not '{env_id}'", field="env_id")
            env_id = entry.spec.id
        elif env_id is None:
            raise ServiceError("Give a task_id, or an env_id for free play", field="task_id")
        self.catalog.get(env_id)  # an unknown environment is a 404 before any limit
        self._check_open_limit(principal)
        check_tenant(self.settings, self.tenant_bytes, principal.tenant, self.flush)
        env, state = await self._off_loop(
            principal, functools.partial(self._fresh_state, env_id, task), lambda made: made[1].close()
        )
        return self._start(principal, env, task, state, [])

    async def _fork(
        self, principal: Principal, source_id: str, *, task_id: str | None, env_id: str | None
    ) -> LiveEpisode:
        """A new episode in the state ``source_id`` has now: its replay log (the committed writes since
        its last reset) is copied as the fork's own, so the fork rebuilds like any episode. The source
        may be open or ended; calls in flight on it are not part of the fork. A task or environment
        given as well must be the source's."""
        source = self.row(principal, source_id)
        for name, given, actual in (("task_id", task_id, source.task_id), ("env_id", env_id, source.env_id)):
            if given is not None and given != actual:
                raise Conflict(f"Episode '{source_id}' has {name} {actual!r}, not {given!r}", field=name)
        self._check_open_limit(principal)
        check_tenant(self.settings, self.tenant_bytes, principal.tenant, self.flush)
        env, task, state, _, copied = await self._off_loop(
            principal, functools.partial(self._replayed, source), lambda made: made[2].close()
        )
        log_rows = [dataclasses.replace(call, seq=i, transport="fork") for i, call in enumerate(copied, 1)]
        live = self._start(principal, env, task, state, log_rows)
        self.tenant_bytes.add(principal.tenant, live.log_bytes)
        log.info("episode forked", extra={"episode_id": live.row.id, "source": source_id, "calls": len(log_rows)})
        return live

    def _check_open_limit(self, principal: Principal) -> None:
        open_now = self.store.count_open(principal.tenant)
        if open_now >= self.settings.max_live_episodes_per_tenant:
            raise LimitExceeded(
                f"Tenant '{principal.tenant}' already has {open_now} open episodes "
                f"(limit {self.settings.max_live_episodes_per_tenant}); close some first "
                "(GET /episodes?status=open lists them)",
                field="episodes",
            )

    def _start(
        self, principal: Principal, env: Environment, task: Task | None, state: Episode, log_rows: list[CallRow]
    ) -> LiveEpisode:
        now = time.time()
        row = EpisodeRow(
            id="ep_" + secrets.token_urlsafe(18),
            tenant=principal.tenant,
            env_id=env.spec.id,
            task_id=task.id if task else None,
            status="open",
            created_at=now,
            last_active_at=now,
            calls=len(log_rows),
        )
        try:
            self.store.create_episode(row, log_rows)
        except BaseException:
            state.close()
            raise
        live = LiveEpisode(
            row=row,
            env=env,
            task=task,
            state=state,
            seq=len(log_rows),
            last_active_at=now,
            log_bytes=sum(map(call_bytes, log_rows)),
        )
        self._remember(live)
        self.metrics.episodes_created.labels(env=env.spec.id).inc()
        log.info("episode created", extra={"episode_id": row.id, "env": env.spec.id, "task": row.task_id})
        return live

    def row(self, principal: Principal, episode_id: str) -> EpisodeRow:
        """The episode's record; other tenants' episodes do not exist for this principal."""
        live = None if self.shared else self._live.get(episode_id)  # shared: other replicas' calls count too
        row = live.current_row() if live is not None else self.store.get_episode(episode_id)
        if row is None or row.tenant != principal.tenant:
            raise EpisodeNotFound(episode_id)
        return row

    def rows(
        self, principal: Principal, *, status: str | None, limit: int, offset: int
    ) -> tuple[int, list[EpisodeRow]]:
        """The principal's episodes, newest first: (how many in all, this page), with live call counts."""
        total, rows = self.store.list_episodes(principal.tenant, status=status, limit=limit, offset=offset)
        if not self.shared:  # live copies know of calls whose rows are still buffered
            rows = [live.current_row() if (live := self._live.get(r.id)) else r for r in rows]
        return total, rows

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
                self.flush()  # buffered rows carry sequence numbers the rebuild must continue from
                live = await self.workers.run(principal.tenant, functools.partial(self._rebuild, row))
        self._rebuild_locks.pop(episode_id, None)
        return live

    def _replayed(self, row: EpisodeRow) -> tuple[Environment, Task | None, Episode, EpisodeRow, list[CallRow]]:
        """The episode's state rebuilt from its replay log, with the store's current row and that log.

        The count first, then the log up to it: calls other replicas log meanwhile are not replayed,
        and the next commit finds this copy stale instead of forking from it.
        """
        try:
            env = self.environment(row.env_id)
            task = self.catalog.task(row.task_id)[1] if row.task_id else None
        except (UnknownEnvironment, UnknownTask) as exc:  # the catalog changed since the episode began
            raise ReplayFailed(f"Episode '{row.id}' cannot be rebuilt: {exc}", field="episode_id") from exc
        fresh = self.store.get_episode(row.id) or row
        replay = self.store.calls(row.id, replay_log=True, upto=fresh.calls)
        saved = self.snapshots.latest(row.id, fresh.calls)  # the state after its last costly write
        state = env.episode(task) if saved is None else env.restore(saved[1])
        after = 0 if saved is None else saved[0]
        todo = [{"tool": c.tool, "arguments": c.arguments} for c in replay if c.seq > after]
        try:  # accepted calls: not timed again (a loaded machine must not fail what it once accepted)
            state.replay(todo, timed=False)
            self.metrics.replayed_calls.inc(len(todo))
        except ToolError as exc:
            state.close()
            raise ReplayFailed(f"Episode '{row.id}' cannot be rebuilt from its log: {exc}") from exc
        return env, task, state, fresh, replay

    def _rebuild(self, row: EpisodeRow) -> LiveEpisode:
        env, task, state, fresh, _ = self._replayed(row)
        live = LiveEpisode(
            row=fresh,
            env=env,
            task=task,
            state=state,
            seq=fresh.calls,
            last_active_at=fresh.last_active_at,
            log_bytes=fresh.log_bytes,
        )
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
        if self.call_log.has_pending(episode_id):
            self.flush()
        live = self._live.pop(episode_id, None)
        if live is not None:
            live.dropped = True
            live.state.close()
        self.metrics.episodes_live.set(len(self._live))

    # -- calls -----------------------------------------------------------------------------------------
    async def call(
        self, principal: Principal, episode_id: str, tool: str, arguments: Any, *, transport: str
    ) -> CallOutcome:
        """Run one tool call, log it durably, and return what the agent should see."""
        for _ in range(_STALE_RETRIES):
            live = await self.live(principal, episode_id)
            # Shielded: once a call runs it is logged, even if its client goes away meanwhile (the
            # thread cannot be stopped, and the log must hold every write the state holds).
            outcome = await asyncio.shield(self._call_once(principal, live, tool, arguments, transport))
            if outcome is not None:
                return outcome
        raise StoreUnavailable(
            f"Episode '{episode_id}' kept receiving calls on other replicas while this one ran; try again"
        )

    async def _call_once(
        self, principal: Principal, live: LiveEpisode, tool: str, arguments: Any, transport: str
    ) -> CallOutcome | None:
        """Run and log one call under the episode's lock; None when the copy turned out stale."""
        episode_id = live.row.id
        async with live.lock:
            if live.dropped:  # evicted or found stale while this call waited
                return None
            self._check_call_limit(live)
            self._check_quotas(principal, live)
            started = time.time()
            t0 = time.perf_counter()
            seq = live.seq + 1
            outcome = await self.workers.run(principal.tenant, functools.partial(self._run, live, seq, tool, arguments))
            duration_ms = outcome.duration_ms = (time.perf_counter() - t0) * 1e3
            spec = live.env.tools.get(tool)
            row = CallRow(
                seq=seq,
                tool=tool if spec else shown_name(tool),  # no tool's name: logged cut to its start
                arguments=arguments if isinstance(arguments, dict) else {},
                arguments_json=outcome.arguments_json,
                kind=spec.kind if spec else "unknown",
                is_error=outcome.is_error,
                result=outcome.message if outcome.is_error else outcome.content,
                error_type=outcome.error_type,
                started_at=started,
                duration_ms=duration_ms,
                transport=transport,
                result_json=loggable_result(outcome.text) if outcome.text is not None else None,
            )
            if not self._log_call(episode_id, row, durable=row.kind == "write" and not row.is_error):
                return None  # another replica logged a call first: run this one again on the current state
            live.seq = seq
            live.last_active_at = started
            if row.kind == "write" and not row.is_error and duration_ms >= self.settings.snapshot_after_seconds * 1e3:
                # in a worker, under the tenant's share: an image of megabytes is no work for the event loop
                await self.workers.run(principal.tenant, functools.partial(self._snapshot, live, seq))
            logged = call_bytes(row)
            live.log_bytes += logged
            self.tenant_bytes.add(principal.tenant, logged)
        label = "error" if row.is_error else "ok"
        self.metrics.call_done(live.env.spec.id, tool if spec else "(unknown)", label, time.perf_counter() - t0)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("tool call", extra={"episode_id": episode_id, "tool": tool, "outcome": label, "ms": duration_ms})
        return outcome

    def _snapshot(self, live: LiveEpisode, seq: int) -> None:
        """Save the state after a costly write, for rebuilds to start from (``server.snapshots``). The
        call is committed already: a store that refuses the snapshot costs a slower rebuild, not the call."""
        try:
            self.snapshots.save(live.row.id, seq, live.state.serialize())
        except Exception:
            log.warning("could not save a snapshot", exc_info=True, extra={"episode_id": live.row.id})

    def _check_call_limit(self, live: LiveEpisode) -> None:
        if live.seq >= self.settings.max_calls_per_episode:
            raise LimitExceeded(
                f"Episode '{live.row.id}' reached its limit of {self.settings.max_calls_per_episode} calls",
                field="calls",
            )

    def _check_quotas(self, principal: Principal, live: LiveEpisode) -> None:
        """Refuse a call, before it runs, once the episode's or the tenant's call logs fill their quota."""
        try:
            check_episode(self.settings, live.row.id, live.log_bytes)
            check_tenant(self.settings, self.tenant_bytes, principal.tenant, self.flush)
        except QuotaExceeded as exc:
            self.metrics.quota_refusals.labels(quota="episode" if exc.field == "log_bytes" else "tenant").inc()
            raise

    async def reset(self, principal: Principal, episode_id: str) -> EpisodeRow:
        """Put the episode back in its initial state (its task's, or the seed for free play), keeping its
        id, MCP URL and log. The reset is logged like a call: a rebuild replays only what follows it."""
        for _ in range(_STALE_RETRIES):
            live = await self.live(principal, episode_id)
            async with live.lock:
                if live.dropped:
                    continue
                self._check_call_limit(live)
                started = time.time()
                t0 = time.perf_counter()
                initial = await self._off_loop(
                    principal, functools.partial(live.env.episode, live.task), lambda made: made.close()
                )
                row = CallRow(
                    seq=live.seq + 1,
                    tool=RESET_TOOL,
                    arguments={},
                    kind=RESET_KIND,
                    is_error=False,
                    result=None,
                    error_type=None,
                    started_at=started,
                    duration_ms=(time.perf_counter() - t0) * 1e3,
                    transport="rest",
                )
                try:
                    logged = self._log_call(episode_id, row, durable=True)
                except BaseException:
                    initial.close()
                    raise
                if not logged:  # another replica called the episode first: reset the current copy
                    initial.close()
                    continue
                live.state.close()
                live.state, live.seq, live.last_active_at = initial, row.seq, started
                live.log_bytes += call_bytes(row)
                self.snapshots.drop(episode_id)  # no longer usable (``latest`` skips it), and no longer kept
            self.metrics.resets.inc()
            log.info("episode reset", extra={"episode_id": episode_id})
            return live.current_row()
        raise StoreUnavailable(f"Episode '{episode_id}' kept receiving calls on other replicas; try again")

    @staticmethod
    def _run(live: LiveEpisode, seq: int, tool: str, arguments: Any) -> CallOutcome:
        try:
            content = live.state.call_tool(tool, arguments).content
        except ToolError as exc:
            outcome = CallOutcome(seq=seq, is_error=True, error_type=type(exc).__name__, message=str(exc))
        except EnvFarmError as exc:  # pragma: no cover - engine invariants; reported, never a traceback
            log.exception("tool call failed", extra={"episode_id": live.row.id, "tool": tool})
            outcome = CallOutcome(seq=seq, is_error=True, error_type="InternalError", message=f"Internal error: {exc}")
        else:
            # Serialized once: the same text is the MCP result and the logged row.
            content, text = served(content)
            outcome = CallOutcome(seq=seq, content=content, text=text)
        # The log's form of the arguments is made here, in the worker, not on the event loop: a failed
        # call's may be anything validation refused (only a failed call can hold such arguments).
        if outcome.is_error:  # text over the tool's limit is logged as a note, never in full
            arguments = loggable_arguments(arguments, live.env.max_string_chars(tool))
        outcome.arguments_json = arguments_text(arguments)
        return outcome

    def _log_call(self, episode_id: str, row: CallRow, *, durable: bool) -> bool:
        """Log the call; False when the in-memory copy turned out stale (shared store only)."""
        if self.shared:
            return self._commit_shared(episode_id, row)
        if not durable:
            self.call_log.buffer(episode_id, row)
            return True
        try:
            self.call_log.write_now(episode_id, row)
        except Exception as exc:
            raise self._unrecorded(episode_id, row, exc) from exc
        return True

    def _unrecorded(self, episode_id: str, row: CallRow, exc: Exception) -> StoreUnavailable:
        """The store refused the call's row: the in-memory state holds a call the log lacks, so it is
        dropped (the log is the truth); the error for the caller."""
        self._forget(episode_id)
        log.error("could not log call", exc_info=exc, extra={"episode_id": episode_id, "tool": row.tool})
        return StoreUnavailable("The episode store is unavailable; the call was not recorded")

    def _commit_shared(self, episode_id: str, row: CallRow) -> bool:
        try:
            result = self.store.commit_call(episode_id, row)
        except Exception as exc:
            raise self._unrecorded(episode_id, row, exc) from exc
        if result == "committed":
            return True
        self._forget(episode_id)  # the copy holds this call's effects, which the log does not
        if result == "ended":
            raise EpisodeEnded(f"Episode '{episode_id}' was ended on another replica", field="episode_id")
        self.metrics.stale_copies.inc()
        log.info("stale copy dropped: another replica called the episode", extra={"episode_id": episode_id})
        return False

    def flush(self) -> None:
        """Write buffered trajectory rows (reads and failed calls) to the store."""
        self.call_log.flush()

    async def score(self, principal: Principal, episode_id: str, answer: str) -> Score:
        """Score the episode's current state against its task."""
        for _ in range(_STALE_RETRIES):
            live = await self.live(principal, episode_id)
            if live.task is None:
                raise NoTask(f"Episode '{episode_id}' is free play in '{live.env.spec.id}'; it has no task to score")
            # Shielded like a call: the episode stays locked until the scoring thread is done with it.
            score = await asyncio.shield(self._score_once(principal, live, live.task, answer))
            if score is not None:
                return score
        raise StoreUnavailable(f"Episode '{episode_id}' kept receiving calls on other replicas; try again")

    async def _score_once(self, principal: Principal, live: LiveEpisode, task: Task, answer: str) -> Score | None:
        async with live.lock:
            if live.dropped:
                return None
            if self.shared:
                stored = self.store.get_episode(live.row.id)
                if stored is None or stored.calls != live.seq:  # other replicas logged calls since
                    self._forget(live.row.id)
                    return None
            return await self.workers.run(
                principal.tenant, functools.partial(score_episode, live.env, task, live.state, answer)
            )

    async def close(self, principal: Principal, episode_id: str) -> EpisodeRow:
        """End the episode: its state leaves memory; its log stays until retention ends."""
        row = self.row(principal, episode_id)
        self.flush()
        if row.status == "open":
            self.store.set_status(episode_id, "closed")
        self.snapshots.drop(episode_id)  # an ended episode is rebuilt rarely (a fork, a score): from its log
        self._forget(episode_id)
        log.info("episode closed", extra={"episode_id": episode_id})
        return self.store.get_episode(episode_id) or row

    def reap(self, now: float | None = None) -> tuple[list[str], int]:
        """Expire idle episodes and purge logs past retention. Returns (expired ids, purged count)."""
        now = time.time() if now is None else now
        self.flush()
        idle = [e for e, live in self._live.items() if live.last_active_at < now - self.settings.episode_ttl_seconds]
        for episode_id in idle:  # the live copy knows of calls newer than the store's view
            self.store.touch(episode_id, self._live[episode_id].last_active_at)
        expired = self.store.expire_idle(now - self.settings.episode_ttl_seconds)
        self.snapshots.drop(*expired)
        for episode_id in expired + (idle if self.shared else []):  # shared: idle here, maybe busy elsewhere
            self._forget(episode_id)
        purged = self.store.purge(now - self.settings.episode_ttl_seconds - self.settings.retention_seconds)
        purged += self.store.prune_ended(
            keep_episodes=self.settings.retention_max_episodes_per_tenant,
            keep_bytes=self.settings.retention_max_bytes_per_tenant,
        )
        if purged:
            self.tenant_bytes.forget()  # their bytes left the store
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
        self.workers.close()
