"""Fairness between tenants: heavy bodies take turns, small ones never wait; a tenant keeping the farm
busy beside others is paced, tenants with equal loads are not."""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from typing import Any

import pytest

from server.api.fairness import (
    COUNTED_BUSY,
    HEADROOM,
    HEAVY_BODY_BYTES,
    WINDOW_SECONDS,
    BusyMeter,
    HeavyBodyTurns,
    TenantPacing,
    tenant_of,
)
from server.auth import KeyRing, parse_keys
from server.metrics import Metrics
from server.workers import FairShare

# Beside another worker's tests the clock these tests read is no longer the farm's alone (scripts/test).
pytestmark = pytest.mark.alone


def _scope(tenant: str, length: int | None, method: str = "POST") -> dict[str, Any]:
    headers = [(b"authorization", f"Bearer {tenant}".encode())]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {"type": "http", "method": method, "path": "/x", "headers": headers}


async def _noop_receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b""}


async def _noop_send(message: Any) -> None:
    return None


def test_heavy_bodies_of_one_tenant_wait_their_turn_while_another_calls() -> None:
    running: dict[str, int] = {"a": 0, "b": 0}
    peak: dict[str, int] = {"a": 0, "b": 0}
    gate = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        who = dict(scope["headers"])[b"authorization"].decode().split()[-1]
        running[who] += 1
        peak[who] = max(peak[who], running[who])
        await gate.wait()
        running[who] -= 1

    middleware = HeavyBodyTurns(app, share=FairShare(64, cores=2, recent=60.0))
    heavy = HEAVY_BODY_BYTES + 1

    async def scenario() -> None:
        alone = [asyncio.create_task(middleware(_scope("a", heavy), _noop_receive, _noop_send)) for _ in range(3)]
        await asyncio.sleep(0.05)
        assert running["a"] == 3  # alone: nothing waits
        gate.set()
        await asyncio.gather(*alone)
        gate.clear()
        peak["a"] = 0
        gate.set()
        await middleware(_scope("b", 200), _noop_receive, _noop_send)  # b calls (a small body never waits)
        gate.clear()  # from now on a and b share the cores
        flood = [asyncio.create_task(middleware(_scope("a", heavy), _noop_receive, _noop_send)) for _ in range(4)]
        unknown = asyncio.create_task(middleware(_scope("a", None), _noop_receive, _noop_send))  # chunked: heavy
        small = asyncio.create_task(middleware(_scope("b", 300), _noop_receive, _noop_send))
        await asyncio.sleep(0.05)
        assert running["a"] == 1 and running["b"] == 1  # a's heavy bodies one at a time; b's small one at once
        gate.set()
        await asyncio.gather(*flood, unknown, small)

    asyncio.run(scenario())
    assert peak["a"] == 1


def test_a_get_or_a_small_body_never_waits() -> None:
    share = FairShare(64, cores=2, recent=60.0)
    share.seen("Bearer other")
    calls: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        calls.append(scope["method"])

    middleware = HeavyBodyTurns(app, share=share)

    async def scenario() -> None:
        async with share.turn("Bearer a"):  # a's one heavy turn is taken
            await asyncio.wait_for(middleware(_scope("a", None, "GET"), _noop_receive, _noop_send), 1)
            await asyncio.wait_for(middleware(_scope("a", 100), _noop_receive, _noop_send), 1)

    asyncio.run(scenario())
    assert calls == ["GET", "POST"]


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_tenant_alone_may_keep_the_farm_busy_all_the_time() -> None:
    clock = _Clock()
    meter = BusyMeter(clock=clock)
    meter.start("a")
    clock.now += 5
    assert meter.busy("a") > 0.99
    assert meter.pause("a") == 0.0


def _keep_busy(meter: BusyMeter, clock: _Clock, tenant: str, seconds: float) -> None:
    meter.start(tenant)
    clock.now += seconds
    meter.end(tenant)


def test_a_tenant_busy_beside_a_lighter_one_is_paced_to_half_its_share() -> None:
    clock = _Clock()
    meter = BusyMeter(clock=clock)
    meter.start("a")
    for _ in range(20):  # a always has a request in flight; b one for a fifth of the time
        clock.now += 0.08
        _keep_busy(meter, clock, "b", 0.02)
    busy = meter.busy("a")
    assert 0.75 < busy < 0.85 and COUNTED_BUSY < meter.busy("b") < 0.1
    assert meter.share("a") == 0.5 and meter.allowance("a") == HEADROOM * 0.5
    meter.end("a")
    pause = meter.pause("a")
    assert abs(pause - WINDOW_SECONDS * math.log(busy / (HEADROOM * 0.5))) < 1e-9
    assert meter.pause("b") == 0.0
    clock.now += pause
    assert meter.pause("a") < 1e-6  # after the pause, a is back within its allowance


def test_a_tenant_calling_now_and_then_holds_no_one_back() -> None:
    clock = _Clock()
    meter = BusyMeter(clock=clock)
    for _ in range(10):  # an agent: a 2 ms call, then a model turn of a second
        _keep_busy(meter, clock, "agent", 0.002)
        meter.start("trainer")
        clock.now += 1.0
        assert meter.share("trainer") == 1.0 and meter.pause("trainer") == 0.0
        meter.end("trainer")


def test_tenants_with_equal_loads_are_never_paced() -> None:
    clock = _Clock()
    meter = BusyMeter(clock=clock)
    for _ in range(200):  # a and b each keep one request in flight all the time
        meter.start("a")
        meter.start("b")
        clock.now += 0.02
        meter.end("a")
        meter.end("b")
        assert meter.pause("a") == 0.0 and meter.pause("b") == 0.0
    assert 0.45 < meter.busy("a") < 0.51 and meter.share("a") == 0.5


def test_a_tenant_that_stopped_calling_stops_counting_for_the_others_share() -> None:
    clock = _Clock()
    meter = BusyMeter(clock=clock)
    _keep_busy(meter, clock, "b", 0.5)
    meter.start("a")
    assert meter.share("a") == 0.5
    clock.now += 3.0  # b's busy time has decayed below what counts
    assert meter.share("a") == 1.0 and meter.pause("a") == 0.0


def test_a_paced_tenant_has_its_requests_admitted_one_at_a_time_while_the_other_is_not() -> None:
    meter = BusyMeter(window=0.2)
    metrics = Metrics()
    running: Counter[str] = Counter()
    peak: Counter[str] = Counter()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        who = dict(scope["headers"])[b"authorization"].decode().split()[-1]
        running[who] += 1
        peak[who] = max(peak[who], running[who])
        await asyncio.sleep(0.02 if who == "a" else 0.005)
        running[who] -= 1

    pacing = TenantPacing(app, meter=meter, metrics=metrics)

    async def scenario() -> None:
        done = asyncio.Event()

        async def b_calls() -> None:  # b: a short call, a short pause, all along
            while not done.is_set():
                await asyncio.wait_for(pacing(_scope("b", 10), _noop_receive, _noop_send), 60)  # held back: see metrics
                await asyncio.sleep(0.01)

        b = asyncio.create_task(b_calls())
        meter.start("Bearer a")
        await asyncio.sleep(0.3)  # a kept the farm busy
        meter.end("Bearer a")
        flood = [asyncio.create_task(pacing(_scope("a", 10), _noop_receive, _noop_send)) for _ in range(4)]
        await asyncio.wait_for(asyncio.gather(*flood), 60)
        done.set()
        await b

    asyncio.run(scenario())
    assert peak["a"] == 1 and peak["b"] == 1
    assert metrics.paced_requests.labels(tenant="Bearer a")._value.get() == 4
    assert metrics.paced_seconds.labels(tenant="Bearer a")._value.get() > 0
    assert metrics.paced_requests.labels(tenant="Bearer b")._value.get() == 0


def test_event_streams_are_neither_paced_nor_charged() -> None:
    meter = BusyMeter()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.sleep(0.05)

    pacing = TenantPacing(app, meter=meter)
    stream = _scope("a", None, "GET")
    stream["headers"].append((b"accept", b"text/event-stream"))
    asyncio.run(pacing(stream, _noop_receive, _noop_send))
    assert meter.busy("Bearer a") == 0.0


def test_keys_the_farm_does_not_know_are_no_tenant_and_never_charged() -> None:
    keys = KeyRing(parse_keys("key-aaaaaaaaaaaaaaaa alpha", source="test"))
    known = tenant_of(keys, _scope("key-aaaaaaaaaaaaaaaa", 1))
    bogus = {tenant_of(keys, _scope(f"bogus-key-{i:08d}", 1)) for i in range(20)}
    assert known == "alpha" and bogus == {None}
    meter, share = BusyMeter(), FairShare(64, cores=2, recent=60.0)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        return None

    pacing = TenantPacing(HeavyBodyTurns(app, share=share, keys=keys), meter=meter, keys=keys)
    asyncio.run(pacing(_scope("bogus-key-00000000", None), _noop_receive, _noop_send))
    assert meter.tenants() == set() and share.tenants() == set()


def test_pacing_set_to_zero_never_holds_a_request_back() -> None:
    meter = BusyMeter(headroom=0.0)
    metrics = Metrics()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.sleep(0.01)

    pacing = TenantPacing(app, meter=meter, metrics=metrics)

    async def scenario() -> None:
        meter.start("Bearer b")
        await asyncio.sleep(0.02)
        meter.end("Bearer b")
        meter.start("Bearer a")
        await asyncio.sleep(0.2)
        meter.end("Bearer a")
        await asyncio.wait_for(
            asyncio.gather(*(pacing(_scope("a", 10), _noop_receive, _noop_send) for _ in range(4))), 0.5
        )

    asyncio.run(scenario())
    assert metrics.paced_requests.labels(tenant="Bearer a")._value.get() == 0
