"""Worker threads for the slow parts of a request: tool calls, scoring and rebuilds.

Run on the event loop, one slow call (validation of a huge argument, a heavy query) made every
other tenant's calls wait for it. Here each runs in a thread of a fixed pool while the loop keeps
serving; SQLite releases the GIL while it works, and the engine's per-call time limit ends a slow
call with an error. One tenant may hold at most half the threads, so a tenant flooding the farm
with slow calls queues behind itself and leaves the other half to everyone else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class Workers:
    """A thread pool with a per-tenant share."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.per_tenant = max(1, threads // 2)
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="envfarm-call")
        self._slots: dict[str, asyncio.Semaphore] = {}

    async def run(self, tenant: str, fn: Callable[[], T]) -> T:
        """``fn()`` in a worker thread, once the tenant has a free slot. If the caller is cancelled
        meanwhile, the thread still finishes (its effects are the caller's to log: see
        ``EpisodeService.call``, which shields the whole call)."""
        slots = self._slots.get(tenant)
        if slots is None:
            slots = self._slots[tenant] = asyncio.Semaphore(self.per_tenant)
        async with slots:
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
