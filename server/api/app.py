"""``create_app(settings)``: one ASGI app serving the REST task service and every episode's MCP endpoint.

MCP lives at ``/episodes/{episode_id}/mcp`` (and, for the user of a dual-control environment, at
``/episodes/{episode_id}/user/mcp``, listing and calling the user's tools): one SDK
``StreamableHTTPSessionManager`` (JSON responses, stateless, so no per-session memory) behind a
guard that authenticates the caller and checks the episode before the SDK sees the request.
Handlers find their episode from the URL, never from the MCP session. A POST for an episode that
cannot be served (unknown, ended, not replayable) still reaches the SDK, carrying the refusal, so
MCP itself answers it (``mcp_errors.py``). Host/Origin checks (DNS-rebinding protection) guard
every route, REST and MCP, with one allow-list (``hosts.py``).

Open event streams are capped per tenant (``max_streams_per_tenant``, 429 beyond it). Although the
manager is stateless with JSON responses, a GET on the MCP endpoint from a legacy-era client (no
``MCP-Protocol-Version`` header, or a handshake-era one) still gets the SDK's standalone SSE stream: it
stays open, pinged, until the client goes away, and nothing is ever sent on it here. Unbounded, one
client could hold any number of connections and server tasks. A GET with a 2026-era header is answered
405 at once, and POSTs are answered as plain JSON, so GETs are what is capped: each one holds a slot of
its tenant from after authentication and the episode check until the response ends, client disconnect
included (the SSE response notices the disconnect and ends, and the slot is freed in a ``finally``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers, QueryParams
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from envs import Catalog, Environment, Task
from envs.errors import UnknownDialect
from envs.schemas.dialects import DIALECT_FIELD, parse_dialect

from ..auth import KeyRing, Principal
from ..connections import limits_of
from ..episode_memory import LiveEpisode
from ..episodes import FLUSH_INTERVAL, EpisodeService
from ..errors import MISSING_KEY, Forbidden, LimitExceeded, NoUserSide, ServiceError, Unauthorized
from ..mcp_adapter import build_server
from ..metrics import Metrics
from ..outcomes import CallOutcome
from ..scores import ScoreBook
from ..settings import LOOPBACK_HOSTS, Settings
from ..store import STORE_UNREACHABLE, Store
from ..workers import FairShare
from .authn import Authenticate, BodyReadDeadline
from .deps import FarmState
from .errors import (
    error_response,
    http_error_response,
    install_error_handlers,
    service_error_response,
    store_unavailable,
)
from .fairness import ALONE as HEAVY_ALONE
from .fairness import BusyMeter, HeavyBodyTurns, TenantPacing
from .fields import TrimFieldValues
from .hosts import HostOriginMiddleware, HostPolicy
from .mcp_errors import ANSWERED_IN_BAND, EpisodeUnavailable, JsonRpcErrors, answered_in_band, no_stream
from .routes import catalog as catalog_routes
from .routes import episodes as episode_routes

log = logging.getLogger("envfarm.server")
_PRINCIPAL_KEY = "envfarm.principal"
_LIVE_KEY = "envfarm.live"
_REFUSAL_KEY = "envfarm.refusal"
MCP_PATH = re.compile(r"^/episodes/(?P<episode_id>[^/]+)/(?:(?P<actor>user)/)?mcp/?$")


class FarmApp(FastAPI):
    """FastAPI for the REST service; MCP requests are dispatched before FastAPI's middleware stack.

    Every tool call is an MCP request, so they skip the REST stack (error middleware, router,
    dependency machinery) and go straight to the guarded MCP endpoint.
    """

    mcp_app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.mcp_app is not None and (m := MCP_PATH.match(scope["path"])):
            scope["app"] = self
            scope["path_params"] = {"episode_id": m["episode_id"], "actor": m["actor"] or "agent"}
            await JsonRpcErrors(self._mcp)(scope, receive, send)  # refusals in the shape MCP clients read
            return
        await super().__call__(scope, receive, send)

    async def _mcp(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.mcp_app is not None
        try:
            await self.mcp_app(scope, receive, send)
        except StarletteHTTPException as exc:  # the streamed-body limit of GuardMiddleware
            await http_error_response(exc)(scope, _no_body, send)
        except Exception:
            log.exception("unhandled error on the MCP endpoint", extra={"path": scope["path"]})
            await error_response(500, "internal", "Internal server error")(scope, _no_body, send)


@dataclass
class _HttpEpisode:
    """The MCP adapter's view of one HTTP episode."""

    service: EpisodeService
    principal: Principal
    live: LiveEpisode
    actor: str

    @property
    def env(self) -> Environment:
        return self.live.env

    @property
    def task(self) -> Task | None:
        return self.live.task

    @property
    def knowledge(self) -> str:
        return self.live.row.knowledge

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        return await self.service.call(
            self.principal, self.live.row.id, tool, arguments, transport="mcp", actor=self.actor
        )


async def _send_error(send: Send, scope: Scope, exc: ServiceError) -> None:
    await service_error_response(exc)(scope, _no_body, send)


def _from_a_browser(scope: Scope) -> bool:
    """A page load (a GET accepting HTML, not an event stream): no MCP client asks for that."""
    accept = Headers(scope=scope).get("accept", "")
    return scope["method"] == "GET" and "text/html" in accept and "text/event-stream" not in accept


def _unknown_dialect(scope: Scope) -> ServiceError | None:
    """The refusal of an MCP URL whose ``?dialect=`` names no schema dialect, if it does."""
    try:
        parse_dialect(QueryParams(scope.get("query_string", b"")).get(DIALECT_FIELD))
    except UnknownDialect as exc:
        return ServiceError(str(exc), field=exc.field)
    return None


async def _no_body() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


class StreamSlots:
    """Open event streams per tenant, at most ``limit`` each (see the module docstring)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: dict[str, int] = {}

    def acquire(self, tenant: str) -> bool:
        held = self.open.get(tenant, 0)
        if held >= self.limit:
            return False
        self.open[tenant] = held + 1
        return True

    def release(self, tenant: str) -> None:
        held = self.open[tenant] - 1
        if held:
            self.open[tenant] = held
        else:
            del self.open[tenant]  # tenants come and go; keep no entry per tenant ever seen


class McpEndpoint:
    """Authenticates, checks the episode, then hands the request to the MCP session manager."""

    def __init__(
        self, manager: StreamableHTTPSessionManager, service: EpisodeService, keys: KeyRing, streams: StreamSlots
    ) -> None:
        self.manager = manager
        self.service = service
        self.keys = keys
        self.streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if _from_a_browser(scope):  # an mcp_url opened in a browser: the episode's page, not a 406
            episode_id = quote(scope["path_params"]["episode_id"], safe="")
            await RedirectResponse(f"/console/episodes/{episode_id}", status_code=303)(scope, receive, send)
            return
        if (refused := _unknown_dialect(scope)) is not None:
            await _send_error(send, scope, refused)
            return
        principal = self.keys.resolve(Headers(scope=scope).get("authorization"))
        if principal is None:
            await _send_error(send, scope, Unauthorized(MISSING_KEY, field="authorization"))
            return
        try:
            live = await self.service.live(principal, scope["path_params"]["episode_id"])
        except ServiceError as exc:
            if answered_in_band(exc, scope):  # unknown or ended: MCP answers, so every client shows why
                scope[_PRINCIPAL_KEY], scope[_REFUSAL_KEY] = principal, exc
                await self.manager.handle_request(scope, receive, send)
            elif scope["method"] == "GET" and isinstance(exc, ANSWERED_IN_BAND):
                await _send_error(send, scope, no_stream(exc))
            else:
                await _send_error(send, scope, exc)
            return
        except STORE_UNREACHABLE as exc:
            await _send_error(send, scope, store_unavailable(exc, scope["path"]))
            return
        if scope["path_params"]["actor"] == "user" and not live.env.dual_control:
            await _send_error(send, scope, NoUserSide(live.row.id, live.env.spec.id))
            return
        scope[_PRINCIPAL_KEY] = principal
        scope[_LIVE_KEY] = live  # the handlers' resolver reuses it instead of looking it up again
        if scope["method"] != "GET":
            await self.manager.handle_request(scope, receive, send)
            return
        if not self.streams.acquire(principal.tenant):
            limit = self.streams.limit
            await _send_error(
                send,
                scope,
                LimitExceeded(
                    f"Tenant '{principal.tenant}' already holds {limit} open event streams (GET on an MCP "
                    f"endpoint), the limit (ENVFARM_MAX_STREAMS_PER_TENANT={limit}); close one first",
                    field="streams",
                ),
            )
            return
        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            self.streams.release(principal.tenant)


class GuardMiddleware:
    """Request-size limit, and loopback-only access when no API key is configured."""

    def __init__(self, app: ASGIApp, *, max_body: int, local_only: bool) -> None:
        self.app = app
        self.max_body = max_body
        self.local_only = local_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.local_only:
            client = scope.get("client")
            if client and client[0] not in LOOPBACK_HOSTS:
                await _send_error(
                    send, scope, Forbidden("No API keys are configured: this server accepts loopback clients only")
                )
                return
        length = Headers(scope=scope).get("content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            exc = ServiceError(f"Request body of {length} bytes exceeds the limit of {self.max_body}", field="body")
            exc.status, exc.code = 413, "body_too_large"
            await _send_error(send, scope, exc)
            return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                # An HTTPException (not a ServiceError): FastAPI re-raises it from body parsing, where any
                # other exception becomes a 400 "error parsing the body".
                raise StarletteHTTPException(413, f"Request body exceeds the limit of {self.max_body} bytes")
            return message

        await self.app(scope, limited, send)


def _declare_security(app: FastAPI, keys: KeyRing) -> None:
    """With API keys configured, the OpenAPI document says every route but ``/healthz`` needs a bearer
    key (the docs page gets "Authorize"). In local mode nothing needs one, and it says nothing."""
    if keys.local_mode:
        return

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schema.setdefault("components", {})["securitySchemes"] = {
                "apiKey": {"type": "http", "scheme": "bearer", "description": "An API key of this farm"}
            }
            schema["security"] = [{"apiKey": []}]
            for operation in schema["paths"].get("/healthz", {}).values():
                operation["security"] = []
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the farm's ASGI app. Nothing global: tests build isolated apps on temporary databases."""
    # The console is built on this package's routes and dependencies (server.console imports
    # server.api.*), so it is imported here, once server.api is complete, not at the top.
    from ..console import CookieBearer, install_console

    settings = settings or Settings()
    catalog = Catalog(settings.catalog)
    store = Store(settings.store_url(), fsync=settings.durable_fsync)
    metrics = Metrics()
    keys = KeyRing.load(settings.api_keys, settings.api_keys_file)
    service = EpisodeService(settings, catalog, store, metrics)
    farm = FarmState(
        settings=settings,
        catalog=catalog,
        store=store,
        service=service,
        keys=keys,
        metrics=metrics,
        scores=ScoreBook(store),
        connections=limits_of(settings),
    )
    hosts = HostPolicy.from_settings(settings)

    async def resolve(ctx: ServerRequestContext[Any]) -> _HttpEpisode:
        request = ctx.request
        if request is None:  # pragma: no cover - HTTP handlers always carry the request
            raise ServiceError("MCP request without HTTP context")
        if (refusal := request.scope.get(_REFUSAL_KEY)) is not None:
            raise EpisodeUnavailable(refusal)  # tools/call makes it an isError result
        principal: Principal = request.scope[_PRINCIPAL_KEY]
        live: LiveEpisode = request.scope[_LIVE_KEY]
        return _HttpEpisode(service, principal, live, request.scope["path_params"]["actor"])

    manager = StreamableHTTPSessionManager(
        app=build_server(resolve),
        json_response=True,
        stateless=True,
        security_settings=hosts.transport_security(),
        max_request_body_size=settings.max_body_bytes,
    )

    async def reaper() -> None:
        while True:
            await asyncio.sleep(settings.reap_interval_seconds)
            try:
                service.reap()
            except Exception:  # keep reaping; the failure is logged
                log.exception("reaping failed")

    async def flusher() -> None:
        while True:
            await asyncio.sleep(FLUSH_INTERVAL)
            try:
                service.flush()
            except Exception:  # rows stay buffered and are retried
                log.exception("flushing the call log failed")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with manager.run():
            tasks = [asyncio.create_task(reaper()), asyncio.create_task(flusher())]
            try:
                yield
            finally:
                for task in tasks:
                    task.cancel()
                service.close_all()
                store.close()

    app = FarmApp(
        title="envfarm task service",
        version="0.1.0",
        description="Verifiable tasks over synthesized tool-use environments. Every episode is also an MCP "
        "server (streamable HTTP) at /episodes/{episode_id}/mcp, for any MCP client.",
        lifespan=lifespan,
    )
    app.state.farm = farm
    _declare_security(app, keys)
    install_error_handlers(app)
    app.include_router(catalog_routes.router)
    app.include_router(episode_routes.router)
    install_console(app)
    app.state.stream_slots = StreamSlots(settings.max_streams_per_tenant)
    endpoint = McpEndpoint(manager, service, keys, app.state.stream_slots)
    # One meter and one set of turns for REST and MCP: a tenant's requests on both count together.
    turns, meter = FairShare(HEAVY_ALONE), BusyMeter(headroom=settings.tenant_pacing)
    app.state.busy_meter, app.state.heavy_turns = meter, turns
    # The key is checked from the headers before fairness counts the request or anything reads its
    # body, and the body's deadline starts once the request's turn has come (authn.py).
    deadline = settings.body_read_timeout_seconds
    fair_endpoint = TenantPacing(
        HeavyBodyTurns(BodyReadDeadline(endpoint, seconds=deadline), share=turns, keys=keys),
        meter=meter,
        keys=keys,
        metrics=metrics,
    )
    app.mcp_app = TrimFieldValues(
        HostOriginMiddleware(
            GuardMiddleware(
                Authenticate(fair_endpoint, keys=keys), max_body=settings.max_body_bytes, local_only=keys.local_mode
            ),
            policy=hosts,
        )
    )
    app.add_middleware(BodyReadDeadline, seconds=deadline)
    app.add_middleware(HeavyBodyTurns, share=turns, keys=keys)
    app.add_middleware(TenantPacing, meter=meter, keys=keys, metrics=metrics)
    app.add_middleware(Authenticate, keys=keys)
    app.add_middleware(CookieBearer)  # a signed-in browser's console requests carry its key from here on
    # Added last, so outermost: a misdirected request is refused before anything else looks at it,
    # once its header values are what the client meant.
    app.add_middleware(GuardMiddleware, max_body=settings.max_body_bytes, local_only=keys.local_mode)
    app.add_middleware(HostOriginMiddleware, policy=hosts)
    app.add_middleware(TrimFieldValues)
    return app
