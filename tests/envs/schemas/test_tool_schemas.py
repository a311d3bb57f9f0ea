"""Tool schemas as clients see them: the advertised input schema, null as "not given", output
schemas, and the per-vendor lint (envs.schemas.tool_schemas, envs.schemas.lint)."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from envs.catalog import load_env
from envs.engine import Environment
from envs.errors import StateError, ToolArgumentError
from envs.formats.spec import EnvSpec, ToolSpec
from envs.schemas.arguments import ArgumentValidator
from envs.schemas.lint import VENDORS, lint_tool
from envs.schemas.output_schemas import OK_SCHEMA, column_schema
from envs.schemas.tool_schemas import advertised_parameters
from tests.envs.catalog_tools import tool_schemas_with_gold_arguments
from tests.envs.specs import SHOP

RICH: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "items"],
    "$defs": {
        "line": {
            "type": "object",
            "required": ["sku"],
            "properties": {"sku": {"type": "string", "minLength": 1}, "qty": {"type": "integer", "minimum": 1}},
        }
    },
    "properties": {
        "id": {"type": "string", "pattern": "^O[0-9]+$", "description": "The order id"},
        "items": {
            "type": "array",
            "items": {"$ref": "#/$defs/line"},
            "minItems": 2,
            "maxItems": 5,
            "uniqueItems": True,
        },
        "email": {"type": "string", "format": "email", "maxLength": 80},
        "when": {"type": "string", "format": "date-time"},
        "note": {"type": ["string", "null"], "description": "A note, or null."},
        "priority": {"enum": [1, 2, 3]},
        "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
        "amount": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01},
    },
}


def ok_everywhere(name: str, schema: dict[str, Any]) -> dict[str, list[str]]:
    return {v: p for v, p in lint_tool("t", name, schema).problems.items() if p}


# -- the advertised schema ---------------------------------------------------------------------------


def test_every_property_is_required_and_optional_ones_are_nullable() -> None:
    out = advertised_parameters(RICH)
    assert out["required"] == list(RICH["properties"])
    assert out["additionalProperties"] is False
    email = out["properties"]["email"]
    assert email["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert email["description"] == "An email address; at most 80 characters. Optional: null leaves it out."
    assert out["properties"]["id"] == {
        "type": "string",
        "description": "The order id (matching the regular expression ^O[0-9]+$).",
    }


def test_type_arrays_become_any_of_and_null_that_is_a_value_is_not_called_optional() -> None:
    note = advertised_parameters(RICH)["properties"]["note"]
    assert note == {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "A note, or null."}


def test_what_no_api_shares_is_said_in_words() -> None:
    props = advertised_parameters(RICH)["properties"]
    items = props["items"]
    assert items["type"] == "array" and "minItems" not in items
    assert items["description"] == "2 to 5 items; no item repeated."
    line = items["items"]  # the $ref is inlined, and the nested object is closed and all-required too
    assert line["required"] == ["sku", "qty"] and line["additionalProperties"] is False
    assert line["properties"]["sku"] == {"type": "string", "description": "Not empty."}
    assert line["properties"]["qty"]["description"] == "At least 1. Optional: null leaves it out."
    assert props["when"]["anyOf"][0] == {"type": "string", "format": "date-time"}  # the one common format
    assert props["priority"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "description": "One of 1, 2, 3. Optional: null leaves it out.",
    }
    assert props["mode"]["anyOf"][0] == {"type": "string", "enum": ["fast", "slow"]}
    assert props["mode"]["description"].startswith('Default "fast".')
    assert props["amount"]["description"].startswith("Greater than 0; a multiple of 0.01.")


def test_advertised_schema_passes_every_vendor() -> None:
    assert ok_everywhere("t", advertised_parameters(RICH)) == {}
    for tool in load_env("retail").spec.tools + load_env("clinic").spec.tools:
        assert ok_everywhere(tool.name, advertised_parameters(tool.parameters)) == {}, tool.name


def test_advertised_schemas_of_real_tools_pass_every_vendor() -> None:
    for name, schema, _ in tool_schemas_with_gold_arguments():
        assert ok_everywhere(name.split(".")[-1], advertised_parameters(schema)) == {}, name


def test_the_optional_note_follows_a_full_sentence() -> None:
    schema = advertised_parameters(
        {"type": "object", "properties": {"note": {"type": "string", "description": "Omit if none"}}}
    )
    assert schema["properties"]["note"]["description"] == "Omit if none. Optional: null leaves it out."
    # over real tools: every description the note is added to ends its own sentence first
    for name, raw, _ in tool_schemas_with_gold_arguments():
        for key, prop in advertised_parameters(raw)["properties"].items():
            text = prop.get("description", "")
            head, noted, _ = text.partition("Optional: null leaves it out.")
            assert not (noted and head) or head.rstrip().endswith((".", "!", "?")), (name, key, text)


@pytest.mark.parametrize(
    ("description", "said"),
    [
        ("Omit if none.", "Omit if none. At most 9 characters."),  # a note after a full stop is a sentence
        ("e.g. 'P04'", "E.g. 'P04' (at most 9 characters)."),
        ("true once the user agreed;", "True once the user agreed (at most 9 characters)."),
        ("kW to add", "kW to add (at most 9 characters)."),  # a unit, an identifier: as written
        ("item_ids in order", "item_ids in order (at most 9 characters)."),
        ("", "At most 9 characters."),
    ],
)
def test_descriptions_read_as_sentences(description: str, said: str) -> None:
    schema = advertised_parameters(
        {
            "type": "object",
            "required": ["x"],
            "properties": {"x": {"type": "string", "maxLength": 9, "description": description}},
        }
    )
    assert schema["properties"]["x"]["description"] == said


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object"},
        {"type": "object", "properties": {"x": {}}},
        {"type": "object", "properties": {"x": True, "y": {"anyOf": [{"type": "string"}, {"type": "null"}]}}},
        {"type": "object", "properties": {"x": {"oneOf": [{"type": "integer"}, {"type": "object"}]}}},
        {"type": "object", "properties": {"x": {"allOf": [{"properties": {"a": {"type": "string"}}}]}}},
        {"type": "object", "properties": {"x": {"const": 3}, "y": {"const": "a"}, "z": {"type": "array"}}},
    ],
)
def test_unusual_schemas_still_give_an_accepted_schema(schema: dict[str, Any]) -> None:
    assert ok_everywhere("t", advertised_parameters(schema)) == {}


# -- the engine: null means "not given", every constraint still enforced ----------------------------


def strict_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """What a model in strict mode sends: every advertised property, null for those it leaves out."""
    shown = advertised_parameters(schema)
    return {name: arguments.get(name) for name in shown["properties"]} | arguments


def test_strict_calls_with_gold_arguments_validate() -> None:
    """For every real tool, gold arguments completed with null for each property left out pass the
    engine's validation: the advertised schema and the engine agree on what null means."""
    checked = 0
    for name, schema, calls in tool_schemas_with_gold_arguments():
        validator = ArgumentValidator(schema)
        for arguments in calls:
            strict = strict_arguments(schema, arguments)
            validator.validate(name, validator.absent_nulls(strict))
            checked += 1
    assert checked > 100


def test_nulls_are_dropped_at_every_depth_the_schema_describes() -> None:
    v = ArgumentValidator(RICH)
    args = {"id": "O1", "items": [{"sku": "a", "qty": None}, {"sku": "b", "qty": 2}], "email": None, "note": None}
    assert v.absent_nulls(args) == {"id": "O1", "items": [{"sku": "a"}, {"sku": "b", "qty": 2}], "note": None}
    v.validate("t", v.absent_nulls(args))
    with pytest.raises(ToolArgumentError, match="'id'"):  # null for a required property is refused
        v.validate("t", v.absent_nulls({**args, "id": None}))


def test_dropped_constraints_are_still_enforced() -> None:
    env = load_env("clinic").environment
    ep = env.episode()
    assert "pattern" not in str(env.advertised_parameters("find_patient_by_name_dob"))
    with pytest.raises(ToolArgumentError, match="date_of_birth"):
        ep.call_tool("find_patient_by_name_dob", {"name": "Maria Lopez", "date_of_birth": "March 4"})
    with pytest.raises(ToolArgumentError, match="reason"):  # minLength 1
        ep.call_tool("book_appointment", {"patient_id": "P0001", "slot_id": "S021", "reason": ""})
    ep.close()


def test_strict_call_over_the_engine_equals_the_plain_call() -> None:
    env = load_env("clinic").environment
    a, b = env.episode(), env.episode()
    plain = a.call_tool("list_open_slots", {"specialty": "dermatology"}).content
    strict = b.call_tool("list_open_slots", {"specialty": "dermatology", "provider_id": None, "date": None}).content
    assert plain == strict and plain


# -- return steps that promise an object, and output schemas -----------------------------------------


def shop_with(tool: dict[str, Any]) -> Environment:
    data = copy.deepcopy(SHOP)
    data["tools"].append(tool)
    return Environment(EnvSpec.model_validate(data))


def test_a_return_message_turns_no_row_into_an_error() -> None:
    env = shop_with(
        {
            "name": "order_or_error",
            "description": "Get an order.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
            "steps": [
                {
                    "kind": "return",
                    "shape": "one",
                    "sql": "SELECT * FROM orders WHERE order_id = :order_id",
                    "message": "Order {order_id} not found",
                }
            ],
        }
    )
    ep = env.episode()
    with pytest.raises(StateError, match="Order O404 not found"):
        ep.call_tool("order_or_error", {"order_id": "O404"})
    schema = env.output_schema("order_or_error")
    assert schema is not None
    orders = env.spec.table("orders")
    assert schema["required"] == [c.name for c in orders.columns]
    assert schema["properties"] == {c.name: column_schema(c) for c in orders.columns}
    row = ep.query("SELECT order_id FROM orders LIMIT 1")[0]
    jsonschema.validate(ep.call_tool("order_or_error", row).content, schema)


def test_a_return_message_needs_shape_one() -> None:
    with pytest.raises(ValueError, match="shape 'one' only"):
        ToolSpec.model_validate(
            {
                "name": "t",
                "description": "d",
                "kind": "read",
                "steps": [{"kind": "return", "sql": "SELECT 1", "message": "none"}],
            }
        )


def test_output_schemas_only_where_every_result_is_an_object() -> None:
    env = load_env("clinic").environment
    tools = {t.name: t for t in env.spec.tools}
    declared = {name for name in tools if env.output_schema(name) is not None}
    assert "get_provider" in declared and "cancel_appointment" in declared
    assert "list_open_slots" not in declared and "find_patient_by_name_dob" not in declared  # lists
    shop = shop_with(
        {
            "name": "ping",
            "description": "Nothing to return.",
            "kind": "write",
            "steps": [{"kind": "exec", "sql": "UPDATE orders SET total = total WHERE 0"}],
        }
    )
    assert shop.output_schema("ping") == OK_SCHEMA
    assert shop.episode().call_tool("ping").content == {"ok": True}
    assert shop.output_schema("find_account") is None  # shape value


def test_column_schemas_follow_the_stored_types() -> None:
    from envs.formats.spec import ColumnSpec

    assert column_schema(ColumnSpec(name="b", type="boolean")) == {"type": "integer", "enum": [0, 1]}
    assert column_schema(ColumnSpec(name="s", type="text", nullable=True, enum=["a"])) == {
        "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]
    }
    assert column_schema(ColumnSpec(name="j", type="json")) == {
        "anyOf": [{"type": t} for t in ("object", "array", "string", "number", "boolean", "null")]
    }
    assert column_schema(ColumnSpec(name="r", type="real", description="Price")) == {
        "type": "number",
        "description": "Price",
    }


def test_gold_results_match_the_declared_output_schemas() -> None:
    for env_id in ("clinic", "retail"):
        entry = load_env(env_id)
        env = entry.environment
        seen = 0
        for task in entry.tasks:
            ep = env.episode(task)
            for call in task.gold_actions:
                result = ep.call_tool(call.tool, call.arguments)
                schema = env.output_schema(call.tool)
                if schema is not None:
                    jsonschema.validate(result.content, schema)
                    seen += 1
            ep.close()
        assert seen > 0


# -- the lint rules ------------------------------------------------------------------------------------


def flagged(schema: dict[str, Any]) -> set[str]:
    return {v for v, p in lint_tool("t", "t", schema).problems.items() if p and v != "mcp"}


def closed(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


@pytest.mark.parametrize(
    ("schema", "vendors"),
    [
        (closed(a={"type": "string"}), set()),
        (closed(a={"type": "string", "minLength": 1}), {"openai", "anthropic", "gemini"}),
        (closed(a={"type": "array", "items": {"type": "string"}, "uniqueItems": True}), set(VENDORS) - {"mcp"}),
        (closed(a={"type": "integer", "minimum": 0}), {"anthropic"}),
        (closed(a={"type": "string", "format": "email"}), {"gemini"}),
        (closed(a={"type": "string", "pattern": "^a$"}), {"gemini"}),
        (closed(a={"type": ["string", "null"]}), {"gemini"}),
        (closed(a={"type": "array", "items": {"type": "string"}, "minItems": 2}), {"anthropic"}),
        (closed(a={"type": "integer", "enum": [1, 2]}), {"gemini"}),
        ({**closed(a={"type": "string"}), "required": []}, {"openai"}),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {"openai", "anthropic"}),
        (closed(**{"a-b": {"type": "string"}}), {"gemini"}),
        (closed(a={"anyOf": [{"type": "string"}, {"type": "null"}]}), set()),
    ],
)
def test_each_vendor_flags_what_it_refuses(schema: dict[str, Any], vendors: set[str]) -> None:
    assert flagged(schema) == vendors


def test_openai_size_limits() -> None:
    many = closed(**{f"p{i}": {"type": "string", "enum": [f"v{i}_{j}" for j in range(3)]} for i in range(400)})
    problems = lint_tool("t", "t", many).problems["openai"]
    assert any("1200 enum values" in p for p in problems)
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        deep = closed(x=deep)
    assert any("nest 11 levels" in p for p in lint_tool("t", "t", deep).problems["openai"])


def test_mcp_rules_check_the_output_schema() -> None:
    problems = lint_tool("t", "t", closed(), {"type": "array"}).problems["mcp"]
    assert problems == ['outputSchema: the root must be "type": "object"']


def test_the_advertised_schema_states_every_string_limit_the_engine_enforces() -> None:
    env = load_env("clinic").environment
    for tool in env.spec.tools:
        shown = env.advertised_parameters(tool.name)
        assert ok_everywhere(tool.name, shown) == {}, tool.name
        for name, prop in shown["properties"].items():
            typed = prop["anyOf"][0] if "anyOf" in prop else prop
            if typed.get("type") == "string" and "enum" not in typed:
                assert "4096 characters" in prop["description"] or "200 characters" in prop["description"], (
                    tool.name,
                    name,
                    prop,
                )
