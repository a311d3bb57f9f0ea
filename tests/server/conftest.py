"""Real servers for the server tests: the app under uvicorn on a loopback port, in a background thread.

Nothing is mocked: requests travel over TCP to the same ASGI app ``envfarm serve`` runs, backed by a
SQLite episode store in the test's temporary directory.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import httpx2
import pytest
import uvicorn
from fastapi import FastAPI
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server.api import create_app
from server.settings import Settings

T = TypeVar("T")

KEY_A = "key-aaaaaaaaaaaaaaaa"
KEY_B = "key-bbbbbbbbbbbbbbbb"
KEY_ADMIN = "key-admin-cccccccccccc"
API_KEYS = f"{KEY_A} tenantA;{KEY_B} tenantB;{KEY_ADMIN} ops admin"

# Both protocol eras the installed Client speaks: the initialize handshake, and the 2026 per-request one.
MODES = ("legacy", "2026-07-28")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


class LiveServer:
    """``create_app(settings)`` served by uvicorn on 127.0.0.1 in a thread with its own event loop."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app: FastAPI = create_app(settings)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", ws="none")
        self._server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=f"uvicorn-{self.port}", daemon=True)
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.loop.run_until_complete(self._server.serve())
        except BaseException as exc:  # surfaced by start()/stop()
            self._error = exc
        finally:
            self.loop.close()

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"server failed to start: {self._error!r}")
            if time.monotonic() > deadline:
                raise TimeoutError("server did not start within 20 s")
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)
        assert not self._thread.is_alive(), "server thread did not stop"
        if self._error is not None:
            raise self._error

    @property
    def service(self) -> Any:
        return self.app.state.farm.service

    def on_loop(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the server's event loop (the service is not thread-safe) and return its result."""

        async def call() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(timeout=20)

    def http(self, key: str | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, headers=auth(key) if key else {}, timeout=20)


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Factory: ``make_server(**settings)`` starts a server on its own data dir; all stop at teardown."""
    started: list[LiveServer] = []

    def make(**overrides: Any) -> LiveServer:
        data_dir = overrides.pop("data_dir", tmp_path / f"data{len(started)}")
        srv = LiveServer(Settings(data_dir=data_dir, **overrides))
        srv.start()
        started.append(srv)
        return srv

    yield make
    errors = []
    for srv in started:
        try:
            srv.stop()
        except BaseException as exc:  # stop every server before reporting
            errors.append(exc)
    if errors:
        raise errors[0]


@pytest.fixture
def server(make_server: Callable[..., LiveServer]) -> LiveServer:
    """Local single-user mode: no API keys."""
    return make_server()


@pytest.fixture
def keyed_server(make_server: Callable[..., LiveServer]) -> LiveServer:
    """Two tenants and an admin key."""
    return make_server(api_keys=API_KEYS)


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with server.http() as c:
        yield c


@asynccontextmanager
async def mcp_session(url: str, mode: str, key: str | None = None) -> AsyncIterator[Client]:
    """The real MCP client over streamable HTTP."""
    async with (
        httpx2.AsyncClient(headers=auth(key) if key else {}, timeout=20) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as c,
    ):
        yield c


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)
