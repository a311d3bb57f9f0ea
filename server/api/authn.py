"""Who may make the farm read a body, and for how long: the key before the body, the body in time.

Starlette and FastAPI read a request's body before a route's dependencies check its key, and the
fairness middleware counted every request in flight as a busy tenant. So one idle socket trickling a
POST body with a made-up key held a request in flight for as long as it liked, counted as a busy
tenant, and the only real tenant was paced about 3,000 times in 15 s.

* ``Authenticate`` runs ahead of the fairness middleware and of routing, for REST and MCP alike.
  With API keys configured, a request that may carry a body and has no valid key is answered 401
  from its headers alone: its body is never read, and when one may still be on its way the
  connection is closed. A valid key's tenant is what fairness charges (``fairness.charge``); a
  bodiless GET without one goes on to its route, which decides (``/healthz`` and the docs answer
  anyone) and is charged to no one.
* ``BodyReadDeadline`` gives a request body ``Settings.body_read_timeout_seconds`` from the moment
  the app first waits for it. A body still incomplete then gets 408 with the JSON error body and
  the connection closed; the app then reads a client disconnect and its own answer is dropped.
  Reading stops being timed once the body is complete, so an event stream that waits for the
  client to leave is never cut off.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..auth import KeyRing
from ..errors import MISSING_KEY, BodyTimeout, ServiceError, Unauthorized
from .errors import error_response
from .fairness import charge

#: Methods whose requests carry no body unless their headers announce one.
_BODILESS_METHODS = ("GET", "HEAD", "OPTIONS")
_CLOSE = {"Connection": "close"}


async def _no_body() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


def _body_announced(headers: Headers) -> bool:
    """Whether the headers say a body follows (a length over 0, or a transfer coding)."""
    length = headers.get("content-length")
    return "transfer-encoding" in headers or (length is not None and length.strip() not in ("", "0"))


async def _refuse(exc: ServiceError, scope: Scope, send: Send, *, close: bool) -> None:
    response = error_response(exc.status, exc.code, str(exc), exc.field, _CLOSE if close else None)
    await response(scope, _no_body, send)


class Authenticate:
    """ASGI middleware: no body is read for a request without a valid key (see the module)."""

    def __init__(self, app: ASGIApp, *, keys: KeyRing) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        principal = self.keys.resolve(headers.get("authorization"))
        if principal is not None:
            charge(scope, principal.tenant)
            await self.app(scope, receive, send)
            return
        announced = _body_announced(headers)
        if scope["method"] in _BODILESS_METHODS and not announced:
            await self.app(scope, receive, send)  # its route decides; fairness charges no one
            return
        refusal = Unauthorized(MISSING_KEY, field="authorization")
        # Closing drops whatever of the body is still on its way, unread.
        await _refuse(refusal, scope, send, close=announced)


class BodyReadDeadline:
    """ASGI middleware: a request body must be complete within ``seconds`` (see the module)."""

    def __init__(self, app: ASGIApp, *, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline: float | None = None  # set when the app first waits for the body
        body_complete = False
        response_started = False
        timed_out = False
        refused = False  # the 408 was sent: the app's own answer is dropped

        async def receive_in_time() -> Message:
            nonlocal deadline, body_complete, timed_out, refused
            if timed_out:
                return {"type": "http.disconnect"}
            if body_complete:
                return await receive()  # e.g. an event stream waiting for the client to leave
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + self.seconds
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                timed_out = True
                if not response_started:
                    refused = True
                    late = BodyTimeout(f"The request body did not arrive within {self.seconds:g} s", field="body")
                    await _refuse(late, scope, send, close=True)
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_complete = True
            return message

        async def send_unless_timed_out(message: Message) -> None:
            nonlocal response_started
            if refused:
                return
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        await self.app(scope, receive_in_time, send_unless_timed_out)
