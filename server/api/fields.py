"""Header field values without the whitespace around them, whichever HTTP parser uvicorn uses.

RFC 9110 §5.5: a field value excludes the optional whitespace before and after it. uvicorn's h11
parser strips both; its httptools parser (faster, and used when installed) keeps trailing
whitespace, so ``Mcp-Name: find_user ``, or a ``Host`` with a trailing space, would fail the
farm's comparisons with what the body or the allow-list says. Values are trimmed only when one
ends in whitespace, which a client rarely sends: the common request costs one pass over its headers.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

_OWS = (b" ", b"\t")


class TrimFieldValues:
    """ASGI middleware: every header value without trailing whitespace (leading is never there)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = scope.get("headers")
        if headers and any(value[-1:] in _OWS for _, value in headers):
            scope = dict(scope)
            scope["headers"] = [(name, value.strip(b" \t")) for name, value in headers]
        await self.app(scope, receive, send)
