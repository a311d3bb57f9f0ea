"""Worker threads for the slow parts of a request: tool calls, scoring and rebuilds.

Run on the event loop, one slow call (validation of a huge argument, a heavy query) made every
other tenant's calls wait for it. Here each runs in a thread of a fixed pool while the loop keeps
serving; SQLite releases the GIL while it works, and the engine's per-call time limit ends a slow
call with an error.

How many calls a tenant may run at once depends on who else is calling. Alone, a tenant may use
half the threads. When several tenants have called within the last ``RECENT_SECONDS``, each may run
only its share of the machine's cores (at least one call): a tenant flooding the farm with slow
calls then queues behind itself, and the others' calls find a core, and the GIL, freer than
beside a full half of the pool. "Recently" rather than "now": an agent's calls come one at a time,
with the model's turn between them, and a flood must not take the whole half back in every gap.
The worker threads also run at a lower CPU priority than the event loop (``WORKER_NICENESS``): a
query spinning in SQLite then leaves the loop, which serves every tenant, the core it needs.
Measured by ``envfarm bench isolation``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

#: How much lower than the event loop's the worker threads' CPU priority is (nice increment).
WORKER_NICENESS = 5
#: How long after its last call a tenant still counts as calling, for everyone's share.
RECENT_SECONDS = 2.0


def _yield_to_io() -> None:
    """Run this worker thread at a lower CPU priority than the event loop (Linux nice is per thread)."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICENESS)


class FairShare:
    """How many things each tenant may have running at once: ``alone`` when it is the only tenant
    calling, its share of the cores (at least one) while several tenants have called recently."""

    def __init__(self, alone: int, *, cores: int | None = None, recent: float = RECENT_SECONDS) -> None:
        self.alone = max(1, alone)
        self.cores = max(1, cores if cores is not None else (os.cpu_count() or 1))
        self.recent = recent
        self._running: Counter[str] = Counter()
        self._waiting: Counter[str] = Counter()
        self._last_seen: dict[str, float] = {}
        self._turns: asyncio.Condition | None = None

    def seen(self, tenant: str) -> None:
        """Note that ``tenant`` is calling, whether or not this call needs a turn."""
        self._last_seen[tenant] = time.monotonic()

    def tenants(self) -> set[str]:
        """Every tenant that called lately or holds or waits for a turn now."""
        return {t for t, n in (self._running + self._waiting).items() if n} | set(self._last_seen)

    def allowed(self, tenant: str) -> int:
        since = time.monotonic() - self.recent
        for t in [t for t, at in self._last_seen.items() if at < since]:
            del self._last_seen[t]
        active = {t for t, n in (self._running + self._waiting).items() if n} | set(self._last_seen) | {tenant}
        if len(active) == 1:
            return self.alone
        return max(1, min(self.alone, self.cores // len(active)))

    @contextlib.asynccontextmanager
    async def turn(self, tenant: str) -> AsyncIterator[None]:
        """Hold one of ``tenant``'s turns for the duration of the block."""
        if self._turns is None:
            self._turns = asyncio.Condition()
        turns = self._turns
        self.seen(tenant)
        self._waiting[tenant] += 1
        admitted = False
        try:
            async with turns:
                await turns.wait_for(lambda: self._running[tenant] < self.allowed(tenant))
                self._running[tenant] += 1
                admitted = True
        finally:
            self._waiting[tenant] -= 1
            if not admitted:  # a caller that gave up waiting no longer shrinks the others' share
                async with turns:
                    turns.notify_all()
        try:
            yield
        finally:
            async with turns:
                self._running[tenant] -= 1
                turns.notify_all()


class Workers:
    """A thread pool whose threads are shared fairly between the tenants calling at the moment."""

    def __init__(self, threads: int, *, cores: int | None = None, recent: float = RECENT_SECONDS) -> None:
        self.threads = threads
        self.per_tenant = max(1, threads // 2)
        self.share = FairShare(self.per_tenant, cores=cores, recent=recent)
        self._pool = ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix="envfarm-call", initializer=_yield_to_io
        )

    def allowed(self, tenant: str) -> int:
        """How many calls ``tenant`` may run now: half the threads alone, its share of the cores
        when others are calling too."""
        return self.share.allowed(tenant)

    async def run(self, tenant: str, fn: Callable[[], T]) -> T:
        """``fn()`` in a worker thread, once the tenant may run another call. If the caller is
        cancelled meanwhile, the thread still finishes (its effects are the caller's to log: see
        ``EpisodeService.call``, which shields the whole call)."""
        async with self.share.turn(tenant):
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
