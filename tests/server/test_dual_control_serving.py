"""A dual-control environment served: the agent's MCP endpoint and REST listings show the agent's
tools only, and the user's tools cannot be called through them; the user has an endpoint of their
own (MCP and REST), and the log, resets, forks and rebuilds after ``kill -9`` cover both actors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx

from ..envs.engine.test_dual_control import PHONE, write_phone_catalog
from .conftest import call_rest, farm_error, mcp_session, rpc, run


def test_the_agent_endpoint_lists_and_calls_the_agents_tools_only(make_server, tmp_path: Path) -> None:
    write_phone_catalog(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        created = client.post("/episodes", json={"task_id": "phone_support-001"})
        assert created.status_code == 201, created.text
        episode = created.json()
        assert [t["name"] for t in episode["tools"]] == ["get_line", "resume_line"]
        listed = client.get("/envs/phone_support").json()
        assert [t["name"] for t in listed["tool_list"]] == ["get_line", "resume_line"]
        refused = call_rest(client, episode["episode_id"], "toggle_airplane_mode", {"device_id": "D1"})
        assert refused["is_error"] and "Tool 'toggle_airplane_mode' not found" in json.dumps(refused)

    async def over_mcp() -> tuple[list[str], bool, str]:
        async with mcp_session(episode["mcp_url"], "legacy") as c:
            names = [t.name for t in (await c.list_tools()).tools]
            peek = await c.call_tool("toggle_airplane_mode", {"device_id": "D1"})
            return names, bool(peek.is_error), peek.content[0].text

    names, is_error, text = run(over_mcp())
    assert names == ["get_line", "resume_line"]
    assert is_error and "not found" in text


# -- the user's side: its own endpoint, REST calls, and a log that says who acted --------------------


def _start(client: httpx.Client) -> dict[str, Any]:
    created = client.post("/episodes", json={"task_id": "phone_support-001"})
    assert created.status_code == 201, created.text
    episode: dict[str, Any] = created.json()
    return episode


def test_the_user_endpoint_lists_and_calls_the_users_tools_and_reads_the_user_guide(make_server, tmp_path: Path):
    write_phone_catalog(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        episode = _start(client)
        assert episode["user_mcp_url"] == episode["mcp_url"].replace("/mcp", "/user/mcp")
        assert [t["name"] for t in episode["user_tools"]] == ["check_status_bar", "toggle_airplane_mode"]
        assert episode["user_guide"] == PHONE["user_guide"]
        detail = client.get("/envs/phone_support").json()
        assert [t["name"] for t in detail["user_tool_list"]] == ["check_status_bar", "toggle_airplane_mode"]
        eid = episode["episode_id"]
        assert not call_rest(client, eid, "resume_line", {"line_id": "L1"})["is_error"]

    async def as_the_user() -> tuple[list[str], str, str, bool, str]:
        async with mcp_session(episode["user_mcp_url"], "legacy") as c:
            names = [t.name for t in (await c.list_tools()).tools]
            (resource,) = (await c.list_resources()).resources
            guide = (await c.read_resource(resource.uri)).contents[0]
            await c.call_tool("toggle_airplane_mode", {"device_id": "D1"})
            bar = await c.call_tool("check_status_bar", {"device_id": "D1"})
            agents = await c.call_tool("resume_line", {"line_id": "L1"})
            return names, getattr(guide, "text", ""), bar.content[0].text, bool(agents.is_error), str(resource.uri)

    names, guide, bar, refused, uri = run(as_the_user())
    assert names == ["check_status_bar", "toggle_airplane_mode"]
    assert guide == PHONE["user_guide"] and uri.endswith("/user-guide")
    assert json.loads(bar) == {"status_bar": "connected"}  # the agent resumed the line; the user left airplane mode
    assert refused  # the agent's tools are not the user's
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        log = client.get(f"/episodes/{eid}").json()["log"]
        assert [(c["tool"], c["actor"], c["transport"], c["is_error"]) for c in log] == [
            ("resume_line", "agent", "rest", False),
            ("toggle_airplane_mode", "user", "mcp", False),
            ("check_status_bar", "user", "mcp", False),
            ("resume_line", "user", "mcp", True),
        ]
        score = client.post(f"/episodes/{eid}/score", json={}).json()
        assert score["reward"] == 1.0, score  # both sides' changes, as the gold made them


def test_rest_calls_say_who_acts_and_an_environment_without_a_user_side_refuses_one(make_server, tmp_path: Path):
    write_phone_catalog(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        eid = _start(client)["episode_id"]
        as_user = {"tool": "toggle_airplane_mode", "arguments": {"device_id": "D1"}, "actor": "user"}
        done = client.post(f"/episodes/{eid}/calls", json=as_user)
        assert done.status_code == 200 and not done.json()["is_error"], done.text
        bad = client.post(f"/episodes/{eid}/calls", json={**as_user, "actor": "customer"})
        assert bad.status_code in (400, 422) and "actor" in bad.text and "customer" in bad.text
        as_agent = client.post(f"/episodes/{eid}/calls", json={**as_user, "actor": "agent"}).json()
        assert as_agent["is_error"] and "not found" in as_agent["message"]
        reset = client.post(f"/episodes/{eid}/reset")
        assert reset.status_code == 200
        bar = client.post(
            f"/episodes/{eid}/calls",
            json={"tool": "check_status_bar", "arguments": {"device_id": "D1"}, "actor": "user"},
        ).json()
        assert bar["content"] == {"status_bar": "airplane mode"}  # the reset put the phone back too

    plain = make_server()  # the built-in catalog: only the agent acts in clinic
    with httpx.Client(base_url=plain.base_url, timeout=60) as client:
        episode = client.post("/episodes", json={"env_id": "clinic"}).json()
        assert "user_mcp_url" not in episode or episode["user_mcp_url"] is None
        refused = client.post(
            f"/episodes/{episode['episode_id']}/calls", json={"tool": "list_providers", "actor": "user"}
        )
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "no_user_side", refused.text
        over_mcp = rpc(episode["mcp_url"].replace("/mcp", "/user/mcp"), "tools/list")
        error = farm_error(over_mcp)
        assert error["code"] == "no_user_side" and "clinic" in error["message"]


def test_a_fork_carries_the_users_calls(make_server, tmp_path: Path):
    write_phone_catalog(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        eid = _start(client)["episode_id"]
        toggle = {"tool": "toggle_airplane_mode", "arguments": {"device_id": "D1"}, "actor": "user"}
        assert not client.post(f"/episodes/{eid}/calls", json=toggle).json()["is_error"]
        fork = client.post("/episodes", json={"fork_of": eid})
        assert fork.status_code == 201, fork.text
        fid = fork.json()["episode_id"]
        assert [(c["tool"], c["actor"]) for c in client.get(f"/episodes/{fid}").json()["log"]] == [
            ("toggle_airplane_mode", "user")
        ]
        bar = {"tool": "check_status_bar", "arguments": {"device_id": "D1"}, "actor": "user"}
        assert client.post(f"/episodes/{fid}/calls", json=bar).json()["content"] == {"status_bar": "no service"}


def test_sigkill_loses_neither_actors_committed_calls(tmp_path: Path, spawn) -> None:
    write_phone_catalog(tmp_path / "catalog")
    data = tmp_path / "data"
    first = spawn(data, {"ENVFARM_CATALOG": str(tmp_path / "catalog")})
    with httpx.Client(base_url=first.base_url, timeout=20) as client:
        eid = _start(client)["episode_id"]
        toggle = {"tool": "toggle_airplane_mode", "arguments": {"device_id": "D1"}, "actor": "user"}
        assert not client.post(f"/episodes/{eid}/calls", json=toggle).json()["is_error"]
        assert not call_rest(client, eid, "resume_line", {"line_id": "L1"})["is_error"]
        before = client.get(f"/episodes/{eid}").json()
    first.kill()
    second = spawn(data, {"ENVFARM_CATALOG": str(tmp_path / "catalog")})
    with httpx.Client(base_url=second.base_url, timeout=20) as client:
        after = client.get(f"/episodes/{eid}").json()
        assert after == before
        assert [c["actor"] for c in after["log"]] == ["user", "agent"]
        bar = {"tool": "check_status_bar", "arguments": {"device_id": "D1"}, "actor": "user"}
        assert client.post(f"/episodes/{eid}/calls", json=bar).json()["content"] == {"status_bar": "connected"}
        assert client.post(f"/episodes/{eid}/score", json={}).json()["reward"] == 1.0


def test_the_console_timeline_shows_who_acted_and_the_users_endpoint(make_server, tmp_path: Path):
    write_phone_catalog(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        episode = _start(client)
        eid = episode["episode_id"]
        toggle = {"tool": "toggle_airplane_mode", "arguments": {"device_id": "D1"}, "actor": "user"}
        assert not client.post(f"/episodes/{eid}/calls", json=toggle).json()["is_error"]
        assert not call_rest(client, eid, "get_line", {"line_id": "L1"})["is_error"]
        page = client.get(f"/console/episodes/{eid}").text
        assert episode["user_mcp_url"] in page
        user_call, agent_call = re.findall(r'<article class="call[^"]*"[^>]*>.*?</article>', page, flags=re.S)
        assert "actor-user" in user_call and ">user</span>" in user_call and "toggle_airplane_mode" in user_call
        assert "actor-agent" in agent_call and ">user</span>" not in agent_call
        live = client.get(f"/console/episodes/{eid}/live?after=0").text
        assert episode["user_mcp_url"] in live  # the poll redraws the status card with both URLs
