"""Step kinds: query, require, exec, for_each, and the shapes a return step gives its rows."""

from __future__ import annotations

import pytest

from envs.engine import Episode, ToolResult
from envs.errors import StateError
from tests.envs.specs import params, shop_env, tool, with_tools

from .spec import row

# -- query steps ---------------------------------------------------------------------------------------


def test_query_one_binds_the_row_for_later_steps(ep: Episode) -> None:
    assert ep.call_tool("find_account", {"email": "bob@example.com"}).content == "U2"


def test_query_one_without_a_row_fails_with_its_message(ep: Episode) -> None:
    with pytest.raises(StateError, match=r"^No account with email carol@example\.com$"):
        ep.call_tool("find_account", {"email": "carol@example.com"})


def test_query_optional_binds_null_columns_when_norow(ep: Episode) -> None:
    found = ep.call_tool("lookup_account", {"email": "ann@example.com"}).content
    assert found == {"account_id": "U1", "balance": 100.0, "no_email": 0}
    missing = ep.call_tool("lookup_account", {"email": "nobody@example.com"}).content
    assert missing == {"account_id": None, "balance": None, "no_email": 0}


def test_missing_optional_argument_is_null(ep: Episode) -> None:
    assert ep.call_tool("lookup_account", {}).content == {"account_id": None, "balance": None, "no_email": 1}
    assert [r["order_id"] for r in ep.call_tool("list_orders", {}).content] == ["O1", "O2"]
    assert ep.call_tool("list_orders", {"status": "delivered"}).content == [{"order_id": "O2", "status": "delivered"}]


def test_query_many_binds_a_list_usable_through_json_each(ep: Episode) -> None:
    assert ep.call_tool("order_summary", {"account_id": "U1"}).content == {"n": 2, "total": 50.0, "ids": "O1,O2"}
    assert ep.call_tool("order_summary", {"account_id": "U2"}).content == {"n": 0, "total": None, "ids": None}


def test_builtins_now_today_and_now_function(ep: Episode) -> None:
    assert ep.call_tool("clock").content == {
        "now": "2026-01-15 09:00:00",
        "today": "2026-01-15",
        "fn": "2026-01-15 09:00:00",
    }


# -- require steps ------------------------------------------------------------------------------------


def test_require_true_message_uses_arguments_and_binding_columns(ep: Episode) -> None:
    with pytest.raises(StateError) as info:
        ep.call_tool("cancel_order", {"order_id": "O2"})
    assert str(info.value) == "Order O2 is delivered; only pending orders can be cancelled"


def test_require_empty_message_names_the_offendingrow(ep: Episode) -> None:
    with pytest.raises(StateError) as info:
        ep.call_tool("return_items", {"order_id": "O1", "item_ids": ["I1", "I9", "I8"]})
    assert str(info.value) == "Item I9 not found in order O1"


def test_require_in_for_each_names_item_and_index(ep: Episode) -> None:
    items = [{"item_id": "A", "price": 1.5}, {"item_id": "B", "price": 0}]
    before = ep.serialize()
    with pytest.raises(StateError) as info:
        ep.call_tool("add_items", {"order_id": "O1", "items": items})
    assert str(info.value) == "Item B (#1) of order O1 has price 0"
    assert ep.serialize() == before


# -- exec steps ---------------------------------------------------------------------------------------


def test_exec_min_changes_failure_uses_its_message(ep: Episode) -> None:
    with pytest.raises(StateError, match=r"^Account U9 not found$"):
        ep.call_tool("charge", {"account_id": "U9", "amount": 1})


def test_exec_counts_changes_per_table(ep: Episode) -> None:
    result = ep.call_tool("cancel_order", {"order_id": "O1"})
    assert isinstance(result, ToolResult)
    assert result.tool == "cancel_order"
    assert result.content == {"order_id": "O1", "status": "cancelled"}
    assert dict(result.changes) == {"orders": 1, "accounts": 1}
    assert result.wrote
    assert row(ep, "SELECT balance FROM accounts WHERE account_id = 'U1'") == {"balance": 130.0}


def test_tool_without_return_step_returns_ok(ep: Episode) -> None:
    result = ep.call_tool("set_tags", {"account_id": "U2", "tags": ["vip", "new"]})
    assert result.content == {"ok": True}
    assert dict(result.changes) == {"accounts": 1}


def test_read_tool_result_has_no_changes(ep: Episode) -> None:
    result = ep.call_tool("get_order", {"order_id": "O1"})
    assert dict(result.changes) == {}
    assert not result.wrote


# -- for_each --------------------------------------------------------------------------------------------


def test_for_each_runs_once_per_item_with_item_fields_and_index(ep: Episode) -> None:
    items = [{"item_id": "A", "price": 1.5}, {"item_id": "B", "price": 2.25}, {"item_id": "A", "price": 3.0}]
    result = ep.call_tool("add_items", {"order_id": "O2", "items": items})
    assert result.content == [
        {"item_id": "A@0", "price": 1.5},
        {"item_id": "A@2", "price": 3.0},
        {"item_id": "B@1", "price": 2.25},
        {"item_id": "I3", "price": 20.0},
    ]
    assert dict(result.changes) == {"order_items": 3, "orders": 1}
    assert ep.call_tool("order_total", {"order_id": "O2"}).content == pytest.approx(26.75)


def test_for_each_with_scalar_items(ep: Episode) -> None:
    result = ep.call_tool("return_items", {"order_id": "O1", "item_ids": ["I2", "I1"]})
    assert result.content == [
        {"order_id": "O1", "item_id": "I1", "price": 10.0, "status": "returned"},
        {"order_id": "O1", "item_id": "I2", "price": 20.0, "status": "returned"},
    ]
    assert dict(result.changes) == {"order_items": 2, "orders": 1}
    assert row(ep, "SELECT status FROM order_items WHERE item_id = 'I3'") == {"status": "ok"}


# -- return shapes -----------------------------------------------------------------------------------


def test_return_shape_many(ep: Episode) -> None:
    rows = ep.call_tool("list_orders", {"status": "pending"}).content
    assert rows == [{"order_id": "O1", "status": "pending"}]
    assert ep.call_tool("list_orders", {"status": "cancelled"}).content == []


def test_return_shape_one_and_null(ep: Episode) -> None:
    assert ep.call_tool("account", {"account_id": "U2"}).content == {
        "account_id": "U2",
        "email": "bob@example.com",
        "balance": 5.0,
        "tags": [],  # a json column is nested
    }
    assert ep.call_tool("account", {"account_id": "U9"}).content is None


def test_return_shape_value_and_null(ep: Episode) -> None:
    assert ep.call_tool("order_total", {"order_id": "O1"}).content == 30.0
    assert ep.call_tool("order_total", {"order_id": "O9"}).content is None


def test_return_json_columns_are_nested(ep: Episode) -> None:
    digest = ep.call_tool("account_digest", {"account_id": "U1"}).content
    assert digest == {
        "account_id": "U1",
        "orders": [{"id": "O1", "total": 30.0}, {"id": "O2", "total": 20.0}],
        "meta": {"email": "ann@example.com", "n": 1},
        "raw": '{"not": "nested"}',  # not named in json_columns: left as text
    }


def test_return_json_group_array_from_shop(ep: Episode) -> None:
    order = ep.call_tool("get_order", {"order_id": "O1"}).content
    assert order["order_id"] == "O1"
    assert order["items"] == [
        {"item_id": "I1", "price": 10.0, "status": "ok"},
        {"item_id": "I2", "price": 20.0, "status": "ok"},
    ]


def test_unaliased_result_columns_are_named_after_their_sql() -> None:
    spec = with_tools(
        tool("version", kind="read", steps=[{"kind": "return", "shape": "one", "sql": "SELECT 1 + 1, upper('a')"}]),
        tool(
            "version_w",
            steps=[
                {"kind": "exec", "sql": "UPDATE accounts SET balance = 1 WHERE account_id = 'U2'"},
                {"kind": "return", "shape": "one", "sql": "SELECT 1 + 1, upper('a')"},
            ],
        ),
    )
    ep = shop_env(spec).episode()
    assert ep.call_tool("version").content == {"1 + 1": 2, "upper('a')": "A"}
    assert ep.call_tool("version_w").content == {"1 + 1": 2, "upper('a')": "A"}
    assert ep.query("SELECT lower('B')") == [{"lower('B')": "b"}]


def test_exec_starting_with_a_cte_counts_its_changes() -> None:
    sql = "WITH x AS (SELECT account_id FROM accounts WHERE balance < :limit) UPDATE accounts SET tags = '[\"low\"]' WHERE account_id IN (SELECT account_id FROM x)"
    spec = with_tools(
        tool(
            "tag_low",
            parameters=params(limit={"type": "number"}),
            steps=[{"kind": "exec", "sql": sql, "min_changes": 1, "message": "No account below {limit}"}],
        )
    )
    ep = shop_env(spec).episode()
    result = ep.call_tool("tag_low", {"limit": 10})
    assert dict(result.changes) == {"accounts": 1}
    assert ep.changed_keys() == {"accounts": {("U2",)}}
    with pytest.raises(StateError, match=r"^No account below 1$"):
        ep.call_tool("tag_low", {"limit": 1})


def test_list_arguments_are_stored_as_canonical_json(ep: Episode) -> None:
    ep.call_tool("set_tags", {"account_id": "U1", "tags": ["b", "a"]})
    assert row(ep, "SELECT tags FROM accounts WHERE account_id = 'U1'") == {"tags": '["b","a"]'}
    assert ep.call_tool("account", {"account_id": "U1"}).content["tags"] == ["b", "a"]
