"""The key is checked before any body is read, only authenticated tenants count for fairness, and a
body must arrive in time (against a live server, over raw sockets: an HTTP client would send the
whole body at once).

An idle socket trickling a POST body with a made-up key used to hold a request in flight for as long
as it liked and pass for a busy tenant, so the only real tenant was paced thousands of times.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import pytest

from .conftest import API_KEYS, CLINIC_TASK, KEY_A, KEY_ADMIN, auth, call_rest

MADE_UP_KEY = "made-up-key-0123456789"
#: Long enough for anything this test waits for on a loaded machine; nothing is expected to take it.
PATIENCE_SECONDS = 60.0
ANNOUNCED_BODY_BYTES = 1_000


def _open(server: Any, method: str, path: str, key: str, *, announced: int, first_bytes: bytes = b"") -> socket.socket:
    """A connection that sent a request's headers announcing ``announced`` body bytes, and then
    ``first_bytes`` of the body only."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=PATIENCE_SECONDS)
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {key}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {announced}\r\n\r\n"
    )
    sock.sendall(head.encode() + first_bytes)
    return sock


def _response(sock: socket.socket) -> tuple[int, dict[str, str], Any]:
    """Status, headers and JSON body of the one response on ``sock`` (waits up to PATIENCE_SECONDS)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the server closed the connection without answering: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    length = int(headers["content-length"])
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection in the middle of its answer"
        body += chunk
    return int(status_line.split()[1]), headers, json.loads(body[:length])


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (an end of stream arrives; waits up to PATIENCE_SECONDS)."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def _episode(server: Any) -> str:
    with server.http(KEY_A) as a:
        created = a.post("/episodes", json={"task_id": CLINIC_TASK})
        assert created.status_code == 201, created.text
        return str(created.json()["episode_id"])


def _fair_share_tenants(server: Any) -> set[str]:
    """Every tenant the pacing meter or the heavy-body turns have counted lately."""
    state = server.app.state
    return server.on_loop(lambda: state.busy_meter.tenants() | state.heavy_turns.tenants())


def _paced_tenants(server: Any) -> dict[str, float]:
    with server.http(KEY_ADMIN) as admin:
        text = admin.get("/metrics").text
    series = "envfarm_paced_requests_total{"
    return {
        line.split('tenant="')[1].split('"')[0]: float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith(series)
    }


@pytest.mark.parametrize("endpoint", ["calls", "mcp"])
def test_a_made_up_key_gets_401_before_any_body_byte_and_the_connection_is_closed(make_server, endpoint):
    server = make_server(api_keys=API_KEYS)
    episode = _episode(server)
    with _open(server, "POST", f"/episodes/{episode}/{endpoint}", MADE_UP_KEY, announced=ANNOUNCED_BODY_BYTES) as sock:
        status, headers, body = _response(sock)  # not one byte of the body was sent
        assert status == 401, body
        assert headers["connection"] == "close"
        if endpoint == "mcp":
            assert body["error"]["data"] == {"status": 401, "code": "unauthorized", "field": "authorization"}, body
        else:
            assert body["error"]["code"] == "unauthorized" and body["error"]["field"] == "authorization", body
        assert _closed_by_server(sock)
    assert _fair_share_tenants(server) <= {"tenantA"}


def test_tricklers_with_made_up_keys_never_hold_back_a_real_tenant(make_server):
    server = make_server(api_keys=API_KEYS)
    episode = _episode(server)
    stop = threading.Event()
    answers: list[int] = []

    def trickle(endpoint: str) -> None:
        # Connect, send the headers and one body byte, read the answer; again, until the tenant is done.
        while not stop.is_set():
            path = f"/episodes/{episode}/{endpoint}"
            with _open(server, "POST", path, MADE_UP_KEY, announced=ANNOUNCED_BODY_BYTES, first_bytes=b"{") as sock:
                answers.append(_response(sock)[0])

    tricklers = [threading.Thread(target=trickle, args=(endpoint,)) for endpoint in ("calls", "mcp", "calls")]
    for thread in tricklers:
        thread.start()
    tenants_seen: set[str] = set()
    answered_during_calls = 0
    try:
        with server.http(KEY_A) as a:
            for n in range(100):
                call_rest(a, episode, "get_patient_appointments", {"patient_id": "P0001"})
                if n % 10 == 0:
                    tenants_seen |= _fair_share_tenants(server)
            answered_during_calls = len(answers)
    finally:
        stop.set()
        for thread in tricklers:
            thread.join(PATIENCE_SECONDS)
    assert answered_during_calls > 0  # the tricklers were connecting all along
    assert set(answers) == {401}
    assert tenants_seen | _fair_share_tenants(server) <= {"tenantA", "ops"}  # ops: the admin reading metrics
    assert _paced_tenants(server).get("tenantA", 0) == 0  # alone among real tenants: never paced
    assert set(_paced_tenants(server)) <= {"tenantA", "ops"}


@pytest.mark.parametrize("endpoint", ["calls", "mcp"])
def test_a_real_tenants_body_that_stops_arriving_gets_408_and_the_connection_closed(make_server, endpoint):
    server = make_server(api_keys=API_KEYS, body_read_timeout_seconds=0.5)
    episode = _episode(server)
    path = f"/episodes/{episode}/{endpoint}"
    with _open(server, "POST", path, KEY_A, announced=ANNOUNCED_BODY_BYTES, first_bytes=b'{"tool": ') as sock:
        status, headers, body = _response(sock)
        assert status == 408, body
        assert headers["connection"] == "close"
        error = body["error"]["data"] if endpoint == "mcp" else body["error"]
        assert error["code"] == "body_timeout" and error["field"] == "body", body
        assert _closed_by_server(sock)
    with server.http(KEY_A) as a:  # the tenant and its episode go on as before
        call_rest(a, episode, "get_patient_appointments", {"patient_id": "P0001"})


def test_an_event_stream_outlives_the_body_deadline(make_server):
    server = make_server(api_keys=API_KEYS, body_read_timeout_seconds=0.2)
    episode = _episode(server)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=PATIENCE_SECONDS)
    with sock:
        # A legacy-era GET (no MCP-Protocol-Version header): the SDK's standalone event stream.
        sock.sendall(
            (
                f"GET /episodes/{episode}/mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                f"Authorization: {auth(KEY_A)['Authorization']}\r\nAccept: text/event-stream\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(65536)
            assert chunk, head
            head += chunk
        assert head.startswith(b"HTTP/1.1 200"), head
        time.sleep(1.0)  # well past the deadline: had reading been timed, the stream would have ended
        assert server.on_loop(lambda: dict(server.app.state.stream_slots.open)) == {"tenantA": 1}
        sock.settimeout(0.1)
        with pytest.raises(TimeoutError):  # and the connection is still open
            sock.recv(1)
