"""Fairness between tenants on the event loop: pacing of tenants over their share, turns for heavy bodies.

Every request is read, parsed and answered on the event loop, and most of its work needs the GIL;
both are shared by every tenant. A tenant that keeps the farm busy all the time (a closed loop of
clients, slow calls back to back) leaves every other tenant's calls queued behind its own: tenant B's
median latency tripled beside one such client, although B's calls never waited for a worker.

Two rules; a tenant alone is never held back by either.

* **Pacing** (``BusyMeter``, ``TenantPacing``). Busy time is attributed like a processor shared by
  the requests in flight (each of k requests in flight is charged 1/k of the time) and decays over
  ``WINDOW_SECONDS``. With n tenants each keeping the farm busy at least ``COUNTED_BUSY`` of the
  time, a tenant may keep it busy at most its share, 1/n of the time, and the busiest tenant no more
  than the busiest other one (``PEER_SLACK`` over it) or ``headroom`` of its share (half, by
  default), whichever is more. A tenant above its allowance has its requests admitted one at a
  time, each after the pause that brings it back within it. Tenants with equal loads are each
  within their share and never paced; a tenant keeping the farm busy beside a lighter one is held
  to half its share, which leaves the lighter one's calls an idle farm most of the time: tenant B's
  median latency beside such a tenant A went from 2.6× its latency alone to 1.1×, as good as beside
  A calling another farm process on the same machine (``envfarm bench isolation`` measures both).
  The price is A's throughput while B is busy, so a tenant calling now and then (an agent between
  model turns) holds no one back. Counted in ``envfarm_paced_requests`` and ``envfarm_paced_seconds``.
* **Heavy bodies take turns** (``HeavyBodyTurns``). While several tenants have called in the last
  ``workers.RECENT_SECONDS``, a body over ``HEAVY_BODY_BYTES`` (or of unknown length) waits for its
  tenant's turn: each tenant has as many heavy requests in progress as its share of the cores, at
  least one (``workers.FairShare``). Agents' requests are small and never wait.

Tenants are the authenticated ones, and only they are counted: ``authn.Authenticate`` answers a
request with a body but no valid key before anything reads it, and a bodiless request without a key
(``/healthz``, a refused GET) is charged to no one. Counting requests with a key the farm does not
know let one idle socket trickling a body with a made-up key pass for a busy tenant. Event streams (a GET asking
for ``text/event-stream``) stay open while idle and are neither paced nor charged.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..auth import KeyRing
from ..metrics import Metrics
from ..workers import FairShare

#: A body larger than this (in bytes) is heavy; an agent's call is a few hundred bytes.
HEAVY_BODY_BYTES = 4_096
#: Heavy requests one tenant may have in progress when it is the only tenant calling.
ALONE = 64
#: How long past busy time keeps counting against a tenant (it decays with this time constant).
WINDOW_SECONDS = 1.0
#: The least part of its share a tenant busier than every other may keep (the rest is headroom),
#: by default (``Settings.tenant_pacing``).
HEADROOM = 0.5
#: How much busier than the busiest other tenant a tenant may be before it is paced.
PEER_SLACK = 1.1
#: The least part of the farm's recent time a tenant must keep busy to count for the others' shares:
#: a tenant calling now and then (an agent between model turns) sees no difference pacing would
#: fix, and pacing others for it would cost them half their throughput.
COUNTED_BUSY = 0.05
#: The longest a paced request sleeps before it looks again (another tenant may have stopped calling).
MAX_PAUSE_SECONDS = 0.25
_TENANT = "envfarm.tenant"  # where a request's scope keeps the tenant it is charged to


def charge(scope: Scope, tenant: str) -> None:
    """Charge the request of ``scope`` to ``tenant`` (the key was checked: ``authn.Authenticate``)."""
    scope[_TENANT] = tenant


def tenant_of(keys: KeyRing | None, scope: Scope) -> str | None:
    """The authenticated tenant a request is charged to, or None for a request without a valid key,
    which is not counted. Without a key ring, the ``Authorization`` header itself names the tenant."""
    tenant = scope.get(_TENANT)
    if isinstance(tenant, str):
        return tenant
    header = Headers(scope=scope).get("authorization")
    if keys is None:
        tenant = header or ""
    else:
        principal = keys.resolve(header)
        if principal is None:
            return None
        tenant = principal.tenant
    charge(scope, tenant)
    return tenant


def _is_event_stream(scope: Scope) -> bool:
    return scope.get("method") == "GET" and "text/event-stream" in Headers(scope=scope).get("accept", "")


class BusyMeter:
    """How much of the farm's time each tenant has kept busy lately, and its share of it."""

    def __init__(
        self,
        *,
        headroom: float = HEADROOM,
        window: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.headroom = headroom
        self.window = window
        self.clock = clock
        self._in_flight: Counter[str] = Counter()
        self._busy: dict[str, float] = {}  # decayed busy seconds
        self._at = clock()

    def _advance(self) -> None:
        now = self.clock()
        elapsed = now - self._at
        if elapsed <= 0:
            return
        self._at = now
        decay = math.exp(-elapsed / self.window)
        total = sum(self._in_flight.values())
        for tenant in set(self._busy) | {t for t, n in self._in_flight.items() if n}:
            busy = self._busy.get(tenant, 0.0) * decay
            if self._in_flight[tenant]:
                # The integral over the interval of the tenant's part of the farm, decayed to now.
                busy += self._in_flight[tenant] / total * self.window * (1.0 - decay)
            if busy < 1e-6 and not self._in_flight[tenant]:
                self._busy.pop(tenant, None)
            else:
                self._busy[tenant] = busy

    def busy(self, tenant: str) -> float:
        """The part of the farm's recent time ``tenant`` kept busy, from 0 to 1."""
        self._advance()
        return self._busy.get(tenant, 0.0) / self.window

    def share(self, tenant: str) -> float:
        """1/n, with n the tenants that kept the farm busy lately at least ``COUNTED_BUSY`` of the
        time, ``tenant`` among them. An agent's occasional call does not shrink anyone's share."""
        self._advance()
        counted = COUNTED_BUSY * self.window
        return 1.0 / (1 + sum(1 for t, busy in self._busy.items() if t != tenant and busy >= counted))

    def allowance(self, tenant: str) -> float:
        """The part of the farm's time ``tenant`` may keep busy: all of it when no other tenant
        counts; else its share, or less for the busiest: no more than the busiest other tenant (a
        little over), nor less than ``headroom`` of its share."""
        share = self.share(tenant)
        if share >= 1.0:
            return 1.0
        self._advance()
        others = max((b for t, b in self._busy.items() if t != tenant), default=0.0) / self.window
        return min(share, max(self.headroom * share, PEER_SLACK * others))

    def pause(self, tenant: str) -> float:
        """Seconds until ``tenant`` is back within its allowance if it sends nothing more (0: it is)."""
        allowance = self.allowance(tenant)
        busy = self.busy(tenant)
        return 0.0 if busy <= allowance else self.window * math.log(busy / allowance)

    def tenants(self) -> set[str]:
        """Every tenant charged lately or in flight now."""
        self._advance()
        return set(self._busy) | set(self._in_flight)

    def start(self, tenant: str) -> None:
        self._advance()
        self._in_flight[tenant] += 1

    def end(self, tenant: str) -> None:
        self._advance()
        self._in_flight[tenant] -= 1
        if not self._in_flight[tenant]:
            del self._in_flight[tenant]


class TenantPacing:
    """ASGI middleware: a tenant over its allowance of the farm's time waits (see the module)."""

    def __init__(
        self, app: ASGIApp, *, meter: BusyMeter, keys: KeyRing | None = None, metrics: Metrics | None = None
    ) -> None:
        self.app = app
        self.meter = meter
        self.keys = keys
        self.metrics = metrics
        self._one_at_a_time: dict[str, asyncio.Lock] = {}  # by tenant: as many as there are keys, plus one

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.meter.headroom or _is_event_stream(scope):
            await self.app(scope, receive, send)
            return
        tenant = tenant_of(self.keys, scope)
        if tenant is None:
            await self.app(scope, receive, send)
            return
        paced = self._one_at_a_time.setdefault(tenant, asyncio.Lock())
        if not paced.locked() and self.meter.pause(tenant) <= 0:
            await self._charged(tenant, scope, receive, send)
            return
        waited_from = time.monotonic()
        async with paced:  # over its allowance: one request at a time, each after its pause
            while (pause := self.meter.pause(tenant)) > 0:
                await asyncio.sleep(min(pause, MAX_PAUSE_SECONDS))
            if self.metrics is not None:
                self.metrics.paced(tenant, time.monotonic() - waited_from)
            await self._charged(tenant, scope, receive, send)

    async def _charged(self, tenant: str, scope: Scope, receive: Receive, send: Send) -> None:
        self.meter.start(tenant)
        try:
            await self.app(scope, receive, send)
        finally:
            self.meter.end(tenant)


class HeavyBodyTurns:
    """ASGI middleware: heavy request bodies wait for their tenant's turn (see the module)."""

    def __init__(self, app: ASGIApp, *, share: FairShare | None = None, keys: KeyRing | None = None) -> None:
        self.app = app
        self.share = share if share is not None else FairShare(ALONE)
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tenant = tenant_of(self.keys, scope)
        if tenant is None:
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        heavy = scope.get("method") in ("POST", "PUT", "PATCH") and (
            (length.isdigit() and int(length) > HEAVY_BODY_BYTES) if length is not None else True
        )
        if not heavy:
            self.share.seen(tenant)
            await self.app(scope, receive, send)
            return
        async with self.share.turn(tenant):
            await self.app(scope, receive, send)
