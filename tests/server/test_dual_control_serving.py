"""A dual-control environment served: the agent's MCP endpoint and REST listings show the agent's
tools only, and the user's tools cannot be called through them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import httpx

from ..envs.engine.test_dual_control import PHONE, TASK
from .conftest import call_rest, mcp_session, run


def write_phone_catalog(folder: Path) -> None:
    spec = copy.deepcopy(PHONE)
    env = folder / spec["id"]
    env.mkdir(parents=True)
    (env / "seed.json").write_text(json.dumps(spec.pop("seed")), encoding="utf-8")
    (env / "policy.md").write_text(spec.pop("policy"), encoding="utf-8")
    (env / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    (env / "tasks.json").write_text(json.dumps([TASK]), encoding="utf-8")


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
