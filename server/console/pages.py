"""Rendering console pages: one Jinja2 environment (autoescaping every value), safe Markdown, and the
route class that turns farm errors and a missing key into HTML pages.

Everything shown comes from environment text, tool arguments and results or agent messages, so all of
it is text: Jinja2 escapes every ``{{ value }}``; policies go through markdown-it with raw HTML off
(tags show as text) and its link check (no ``javascript:`` links). Every page also carries a
Content-Security-Policy that runs scripts from this server's own files only, so even a value that
escaped escaping could not run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

from envs.errors import EnvFarmError, InvalidEnvironment, UnknownEnvironment, UnknownTask

from ..auth import Principal
from ..errors import ServiceError
from .session import PREFIX, SignInNeeded, console_principal, login_url

HERE = Path(__file__).resolve().parent
STATIC_DIR = HERE / "static"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _relative_link(url: str) -> bool:
    """Whether a policy's link stays on this site: a path or an anchor, never a scheme
    (``javascript:``, ``https:``) nor another host (``//evil.example``, ``/\\evil.example``)."""
    target = url.strip()
    return not _SCHEME.match(target) and not target.startswith(("//", "/\\", "\\"))


_markdown.validateLink = _relative_link  # type: ignore[method-assign]


def markdown(text: str) -> Markup:
    """``text`` rendered as Markdown, its raw HTML shown as text and unsafe links left out."""
    return Markup(_markdown.render(text or ""))


def pretty_json(value: Any) -> str:
    """A value as indented JSON text (escaped by the template like any other text)."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)


def json_text(text: object) -> str:
    """JSON text (a tool result as an eval record keeps it) indented; any other text as it is."""
    if not isinstance(text, str):
        return pretty_json(text)
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, str) else pretty_json(value)


def readable_calls(tool_calls: object) -> list[tuple[str, str]]:
    """An assistant message's tool calls as (tool name, indented arguments): OpenAI's format holds the
    arguments as JSON text inside JSON, which printed whole reads as escaped quotes."""
    out = []
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if not isinstance(call, dict):
            out.append(("?", pretty_json(call)))
            continue
        inner = call.get("function")
        function: dict[str, Any] = inner if isinstance(inner, dict) else call
        name = function.get("name", "?")
        arguments = function.get("arguments", function.get("input", {}))
        out.append((str(name), json_text(arguments)))
    return out


def when(seconds: float | None) -> str:
    """A Unix time as UTC, to the second ("—" for none)."""
    if not seconds or not isinstance(seconds, int | float):
        return "—"
    try:
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, ValueError, OSError):  # a time no calendar holds
        return "—"


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        markdown=markdown, pretty_json=pretty_json, json_text=json_text, when=when, readable_calls=readable_calls
    )
    env.globals.update(prefix=PREFIX)
    return env


templates = _environment()


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """Template ``name`` as a page, with the security headers."""
    farm = request.app.state.farm
    viewer = context.pop("viewer", None)
    show_runs = farm.settings.runs_dir is not None and viewer is not None and viewer.admin
    html = templates.get_template(name).render(
        request=request, viewer=viewer, local_mode=farm.keys.local_mode, show_runs=show_runs, **context
    )
    return HTMLResponse(html, status_code=status_code, headers=SECURITY_HEADERS)


def _refusal(exc: EnvFarmError) -> tuple[int, str, str]:
    """Status, code and message of a farm error, as the API's error handlers give them."""
    if isinstance(exc, ServiceError):
        return exc.status, exc.code, str(exc)
    if isinstance(exc, UnknownEnvironment):
        return 404, "env_not_found", str(exc)
    if isinstance(exc, UnknownTask):
        return 404, "task_not_found", str(exc)
    if isinstance(exc, InvalidEnvironment):
        return 409, "env_invalid", exc.served_message()
    return 400, "bad_request", str(exc)


_TITLES = {404: "Not found", 409: "Not served", 410: "Ended", 413: "Too large", 422: "Cannot read this"}


def _section(path: str) -> tuple[str, tuple[str, str]]:
    """The console section a path belongs to (for the navigation), and the link back to its list."""
    rest = path.removeprefix(PREFIX).lstrip("/")
    if rest.startswith("runs"):
        return "runs", (f"{PREFIX}/runs", "Back to the runs")
    if rest.startswith("episodes"):
        return "episodes", (f"{PREFIX}/episodes", "Back to the episodes")
    return "catalog", (f"{PREFIX}/", "Back to the catalog")


class ConsoleRoute(APIRoute):
    """A console route: a farm error becomes an HTML error page with its status; a missing or invalid
    key, the login page (a redirect), or 401 for an htmx request (the page keeps what it shows)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except SignInNeeded as exc:
                if request.headers.get("hx-request"):
                    return HTMLResponse("Sign in again", status_code=401, headers=SECURITY_HEADERS)
                return RedirectResponse(login_url(exc.next_path), status_code=303, headers=SECURITY_HEADERS)
            except EnvFarmError as exc:
                status, code, message = _refusal(exc)
                try:  # the page keeps the viewer's navigation (its Runs link) and leads back where it was
                    viewer: Principal | None = console_principal(request)
                except SignInNeeded:
                    viewer = None
                section, back = _section(request.url.path)
                return render(
                    request,
                    "error.html",
                    status_code=status,
                    viewer=viewer,
                    nav=section,
                    title=_TITLES.get(status, "Cannot show this page"),
                    code=code,
                    message=message,
                    back=back,
                )

        return route
