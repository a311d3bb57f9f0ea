"""Interrupts a SQLite statement that outlives its deadline, or spills too much to temporary files,
from a thread of its own.

The step budget's progress handler (``envs.engine.sandbox.StepBudget``) runs between virtual-machine steps,
every ``GRANULARITY`` of them, and checks the clock there. One step can be one costly function call,
though: ``replace()`` over a 1 MB string takes tens of milliseconds, and 10,000 such steps lie between
two calls of the handler, so a tool call could run for minutes past its time limit. SQLite checks
``sqlite3_interrupt`` at every step instead, and it may be called from any thread: one watchdog
thread holds every armed deadline and interrupts the connection of the one that passes. What is left
is at most one function call's cost, bounded by the string length limit.

A sort or a grouping that outgrows memory writes temporary files, gigabytes within the time limit,
and one step (a sorter's merge) can write most of them. So a statement armed with ``on_spill`` is
also watched for what its thread writes (``envs.engine.thread_io``): every ``SPILL_POLL_SECONDS`` once it has
run that long, and interrupted past ``MAX_TEMP_BYTES``, or while the statements' spills together pass
``MAX_PROCESS_TEMP_BYTES``, largest first.
"""

from __future__ import annotations

import heapq
import itertools
import math
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from .thread_io import io_counter, written

#: Bytes of temporary files one statement may write (a poll later, it has written at most some
#: 20 MB more at the page cache's speed: under 64 MB in all).
MAX_TEMP_BYTES = 32 * 2**20
#: Bytes of temporary files all running statements together may write: beyond, the largest spills
#: are interrupted first (eight calls at once could otherwise hold 8 × 64 MB).
MAX_PROCESS_TEMP_BYTES = 4 * MAX_TEMP_BYTES
SPILL_POLL_SECONDS = 0.01


@dataclass
class _Armed:
    conn: sqlite3.Connection
    on_expiry: Callable[[], None]
    on_spill: Callable[[], None] | None
    io_fd: int | None
    written_before: int
    since: float


class Budget(Protocol):
    """What :meth:`Watchdog.guard` tells why a statement was interrupted (``envs.engine.sandbox.StepBudget``)."""

    def expire(self) -> None: ...

    def spill(self) -> None: ...


class Watchdog:
    """Deadlines for running statements; ``arm`` before a call, ``disarm`` after it."""

    def __init__(
        self, max_temp_bytes: int = MAX_TEMP_BYTES, max_process_temp_bytes: int = MAX_PROCESS_TEMP_BYTES
    ) -> None:
        self.max_temp_bytes = max_temp_bytes
        self.max_process_temp_bytes = max_process_temp_bytes
        self._wake = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._armed: dict[int, _Armed] = {}
        self._tokens = itertools.count(1)
        self._thread: threading.Thread | None = None

    def arm(
        self,
        conn: sqlite3.Connection,
        deadline: float,
        on_expiry: Callable[[], None],
        on_spill: Callable[[], None] | None = None,
    ) -> int:
        """Interrupt ``conn`` once ``time.monotonic()`` passes ``deadline`` (``math.inf``: never),
        unless disarmed first; ``on_expiry`` runs just before (to record why the statement ends).
        With ``on_spill``, also once the calling thread has written ``max_temp_bytes`` from now
        (call this on the thread that runs the statement)."""
        fd = io_counter() if on_spill is not None else None
        before = written(fd) if fd is not None else 0
        with self._wake:
            token = next(self._tokens)
            self._armed[token] = _Armed(conn, on_expiry, on_spill, fd, before, time.monotonic())
            heapq.heappush(self._heap, (deadline, token))
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="envfarm-watchdog", daemon=True)
                self._thread.start()
            self._wake.notify()
        return token

    def disarm(self, token: int) -> None:
        """The call ended in time: its deadline no longer applies (a stale heap entry is skipped)."""
        with self._wake:
            self._armed.pop(token, None)

    @contextmanager
    def guard(self, conn: sqlite3.Connection, deadline: float | None, budget: Budget) -> Iterator[None]:
        """Armed (deadline and temporary files) for the statements run inside, on this thread."""
        token = self.arm(conn, math.inf if deadline is None else deadline, budget.expire, budget.spill)
        try:
            yield
        finally:
            self.disarm(token)

    def spill_limits(self) -> str:
        """Why a statement stopped for its temporary files, and the limits, for its error message."""
        return (
            "(a sort, grouping or DISTINCT over more rows than fit in memory): at most "
            f"{self.max_temp_bytes:,} bytes a call, {self.max_process_temp_bytes:,} for all at once"
        )

    def armed(self) -> int:
        """How many deadlines are armed now."""
        with self._wake:
            return len(self._armed)

    def _interrupt(self, token: int, why: Callable[[], None]) -> None:
        # under the lock: a call that disarms now waits, so the interrupt lands on its own statement
        # or on none (an interrupt with no statement running is a no-op)
        armed = self._armed.pop(token)
        why()
        armed.conn.interrupt()

    def _check_spills(self, now: float) -> bool:
        """Interrupt the statements past the temporary-file limit, then the largest spills while all of
        them together pass the process's; whether any statement is still watched."""
        watched = False
        spills: list[tuple[int, int, Callable[[], None]]] = []
        for token, armed in list(self._armed.items()):
            if armed.io_fd is None or armed.on_spill is None:
                continue
            watched = True
            if now - armed.since < SPILL_POLL_SECONDS:
                continue  # most calls end before their first poll, and are never read
            try:
                spilled = written(armed.io_fd) - armed.written_before
            except (OSError, ValueError):  # its thread is gone: so is its statement
                continue
            if spilled > self.max_temp_bytes:
                self._interrupt(token, armed.on_spill)
            elif spilled > 0:
                spills.append((spilled, token, armed.on_spill))
        spills.sort(reverse=True)
        total = sum(spilled for spilled, _, _ in spills)
        for spilled, token, on_spill in spills:
            if total <= self.max_process_temp_bytes:
                break
            self._interrupt(token, on_spill)
            total -= spilled
        return watched

    def _watch(self) -> None:
        with self._wake:
            while True:
                while self._heap and self._heap[0][1] not in self._armed:
                    heapq.heappop(self._heap)
                watched = self._check_spills(time.monotonic())
                wait = self._heap[0][0] - time.monotonic() if self._heap else math.inf
                if watched:
                    wait = min(wait, SPILL_POLL_SECONDS)
                if wait > 0:
                    self._wake.wait(None if wait == math.inf else wait)
                    continue
                _, token = heapq.heappop(self._heap)
                if token in self._armed:
                    self._interrupt(token, self._armed[token].on_expiry)


#: The process's watchdog (one thread for every episode).
WATCHDOG = Watchdog()
