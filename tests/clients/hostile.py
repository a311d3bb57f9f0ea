"""Small HTTP servers on loopback for the clients' defences: a farm that misbehaves on purpose, and a
bystander listener that records whatever reaches it (it must receive nothing).

They are the standard library's ``ThreadingHTTPServer`` in a daemon thread: real sockets, real HTTP,
no framework between the client and the bytes a hostile farm sends.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    """One request a server received."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]


@dataclass
class Reply:
    """What a route answers: a JSON body, or ``stream`` (bytes written until the client hangs up)."""

    status: int = 200
    body: Any = None
    stream: Iterator[bytes] | None = None
    headers: dict[str, str] = field(default_factory=dict)


Route = Callable[[Seen], Reply]


class HostileServer:
    """An HTTP server answering every request with ``route(request)``; ``seen`` lists the requests.

    >>> with HostileServer(lambda r: Reply(body={"ok": True})) as server:  # doctest: +SKIP
    ...     httpx.get(server.url + "/anything")
    """

    def __init__(self, route: Route) -> None:
        self.route = route
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # a body without a length ends when the connection closes

            def _handle(self) -> None:
                parts = urlsplit(self.path)
                request = Seen(
                    self.command,
                    parts.path,
                    {k: v[0] for k, v in parse_qs(parts.query).items()},
                    {k.lower(): v for k, v in self.headers.items()},
                )
                length = int(self.headers.get("content-length") or 0)
                if length:
                    self.rfile.read(length)
                with outer._lock:
                    outer.seen.append(request)
                reply = outer.route(request)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.stream is not None:
                    self.end_headers()
                    try:
                        for chunk in reply.stream:
                            self.wfile.write(chunk)
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # the client stopped reading: what it is meant to do
                    return
                data = json.dumps(reply.body).encode()
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _handle

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def endless_bytes(chunk: int = 64 * 1024) -> Iterator[bytes]:
    """A body that never ends (``[`` then spaces, so it is not even JSON when cut)."""
    yield b"["
    block = b" " * chunk
    while True:
        yield block
