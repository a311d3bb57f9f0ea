"""Signing in and out of the console (see ``session``), and ``/``, which opens the console."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from ..api.deps import FarmDep
from .pages import SECURITY_HEADERS, ConsoleRoute, render
from .session import COOKIE, PREFIX, ViewerDep, safe_next

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
#: How long a browser keeps the key: a working day and then some.
COOKIE_SECONDS = 12 * 3600


@router.get("/")
def root() -> RedirectResponse:
    """The farm's front page is the console."""
    return RedirectResponse(PREFIX + "/", status_code=307)


@router.get(PREFIX, include_in_schema=False)
def console_root() -> RedirectResponse:
    return RedirectResponse(PREFIX + "/", status_code=307)


@router.get(PREFIX + "/login", response_class=HTMLResponse)
def login_page(request: Request, farm: FarmDep, next: str | None = None) -> Response:
    """The sign-in form (its script sends the key as a bearer header); in local mode, no sign-in."""
    target = safe_next(next)
    if farm.keys.local_mode:
        return RedirectResponse(target, status_code=303)
    return render(request, "login.html", next=target)


@router.post(PREFIX + "/login", status_code=204)
def login(viewer: ViewerDep, request: Request, farm: FarmDep) -> Response:
    """Keep the bearer key of this request (checked already) as the console's cookie: ``Secure`` when
    the farm is reached over HTTPS (directly, or at an https ``public_url`` behind a proxy)."""
    response = Response(status_code=204, headers=SECURITY_HEADERS)
    key = request.headers["authorization"].partition(" ")[2].strip()
    response.set_cookie(
        COOKIE,
        key,
        max_age=COOKIE_SECONDS,
        path=PREFIX,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https" or (farm.settings.public_url or "").startswith("https://"),
    )
    return response


@router.post(PREFIX + "/logout")
def logout() -> Response:
    """Forget the key (the browser drops the cookie) and go to the sign-in page."""
    response = RedirectResponse(PREFIX + "/login", status_code=303, headers=SECURITY_HEADERS)
    response.delete_cookie(COOKIE, path=PREFIX, httponly=True, samesite="strict")
    return response
