"""A tool result holding a number JSON cannot carry (SQLite's infinity) is refused the same way on
every transport: a ResultError tool error over REST (``is_error``) and MCP (``isError``), with the
same message, and a write tool's changes undone. Before, REST wrote ``null`` and MCP ``"Infinity"``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envs import paths

from .conftest import LiveServer, call_rest, mcp_session, run

OVERFLOWING_TOOLS = [
    {
        "name": "overflowing_total",
        "description": "A total SQLite computes as infinity.",
        "kind": "read",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        "steps": [{"kind": "return", "shape": "one", "sql": "SELECT 'all' AS plans, 1e308 * 10 AS total"}],
    },
    {
        "name": "scale_copay",
        "description": "Multiply a plan's copay by a factor and return the plan.",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {"plan_id": {"type": "string"}, "factor": {"type": "number"}},
            "required": ["plan_id", "factor"],
            "additionalProperties": False,
        },
        "steps": [
            {"kind": "exec", "sql": "UPDATE insurance_plans SET copay = copay * :factor WHERE plan_id = :plan_id"},
            {
                "kind": "return",
                "shape": "many",
                "json_columns": ["copays"],
                "sql": "SELECT plan_id, json_array(copay) AS copays FROM insurance_plans WHERE plan_id = :plan_id",
            },
        ],
    },
]


@pytest.fixture
def server(make_server: Callable[..., LiveServer], tmp_path: Path) -> LiveServer:
    catalog = tmp_path / "catalog"
    shutil.copytree(paths.BUILTIN_CATALOG / "clinic", catalog / "clinic")
    spec_file = catalog / "clinic" / paths.SPEC_FILE
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    spec["tools"] += OVERFLOWING_TOOLS
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    return make_server(catalog=catalog)


def _over_mcp(url: str, tool: str, arguments: dict[str, Any]) -> Any:
    async def call() -> Any:
        async with mcp_session(url, "legacy") as session:
            return await session.call_tool(tool, arguments)

    return run(call())


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("overflowing_total", {}, "The result holds inf at total, a number JSON cannot carry"),
        (
            "scale_copay",
            {"plan_id": "ACME-PLUS", "factor": 1e308},
            "The result holds inf at copays[0], a number JSON cannot carry",
        ),
    ],
)
def test_a_non_finite_result_is_the_same_tool_error_over_rest_and_mcp(
    server: LiveServer, tool: str, arguments: dict[str, Any], message: str
) -> None:
    with server.http() as client:
        episode = client.post("/episodes", json={"env_id": "clinic"}).json()
        plans_before = call_rest(client, episode["episode_id"], "list_insurance_plans", {})["content"]

        over_rest = call_rest(client, episode["episode_id"], tool, arguments)
        assert over_rest["is_error"] is True and over_rest["content"] is None
        assert over_rest["error_type"] == "ResultError" and over_rest["message"] == message
        over_mcp = _over_mcp(episode["mcp_url"], tool, arguments)
        assert over_mcp.is_error is True and over_mcp.structured_content is None
        assert over_mcp.content[0].text == over_rest["message"]
        assert (
            over_rest["message"].startswith(message.replace("[0].copays", "copays")) or message in over_rest["message"]
        )

        # a refused result changes nothing: the write was rolled back with it
        assert call_rest(client, episode["episode_id"], "list_insurance_plans", {})["content"] == plans_before
        log = client.get(f"/episodes/{episode['episode_id']}").json()["log"]
        refused = [c for c in log if c["tool"] == tool]
        assert [(c["transport"], c["is_error"], c["error_type"]) for c in refused] == [
            ("rest", True, "ResultError"),
            ("mcp", True, "ResultError"),
        ]
