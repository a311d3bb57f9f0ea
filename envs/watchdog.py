"""Interrupts a SQLite statement that outlives its deadline, from a thread of its own.

The step budget's progress handler (``envs.sandbox.StepBudget``) runs between virtual-machine steps,
every ``GRANULARITY`` of them, and checks the clock there. One step can be one costly function call,
though: ``replace()`` over a 1 MB string takes tens of milliseconds, and 10,000 such steps lie between
two calls of the handler, so a tool call could run for minutes past its time limit. SQLite checks
``sqlite3_interrupt`` at every step instead, and it may be called from any thread: one watchdog
thread holds every armed deadline and interrupts the connection of the one that passes. What is left
is at most one function call's cost, bounded by the string length limit.
"""

from __future__ import annotations

import heapq
import itertools
import sqlite3
import threading
import time
from collections.abc import Callable


class Watchdog:
    """Deadlines for running statements; ``arm`` before a call, ``disarm`` after it."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._armed: dict[int, tuple[sqlite3.Connection, Callable[[], None]]] = {}
        self._tokens = itertools.count(1)
        self._thread: threading.Thread | None = None

    def arm(self, conn: sqlite3.Connection, deadline: float, on_expiry: Callable[[], None]) -> int:
        """Interrupt ``conn`` once ``time.monotonic()`` passes ``deadline``, unless disarmed first;
        ``on_expiry`` runs just before (to record why the statement ends)."""
        with self._wake:
            token = next(self._tokens)
            self._armed[token] = (conn, on_expiry)
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

    def armed(self) -> int:
        """How many deadlines are armed now."""
        with self._wake:
            return len(self._armed)

    def _watch(self) -> None:
        with self._wake:
            while True:
                while self._heap and self._heap[0][1] not in self._armed:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._wake.wait()
                    continue
                deadline, token = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._wake.wait(wait)
                    continue
                heapq.heappop(self._heap)
                conn, on_expiry = self._armed.pop(token)
                # under the lock: a call that disarms now waits, so the interrupt lands on its own
                # statement or on none (an interrupt with no statement running is a no-op)
                on_expiry()
                conn.interrupt()


#: The process's watchdog (one thread for every episode).
WATCHDOG = Watchdog()
