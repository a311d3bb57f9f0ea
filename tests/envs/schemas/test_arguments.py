"""Argument validation: errors name the field; RE2 patterns and the linear uniqueItems check agree with
jsonschema's own keywords on every catalog schema; arguments no tool could take are refused first."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import jsonschema
import pytest

from envs.errors import ToolArgumentError
from envs.schemas.arguments import (
    DEFAULT_MAX_STRING_CHARS,
    MAX_ARRAY_ITEMS,
    MAX_STRING_CHARS_CAP,
    ArgumentValidator,
    bounded_strings,
)
from synthesis.tools.toolkit import sample_argument

from ..catalog_tools import tool_schemas_with_gold_arguments

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


def _reference_accepts(schema: dict[str, Any], args: dict[str, Any]) -> bool:
    """Stock jsonschema (Python ``re`` patterns, its own uniqueItems)."""
    reference = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return bool(reference.is_valid(args))


def test_the_validator_agrees_with_stock_jsonschema_on_every_catalog_schema():
    rng = random.Random(7)
    clock = datetime(2025, 6, 1)
    tools = tool_schemas_with_gold_arguments()
    assert len(tools) > 300
    checked = gold_checked = 0
    for label, schema, gold in tools:
        v = ArgumentValidator(schema)
        for args in gold[:3]:
            assert _full_accepts(v, args), f"{label}: gold arguments rejected: {args}"
            gold_checked += 1
        sampled = {name: sample_argument(p, rng, clock) for name, p in schema.get("properties", {}).items()}
        for args in [sampled, *(_variants(schema, base, rng) for base in [*gold[:2], sampled])]:
            for case in args if isinstance(args, list) else [args]:
                frozen = repr(case)
                ours, reference = _full_accepts(v, case), _reference_accepts(schema, case)
                assert repr(case) == frozen, f"{label}: validation changed the arguments"
                assert ours == reference, f"{label}: {case} is {'valid' if ours else 'invalid'} here only"
                assert v.accepts_fast(case) == ours, f"{label}: the Rust validator differs on {case}"
                checked += 1
    assert gold_checked > 200 and checked > 10000


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "string", "pattern": r"^\s$"}, "\u00a0"),  # RE2's \s is ASCII; ECMA-262's is not
        ({"type": "string", "pattern": r"\bab\b"}, "éab"),  # RE2's word boundary is ASCII
        ({"type": "string", "pattern": "^[0-9]+$"}, "٣"),
        ({"type": "string", "format": "email"}, "nobody"),
        ({"type": "string", "format": "date"}, "2024-02-31"),
        ({"type": "string", "format": "date-time"}, "yesterday"),  # a format the Python checker may not know
        ({"type": "number", "multipleOf": 0.01}, 0.07),  # float division: Python says no
        ({"type": "integer"}, 1.0),
        ({"type": "array", "uniqueItems": True}, [1, 1.0]),
        ({"type": "array", "uniqueItems": True}, [True, 1]),
        ({"type": "array", "uniqueItems": True}, [{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
        ({"enum": [1]}, True),
        ({"$ref": "#/$defs/missing"}, 1),  # no Rust validator: Python decides alone
        # The key matches RE2's \b but not Rust's: only the Python validator sees it must be an integer.
        ({"type": "object", "patternProperties": {r"\bab\b": {"type": "integer"}}}, {"éab": "x"}),
    ],
)
def test_the_rust_validator_never_accepts_what_the_python_one_refuses(schema, value):
    v = ArgumentValidator({"type": "object", "properties": {"x": schema}, "required": ["x"]})
    python = bool(v.full.is_valid({"x": value})) if "$ref" not in schema else False
    fast = v.accepts_fast({"x": value})
    assert not fast or python, f"{schema}: {value!r} accepted by Rust only"
    if python:
        v.validate("t", {"x": value})
    else:
        with pytest.raises(ToolArgumentError):
            v.validate("t", {"x": value})


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


def test_unique_items_is_linear_and_follows_json_equality():
    v = ArgumentValidator({"type": "object", "properties": {"xs": {"type": "array", "uniqueItems": True}}})
    v.validate("t", {"xs": [1, True, "1", {"a": 1}, {"a": 2}, [1]]})  # true is not 1; "1" is not 1
    for repeated in ([1, 1.0], [{"a": 1, "b": 2}, {"b": 2, "a": 1}], [[1, 2], [1, 2]]):
        with pytest.raises(ToolArgumentError, match="item 1 repeats an earlier item"):
            v.validate("t", {"xs": repeated})
    v.validate("t", {"xs": [{"n": i} for i in range(MAX_ARRAY_ITEMS)]})
    v.full.validate({"xs": [{"n": i} for i in range(20000)]})  # the schema alone: quadratic would take minutes


def test_huge_lists_are_refused_before_the_schema_sees_them():
    v = ArgumentValidator({"type": "object", "properties": {"xs": {"type": "array"}, "ys": {"type": "array"}}})
    with pytest.raises(ToolArgumentError, match=r"Invalid argument 'xs'.*a list of 6,000 items; at most 1,000"):
        v.validate("t", {"xs": [{"item": i} for i in range(6000)]})
    with pytest.raises(ToolArgumentError, match=r"more than 10,000 values"):
        v.validate("t", {"xs": [[0] * 900 for _ in range(12)]})


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        ({"a": _nested(40)}, "a.0.0", "nested deeper than 32"),
        ({"a": "x\ud800"}, "a", "lone surrogate"),
        ({"a": {"k\udfff": 1}}, "a", "lone surrogate"),
        ({"a": [1, 2**64]}, "a.1", "does not fit in 64 bits"),
        ({"a": float("inf")}, "a", "not a number JSON can carry"),
    ],
)
def test_arguments_no_tool_could_take_are_refused_naming_the_field(arguments, field, says):
    v = ArgumentValidator({"type": "object"})
    with pytest.raises(ToolArgumentError, match=says) as info:
        v.validate("t", arguments)
    assert str(info.value.field).startswith(field)


def test_a_pattern_is_matched_in_linear_time():
    v = ArgumentValidator(
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}},
        max_string_chars=MAX_STRING_CHARS_CAP,
    )
    with pytest.raises(ToolArgumentError, match="does not match"):
        v.validate("t", {"s": "a" * 50_000 + "!"})  # a backtracking engine would not return
    v.validate("t", {"s": "a" * 50_000})


def test_a_panic_in_the_rust_validator_leaves_the_decision_to_the_python_one():
    class PanicException(BaseException):  # how pyo3 raises a Rust panic: not an Exception
        pass

    class Panicking:
        def is_valid(self, instance: Any) -> bool:
            raise PanicException("index out of bounds")

    v = ArgumentValidator({"type": "object", "properties": {"n": {"type": "integer"}}})
    v.fast = Panicking()
    assert not v.accepts_fast({"n": 1})
    v.validate("t", {"n": 1})
    with pytest.raises(ToolArgumentError, match="'n'"):
        v.validate("t", {"n": "x"})


# -- every string has a limit ------------------------------------------------------------------------

FREE_TEXT = {
    "type": "object",
    "properties": {
        "summary": {"type": "string", "description": "What the customer needs"},
        "code": {"type": "string", "maxLength": 8},
        "essay": {"type": "string", "maxLength": 10 * MAX_STRING_CHARS_CAP},
        "tags": {"type": "array", "items": {"type": ["string", "null"]}},
        "mode": {"type": "string", "enum": ["x" * (DEFAULT_MAX_STRING_CHARS + 1)]},
        "either": {"anyOf": [{"type": "string", "maxLength": 20_000}, {"type": "integer"}]},
        "not_text": {"not": {"type": "string"}},
    },
    "additionalProperties": True,
}


def test_a_string_without_a_limit_gets_the_default_and_one_above_the_cap_gets_the_cap():
    bounded, largest = bounded_strings(FREE_TEXT)
    props = bounded["properties"]
    assert props["summary"]["maxLength"] == DEFAULT_MAX_STRING_CHARS
    assert props["code"]["maxLength"] == 8  # a spec's own lower limit stands
    assert props["essay"]["maxLength"] == MAX_STRING_CHARS_CAP
    assert props["tags"]["items"]["maxLength"] == DEFAULT_MAX_STRING_CHARS
    assert "maxLength" not in props["mode"]  # an enum fixes its strings
    assert props["either"]["anyOf"][0]["maxLength"] == 20_000 and "maxLength" not in props["either"]
    assert props["not_text"] == {"not": {"type": "string"}}  # a bound inside "not" would admit long text
    assert largest == MAX_STRING_CHARS_CAP
    assert "maxLength" not in FREE_TEXT["properties"]["summary"]  # the spec's schema is not changed


@pytest.mark.parametrize(
    ("arguments", "field", "limit"),
    [
        ({"summary": "x" * (DEFAULT_MAX_STRING_CHARS + 1)}, "summary", DEFAULT_MAX_STRING_CHARS),
        ({"summary": "x" * 1_000_000}, "summary", DEFAULT_MAX_STRING_CHARS),
        ({"code": "123456789"}, "code", 8),
        ({"tags": ["a", "é" * (DEFAULT_MAX_STRING_CHARS + 1)]}, "tags.1", DEFAULT_MAX_STRING_CHARS),
        ({"essay": "x" * (MAX_STRING_CHARS_CAP + 1)}, "essay", MAX_STRING_CHARS_CAP),
        ({"undeclared": "x" * (MAX_STRING_CHARS_CAP + 1)}, "undeclared", MAX_STRING_CHARS_CAP),
    ],
)
def test_text_over_its_limit_is_refused_naming_the_field_and_the_limit(arguments, field, limit):
    v = ArgumentValidator(FREE_TEXT)
    with pytest.raises(ToolArgumentError) as info:
        v.validate("t", arguments)
    assert info.value.field == field
    assert f"at most {limit:,} are accepted" in str(info.value)
    assert len(str(info.value)) < 300  # the message never repeats the text


def test_text_within_its_limit_is_accepted_and_the_default_is_a_setting():
    v = ArgumentValidator(FREE_TEXT)
    v.validate("t", {"summary": "x" * DEFAULT_MAX_STRING_CHARS, "essay": "y" * MAX_STRING_CHARS_CAP})
    v.validate("t", {"undeclared": "z" * MAX_STRING_CHARS_CAP})
    small = ArgumentValidator(FREE_TEXT, max_string_chars=100)
    with pytest.raises(ToolArgumentError, match="at most 100 are accepted"):
        small.validate("t", {"summary": "x" * 101})
