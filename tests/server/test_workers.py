"""Fair shares of the worker threads: a tenant alone may use half of them; tenants calling at the
same time each get their share of the cores, so a flood queues behind itself."""

from __future__ import annotations

import asyncio
import threading

from server.workers import Workers


def test_a_tenant_alone_uses_half_the_threads_and_shares_cores_when_others_call() -> None:
    workers = Workers(8, cores=2, recent=0.0)
    release = threading.Event()
    started: list[str] = []
    lock = threading.Lock()

    def blocking(name: str) -> str:
        with lock:
            started.append(name)
        release.wait(10)
        return name

    async def scenario() -> list[str]:
        flood = [asyncio.create_task(workers.run("a", lambda i=i: blocking(f"a{i}"))) for i in range(6)]
        await asyncio.sleep(0.2)
        alone = len(started)  # tenant a alone: half of 8 threads
        other = asyncio.create_task(workers.run("b", lambda: blocking("b")))
        await asyncio.sleep(0.2)
        assert workers.allowed("a") == 1 and workers.allowed("b") == 1  # 2 cores, 2 tenants
        b_started_beside_the_flood = "b" in started
        a_started_meanwhile = len([s for s in started if s.startswith("a")]) - alone
        release.set()
        done = await asyncio.gather(*flood, other)
        assert alone == 4
        assert b_started_beside_the_flood  # b did not queue behind a's waiting calls
        assert a_started_meanwhile == 0  # a's queued calls waited while b had a share to use
        return done

    assert sorted(asyncio.run(scenario())) == sorted([f"a{i}" for i in range(6)] + ["b"])
    assert workers.allowed("a") == 4  # alone again
    workers.close()


def test_a_caller_that_stops_waiting_gives_its_share_back() -> None:
    workers = Workers(4, cores=2, recent=0.0)
    release = threading.Event()

    async def scenario() -> None:
        running = asyncio.create_task(workers.run("a", lambda: release.wait(10)))
        await asyncio.sleep(0.1)
        waiting_b = asyncio.create_task(workers.run("b", lambda: release.wait(10)))
        queued_b = asyncio.create_task(workers.run("b", lambda: True))
        await asyncio.sleep(0.1)
        assert workers.allowed("a") == 1
        queued_b.cancel()
        waiting_b.cancel()
        await asyncio.sleep(0.1)
        assert workers.allowed("a") == 2  # b is gone: a is alone again
        release.set()
        await running

    asyncio.run(scenario())
    workers.close()


def test_a_tenant_that_called_recently_keeps_its_share_between_calls() -> None:
    workers = Workers(8, cores=2, recent=60.0)

    async def scenario() -> None:
        await workers.run("b", lambda: None)  # b's call is over: between b's calls, as between an agent's turns
        assert workers.allowed("a") == 1  # a flood starting now still leaves b a core

    asyncio.run(scenario())
    workers.close()


def test_worker_threads_yield_the_cpu_to_the_event_loop() -> None:
    import os

    from server.workers import WORKER_NICENESS

    workers = Workers(2)
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    async def scenario() -> int:
        return await workers.run("a", niceness)

    assert asyncio.run(scenario()) == min(19, here + WORKER_NICENESS)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == here  # the loop's own is unchanged
    workers.close()
