"""The hostile corpus (``cases.json``): specs and calls a stranger or an LLM could write to hurt the
host, each with the outcome it must have. Every case is refused at load, stopped at run time with a
typed, readable error, or runs harmlessly (the wall clock read as the env clock), and the process
stays well within 512 MB of peak memory through all of them.

A case adds a tool ``probe`` to the clinic environment (its SQL, or its parameter schema), patches the
spec (dotted paths), or calls an existing tool with hostile arguments. Placeholders stand for values
too large to keep in the file.
"""

from __future__ import annotations

import copy
import json
import re
import resource
from functools import cache
from pathlib import Path
from typing import Any

import pydantic
import pytest

from envs import Environment, check_env
from envs.catalog import load_env
from envs.errors import EnvFarmError, SpecError, ToolError
from envs.formats.spec import EnvSpec

CASES = json.loads((Path(__file__).parent / "cases.json").read_text(encoding="utf-8"))
PEAK_GROWTH_KB = 512 * 1024  # ru_maxrss is in KB on Linux


@cache
def _base() -> dict[str, Any]:
    return load_env("clinic").spec.model_dump(mode="json")


def _placeholder(value: Any) -> Any:
    if value == "__INF__":
        return float("inf")
    if value == "__BIG__":
        return "x" * 50_000_000
    if value == "__MANY_ROWS__":  # past the limit of 200,000 (two million would only cost the test memory)
        return [{"plan_id": f"P{i}", "name": "n", "copay": 1.0, "is_accepted": 1} for i in range(200_001)]
    if value == "__MANY_TOOLS__":
        tool = _base()["tools"][0]
        return [{**tool, "name": f"t{i}"} for i in range(10_000)]
    if value == "__DEEP__":
        deep: Any = "x"
        for _ in range(300):
            deep = [deep]
        return deep
    if isinstance(value, dict):
        return {k: _placeholder(v) for k, v in value.items()}
    return value


def _set(data: Any, path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for key in parents:
        data = data[int(key)] if isinstance(data, list) else data[key]
    data[int(last) if isinstance(data, list) else last] = value


def _build(case: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The spec as data, and the tool the case calls."""
    data = copy.deepcopy(_base())
    if "tool" in case:
        steps = [{"kind": "return", "sql": case["tool"]["sql"]}]
        if case["tool"]["kind"] == "write":
            steps = [{"kind": "exec", "sql": case["tool"]["sql"]}, {"kind": "return", "sql": "SELECT 1 AS done"}]
        data["tools"].append({"name": "probe", "kind": case["tool"]["kind"], "description": "A probe.", "steps": steps})
    if "schema" in case:
        data["tools"].append(
            {
                "name": "probe",
                "kind": "read",
                "description": "A probe.",
                "parameters": _placeholder(case["schema"]),
                "steps": [{"kind": "return", "sql": "SELECT 1 AS v"}],
            }
        )
    for path, value in case.get("patch", {}).items():
        _set(data, path, _placeholder(value))
    return data, case.get("existing_tool", "probe")


def _outcome(case: dict[str, Any]) -> tuple[str, str, Any]:
    """(stage, message, result): where the case stopped and what it said, or 'ok' with the result."""
    data, tool = _build(case)
    try:
        env = Environment(EnvSpec.model_validate(data))
    except (pydantic.ValidationError, SpecError) as exc:
        return "load", str(exc), None
    if any(i.name in ("endless", "big") for i in env.spec.invariants):
        report = check_env(env.spec)
        return "check", " ".join(str(p) for p in report.problems), None
    if tool == "probe" and env.spec.tool("probe") is None:
        return "ok", "", None
    try:
        content = env.episode().call_tool(tool, _placeholder(case.get("call") or {})).content
    except ToolError as exc:
        return "call", str(exc), None
    return "ok", "", content


def test_the_corpus_covers_what_the_security_review_tried():
    assert len(CASES) >= 40 and len({c["name"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_a_hostile_case_has_its_outcome(case):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # a new peak raises it; an old one hides a lower
    try:
        stage, message, result = _outcome(case)
    except EnvFarmError as exc:  # typed, but not where the corpus says
        pytest.fail(f"{case['name']}: {type(exc).__name__} {exc}")
    expect = case["expect"]
    assert re.fullmatch(expect["stage"], stage), f"{case['name']} ({case['about']}): {stage}: {message[:300]}"
    if "error" in expect and stage != "ok":
        assert re.search(expect["error"], message), f"{case['name']}: {message[:300]}"
    if "result" in expect:
        assert result == expect["result"], f"{case['name']}: {result}"
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown < PEAK_GROWTH_KB, f"{case['name']}: peak memory grew by {grown // 1024} MB"
