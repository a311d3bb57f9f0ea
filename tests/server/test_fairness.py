"""Heavy request bodies take turns per tenant while several tenants call; small ones never wait."""

from __future__ import annotations

import asyncio
from typing import Any

from server.api.fairness import HEAVY_BODY_BYTES, HeavyBodyTurns
from server.workers import FairShare


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
