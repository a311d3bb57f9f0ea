"""Real servers for the server tests: the app under uvicorn on a loopback port, in a background thread.

Nothing is mocked: requests travel over TCP to the same ASGI app ``envfarm serve`` runs, backed by a
SQLite episode store in the test's temporary directory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server.api import create_app
from server.settings import Settings
from server.threaded import ThreadedServer

from .processes import spawn, store_env  # noqa: F401 - fixtures: ``envfarm serve`` as a process to kill -9

T = TypeVar("T")

KEY_A = "key-aaaaaaaaaaaaaaaa"
KEY_B = "key-bbbbbbbbbbbbbbbb"
KEY_ADMIN = "key-admin-cccccccccccc"
API_KEYS = f"{KEY_A} tenantA;{KEY_B} tenantB;{KEY_ADMIN} ops admin"

# Both protocol eras the installed Client speaks: the initialize handshake, and the 2026 per-request one.
MODES = ("legacy", "2026-07-28")


def farm_error(r: Any, request_id: Any = None) -> dict[str, Any]:
    """A farm error as ``{"code", "message", "field"}``: REST's body as is, or, from an MCP endpoint,
    the JSON-RPC error whose ``data`` carries the REST code, field and status (checked to be well
    formed). An HTTP-level refusal keeps its status and has a null id; a refusal about the episode is
    answered by MCP at 200, with the request's id (``request_id``)."""
    body = r.json()
    if "jsonrpc" not in body:
        return dict(body["error"])
    error = body["error"]
    assert body["jsonrpc"] == "2.0" and body["id"] == request_id, body
    assert (isinstance(error["code"], int) and -32099 <= error["code"] <= -32000) or error["code"] == -32603, body
    assert error["data"]["status"] == r.status_code or (r.status_code == 200 and error["data"]["status"] > 400), body
    status = error["data"]["status"]
    assert error["code"] == (-32603 if status == 500 else -32000 - status % 100 - (50 if status > 500 else 0)), body
    return {"code": error["data"]["code"], "message": error["message"], "field": error["data"]["field"]}


def rpc(
    url: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    mode: str = "legacy",
    key: str | None = None,
    request_id: int | str | None = 1,
) -> httpx.Response:
    """One JSON-RPC request (a notification when ``request_id`` is None) POSTed to an MCP endpoint, as
    a client of ``mode``'s era sends it: a 2026-era request carries its envelope in ``_meta`` and the
    routing headers; a legacy one needs no handshake before it, the farm being stateless."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": dict(params or {})}
    if request_id is not None:
        body["id"] = request_id
    headers = {"Accept": "application/json, text/event-stream", **(auth(key) if key else {})}
    if mode != "legacy":
        body["params"]["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": mode,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "envfarm-tests", "version": "0"},
        }
        headers |= {"MCP-Protocol-Version": mode, "Mcp-Method": method}
        named = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}.get(method)
        if named in body["params"]:
            headers["Mcp-Name"] = body["params"][named]
    return httpx.post(url, json=body, headers=headers, timeout=20)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


class LiveServer(ThreadedServer):
    """``create_app(settings)`` served by uvicorn on 127.0.0.1 in a thread with its own event loop."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        super().__init__(create_app(settings), timeout=20)
        self.base_url = self.url

    @property
    def service(self) -> Any:
        return self.app.state.farm.service

    def http(self, key: str | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, headers=auth(key) if key else {}, timeout=20)

    def metric(self, name: str, key: str | None = None, **labels: str) -> float:
        """The sum of every series of Prometheus metric ``name`` on this server's /metrics (of those
        with every label given, when ``labels`` are)."""
        response = httpx.get(self.base_url + "/metrics", headers=auth(key) if key else {}, timeout=20)
        assert response.status_code == 200, response.text
        text = response.text
        wanted = [f'{label}="{value}"' for label, value in labels.items()]
        return sum(
            float(line.split()[-1])
            for line in text.splitlines()
            if not line.startswith("#")
            and line.split("{")[0].split()[0] == name
            and all(w in line.rsplit(" ", 1)[0] for w in wanted)
        )


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


#: A booking that clinic-001's gold actions make, and the answer that completes that task.
CLINIC_TASK = "clinic-001"
CLINIC_BOOKING = {"patient_id": "P0001", "slot_id": "S021", "reason": "Persistent cough for three weeks"}
CLINIC_ANSWER = {"answer": "Booked A1001 at 10:30; your copay is 20."}


def call_rest(c: httpx.Client, episode_id: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool call over REST that must be answered (a refused call is a 200 with ``is_error``)."""
    response = c.post(f"/episodes/{episode_id}/calls", json={"tool": tool, "arguments": arguments})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def appointments(c: httpx.Client, episode_id: str) -> list[str]:
    """Patient P0001's appointments in a clinic episode, as sorted "id:status" strings."""
    found = call_rest(c, episode_id, "get_patient_appointments", {"patient_id": "P0001"})["content"]
    return sorted(f"{a['appointment_id']}:{a['status']}" for a in found)
