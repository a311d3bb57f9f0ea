"""Every error becomes JSON: ``{"error": {"code", "message", "field"}}``. Bad input is never a 500."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path

from envs.errors import EnvFarmError, InvalidEnvironment, UnknownEnvironment, UnknownTask

from ..errors import ServiceError, StoreUnavailable
from ..schemas import ErrorResponse
from ..store import STORE_UNREACHABLE

log = logging.getLogger("envfarm.server")


_MEANING = {
    400: "Inconsistent request (the message names the field)",
    401: "Missing or invalid API key",
    403: "Not allowed for this key, a non-loopback client with no API keys configured, or a browser Origin "
    "that is not allowed",
    404: "No such environment, task or episode (other tenants' episodes included)",
    408: "The request body did not arrive within ENVFARM_BODY_READ_TIMEOUT_SECONDS; the connection is closed",
    409: "Contradicts the catalog or the episode: a task of another environment, scoring free play, "
    "a log that no longer replays, an environment of the catalog that does not validate (code env_invalid)",
    410: "The episode is closed or expired",
    413: "Request body over the limit, or a call-log quota used up (code quota_exceeded: the episode's log, "
    "or all of the tenant's logs in the store)",
    422: "Invalid request: the message names the field and the value",
    429: "A limit was reached: open episodes per tenant, calls per episode",
    503: "The episode store is unavailable; nothing was recorded",
}


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses, each with the JSON error body."""
    return {status: {"model": ErrorResponse, "description": _MEANING[status]} for status in statuses}


def error_response(
    status: int, code: str, message: str, field: str | None = None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "field": field}}
    return JSONResponse(body, status_code=status, headers=headers)


def service_error_response(exc: ServiceError) -> JSONResponse:
    """The JSON error response for a serving error: its status, code, message and field."""
    return error_response(exc.status, exc.code, str(exc), exc.field)


def store_unavailable(exc: Exception, path: str) -> StoreUnavailable:
    """The error for a request that found the episode store unreachable (``STORE_UNREACHABLE``), logged."""
    log.warning("episode store unreachable", extra={"path": path, "error": str(exc)[:300]})
    return StoreUnavailable("The episode store is unavailable; try again")


def http_error_response(exc: StarletteHTTPException) -> JSONResponse:
    """An HTTP-level error (unknown route, wrong method, body over the limit) as the JSON error body.
    Its headers are kept: a 405 names the allowed methods in ``Allow``."""
    code = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}.get(exc.status_code, "http_error")
    field = "body" if exc.status_code == 413 else None
    return error_response(exc.status_code, code, str(exc.detail), field, exc.headers)


def _allowed_methods(app: FastAPI) -> Callable[[str], str]:
    """``path`` -> every method the API documents for it, as an ``Allow`` header value. The paths are
    compiled on the first 405, once."""
    paths: list[tuple[re.Pattern[str], set[str]]] = []

    def allowed(path: str) -> str:
        if not paths:
            paths.extend((compile_path(p)[0], set(ops)) for p, ops in app.openapi()["paths"].items())
        methods = {m.upper() for regex, ops in paths if regex.match(path) for m in ops}
        return ", ".join(sorted(methods | ({"HEAD"} if "GET" in methods else set())))

    return allowed


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts)


def install_error_handlers(app: FastAPI) -> None:
    allowed_methods = _allowed_methods(app)

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return service_error_response(exc)

    @app.exception_handler(UnknownEnvironment)
    async def unknown_env(request: Request, exc: UnknownEnvironment) -> JSONResponse:
        return error_response(404, "env_not_found", str(exc), "env_id")

    @app.exception_handler(InvalidEnvironment)
    async def invalid_env(request: Request, exc: InvalidEnvironment) -> JSONResponse:
        # the request is fine; the catalog holds this environment but cannot serve it
        return error_response(409, "env_invalid", exc.served_message(), "env_id")

    @app.exception_handler(UnknownTask)
    async def unknown_task(request: Request, exc: UnknownTask) -> JSONResponse:
        return error_response(404, "task_not_found", str(exc), "task_id")

    @app.exception_handler(EnvFarmError)
    async def envfarm_error(request: Request, exc: EnvFarmError) -> JSONResponse:
        return error_response(400, "bad_request", str(exc))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        err = exc.errors()[0]
        if err.get("type") == "json_invalid":
            return error_response(
                422, "invalid_json", f"body: invalid JSON ({err.get('ctx', {}).get('error', '')})", "body"
            )
        field = _field(tuple(err.get("loc", ())))
        value = err.get("input")
        shown = "" if value is None or isinstance(value, dict) else f" (got {value!r})"
        message = f"{field or 'request'}: {err.get('msg', 'invalid')}{shown}"
        return error_response(422, "invalid_request", message, field or None)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 405:
            # Starlette's Allow names the methods of the first route matching the path only; a path
            # served by several routes (GET and DELETE /episodes/{id}) allows all of theirs.
            allowed = allowed_methods(request.url.path)
            if allowed:
                exc = StarletteHTTPException(405, exc.detail, {**(exc.headers or {}), "Allow": allowed})
        elif exc.status_code == 400 and isinstance(exc.__cause__, UnicodeDecodeError):
            # FastAPI's 400 for a JSON body it could not decode; the cause tells it apart, not the wording
            return error_response(422, "invalid_json", "body: not valid UTF-8 JSON", "body")
        return http_error_response(exc)

    async def store_unreachable(request: Request, exc: Exception) -> JSONResponse:
        return service_error_response(store_unavailable(exc, request.url.path))

    for kind in STORE_UNREACHABLE:
        app.add_exception_handler(kind, store_unreachable)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", extra={"path": request.url.path})
        return error_response(500, "internal", "Internal server error")
