"""Which Host and Origin headers the farm answers: DNS-rebinding protection for REST and MCP alike.

A page on ``evil.example`` whose name the attacker re-points at 127.0.0.1 makes the victim's browser
send same-origin requests to the farm with ``Host: evil.example``. The client address is loopback, so
the local-only guard lets them in; only the Host header gives them away. So every request must name an
allowed host, and a browser request (one with an ``Origin``) must come from an allowed origin.

One :class:`HostPolicy` is built from the settings and used twice: by :class:`HostOriginMiddleware`
in front of every route, and as the MCP SDK's ``TransportSecuritySettings``, so the two checks cannot
drift. Matching is the SDK's: an exact value, or ``name:*`` for that name on any port (case-sensitive,
as browsers send names in lower case).

Allowed hosts are the loopback names, ``settings.allowed_hosts``, the host of ``settings.public_url``
(a deployment behind a hostname is reached by that name) and the bind address unless it is a wildcard
(``--host 10.0.0.5`` is reached as 10.0.0.5). Allowed origins are the loopback ones over http, the
origin of ``public_url`` (the /docs page served there posts with it) and ``settings.allowed_origins``.

Refusals mirror the SDK's statuses: a Host that is not allowed (or none) is 421 Misdirected Request,
an Origin that is not allowed is 403; both carry the JSON error body naming the header and its value.
A request without ``Origin`` is not a cross-site browser request and passes.

``/healthz`` is exempt: load balancers and orchestrators probe it by IP address or an internal name,
and it has no side effects and reveals nothing worth a rebinding attack (a status and two counts).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import Forbidden, ServiceError
from ..settings import Settings
from .errors import service_error_response

#: Paths any Host may reach (see the module docstring).
EXEMPT_PATHS = frozenset({"/healthz"})
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
_WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "[::]"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class HostNotAllowed(ServiceError):
    status, code = 421, "host_not_allowed"


class OriginNotAllowed(Forbidden):
    code = "origin_not_allowed"


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _public_url_names(url: str) -> tuple[list[str], list[str]]:
    """The Host values and the Origin a client of ``url`` sends: with and without a default port."""
    parts = urlsplit(url)
    if not parts.hostname:
        return [], []
    host = _bracketed(parts.hostname)
    default = _DEFAULT_PORTS.get(parts.scheme)
    port = parts.port or default
    hosts = [f"{host}:{port}"] if port else []
    if port == default:
        hosts.append(host)
        origin = f"{parts.scheme}://{host}"
    else:
        origin = f"{parts.scheme}://{host}:{port}"
    return hosts, [origin]


def _matches(value: str, allowed: Iterable[str]) -> bool:
    return any(value == p or (p.endswith(":*") and value.startswith(p[:-1])) for p in allowed)


@dataclass(frozen=True)
class HostPolicy:
    """The allowed Host and Origin values, for both REST and MCP."""

    hosts: tuple[str, ...]
    origins: tuple[str, ...]

    @classmethod
    def from_settings(cls, settings: Settings) -> HostPolicy:
        hosts = [f"{h}:*" for h in _LOOPBACK] + list(_LOOPBACK)
        origins = [f"http://{h}:*" for h in _LOOPBACK] + [f"http://{h}" for h in _LOOPBACK]
        bind = _bracketed(settings.host)
        if bind not in _WILDCARD_BINDS and bind not in hosts:
            hosts += [f"{bind}:*", bind]
        if settings.public_url:
            public_hosts, public_origins = _public_url_names(settings.public_url)
            hosts += public_hosts
            origins += public_origins
        hosts += settings.allowed_hosts
        origins += settings.allowed_origins
        return cls(tuple(dict.fromkeys(hosts)), tuple(dict.fromkeys(origins)))

    def transport_security(self) -> TransportSecuritySettings:
        """The same lists as the MCP SDK's own check (a second line behind the middleware)."""
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=list(self.hosts), allowed_origins=list(self.origins)
        )

    def refusal(self, headers: Headers) -> ServiceError | None:
        """Why a request with these headers must be refused, or None if it may proceed."""
        host = headers.get("host")
        if not host or not _matches(host, self.hosts):
            shown = f"Host header {host!r}" if host else "A missing Host header"
            return HostNotAllowed(
                f"{shown} is not a name this server answers to (DNS-rebinding protection): "
                "add it to ENVFARM_ALLOWED_HOSTS or set ENVFARM_PUBLIC_URL",
                field="host",
            )
        origin = headers.get("origin")
        if origin and not _matches(origin, self.origins):
            return OriginNotAllowed(
                f"Origin header {origin!r} is not allowed (DNS-rebinding protection): "
                "add it to ENVFARM_ALLOWED_ORIGINS",
                field="origin",
            )
        return None


class HostOriginMiddleware:
    """Refuses HTTP requests whose Host or Origin the policy does not allow, with the JSON error."""

    def __init__(self, app: ASGIApp, *, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in EXEMPT_PATHS:
            refusal = self.policy.refusal(Headers(scope=scope))
            if refusal is not None:
                await service_error_response(refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)
