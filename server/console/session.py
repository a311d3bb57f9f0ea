"""Who is looking at the console: the same API key as the REST API, from a header or a cookie.

The console sees exactly what its key sees. A browser signs in once: the login page's script sends
the key as ``Authorization: Bearer`` on ``POST /console/login`` (a request with no body, so the key is
checked from its headers like every other request, ``authn.Authenticate``), and the answer sets it as
an HttpOnly, SameSite=Strict cookie for ``/console``. ``CookieBearer``, outermost but for the host
and size checks, turns that cookie back into the ``Authorization`` header of console requests only,
so every console request is authenticated, paced and charged to its tenant as an API request with
that key. REST and MCP paths never read the cookie: a page elsewhere cannot make the browser spend
the key on them, and a console POST from another site is refused by the Origin check (``hosts.py``)
and by SameSite. In local mode (no keys configured) everyone is the local admin and no sign-in is
asked for.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, Request
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..api.deps import get_farm
from ..auth import Principal

PREFIX = "/console"
COOKIE = "envfarm_console_key"


def console_path(path: str) -> bool:
    """Whether ``path`` is one of the console's (where the cookie counts)."""
    return path == PREFIX or path.startswith(PREFIX + "/")


def _cookie(headers: Headers) -> str | None:
    for header in headers.getlist("cookie"):
        for part in header.split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE and value:
                return value
    return None


class CookieBearer:
    """ASGI middleware: a console request with the console's cookie and no ``Authorization`` header
    gets ``Authorization: Bearer <cookie>`` (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and console_path(scope["path"]):
            headers = Headers(scope=scope)
            key = _cookie(headers)
            if key is not None and "authorization" not in headers:
                scope = dict(scope)
                scope["headers"] = [*scope["headers"], (b"authorization", f"Bearer {key}".encode("latin-1"))]
        await self.app(scope, receive, send)


class SignInNeeded(Exception):
    """The request has no valid key; the console answers with its login page (or 401 to htmx)."""

    def __init__(self, next_path: str) -> None:
        self.next_path = next_path
        super().__init__(next_path)


def login_url(next_path: str) -> str:
    return f"{PREFIX}/login?next={quote(next_path, safe='/')}"


def safe_next(value: str | None) -> str:
    """Where to go after signing in: a console path only (never another site: ``//evil`` is refused)."""
    if value and console_path(value) and not value.startswith("//") and "\\" not in value:
        return value
    return PREFIX + "/"


def console_principal(request: Request) -> Principal:
    """The principal of the key (header or cookie); ``SignInNeeded`` without a valid one."""
    principal = get_farm(request).keys.resolve(request.headers.get("authorization"))
    if principal is None:
        raise SignInNeeded(request.url.path + (f"?{request.url.query}" if request.url.query else ""))
    return principal


ViewerDep = Annotated[Principal, Depends(console_principal)]
