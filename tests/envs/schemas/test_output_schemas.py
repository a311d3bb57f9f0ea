"""Output schemas typed from the return step's SELECT (envs.schemas.output_schemas, envs.schemas.select_types): each
case is served by a real tool of the test shop, and its result must validate against the schema."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.schemas.select_types import select_columns
from envs.schemas.sql_values import ANY_JSON, ANY_SQL
from tests.envs.specs import SHOP

NULL = {"type": "null"}
STATUS = {"type": "string", "enum": ["pending", "cancelled", "delivered"]}


def served(sql: str, json_columns: list[str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(output schema, result for order O1) of a read tool returning ``sql``'s row."""
    data = copy.deepcopy(SHOP)
    data["tables"][1]["columns"].append({"name": "note", "type": "text", "nullable": True, "description": "Why"})
    data["tools"].append(
        {
            "name": "probe",
            "description": "Probe.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
            "steps": [
                {"kind": "return", "shape": "one", "sql": sql, "message": "none", "json_columns": json_columns or []}
            ],
        }
    )
    env = Environment(EnvSpec.model_validate(data))
    schema = env.output_schema("probe")
    assert schema is not None
    result = env.episode().call_tool("probe", {"order_id": "O1"}).content
    jsonschema.validate(result, schema)
    return schema["properties"], result


def test_table_columns_keep_their_type_enum_and_description_through_aliases() -> None:
    props, _ = served("SELECT o.status AS s, o.note, o.total, o.status t FROM orders o WHERE o.order_id = :order_id")
    assert props == {
        "s": STATUS,
        "note": {"anyOf": [{"type": "string"}, NULL], "description": "Why"},
        "total": {"type": "number"},
        "t": STATUS,
    }


def test_a_left_joined_table_may_be_null() -> None:
    props, result = served(
        "SELECT o.order_id, a.email FROM orders o LEFT JOIN accounts a ON a.account_id = 'nobody' "
        "WHERE o.order_id = :order_id"
    )
    assert props["email"] == {"anyOf": [{"type": "string"}, NULL]} and result["email"] is None
    assert props["order_id"] == {"type": "string"}
    props, result = served(
        "SELECT o.order_id, i.n FROM orders o LEFT JOIN (SELECT order_id, count(*) AS n FROM order_items "
        "WHERE 0 GROUP BY order_id) i USING (order_id) WHERE o.order_id = :order_id"
    )
    assert props["n"] == {"anyOf": [{"type": "integer"}, NULL]} and result["n"] is None


def test_computed_columns() -> None:
    props, _ = served(
        "SELECT count(*) AS n, round(o.total * 1.1, 2) AS gross, o.order_id || '-' || o.status AS label, "
        "o.total > 10 AS big, coalesce(o.note, 'none') AS why, "
        "CASE WHEN o.total > 10 THEN 'high' ELSE 'low' END AS band, "
        "(SELECT sum(price) FROM order_items i WHERE i.order_id = o.order_id) AS items_total, "
        "(SELECT i.item_id FROM order_items i WHERE i.order_id = o.order_id LIMIT 1) AS first_item "
        "FROM orders o WHERE o.order_id = :order_id"
    )
    assert props == {
        "n": {"type": "integer"},
        "gross": {"type": "number"},
        "label": {"type": "string"},
        "big": {"anyOf": [{"type": "integer", "enum": [0, 1]}, NULL]},
        "why": {"type": "string"},
        "band": {"type": "string"},
        "items_total": {"anyOf": [{"type": "number"}, NULL]},
        "first_item": {"anyOf": [{"type": "string"}, NULL]},
    }


def test_nested_json_is_described_as_the_json_it_holds() -> None:
    props, result = served(
        "SELECT o.order_id, (SELECT json_group_array(json_object('item', i.item_id, 'price', i.price, "
        "'ok', json(CASE WHEN i.status = 'ok' THEN 'true' ELSE 'false' END))) "
        "FROM order_items i WHERE i.order_id = o.order_id) AS items, "
        "(SELECT json_group_array(item_id) FROM order_items WHERE order_id = o.order_id) AS ids, "
        "a.tags FROM orders o JOIN accounts a USING (account_id) WHERE o.order_id = :order_id",
        json_columns=["items", "ids"],
    )
    item = {"item": {"type": "string"}, "price": {"type": "number"}, "ok": {"type": "boolean"}}
    assert props["items"] == {
        "type": "array",
        "items": {"type": "object", "properties": item, "required": list(item), "additionalProperties": False},
    }
    assert props["ids"] == {"type": "array", "items": {"type": "string"}}
    assert props["tags"] == ANY_JSON  # a JSON column: any JSON value
    assert result["items"][0]["ok"] is True and result["ids"] == ["I1", "I2"]


def test_star_expands_to_the_tables_columns() -> None:
    props, _ = served(
        "SELECT o.*, a.balance FROM orders o JOIN accounts a ON a.account_id = o.account_id "
        "WHERE o.order_id = :order_id"
    )
    assert list(props) == ["order_id", "account_id", "status", "total", "created_at", "note", "balance"]
    assert props["status"] == STATUS and props["balance"] == {"type": "number"}


def test_what_the_text_does_not_tell_is_any_sql_value() -> None:
    props, _ = served(
        "SELECT o.order_id, :order_id AS asked, max(o.total, o.note) AS mixed FROM orders o "
        "WHERE o.order_id = :order_id"
    )
    assert props["asked"] == props["mixed"] == {"anyOf": [*ANY_SQL["anyOf"], NULL]}


def test_a_repeated_name_is_the_last_columns_value() -> None:
    props, result = served("SELECT o.total AS x, o.status AS x FROM orders o WHERE o.order_id = :order_id")
    assert props == {"x": STATUS} and result == {"x": "pending"}


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT a FROM (SELECT 1 AS a",  # unbalanced
        "VALUES (1)",
    ],
)
def test_unreadable_selects_are_not_guessed(sql: str) -> None:
    assert select_columns(sql, []) is None


def test_ctes_and_derived_tables_carry_column_types() -> None:
    props, _ = served(
        "WITH t AS (SELECT order_id, total FROM orders) "
        "SELECT t.total, d.n FROM t JOIN (SELECT order_id, count(*) AS n FROM order_items GROUP BY order_id) d "
        "ON d.order_id = t.order_id WHERE t.order_id = :order_id"
    )
    assert props == {"total": {"type": "number"}, "n": {"type": "integer"}}
