"""An episode that cannot be served (closed, expired, unknown) is answered by MCP itself, so that every
client shows the farm's message: the handshake as always, then a JSON-RPC error with the request's id at
HTTP 200, and for ``tools/call`` an ``isError`` result the model reads. mcp 1.x and LangChain are in
test_mcp1_clients.py, openai-agents in test_openai_agents_mcp.py."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from server.mcp_adapter import INSTRUCTION_PROMPT, policy_uri

from .conftest import LiveServer, farm_error, mcp_session, rpc, run

#: The installed client's ways to connect: the handshake, era negotiation (the default), the 2026 era.
CLIENT_MODES = ("legacy", "auto", "2026-07-28")
ERAS = ("legacy", "2026-07-28")
POLICY = policy_uri("clinic")
HANDSHAKE = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "tests", "version": "0"}}


def gone_episodes(srv: LiveServer) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """A closed, an expired and an unknown episode of ``srv`` (whose TTL is short): each state mapped to
    its MCP URL, the message the farm gives, and the JSON-RPC error's code and data."""
    with srv.http() as c:
        closed, expired = (c.post("/episodes", json={"task_id": "clinic-001"}).json() for _ in range(2))
        assert c.delete(f"/episodes/{closed['episode_id']}").status_code == 200
        deadline = time.monotonic() + 60
        while c.get(f"/episodes/{expired['episode_id']}").json()["status"] != "expired":
            assert time.monotonic() < deadline, "the episode never expired"
            srv.on_loop(srv.service.reap)
            time.sleep(0.05)
    ended = {"code": -32010, "data": {"status": 410, "code": "episode_ended", "field": "episode_id"}}
    return {
        "closed": (closed["mcp_url"], f"Episode '{closed['episode_id']}' is closed", ended),
        "expired": (expired["mcp_url"], f"Episode '{expired['episode_id']}' is expired", ended),
        "unknown": (
            f"{srv.base_url}/episodes/ep_nope/mcp",
            "Episode 'ep_nope' not found",
            {"code": -32004, "data": {"status": 404, "code": "episode_not_found", "field": "episode_id"}},
        ),
    }


@pytest.fixture
def gone(make_server: Callable[..., LiveServer]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    return gone_episodes(make_server(episode_ttl_seconds=0.01))


@pytest.mark.parametrize("mode", CLIENT_MODES)
def test_the_sdk_client_connects_and_shows_the_message(gone, mode):
    async def go(url: str) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with mcp_session(url, mode) as c:  # the handshake (or discover) succeeds
            seen["version"] = c.protocol_version
            seen["call"] = await c.call_tool("list_providers", {"specialty": None})
            for name, request in (
                ("list", c.list_tools()),
                ("resources", c.list_resources()),
                ("read", c.read_resource(POLICY)),
                ("prompt", c.get_prompt(INSTRUCTION_PROMPT)),
            ):
                with pytest.raises(MCPError) as info:
                    await request
                seen[name] = info.value
        return seen

    for state, (url, message, error) in gone.items():
        seen = run(go(url))
        assert seen["version"] == ("2025-11-25" if mode == "legacy" else "2026-07-28"), state
        assert seen["call"].is_error and [c.text for c in seen["call"].content] == [message], state
        for name in ("list", "resources", "read", "prompt"):
            assert (seen[name].code, seen[name].message, seen[name].data) == (error["code"], message, error["data"])


@pytest.mark.parametrize("era", ERAS)
def test_on_the_wire(gone, era):
    url, message, error = gone["closed"]
    if era == "legacy":  # the handshake is answered as for any episode: it describes the server
        hello = rpc(url, "initialize", HANDSHAKE)
        assert hello.status_code == 200 and hello.json()["result"]["protocolVersion"] == "2025-11-25"
    else:  # a discover answer that offers the era, so clients go on to a request that says why
        hello = rpc(url, "server/discover", mode=era)
        assert hello.status_code == 200 and era in hello.json()["result"]["supportedVersions"]
    assert "tools" in hello.json()["result"]["capabilities"]

    # A notification has no answer, as the spec says: 202 and no body.
    note = rpc(url, "notifications/cancelled", {"requestId": 5}, mode=era, request_id=None)
    assert (note.status_code, note.content) == (202, b"")

    # A request: HTTP 200, a JSON-RPC error with the request's own id.
    for request_id in ("req-7", 7):
        listed = rpc(url, "tools/list", mode=era, request_id=request_id)
        assert listed.status_code == 200 and listed.headers["content-type"].startswith("application/json")
        assert listed.json()["error"] == {"message": message, **error}
        assert farm_error(listed, request_id)["code"] == "episode_ended"
    read = rpc(url, "resources/read", {"uri": POLICY}, mode=era, request_id=8)
    assert read.status_code == 200 and read.json()["id"] == 8 and read.json()["error"]["message"] == message

    # A tool call: a result, flagged isError, whose text is the farm's message.
    called = rpc(url, "tools/call", {"name": "list_providers", "arguments": {}}, mode=era, request_id=9)
    assert called.status_code == 200 and called.json()["id"] == 9
    result = called.json()["result"]
    assert result["isError"] is True and result["content"] == [{"type": "text", "text": message}]


def test_a_get_stream_of_a_gone_episode_is_405_with_the_farms_message(gone):
    """A GET carries no JSON-RPC request to answer: 405, which MCP clients read as "no stream here" and
    go on to their next request (answered in band), with the farm's message and code in the body. A
    404/410 here made the Inspector stop before ``tools/list`` and print an empty tool list."""
    for kind, code in (("closed", "episode_ended"), ("unknown", "episode_not_found")):
        url, message, _ = gone[kind]
        r = httpx.get(url, headers={"Accept": "text/event-stream"}, timeout=20)
        assert r.status_code == 405 and farm_error(r) == {"code": code, "message": message, "field": "episode_id"}


@pytest.mark.parametrize("mode", CLIENT_MODES)
def test_an_episode_ended_during_a_session_answers_the_next_call(client, mode):
    ep = client.post("/episodes", json={"task_id": "clinic-001"}).json()

    async def go() -> tuple[Any, Any]:
        async with mcp_session(ep["mcp_url"], mode) as c:
            before = await c.call_tool("list_providers", {"specialty": None})
            assert client.delete(f"/episodes/{ep['episode_id']}").status_code == 200
            return before, await c.call_tool("list_providers", {"specialty": None})

    before, after = run(go())
    assert not before.is_error and after.is_error
    assert [c.text for c in after.content] == [f"Episode '{ep['episode_id']}' is closed"]
