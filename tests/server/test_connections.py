"""Limits in front of the app: a request's headers have a deadline, and one address (or all of them)
cannot hold the farm's connections, so other tenants' calls go through while idle sockets pile up.

Real sockets against a live server on loopback. The hostile ones come from 127.0.0.2 (every 127/8
address reaches the loopback interface on Linux), the bystander from 127.0.0.1. Nothing is timed:
what the server does later is waited for with a generous deadline.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .conftest import LiveServer

DEADLINE = 60.0
HOSTILE = "127.0.0.2"


@contextmanager
def _sockets(
    server: LiveServer, n: int, first_bytes: bytes = b"", source: str = HOSTILE
) -> Iterator[list[socket.socket]]:
    """``n`` connections from ``source`` that send ``first_bytes`` (part of a request) and wait."""
    opened: list[socket.socket] = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((source, 0))
            s.connect(("127.0.0.1", server.port))
            if first_bytes:
                s.sendall(first_bytes)
            opened.append(s)
        yield opened
    finally:
        for s in opened:
            s.close()


def _answer(s: socket.socket) -> bytes:
    """Everything the server sends on ``s`` until it closes it (within the deadline)."""
    s.settimeout(DEADLINE)
    chunks = []
    while chunk := s.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _one_response(s: socket.socket) -> bytes:
    """One whole response (head and a body of its content-length) on a connection kept open."""
    s.settimeout(DEADLINE)
    data = b""
    while b"\r\n\r\n" not in data:
        data += _more(s)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length")
    )
    while len(body) < length:
        body += _more(s)
    return head + b"\r\n\r\n" + body


def _more(s: socket.socket) -> bytes:
    try:
        chunk = s.recv(65536)
    except ConnectionResetError:
        chunk = b""
    assert chunk, "the server closed the connection before a whole response"
    return chunk


def _bystander_calls(server: LiveServer, n: int = 10) -> list[int]:
    with server.http() as c:
        created = c.post("/episodes", json={"env_id": "clinic"})
        assert created.status_code == 201, created.text
        url = f"/episodes/{created.json()['episode_id']}/calls"
        return [c.post(url, json={"tool": "list_providers"}).status_code for _ in range(n)]


def test_headers_that_do_not_arrive_in_time_get_408_and_the_connection_closed(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(header_timeout_seconds=1)
    with (
        _sockets(server, 1, b"POST /episodes HTTP/1.1\r\nHost: 127.0.0.1\r\n") as (partial,),
        _sockets(server, 1) as (silent,),
    ):
        for s in (partial, silent):
            answer = _answer(s)
            assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
            assert b'"code": "header_timeout"' in answer and b"within 1 s" in answer
    # a kept-alive connection: the first request is answered, the half-sent second one is timed out
    with _sockets(server, 1, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "127.0.0.1") as (kept,):
        first = _one_response(kept)
        assert first.startswith(b"HTTP/1.1 200 ") and first.endswith(b"}"), first[:200]
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHo")
        answer = _answer(kept)
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert server.app.state.farm.connections.timed_out == 3
    assert _bystander_calls(server) == [200] * 10  # headers sent at once are never in the way


def test_one_address_holding_idle_connections_leaves_the_farm_to_the_others(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(max_connections_per_address=50, header_timeout_seconds=120)
    limits = server.app.state.farm.connections
    with _sockets(server, 400, b"GET /healthz HTTP/1.1\r\n") as held:
        answers = [_answer(s) for s in held[50:]]
        assert all(a.startswith(b"HTTP/1.1 503 ") and b"ENVFARM_MAX_CONNECTIONS_PER_ADDRESS" in a for a in answers)
        assert limits.refused == 350
        assert limits.open_by_address[HOSTILE] == 50
        assert _bystander_calls(server, 20) == [200] * 20
    deadline = time.monotonic() + DEADLINE
    while limits.open_by_address.get(HOSTILE):  # closed by the client: counted out
        assert time.monotonic() < deadline, limits.open_by_address
        time.sleep(0.05)


def test_past_the_farms_connection_cap_a_new_connection_is_refused_with_the_setting_named(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(max_connections=40, max_connections_per_address=0, header_timeout_seconds=120)
    with _sockets(server, 40) as held:
        assert len(held) == 40
        deadline = time.monotonic() + DEADLINE
        while server.app.state.farm.connections.open < 40:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with server.http() as c:
            try:
                response = c.get("/healthz")
            except Exception as exc:  # the refusal may reach httpx as a closed connection
                assert "closed" in str(exc).lower() or "disconnect" in str(exc).lower(), exc
            else:
                assert response.status_code == 503
                error = response.json()["error"]
                assert error["code"] == "too_many_connections" and "ENVFARM_MAX_CONNECTIONS" in error["message"]
    # once they are gone, everyone is served again
    deadline = time.monotonic() + DEADLINE
    while server.app.state.farm.connections.open >= 40:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert _bystander_calls(server, 3) == [200] * 3


def test_a_kept_alive_connection_idle_past_a_client_pools_expiry_still_takes_a_request(
    make_server: Callable[..., LiveServer],
) -> None:
    """httpx keeps an idle connection for 5 s: a farm closing it at the same moment resets a request sent
    on it, which a client cannot retry when it is not idempotent (``POST /episodes``)."""
    server = make_server()
    request = b"POST /episodes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    body = b'{"env_id": "clinic"}'
    request += b"Content-Length: %d\r\n\r\n" % len(body) + body
    with _sockets(server, 1, request, "127.0.0.1") as (kept,):
        assert _one_response(kept).startswith(b"HTTP/1.1 201 ")
        time.sleep(6.0)
        kept.sendall(request)
        assert _one_response(kept).startswith(b"HTTP/1.1 201 ")
