"""Dual control: the user has tables and tools of their own (a phone), the agent's tools cannot see them,
the user's read the service's state but change only their own, and a task's gold spans both sides."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from envs.check import check_env
from envs.engine import Environment
from envs.errors import SandboxError, UnknownTool
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.grading.scoring import score_episode

from ..test_catalog import write_env


def _tool(name: str, kind: str, actor: str, params: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"{name.replace('_', ' ')}.",
        "kind": kind,
        "actor": actor,
        "parameters": {
            "type": "object",
            "required": list(params),
            "additionalProperties": False,
            "properties": params,
        },
        "steps": steps,
    }


LINE = {"line_id": {"type": "string"}}
DEVICE = {"device_id": {"type": "string"}}
PHONE: dict[str, Any] = {
    "id": "phone_support",
    "name": "Phone support",
    "sector": "telecom",
    "description": "A carrier's support desk; the customer's phone is theirs to operate.",
    "policy": "Resume a suspended line once the customer asks. The phone is the customer's: ask them to act on it.",
    "user_guide": "You hold your phone. You can read its status bar and switch airplane mode on or off.",
    "clock": "2026-01-15T09:00:00",
    "tables": [
        {
            "name": "lines",
            "primary_key": ["line_id"],
            "columns": [
                {"name": "line_id", "type": "text"},
                {"name": "status", "type": "text", "enum": ["active", "suspended"]},
            ],
        },
        {
            "name": "devices",
            "side": "user",
            "primary_key": ["device_id"],
            "columns": [
                {"name": "device_id", "type": "text"},
                {"name": "line_id", "type": "text"},
                {"name": "airplane_mode", "type": "boolean"},
            ],
        },
    ],
    "seed": {
        "lines": [{"line_id": "L1", "status": "suspended"}],
        "devices": [{"device_id": "D1", "line_id": "L1", "airplane_mode": True}],
    },
    "tools": [
        _tool(
            "get_line",
            "read",
            "agent",
            LINE,
            [{"kind": "return", "shape": "one", "sql": "SELECT * FROM lines WHERE line_id = :line_id"}],
        ),
        _tool(
            "resume_line",
            "write",
            "agent",
            LINE,
            [
                {
                    "kind": "exec",
                    "sql": "UPDATE lines SET status = 'active' WHERE line_id = :line_id AND status = 'suspended'",
                    "min_changes": 1,
                    "message": "Line {line_id} is not suspended",
                }
            ],
        ),
        _tool(
            "check_status_bar",
            "read",
            "user",
            DEVICE,
            [
                {
                    "kind": "return",
                    "shape": "one",
                    # what the phone shows follows from the network's side too: a suspended line has no service
                    "sql": "SELECT CASE WHEN d.airplane_mode THEN 'airplane mode' WHEN l.status != 'active' "
                    "THEN 'no service' ELSE 'connected' END AS status_bar "
                    "FROM devices d JOIN lines l ON l.line_id = d.line_id WHERE d.device_id = :device_id",
                }
            ],
        ),
        _tool(
            "toggle_airplane_mode",
            "write",
            "user",
            DEVICE,
            [
                {
                    "kind": "exec",
                    "sql": "UPDATE devices SET airplane_mode = NOT airplane_mode WHERE device_id = :device_id",
                    "min_changes": 1,
                }
            ],
        ),
    ],
}

TASK = {
    "id": "phone_support-001",
    "env": "phone_support",
    "instruction": "My phone has had no service since yesterday; my line is L1, my phone D1.",
    "gold_actions": [
        {"tool": "get_line", "arguments": {"line_id": "L1"}},
        {"tool": "resume_line", "arguments": {"line_id": "L1"}},
        {"tool": "toggle_airplane_mode", "arguments": {"device_id": "D1"}, "actor": "user"},
        {"tool": "check_status_bar", "arguments": {"device_id": "D1"}, "actor": "user"},
    ],
}


def write_phone_catalog(folder: Path) -> None:
    """The phone environment and its task as a catalog folder (the served tests' catalog)."""
    write_env(folder, PHONE["id"], spec=PHONE, tasks=[TASK])


def _with_tool(tool: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(PHONE)
    spec["tools"].append(tool)
    return spec


@pytest.fixture
def env() -> Environment:
    return Environment(EnvSpec.model_validate(PHONE))


def test_each_actor_calls_only_its_own_tools(env):
    ep = env.episode()
    assert ep.call_tool("check_status_bar", {"device_id": "D1"}, actor="user").content == {
        "status_bar": "airplane mode"
    }
    with pytest.raises(UnknownTool) as agent_tried:
        ep.call_tool("toggle_airplane_mode", {"device_id": "D1"})
    assert "Tool 'toggle_airplane_mode' not found" in str(agent_tried.value)
    assert "toggle" not in str(agent_tried.value).split("not found.")[1]  # no hint of the user's tools
    with pytest.raises(UnknownTool, match="Did you mean 'toggle_airplane_mode'"):
        ep.call_tool("toggle_airplane_mod", {"device_id": "D1"}, actor="user")
    with pytest.raises(UnknownTool):
        ep.call_tool("resume_line", {"line_id": "L1"}, actor="user")


def test_the_users_tools_read_the_service_but_change_only_the_users_state(env):
    ep = env.episode()
    ep.call_tool("toggle_airplane_mode", {"device_id": "D1"}, actor="user")
    assert ep.call_tool("check_status_bar", {"device_id": "D1"}, actor="user").content == {"status_bar": "no service"}
    ep.call_tool("resume_line", {"line_id": "L1"})
    assert ep.call_tool("check_status_bar", {"device_id": "D1"}, actor="user").content == {"status_bar": "connected"}
    rogue = _tool(
        "fix_my_line",
        "write",
        "user",
        LINE,
        [{"kind": "exec", "sql": "UPDATE lines SET status = 'active' WHERE line_id = :line_id"}],
    )
    ep = Environment(EnvSpec.model_validate(_with_tool(rogue))).episode()
    before = ep.serialize()
    with pytest.raises(SandboxError, match="the user's tools change only the user's tables"):
        ep.call_tool("fix_my_line", {"line_id": "L1"}, actor="user")
    assert ep.serialize() == before


def test_the_agents_tools_cannot_see_the_users_device():
    peek = _tool("peek_device", "read", "agent", DEVICE, [{"kind": "return", "sql": "SELECT * FROM devices"}])
    spec = EnvSpec.model_validate(_with_tool(peek))
    with pytest.raises(SandboxError, match="table 'devices' is the user's, which the agent's tools cannot read"):
        Environment(spec).episode().call_tool("peek_device", {"device_id": "D1"})
    report = check_env(spec)
    assert any(p.check == "sql" and "peek_device" in p.where for p in report.problems), report.problems


def test_a_statement_the_user_prepared_is_not_reused_for_the_agent():
    # the same SQL text in a user tool and an agent tool: sqlite3 caches statements by their text,
    # and the authorizer runs only when one is prepared
    same = "SELECT * FROM devices WHERE device_id = :device_id"
    spec = copy.deepcopy(PHONE)
    spec["tools"] += [
        _tool("see_phone", "read", "user", DEVICE, [{"kind": "return", "sql": same}]),
        _tool("see_phone_too", "read", "agent", DEVICE, [{"kind": "return", "sql": same}]),
    ]
    ep = Environment(EnvSpec.model_validate(spec)).episode()
    assert ep.call_tool("see_phone", {"device_id": "D1"}, actor="user").content
    with pytest.raises(SandboxError, match="the agent's tools cannot read"):
        ep.call_tool("see_phone_too", {"device_id": "D1"})


def test_gold_actions_say_who_acts_and_the_score_spans_both_sides(env):
    task = Task.model_validate(TASK)
    assert check_env(EnvSpec.model_validate(PHONE), [task]).ok
    done = env.episode(task)
    done.replay(task.gold_actions)
    assert score_episode(env, task, done).reward == 1.0
    half = env.episode(task)  # the agent's part alone: the phone is still in airplane mode
    half.replay(task.gold_actions[:2])
    assert score_episode(env, task, half).reward == 0.0
    wrong_actor = copy.deepcopy(TASK)
    wrong_actor["gold_actions"][2]["actor"] = "agent"
    report = check_env(EnvSpec.model_validate(PHONE), [Task.model_validate(wrong_actor)])
    assert not report.ok and any("toggle_airplane_mode" in p.message for p in report.problems)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.update(user_guide=""), "user_guide is empty"),
        (lambda s: s["tables"][1].update(side="agent"), "user tools need a table with side 'user'"),
        (
            lambda s: s.update(
                rules=[{"id": "r1", "tool": "toggle_airplane_mode", "text": "x", "enforced_by": "policy"}]
            ),
            "names the user's tool 'toggle_airplane_mode'",
        ),
        (lambda s: s["tables"][1].update(side="device"), "side"),
        (lambda s: s["tools"][0].update(actor="customer"), "actor"),
    ],
)
def test_a_dual_control_spec_that_does_not_hold_together_is_refused(change, message):
    spec = copy.deepcopy(PHONE)
    change(spec)
    with pytest.raises(ValidationError, match=message):
        EnvSpec.model_validate(spec)


def test_a_spec_without_a_user_side_is_as_before():
    from ..specs import SHOP

    spec = EnvSpec.model_validate(SHOP)
    assert not spec.dual_control and spec.tools_of("user") == [] and len(spec.tools_of("agent")) == len(spec.tools)
    ep = Environment(spec).episode()
    assert ep.call_tool("find_account", {"email": "ann@example.com"}).content == "U1"
    # dumps leave the new fields' defaults out: a catalog without a user side reads as before
    dumped = spec.model_dump(mode="json")
    assert "user_guide" not in dumped
    assert not any("side" in t for t in dumped["tables"]) and not any("actor" in t for t in dumped["tools"])
    task = Task.model_validate({**TASK, "gold_actions": TASK["gold_actions"][:2]}).model_dump(mode="json")
    assert all("actor" not in call for call in task["gold_actions"])
