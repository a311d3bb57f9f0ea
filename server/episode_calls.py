"""Tool calls on an episode: run in a worker under the episode's lock, logged durably before the
result is returned, and run again on the current state when another replica logged first; resets
go through the log the same way (``server.episodes`` says what durability promises).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import Any

from envs.errors import EnvFarmError, ToolError, UnknownTool, shown_name
from envs.formats.knowledge_modes import withheld_tools

from .auth import Principal
from .call_log import loggable_arguments, loggable_result
from .episode_memory import STALE_RETRIES, EpisodeMemory, LiveEpisode
from .errors import EpisodeEnded, LimitExceeded, NoUserSide, QuotaExceeded, StoreUnavailable
from .outcomes import CallOutcome, served
from .quotas import check_episode, check_tenant
from .store import RESET_KIND, CallRow, EpisodeRow, arguments_text, call_bytes

log = logging.getLogger("envfarm.server")
RESET_TOOL = "(reset)"  # the ``tool`` of a logged reset: no tool name can look like it


class EpisodeCalls(EpisodeMemory):
    """Running, logging and resetting: what changes an episode's state."""

    async def call(
        self, principal: Principal, episode_id: str, tool: str, arguments: Any, *, transport: str, actor: str = "agent"
    ) -> CallOutcome:
        """Run one tool call by ``actor`` (the agent, or in a dual-control environment the user, with
        their own tools), log it durably, and return what the caller should see."""
        for _ in range(STALE_RETRIES):
            live = await self.live(principal, episode_id)
            if actor == "user" and not live.env.dual_control:
                raise NoUserSide(episode_id, live.env.spec.id)
            # Shielded: once a call runs it is logged, even if its client goes away meanwhile (the
            # thread cannot be stopped, and the log must hold every write the state holds).
            outcome = await asyncio.shield(self._call_once(principal, live, tool, arguments, transport, actor))
            if outcome is not None:
                return outcome
        raise StoreUnavailable(
            f"Episode '{episode_id}' kept receiving calls on other replicas while this one ran; try again"
        )

    async def _call_once(
        self, principal: Principal, live: LiveEpisode, tool: str, arguments: Any, transport: str, actor: str
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
            run = functools.partial(self._run, live, seq, tool, arguments, actor)
            outcome = await self.workers.run(principal.tenant, run)
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
                actor=actor,
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
        for _ in range(STALE_RETRIES):
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
    def _run(live: LiveEpisode, seq: int, tool: str, arguments: Any, actor: str) -> CallOutcome:
        try:
            withheld = withheld_tools(live.env.spec, live.row.knowledge) if actor == "agent" else frozenset()
            if tool in withheld:  # its documents are in the prompt: to this agent the tool does not exist
                raise UnknownTool(tool, [t.name for t in live.env.spec.tools_of("agent") if t.name not in withheld])
            live.state.knowledge = live.row.knowledge  # a reset's fresh state too: set on every call
            content = live.state.call_tool(tool, arguments, actor=actor).content
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
