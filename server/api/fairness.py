"""Heavy request bodies take turns per tenant while several tenants are calling.

Every request's body is read, parsed and validated on the event loop, the one thread every tenant's
requests share: a tenant sending large bodies as fast as it can (6,000-object lists, 77 KB each) kept
the loop busy enough to multiply other tenants' latency by 30. A body over ``HEAVY_BODY_BYTES`` (or
of unknown length) therefore waits for its tenant's turn: while several tenants have called in the
last seconds, each tenant has as many heavy requests in progress as its share of the cores, at least
one (``workers.FairShare``); alone, a tenant is not held back. Agents' requests are small and never
wait. Tenants are told apart by their ``Authorization`` header (all keyless clients are one tenant).
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..workers import FairShare

#: A body larger than this (in bytes) is heavy; an agent's call is a few hundred bytes.
HEAVY_BODY_BYTES = 4_096
#: Heavy requests one tenant may have in progress when it is the only tenant calling.
ALONE = 64


class HeavyBodyTurns:
    """ASGI middleware: heavy request bodies wait for their tenant's turn (see the module)."""

    def __init__(self, app: ASGIApp, *, share: FairShare | None = None) -> None:
        self.app = app
        self.share = share if share is not None else FairShare(ALONE)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        tenant = headers.get("authorization", "")
        length = headers.get("content-length")
        heavy = scope.get("method") in ("POST", "PUT", "PATCH") and (
            (length.isdigit() and int(length) > HEAVY_BODY_BYTES) if length is not None else True
        )
        if not heavy:
            self.share.seen(tenant)
            await self.app(scope, receive, send)
            return
        async with self.share.turn(tenant):
            await self.app(scope, receive, send)
