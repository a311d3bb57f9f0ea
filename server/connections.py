"""Limits in front of the app, where uvicorn has none: a deadline for a request's headers, and caps on
open connections per client address and in all.

uvicorn times out an idle keep-alive connection (after ``KEEP_ALIVE_SECONDS``, longer than clients'
pools keep one), and the app times out a slow body (``BodyTimeout``),
but a socket that sends half a request line and waits is held until its client lets go, and nothing
caps how many there are: 10,000 of them held the farm's file descriptors until other tenants' calls
failed. :func:`guarded_protocol` makes uvicorn's own HTTP protocol (httptools) with three additions:

* **Header deadline.** From the moment a connection opens, and again from the first byte of each next
  request on it, the request line and headers must be in within ``header_timeout`` seconds; otherwise
  the farm answers 408 and closes the connection.
* **Per address.** A client address holding ``max_per_address`` connections has a further one answered
  503 and closed at once (0: no cap; behind a proxy every connection comes from the proxy, see
  docs/serving.md).
* **In all.** Beyond ``max_connections`` the same, whatever the address: the farm keeps file
  descriptors for its store, its episodes and the connections it already serves.
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from uvicorn.protocols.http import httptools_impl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .settings import Settings

log = logging.getLogger("envfarm.server")

#: File descriptors left for everything but client connections (the store, logs, episode spills).
RESERVED_FDS = 512
#: How long a refused connection stays half-open for its client to read the 503.
REFUSED_LINGER_SECONDS = 1.0
#: How long an idle keep-alive connection is held open. Longer than the pools of common HTTP clients
#: keep one (httpx: 5 s, uvicorn's own default too): with equal times, a client sends its next request on
#: a connection the farm is closing, gets a reset, and cannot retry a request that is not idempotent
#: (``POST /episodes``). The farm's own clients hit that on a busy machine.
KEEP_ALIVE_SECONDS = 15
#: A 401's status line says what to send: it is all that clients raising httpx's ``HTTPStatusError``
#: show (mcp 1.x: "Client error '401 Unauthorized' for url ..."), the JSON body with the message unread.
#: HTTP lets a reason phrase be any text; clients act on the code alone.
UNAUTHORIZED_STATUS_LINE = b"HTTP/1.1 401 Unauthorized (send Authorization: Bearer <key>)\r\n"


def raise_open_file_limit() -> None:
    """Raise this process's soft open-file limit to its hard one (as servers do: the soft default is
    often 1,024, which a few hundred idle clients would use up)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):  # a hard limit the kernel will not grant as soft: keep the soft one
            log.warning("could not raise the open-file limit from %s to %s", soft, hard)


def default_max_connections() -> int:
    """Connections the process can hold with ``RESERVED_FDS`` to spare (its soft open-file limit)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 60_000
    return max(64, soft - RESERVED_FDS)


@dataclass
class ConnectionLimits:
    """The limits, and the connections open now by client address (one server's; its event loop only)."""

    header_timeout: float
    max_connections: int
    max_per_address: int
    open_by_address: Counter[str] = field(default_factory=Counter)
    open: int = 0  # the sum of ``open_by_address``, kept as they change (checked on every connection)
    refused: int = 0
    timed_out: int = 0

    def refusal(self, address: str) -> str | None:
        """Why a new connection from ``address`` is refused, or None to take it."""
        if self.max_per_address and self.open_by_address[address] >= self.max_per_address:
            return f"{address} holds {self.max_per_address:,} connections (ENVFARM_MAX_CONNECTIONS_PER_ADDRESS)"
        if self.open >= self.max_connections:
            return f"the farm holds {self.max_connections:,} connections (ENVFARM_MAX_CONNECTIONS)"
        return None


def _response(status: str, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message, "field": None}}).encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode() + body


def guarded_protocol(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol under ``limits`` (pass it as ``uvicorn.Config(http=...)``), its 401
    status line saying what to send."""
    # uvicorn writes status lines from a table of its own, with no way to pass a reason phrase.
    httptools_impl.STATUS_LINE[401] = UNAUTHORIZED_STATUS_LINE

    class GuardedHttpToolsProtocol(HttpToolsProtocol):
        _address = ""
        _counted = False
        _refused = False
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._address = self.client[0] if self.client else ""
            reason = limits.refusal(self._address)
            if reason is not None:
                limits.refused += 1
                if limits.refused in (1, 10, 100) or limits.refused % 1000 == 0:
                    log.warning("connection refused (%s refused so far): %s", limits.refused, reason)
                self._refused = True
                transport.write(_response("503 Service Unavailable", "too_many_connections", f"Refused: {reason}"))
                # Half-closed, not closed: closing with the client's request unread would reset the
                # connection, and the client would see a reset instead of the answer.
                if transport.can_write_eof():
                    transport.write_eof()
                self.loop.call_later(REFUSED_LINGER_SECONDS, transport.close)
                return
            self._counted = True
            limits.open_by_address[self._address] += 1
            limits.open += 1
            self._arm_header_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_header_deadline()
            if self._counted:
                self._counted = False
                limits.open_by_address[self._address] -= 1
                limits.open -= 1
                if limits.open_by_address[self._address] <= 0:
                    del limits.open_by_address[self._address]
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return  # read and dropped until the linger ends
            if self._header_timer is None and (self.cycle is None or self.cycle.response_complete):
                self._arm_header_deadline()  # the first bytes of a next request on a kept-alive connection
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self._disarm_header_deadline()
            super().on_headers_complete()

        def _arm_header_deadline(self) -> None:
            self._header_timer = self.loop.call_later(limits.header_timeout, self._headers_too_slow)

        def _disarm_header_deadline(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if self.transport.is_closing():
                return
            limits.timed_out += 1
            message = f"The request line and headers did not arrive within {limits.header_timeout:g} s"
            self.transport.write(_response("408 Request Timeout", "header_timeout", message))
            self.transport.close()

    return GuardedHttpToolsProtocol


def limits_of(settings: Settings) -> ConnectionLimits:
    """The limits ``settings`` ask for (the total derived from the open-file limit where not set)."""
    return ConnectionLimits(
        header_timeout=settings.header_timeout_seconds,
        max_connections=settings.max_connections or default_max_connections(),
        max_per_address=settings.max_connections_per_address,
    )


def uvicorn_options(app: Any) -> dict[str, Any]:
    """What ``uvicorn.Config``/``uvicorn.run`` take to serve ``app``: under its farm's connection limits
    when it is a farm (any other ASGI app as uvicorn would)."""
    farm = getattr(getattr(app, "state", None), "farm", None)
    limits = getattr(farm, "connections", None)
    if not isinstance(limits, ConnectionLimits):
        return {"ws": "none"}
    return {"http": guarded_protocol(limits), "ws": "none", "timeout_keep_alive": KEEP_ALIVE_SECONDS}
