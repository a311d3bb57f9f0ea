"""Episodes' live state: each open episode's in-memory copy, rebuilt from its call log when absent.

``EpisodeMemory`` compiles environments once, keeps the copies most recently used (never evicting one
with a call in flight), rebuilds a copy from its latest snapshot and replay log, and reads episode
records. Calls and their durable logging are ``server.episode_calls``; the service's life cycle
(create, fork, score, close, expire) is ``server.episodes``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from envs import Catalog, Environment, Episode, Task
from envs.errors import SpecError, ToolError, UnknownEnvironment, UnknownTask
from envs.formats.knowledge_modes import documents, ranks_by_meaning

from .auth import Principal
from .call_log import CallLog
from .errors import EpisodeEnded, EpisodeNotFound, ReplayFailed
from .metrics import Metrics
from .quotas import TenantLogBytes
from .settings import Settings
from .snapshots import Snapshots
from .store import CallRow, EpisodeRow, Store
from .workers import Workers

if TYPE_CHECKING:
    from envs.embeddings import Embedder

log = logging.getLogger("envfarm.server")
T = TypeVar("T")
STALE_RETRIES = 8  # a call losing the race to other replicas this often in a row gives up


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


class EpisodeMemory:
    """The live copies of every tenant's episodes, and the compiled environments they run on."""

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
        self.embedder: Embedder | None = None
        if settings.embeddings is not None:  # asked for explicitly; numpy and the model load only then
            from envs.embeddings import embedder

            self.embedder = embedder(settings.embeddings)

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
                if self.embedder is not None and ranks_by_meaning(spec):
                    from envs.embeddings.documents import DocumentSimilarity

                    texts = [(key, text) for key, _, text in documents(spec)]
                    similarity = DocumentSimilarity(self.embedder, texts)
                    similarity.warm()  # minutes with a local model: begun before a search needs them
                    env.similarity = similarity
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
        state.knowledge = row.knowledge
        after = 0 if saved is None else saved[0]
        todo = [{"tool": c.tool, "arguments": c.arguments, "actor": c.actor} for c in replay if c.seq > after]
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

    def flush(self) -> None:
        """Write buffered trajectory rows (reads and failed calls) to the store."""
        self.call_log.flush()

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
