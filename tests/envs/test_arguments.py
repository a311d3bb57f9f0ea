"""Argument validation: errors name the field; the compiled fast path never accepts what jsonschema rejects."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import pytest

from envs.arguments import ArgumentValidator
from envs.errors import ToolArgumentError
from synthesis.toolkit import sample_argument

from .catalog_tools import tool_schemas_with_gold_arguments

_ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -3,
    1.0,
    2.5,
    "",
    "x",
    "a@b",
    "not-an-email",
    "2024-02-31",
    "2024-13-01",
    "2025-06-01",
    "2025-06-01 10:00:00",
    "+15550101",
    "x" * 600,
    [],
    [{}],
    {},
]


def _variants(schema: dict[str, Any], valid: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Each property swapped for odd values, a missing required one and an extra one."""
    props: dict[str, Any] = schema.get("properties", {})
    out = []
    for name, prop in props.items():
        for value in rng.sample(_ODD_VALUES, 6):
            out.append({**valid, name: value})
        if "enum" in prop:
            out.append({**valid, name: str(prop["enum"][0]).upper() + "?"})
        if prop.get("type") == "array":
            out.append({**valid, name: [{**valid, "bogus": 1}]})
    for name in schema.get("required", []):
        out.append({k: v for k, v in valid.items() if k != name})
    out.append({**valid, "unexpected_argument": 1})
    return out


def _full_accepts(v: ArgumentValidator, args: dict[str, Any]) -> bool:
    return bool(v.full.is_valid(args))


def _fast_accepts(v: ArgumentValidator, args: dict[str, Any]) -> bool:
    assert v.fast is not None
    try:
        v.fast(args)
    except Exception:
        return False
    return True


def test_fast_path_agrees_with_jsonschema_on_every_catalog_schema():
    rng = random.Random(7)
    clock = datetime(2025, 6, 1)
    tools = tool_schemas_with_gold_arguments()
    assert len(tools) > 300
    checked = gold_checked = 0
    for label, schema, gold in tools:
        v = ArgumentValidator(schema)
        assert v.fast is not None, f"{label}: the fast path could not compile the schema"
        for args in gold[:3]:
            assert _fast_accepts(v, args) and _full_accepts(v, args), f"{label}: gold arguments rejected: {args}"
            gold_checked += 1
        sampled = {name: sample_argument(p, rng, clock) for name, p in schema.get("properties", {}).items()}
        for args in [sampled, *(_variants(schema, base, rng) for base in [*gold[:2], sampled])]:
            for case in args if isinstance(args, list) else [args]:
                frozen = repr(case)
                fast, full = _fast_accepts(v, case), _full_accepts(v, case)
                assert repr(case) == frozen, f"{label}: validation changed the arguments"
                # The fast path may be stricter (jsonschema then decides), never more lenient ...
                assert not (fast and not full), f"{label}: fast path accepted what jsonschema rejects: {case}"
                # ... and on these schemas it is not stricter either, so valid calls never pay for both.
                assert fast == full, f"{label}: fast path rejected valid arguments: {case}"
                checked += 1
    assert gold_checked > 200 and checked > 10000


def test_rejects_name_the_field_and_value():
    v = ArgumentValidator(
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["email"],
            "properties": {"email": {"type": "string", "format": "email"}, "day": {"type": "string", "format": "date"}},
        }
    )
    v.validate("t", {"email": "a@b", "day": "2025-06-01"})
    with pytest.raises(ToolArgumentError, match="Missing required argument 'email'") as info:
        v.validate("t", {})
    assert info.value.field == "email"
    with pytest.raises(ToolArgumentError, match="Unexpected argument 'extra'"):
        v.validate("t", {"email": "a@b", "extra": 1})
    with pytest.raises(ToolArgumentError, match=r"Invalid argument 'day'.*'2025-02-31' is not a 'date'") as info:
        v.validate("t", {"email": "a@b", "day": "2025-02-31"})
    assert info.value.field == "day"
    with pytest.raises(ToolArgumentError, match="must be a JSON object, got list"):
        v.validate("t", [1])


def test_defaults_in_a_schema_are_not_written_into_the_arguments():
    v = ArgumentValidator({"type": "object", "properties": {"n": {"type": "integer", "default": 5}}})
    args: dict[str, Any] = {}
    v.validate("t", args)
    assert args == {}


def test_a_schema_the_fast_compiler_cannot_handle_falls_back_to_jsonschema():
    v = ArgumentValidator({"type": "object", "properties": {"n": {"type": "integer"}}, "$ref": "#/$defs/missing"})
    assert v.fast is None
