"""One request must not stall or poison the farm: Host/Origin checks on every route (DNS rebinding), an
``mcp_url`` the caller cannot steer, and a cap on the event streams one tenant holds open."""

from __future__ import annotations

import contextlib
import json
import socket
import time

import httpx

from .conftest import API_KEYS, KEY_A, KEY_B, auth
from .test_rest import error_of

EVIL = "evil.example"
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
# A handshake-era client (no MCP-Protocol-Version header) may open the standalone event stream.
STREAM_HEADERS = {"Accept": "text/event-stream"}


def host_of(srv) -> str:
    return srv.base_url.removeprefix("http://")


def test_a_foreign_host_is_refused_on_rest_and_mcp_before_anything_happens(server, client):
    for method, path, body in (("GET", "/envs", None), ("POST", "/episodes", {"task_id": "clinic-001"})):
        err = error_of(client.request(method, path, json=body, headers={"Host": EVIL}), 421)
        assert err["code"] == "host_not_allowed" and err["field"] == "host"
        assert f"Host header '{EVIL}'" in err["message"] and "ENVFARM_ALLOWED_HOSTS" in err["message"]
    assert error_of(client.get("/envs", headers={"Host": f"{EVIL}:{server.port}"}), 421)["field"] == "host"
    assert client.get("/episodes").json()["total"] == 0  # the refused POST created nothing

    ep = client.post("/episodes", json={"task_id": "clinic-001"}).json()
    gold = client.get("/tasks/clinic-001", headers={"Host": EVIL})
    assert error_of(gold, 421)["code"] == "host_not_allowed"
    call = client.post(f"/episodes/{ep['episode_id']}/calls", json={"tool": "list_providers"}, headers={"Host": EVIL})
    assert error_of(call, 421)["code"] == "host_not_allowed"
    mcp = client.post(ep["mcp_url"], json=TOOLS_LIST, headers={"Host": EVIL})
    assert error_of(mcp, 421)["code"] == "host_not_allowed"  # the same JSON error as REST, not the SDK's text
    assert client.get(f"/episodes/{ep['episode_id']}").json()["calls"] == 0

    health = client.get("/healthz", headers={"Host": "10.1.2.3:8765"})  # load balancers probe by address
    assert health.status_code == 200 and health.json()["status"] == "ok"


def test_a_request_without_a_host_header_is_refused(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /envs HTTP/1.0\r\n\r\n")
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 421") and b'"host_not_allowed"' in body


def test_header_values_are_read_without_the_whitespace_around_them(server):
    """RFC 9110 §5.5, whichever HTTP parser uvicorn runs (httptools keeps trailing whitespace)."""

    def reply_to(host: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(b"GET /envs HTTP/1.0\r\nHost: " + host + b"\r\n\r\n")
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
        return reply

    assert reply_to(host_of(server).encode() + b" \t ").startswith(b"HTTP/1.1 200")
    assert reply_to(b"  " + host_of(server).encode()).startswith(b"HTTP/1.1 200")
    assert reply_to(EVIL.encode() + b" ").startswith(b"HTTP/1.1 421")

    # The MCP SDK compares Mcp-Name with the tool named in the body.
    episode = httpx.post(server.base_url + "/episodes", json={"task_id": "clinic-001"}).json()
    path = episode["mcp_url"].removeprefix(server.base_url).encode()
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    params = {"name": "list_providers", "arguments": {}, "_meta": meta}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()
    head = (
        b"POST " + path + b" HTTP/1.0\r\nHost: " + host_of(server).encode() + b"\r\n"
        b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        b"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call \r\nMcp-Name:  list_providers \t\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head + body)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    status, _, answer = reply.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 200"), reply
    assert json.loads(answer)["result"]["isError"] is False, answer


def test_a_foreign_origin_is_refused_but_loopback_and_absent_origins_pass(server, client):
    err = error_of(client.post("/episodes", json={"env_id": "clinic"}, headers={"Origin": f"http://{EVIL}"}), 403)
    assert err["code"] == "origin_not_allowed" and err["field"] == "origin" and f"'http://{EVIL}'" in err["message"]
    for origin in ("null", f"http://{EVIL}:{server.port}", f"http://127.0.0.1.{EVIL}"):
        assert error_of(client.get("/envs", headers={"Origin": origin}), 403)["code"] == "origin_not_allowed"
    assert client.get("/episodes").json()["total"] == 0

    # The /docs page posts with its own origin; non-browser clients send none.
    own = client.post("/episodes", json={"env_id": "clinic"}, headers={"Origin": server.base_url})
    assert own.status_code == 201, own.text
    assert client.post("/episodes", json={"env_id": "clinic"}).status_code == 201
    mcp = client.post(own.json()["mcp_url"], json=TOOLS_LIST, headers={"Origin": f"http://{EVIL}"})
    assert error_of(mcp, 403)["code"] == "origin_not_allowed"


def test_loopback_names_pass_on_any_port(server, client):
    for host in (host_of(server), f"localhost:{server.port}", f"[::1]:{server.port}", "localhost"):
        response = client.get("/envs", headers={"Host": host})
        assert response.status_code == 200, (host, response.text)
    assert error_of(client.get("/envs", headers={"Host": "localhost.evil.example"}), 421)["field"] == "host"


def test_configured_hosts_and_origins_pass_on_rest_and_mcp(make_server):
    srv = make_server(allowed_hosts=["farm.example.org"], allowed_origins=["https://app.example.org"])
    farm, app = {"Host": "farm.example.org"}, {"Origin": "https://app.example.org"}
    with srv.http() as c:
        ep = c.post("/episodes", json={"env_id": "clinic"}, headers=farm | app)
        assert ep.status_code == 201, ep.text
        mcp = c.post(
            ep.json()["mcp_url"],
            json=TOOLS_LIST,
            headers=farm | app | {"Accept": "application/json, text/event-stream"},
        )
        assert mcp.status_code == 200 and mcp.json()["result"]["tools"], mcp.text  # the SDK's check agrees
        assert error_of(c.get("/envs", headers={"Host": "farm.example.org:9999"}), 421)["field"] == "host"
        assert error_of(c.get("/envs", headers={"Host": EVIL}), 421)["field"] == "host"
        assert error_of(c.get("/envs", headers=farm | {"Origin": "https://farm.example.org"}), 403)["field"] == "origin"


def test_public_url_host_and_origin_are_allowed_and_give_the_mcp_url(make_server):
    srv = make_server(api_keys=API_KEYS, public_url="https://farm.example.org/")
    with srv.http(KEY_A) as c:
        for host in ("farm.example.org", "farm.example.org:443"):
            headers = {"Host": host, "Origin": "https://farm.example.org"}
            ep = c.post("/episodes", json={"env_id": "clinic"}, headers=headers)
            assert ep.status_code == 201, ep.text
            assert ep.json()["mcp_url"] == f"https://farm.example.org/episodes/{ep.json()['episode_id']}/mcp"
        assert error_of(c.get("/envs", headers={"Host": "farm.example.org:8443"}), 421)["field"] == "host"
        assert error_of(c.get("/envs", headers={"Origin": "http://farm.example.org"}), 403)["field"] == "origin"


def test_mcp_url_is_the_bound_address_whatever_the_host_header_says(make_server):
    srv = make_server(allowed_hosts=["farm.example.org", "farm.example.org:*"])
    with srv.http() as c:
        for host in ("farm.example.org", f"farm.example.org:{srv.port + 1}", f"localhost:{srv.port}"):
            ep = c.post("/episodes", json={"env_id": "clinic"}, headers={"Host": host}).json()
            assert ep["mcp_url"] == f"{srv.base_url}/episodes/{ep['episode_id']}/mcp", host


def _open_stream(stack: contextlib.ExitStack, url: str, key: str) -> httpx.Response:
    client = stack.enter_context(httpx.Client(timeout=httpx.Timeout(20, read=60)))
    return stack.enter_context(client.stream("GET", url, headers=auth(key) | STREAM_HEADERS))


def _refused_stream(url: str, key: str) -> dict:
    """The JSON error of a stream request that must be refused with 429. A stream that opens instead
    fails the test at once: its pings would keep a plain GET waiting for ever."""
    with httpx.Client(timeout=20) as client, client.stream("GET", url, headers=auth(key) | STREAM_HEADERS) as r:
        assert r.status_code == 429, r.status_code
        r.read()
        return error_of(r, 429)


def _wait_for_stream(stack: contextlib.ExitStack, url: str, key: str) -> httpx.Response:
    """A stream opened as soon as the server has noticed a closed one (it learns of it asynchronously)."""
    deadline = time.monotonic() + 10
    while True:
        inner = contextlib.ExitStack()
        response = _open_stream(inner, url, key)
        if response.status_code == 200:
            stack.enter_context(inner)
            return response
        inner.close()
        assert response.status_code == 429 and time.monotonic() < deadline, response.status_code
        time.sleep(0.05)


def test_open_streams_are_capped_per_tenant_and_freed_when_they_close(make_server):
    srv = make_server(api_keys=API_KEYS, max_streams_per_tenant=2)
    with srv.http(KEY_A) as a, srv.http(KEY_B) as b:
        url_a = a.post("/episodes", json={"env_id": "clinic"}).json()["mcp_url"]
        url_b = b.post("/episodes", json={"env_id": "clinic"}).json()["mcp_url"]
        # A GET the SDK refuses at once (a 2026-era client has no such stream) keeps no slot.
        for _ in range(3):
            modern = a.get(url_a, headers=STREAM_HEADERS | {"MCP-Protocol-Version": "2026-07-28"})
            assert modern.status_code == 405
        with contextlib.ExitStack() as held:
            first, second = (_open_stream(held, url_a, KEY_A) for _ in range(2))
            for stream in (first, second):
                assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")

            err = _refused_stream(url_a, KEY_A)
            assert err["code"] == "limit_exceeded" and err["field"] == "streams"
            assert "tenantA" in err["message"] and "2 open event streams" in err["message"]
            # Requests that are not streams are not capped, and the other tenant is unaffected.
            assert a.post(url_a, json=TOOLS_LIST, headers={"Accept": "application/json"}).status_code == 200
            assert _open_stream(held, url_b, KEY_B).status_code == 200

            # Closing a stream (the client going away) frees its slot.
            first.close()
            _wait_for_stream(held, url_a, KEY_A)
            assert _refused_stream(url_a, KEY_A)["field"] == "streams"

        # Every stream is closed now: the tenant has its whole allowance back.
        with contextlib.ExitStack() as again:
            for _ in range(2):
                _wait_for_stream(again, url_a, KEY_A)
