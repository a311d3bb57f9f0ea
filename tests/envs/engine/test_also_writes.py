"""``also_writes``: a tool that may also write named tables of the other side (the carrier's systems mirror
the line's status onto the phone; a payment made on the phone marks the carrier's bill paid), and no
other table of that side."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from envs.check import check_env
from envs.engine import Environment
from envs.errors import SandboxError
from envs.formats.spec import EnvSpec

from .test_dual_control import PHONE, _tool


def _spec(**tool_changes: Any) -> dict[str, Any]:
    spec = copy.deepcopy(PHONE)
    spec["tables"].append(
        {
            "name": "signal",
            "side": "user",
            "primary_key": ["line_id"],
            "columns": [{"name": "line_id", "type": "text"}, {"name": "line_active", "type": "boolean"}],
        }
    )
    spec["seed"]["signal"] = [{"line_id": "L1", "line_active": False}]
    mirror = _tool(
        "resume_and_mirror",
        "write",
        "agent",
        {"line_id": {"type": "string"}},
        [
            {"kind": "exec", "sql": "UPDATE lines SET status = 'active' WHERE line_id = :line_id"},
            {
                "kind": "exec",
                "sql": "UPDATE signal SET line_active = (SELECT status = 'active' FROM lines "
                "WHERE lines.line_id = signal.line_id)",
            },
        ],
    )
    mirror.update(tool_changes)
    spec["tools"].append(mirror)
    return spec


def test_a_tool_writes_the_other_sides_tables_it_names_and_no_other() -> None:
    env = Environment(EnvSpec.model_validate(_spec(also_writes=["signal"])))
    episode = env.episode()
    assert episode.call_tool("resume_and_mirror", {"line_id": "L1"}).wrote
    assert episode.query("SELECT line_active FROM signal") == [{"line_active": 1}]
    # the agent's other tools still cannot see the phone
    spec = _spec(also_writes=["signal"])
    spec["tools"][-1]["steps"].append({"kind": "exec", "sql": "UPDATE devices SET airplane_mode = 0"})
    with pytest.raises(SandboxError, match="devices"):
        Environment(EnvSpec.model_validate(spec)).episode().call_tool("resume_and_mirror", {"line_id": "L1"})
    assert check_env(_spec(also_writes=["signal"])).ok


def test_without_also_writes_the_same_tool_is_refused_and_check_says_so() -> None:
    env = Environment(EnvSpec.model_validate(_spec()))
    episode = env.episode()
    with pytest.raises(SandboxError, match="signal"):
        episode.call_tool("resume_and_mirror", {"line_id": "L1"})
    assert episode.query("SELECT status FROM lines") == [{"status": "suspended"}]  # rolled back
    report = check_env(_spec())
    assert not report.ok and any("resume_and_mirror" in str(p) and "signal" in str(p) for p in report.problems)
    # the same statement in a tool without the wider reach is refused, also once SQLite has cached it
    # prepared for the tool that has it
    spec = _spec(also_writes=["signal"])
    narrow = copy.deepcopy(spec["tools"][-1])
    narrow.update(name="mirror_only", also_writes=[])
    spec["tools"].append(narrow)
    both = Environment(EnvSpec.model_validate(spec)).episode()
    both.call_tool("resume_and_mirror", {"line_id": "L1"})
    with pytest.raises(SandboxError, match="signal"):
        both.call_tool("mirror_only", {"line_id": "L1"})


def test_a_user_tool_may_write_a_named_agent_table() -> None:
    spec = _spec()
    spec["tools"].append(
        _tool(
            "pay_and_resume",
            "write",
            "user",
            {"line_id": {"type": "string"}},
            [{"kind": "exec", "sql": "UPDATE lines SET status = 'active' WHERE line_id = :line_id"}],
        )
    )
    spec["tools"][-1]["also_writes"] = ["lines"]
    spec["tools"] = [t for t in spec["tools"] if t["name"] != "resume_and_mirror"]
    episode = Environment(EnvSpec.model_validate(spec)).episode()
    episode.call_tool("pay_and_resume", {"line_id": "L1"}, actor="user")
    assert episode.query("SELECT status FROM lines") == [{"status": "active"}]
    dumped = EnvSpec.model_validate(spec).model_dump(mode="json")
    assert dumped["tools"][-1]["also_writes"] == ["lines"]
    assert "also_writes" not in dumped["tools"][0]  # left out where empty


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["nowhere"], "unknown table 'nowhere'"),
        (["lines"], "a table of its own side"),
        (["signal", "signal"], "names a table twice"),
    ],
)
def test_also_writes_must_name_tables_of_the_other_side(names: list[str], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        EnvSpec.model_validate(_spec(also_writes=names))
