"""Every error becomes JSON: ``{"error": {"code", "message", "field"}}``. Bad input is never a 500."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from envs.errors import EnvFarmError, UnknownEnvironment, UnknownTask

from ..errors import ServiceError

log = logging.getLogger("envfarm.server")


def error_response(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, "field": field}}, status_code=status)


def http_error_response(exc: StarletteHTTPException) -> JSONResponse:
    """An HTTP-level error (unknown route, wrong method, body over the limit) as the JSON error body."""
    code = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}.get(exc.status_code, "http_error")
    return error_response(exc.status_code, code, str(exc.detail), "body" if exc.status_code == 413 else None)


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return error_response(exc.status, exc.code, str(exc), exc.field)

    @app.exception_handler(UnknownEnvironment)
    async def unknown_env(request: Request, exc: UnknownEnvironment) -> JSONResponse:
        return error_response(404, "env_not_found", str(exc), "env_id")

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
        return http_error_response(exc)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", extra={"path": request.url.path})
        return error_response(500, "internal", "Internal server error")
