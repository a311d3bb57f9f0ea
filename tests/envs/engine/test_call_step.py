"""``call`` steps and unlisted tools: a tool that runs another tool of the spec named by data (tau2's
``call_discoverable_agent_tool`` dispatches to tools the agent unlocked), in the same transaction; a
tool with ``listed: false`` is never shown nor callable directly."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from envs.check import check_env
from envs.engine import Environment
from envs.errors import SandboxError, StateError, ToolArgumentError, UnknownTool
from envs.formats.spec import EnvSpec


def _tool(
    name: str, kind: str, properties: dict[str, Any], steps: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"{name} does its work.",
        "kind": kind,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        },
        "steps": steps,
        **extra,
    }


DISPATCH = [
    {
        "kind": "require",
        "message": "Unknown tool {name}",
        "sql": "SELECT :name IN ('add_note', 'count_notes', 'add_then_fail')",
    },
    {"kind": "call", "bind": "result", "sql": "SELECT :name AS tool, :arguments AS arguments WHERE :name != 'skip'"},
    {"kind": "exec", "sql": "INSERT INTO calls (name) VALUES (:name)"},
    {"kind": "return", "shape": "value", "sql": "SELECT coalesce(:result, 'skipped')"},
]


def _spec() -> dict[str, Any]:
    return {
        "id": "notes",
        "name": "Notes",
        "sector": "test",
        "description": "Notes with a dispatcher.",
        "tables": [
            {"name": "notes", "primary_key": ["text"], "columns": [{"name": "text", "type": "text"}]},
            {"name": "calls", "primary_key": ["name"], "columns": [{"name": "name", "type": "text"}]},
        ],
        "tools": [
            _tool("dispatch", "write", {"name": {"type": "string"}, "arguments": {"type": "string"}}, DISPATCH),
            _tool(
                "peek",
                "read",
                {"name": {"type": "string"}},
                [
                    {"kind": "call", "bind": "result", "sql": "SELECT :name AS tool, NULL AS arguments"},
                    {"kind": "return", "shape": "value", "sql": "SELECT :result"},
                ],
            ),
            _tool(
                "add_note",
                "write",
                {"text": {"type": "string"}},
                [
                    {"kind": "exec", "sql": "INSERT INTO notes VALUES (:text)"},
                    {"kind": "return", "shape": "value", "sql": "SELECT 'added ' || :text"},
                ],
                listed=False,
            ),
            _tool(
                "add_then_fail",
                "write",
                {"text": {"type": "string"}},
                [
                    {"kind": "exec", "sql": "INSERT INTO notes VALUES (:text)"},
                    {"kind": "require", "sql": "SELECT 0", "message": "refused after adding {text}"},
                ],
                listed=False,
            ),
            _tool(
                "count_notes",
                "read",
                {},
                [{"kind": "return", "shape": "value", "sql": "SELECT 'notes: ' || count(*) FROM notes"}],
                listed=False,
            ),
        ],
    }


def test_a_call_step_runs_the_named_tool_in_the_same_transaction() -> None:
    episode = Environment(EnvSpec.model_validate(_spec())).episode()
    result = episode.call_tool("dispatch", {"name": "add_note", "arguments": '{"text": "hello"}'})
    assert result.content == "added hello"
    assert result.changes == {"notes": 1, "calls": 1}
    assert episode.call_tool("dispatch", {"name": "count_notes", "arguments": "{}"}).content == "notes: 1"
    # the callee fails: everything the call did is undone, the caller's own writes included
    with pytest.raises(StateError, match="refused after adding bye"):
        episode.call_tool("dispatch", {"name": "add_then_fail", "arguments": '{"text": "bye"}'})
    assert episode.query("SELECT text FROM notes") == [{"text": "hello"}]
    assert episode.query("SELECT name FROM calls ORDER BY name") == [{"name": "add_note"}, {"name": "count_notes"}]


def test_the_callees_arguments_are_checked_against_its_own_schema() -> None:
    episode = Environment(EnvSpec.model_validate(_spec())).episode()
    with pytest.raises(ToolArgumentError, match="add_note"):
        episode.call_tool("dispatch", {"name": "add_note", "arguments": '{"txt": "x"}'})
    with pytest.raises(ToolArgumentError, match="not JSON"):
        episode.call_tool("dispatch", {"name": "add_note", "arguments": "{"})
    assert episode.query("SELECT count(*) AS n FROM calls") == [{"n": 0}]


def test_no_row_runs_nothing_and_a_read_tool_calls_only_read_tools() -> None:
    spec = _spec()
    spec["tools"][0]["steps"][0]["sql"] = "SELECT 1"
    episode = Environment(EnvSpec.model_validate(spec)).episode()
    assert episode.call_tool("dispatch", {"name": "skip", "arguments": "{}"}).content == "skipped"
    assert episode.call_tool("peek", {"name": "count_notes"}).content == "notes: 0"
    with pytest.raises(SandboxError, match="read tool"):
        episode.call_tool("peek", {"name": "add_note"})
    with pytest.raises(UnknownTool):
        episode.call_tool("peek", {"name": "no_such_tool"})


def test_an_unlisted_tool_is_neither_shown_nor_callable_directly() -> None:
    spec = EnvSpec.model_validate(_spec())
    assert [t.name for t in spec.tools_of("agent")] == ["dispatch", "peek"]
    episode = Environment(spec).episode()
    with pytest.raises(UnknownTool) as err:
        episode.call_tool("add_note", {"text": "x"})
    assert "add_note" in str(err.value) and "count_notes" not in str(err.value).split("not found")[-1]
    dumped = spec.model_dump(mode="json")
    assert dumped["tools"][2]["listed"] is False and "listed" not in dumped["tools"][0]
    assert check_env(spec).ok


def test_a_call_step_binds_a_name_and_takes_no_for_each() -> None:
    spec = _spec()
    spec["tools"][0]["steps"][1]["bind"] = "name"
    with pytest.raises(ValidationError, match="shadows"):
        EnvSpec.model_validate(spec)
    spec = _spec()
    spec["tools"][0]["steps"][1]["for_each"] = "name"
    with pytest.raises(ValidationError, match="for_each"):
        EnvSpec.model_validate(spec)
