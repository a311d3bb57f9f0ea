"""The farm through fastmcp's client, which turns every structured result into Python values with a
type built from the tool's outputSchema: each gold call of the reference tasks must come through."""

from __future__ import annotations

import json

import httpx
import pytest

from envs import Catalog

from ..mcp_clients import client_module
from .conftest import run

fastmcp = client_module("fastmcp")

CATALOG = Catalog()


@pytest.mark.parametrize("env_id", ["clinic", "retail"])
def test_gold_calls_through_fastmcp(client: httpx.Client, env_id: str) -> None:
    entry = CATALOG.get(env_id)
    episodes = []
    for task in entry.tasks:
        r = client.post("/episodes", json={"task_id": task.id})
        assert r.status_code == 201, r.text
        episodes.append((task, r.json()["mcp_url"]))

    async def go() -> tuple[int, int]:
        structured = calls = 0
        for task, url in episodes:
            async with fastmcp.Client(url) as c:
                tools = {t.name: t for t in await c.list_tools()}
                for call in task.gold_actions:
                    result = await c.call_tool(call.tool, call.arguments)  # raises if a result misfits
                    assert not result.is_error, result.content
                    calls += 1
                    if tools[call.tool].output_schema is not None:
                        assert result.structured_content == json.loads(result.content[0].text)
                        assert result.data is not None
                        structured += 1
                    else:
                        assert result.structured_content is None or isinstance(result.structured_content, dict)
        return structured, calls

    structured, calls = run(go())
    assert calls > 0 and structured > 0
