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
import time

from envs import Environment, Episode, Score, Task, score_episode
from envs.formats.knowledge_modes import DEFAULT_KNOWLEDGE, KnowledgeModeError, check_mode

from .auth import Principal
from .episode_calls import EpisodeCalls
from .episode_memory import STALE_RETRIES, LiveEpisode
from .errors import Conflict, LimitExceeded, NoTask, ServiceError, StoreUnavailable
from .quotas import check_tenant
from .store import CallRow, EpisodeRow, call_bytes

log = logging.getLogger("envfarm.server")
FLUSH_INTERVAL = 0.05


class EpisodeService(EpisodeCalls):
    """Creates, runs, scores and expires episodes for every tenant."""

    # -- lifecycle -------------------------------------------------------------------------------------
    async def create(
        self,
        principal: Principal,
        *,
        task_id: str | None,
        env_id: str | None,
        fork_of: str | None = None,
        knowledge: str | None = None,
    ) -> LiveEpisode:
        """Start an episode of a task, free play in an environment, or a fork of another episode;
        ``knowledge`` says where its agent finds the documents (``envs.formats.knowledge_modes``;
        None: searched with tools, or as the forked episode has them)."""
        if fork_of is not None:
            return await self._fork(principal, fork_of, task_id=task_id, env_id=env_id, knowledge=knowledge)
        task: Task | None = None
        if task_id is not None:
            entry, task = self.catalog.task(task_id)
            if env_id is not None and env_id != entry.spec.id:
                raise Conflict(f"Task '{task_id}' belongs to env '{entry.spec.id}', not '{env_id}'", field="env_id")
            env_id = entry.spec.id
        elif env_id is None:
            raise ServiceError("Give a task_id, or an env_id for free play", field="task_id")
        mode = knowledge or DEFAULT_KNOWLEDGE
        try:  # an unknown environment is a 404, and a mode it cannot serve a 409, before any limit
            check_mode(self.catalog.get(env_id).spec, task, mode)
        except KnowledgeModeError as exc:
            raise Conflict(str(exc), field="knowledge") from None
        if mode == "embeddings" and self.embedder is None:
            raise Conflict(
                "knowledge 'embeddings' needs an embedding model, and this farm has none: start it with "
                "--embeddings local (or an OpenAI-compatible model; ENVFARM_EMBEDDINGS)",
                field="knowledge",
            )
        self._check_open_limit(principal)
        check_tenant(self.settings, self.tenant_bytes, principal.tenant, self.flush)
        env, state = await self._off_loop(
            principal, functools.partial(self._fresh_state, env_id, task), lambda made: made[1].close()
        )
        return self._start(principal, env, task, state, [], mode)

    async def _fork(
        self, principal: Principal, source_id: str, *, task_id: str | None, env_id: str | None, knowledge: str | None
    ) -> LiveEpisode:
        """A new episode in the state ``source_id`` has now: its replay log (the committed writes since
        its last reset) is copied as the fork's own, so the fork rebuilds like any episode. The source
        may be open or ended; calls in flight on it are not part of the fork. A task or environment
        given as well must be the source's."""
        source = self.row(principal, source_id)
        pairs = (("task_id", task_id, source.task_id), ("env_id", env_id, source.env_id))
        for name, given, actual in (*pairs, ("knowledge", knowledge, source.knowledge)):
            if given is not None and given != actual:
                raise Conflict(f"Episode '{source_id}' has {name} {actual!r}, not {given!r}", field=name)
        self._check_open_limit(principal)
        check_tenant(self.settings, self.tenant_bytes, principal.tenant, self.flush)
        env, task, state, _, copied = await self._off_loop(
            principal, functools.partial(self._replayed, source), lambda made: made[2].close()
        )
        log_rows = [dataclasses.replace(call, seq=i, transport="fork") for i, call in enumerate(copied, 1)]
        live = self._start(principal, env, task, state, log_rows, source.knowledge)
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
        self,
        principal: Principal,
        env: Environment,
        task: Task | None,
        state: Episode,
        log_rows: list[CallRow],
        knowledge: str,
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
            knowledge=knowledge,
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

    async def score(self, principal: Principal, episode_id: str, answer: str) -> Score:
        """Score the episode's current state against its task."""
        for _ in range(STALE_RETRIES):
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
