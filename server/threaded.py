"""An ASGI app served by uvicorn on a loopback port, in a background thread with its own event loop.

The embedded farm of ``envfarm eval`` and the server tests both run the real app this way.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from envs.errors import EnvFarmError

T = TypeVar("T")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerThreadError(EnvFarmError):
    """The server thread did not start, did not stop, or failed."""


class ThreadedServer:
    """``app`` on ``http://127.0.0.1:<free port>`` between :meth:`start` and :meth:`stop`."""

    def __init__(self, app: Any, *, timeout: float = 30.0) -> None:
        import uvicorn

        self.app = app
        self.timeout = timeout
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        from .connections import uvicorn_options

        options = uvicorn_options(app)
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on", **options)
        self._server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=f"envfarm-server-{self.port}", daemon=True)
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.loop.run_until_complete(self._server.serve())
        except BaseException as exc:  # surfaced by start() and stop()
            self._error = exc
        finally:
            self.loop.close()

    def start(self) -> str:
        """Start serving; return the base URL once the server accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + self.timeout
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise ServerThreadError(f"the server failed to start: {self._error!r}")
            if time.monotonic() > deadline:
                raise ServerThreadError(f"the server did not start within {self.timeout:g} s")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        """Stop serving; raise what the server failed with, if anything."""
        self._server.should_exit = True
        self._thread.join(timeout=self.timeout)
        if self._thread.is_alive():
            raise ServerThreadError(f"the server did not stop within {self.timeout:g} s")
        if self._error is not None:
            raise self._error

    def on_loop(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the server's event loop (the app's state is not thread-safe); return its result."""

        async def call() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(timeout=self.timeout)
