"""The SQLite runtime: every step kind, atomic calls, argument validation, determinism, isolation."""

from __future__ import annotations

from typing import Any

import pytest

from envs.engine import Environment, Episode, ToolResult
from envs.errors import SandboxError, SpecError, StateError, ToolArgumentError, ToolError, UnknownTool
from envs.task import ToolCall
from tests.envs.specs import SHOP, params, shop_env, shop_task, tool, with_tools

STR = {"type": "string"}
ITEMS = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["item_id", "price"],
        "properties": {"item_id": STR, "price": {"type": "number"}},
    },
}

EXTRA_TOOLS = [
    tool(
        "lookup_account",
        kind="read",
        parameters=params(required=[], email=STR),
        steps=[
            {
                "kind": "query",
                "bind": "acct",
                "expect": "optional",
                "sql": "SELECT * FROM accounts WHERE email = :email",
            },
            {
                "kind": "return",
                "shape": "one",
                "sql": "SELECT :acct.account_id AS account_id, :acct.balance AS balance, :email IS NULL AS no_email",
            },
        ],
    ),
    tool(
        "order_summary",
        kind="read",
        parameters=params(account_id=STR),
        steps=[
            {
                "kind": "query",
                "bind": "orders",
                "expect": "many",
                "sql": "SELECT order_id, total FROM orders WHERE account_id = :account_id ORDER BY order_id",
            },
            {
                "kind": "return",
                "shape": "one",
                "sql": "SELECT json_array_length(:orders) AS n, "
                "(SELECT sum(j.value ->> 'total') FROM json_each(:orders) j) AS total, "
                "(SELECT group_concat(j.value ->> 'order_id', ',') FROM json_each(:orders) j) AS ids",
            },
        ],
    ),
    tool(
        "account",
        kind="read",
        parameters=params(account_id=STR),
        steps=[{"kind": "return", "shape": "one", "sql": "SELECT * FROM accounts WHERE account_id = :account_id"}],
    ),
    tool(
        "list_orders",
        kind="read",
        parameters=params(required=[], status=STR),
        steps=[
            {
                "kind": "return",
                "sql": "SELECT order_id, status FROM orders WHERE :status IS NULL OR status = :status ORDER BY order_id",
            }
        ],
    ),
    tool(
        "order_total",
        kind="read",
        parameters=params(order_id=STR),
        steps=[{"kind": "return", "shape": "value", "sql": "SELECT total FROM orders WHERE order_id = :order_id"}],
    ),
    tool(
        "account_digest",
        kind="read",
        parameters=params(account_id=STR),
        steps=[
            {
                "kind": "return",
                "shape": "one",
                "json_columns": ["orders", "meta"],
                "sql": "SELECT a.account_id, "
                "(SELECT json_group_array(json_object('id', o.order_id, 'total', o.total)) "
                " FROM (SELECT * FROM orders WHERE account_id = a.account_id ORDER BY order_id) o) AS orders, "
                "json_object('email', a.email, 'n', 1) AS meta, "
                '\'{"not": "nested"}\' AS raw '
                "FROM accounts a WHERE a.account_id = :account_id",
            }
        ],
    ),
    tool(
        "clock",
        kind="read",
        steps=[{"kind": "return", "shape": "one", "sql": "SELECT :now AS now, :today AS today, now() AS fn"}],
    ),
    tool(
        "add_items",
        parameters=params(order_id=STR, items=ITEMS),
        steps=[
            {
                "kind": "query",
                "bind": "order",
                "sql": "SELECT * FROM orders WHERE order_id = :order_id",
                "message": "Order {order_id} not found",
            },
            {
                "kind": "require",
                "for_each": "items",
                "sql": "SELECT :item.price > 0",
                "message": "Item {item.item_id} (#{index}) of order {order.order_id} has price {item.price}",
            },
            {
                "kind": "exec",
                "for_each": "items",
                "sql": "INSERT INTO order_items (order_id, item_id, price, status) "
                "VALUES (:order_id, :item.item_id || '@' || :index, :item.price, 'ok')",
            },
            {
                "kind": "exec",
                "sql": "UPDATE orders SET total = total + "
                "(SELECT coalesce(sum(j.value ->> 'price'), 0) FROM json_each(:items) j) WHERE order_id = :order_id",
            },
            {
                "kind": "return",
                "sql": "SELECT item_id, price FROM order_items WHERE order_id = :order_id ORDER BY item_id",
            },
        ],
    ),
    tool(
        "new_order",
        parameters=params(account_id=STR),
        steps=[
            {"kind": "query", "bind": "n", "sql": "SELECT new_id('ORD') AS id"},
            {
                "kind": "exec",
                "sql": "INSERT INTO orders (order_id, account_id, status, total, created_at) "
                "VALUES (:n.id, :account_id, 'pending', 0, :now)",
            },
            {"kind": "return", "shape": "value", "sql": "SELECT :n.id"},
        ],
    ),
    tool(
        "book",
        parameters=params(required=["day"], day={"type": "string", "format": "date"}, note=STR),
        steps=[{"kind": "return", "shape": "value", "sql": "SELECT :day"}],
    ),
]

_BOMB = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

#: A failing last step -> (error class, text the message contains). Each becomes a write tool
#: "fail_<name>" that first takes a new id, inserts an order and changes a balance.
FAILURES: dict[str, tuple[dict[str, Any], type[ToolError], str]] = {
    "require_false": (
        {"kind": "require", "sql": "SELECT :n.id = 'nope'", "message": "Refusing {n.id}"},
        StateError,
        "Refusing ORD1002",
    ),
    "require_empty": (
        {
            "kind": "require",
            "mode": "empty",
            "sql": "SELECT order_id, status FROM orders WHERE status = 'delivered'",
            "message": "Order {order_id} is {status}",
        },
        StateError,
        "Order O2 is delivered",
    ),
    "query_one_missing": (
        {"kind": "query", "bind": "x", "sql": "SELECT * FROM orders WHERE order_id = 'NOPE'", "message": "No NOPE"},
        StateError,
        "No NOPE",
    ),
    "query_one_default_message": (
        {"kind": "query", "bind": "x", "sql": "SELECT * FROM orders WHERE order_id = 'NOPE'"},
        StateError,
        "No matching record found",
    ),
    "exec_min_changes": (
        {
            "kind": "exec",
            "min_changes": 1,
            "message": "Nothing to update after {n.id}",
            "sql": "UPDATE orders SET total = 0 WHERE order_id = 'NOPE'",
        },
        StateError,
        "Nothing to update after ORD1002",
    ),
    "exec_min_changes_default_message": (
        {"kind": "exec", "min_changes": 2, "sql": "UPDATE orders SET total = 0 WHERE order_id = 'O1'"},
        StateError,
        "Expected at least 2 change(s)",
    ),
    "check": (
        {"kind": "exec", "sql": "UPDATE accounts SET balance = -1 WHERE account_id = 'U1'"},
        StateError,
        "CHECK constraint failed",
    ),
    "enum": (
        {"kind": "exec", "sql": "UPDATE orders SET status = 'lost' WHERE order_id = 'O2'"},
        StateError,
        "CHECK constraint failed",
    ),
    "datetime_format": (
        {"kind": "exec", "sql": "UPDATE orders SET created_at = '2026-01-10T10:00' WHERE order_id = 'O2'"},
        StateError,
        "CHECK constraint failed",
    ),
    "json_column": (
        {"kind": "exec", "sql": "UPDATE accounts SET tags = 'not json' WHERE account_id = 'U1'"},
        StateError,
        "CHECK constraint failed",
    ),
    "unique": (
        {"kind": "exec", "sql": "UPDATE accounts SET email = 'bob@example.com' WHERE account_id = 'U1'"},
        StateError,
        "UNIQUE constraint failed: accounts.email",
    ),
    "primary_key": (
        {
            "kind": "exec",
            "sql": "INSERT INTO accounts (account_id, email, balance) VALUES ('U1', 'new@example.com', 0)",
        },
        StateError,
        "UNIQUE constraint failed: accounts.account_id",
    ),
    "insert_or_rollback": (  # SQLite ends the transaction itself
        {
            "kind": "exec",
            "sql": "INSERT OR ROLLBACK INTO accounts (account_id, email, balance) VALUES ('U1', 'x@example.com', 0)",
        },
        StateError,
        "UNIQUE constraint failed",
    ),
    "not_null": (
        {"kind": "exec", "sql": "UPDATE orders SET total = NULL WHERE order_id = 'O2'"},
        StateError,
        "NOT NULL constraint failed: orders.total",
    ),
    "foreign_key": (
        {"kind": "exec", "sql": "UPDATE orders SET account_id = 'U9' WHERE order_id = 'O2'"},
        StateError,
        "FOREIGN KEY constraint failed",
    ),
    "foreign_key_restrict_delete": (
        {"kind": "exec", "sql": "DELETE FROM accounts WHERE account_id = 'U1'"},
        StateError,
        "FOREIGN KEY constraint failed",
    ),
    "strict_type": (
        {"kind": "exec", "sql": "UPDATE orders SET total = 'lots' WHERE order_id = 'O2'"},
        StateError,  # tables are STRICT
        "cannot store TEXT value in REAL column orders.total",
    ),
    "sandbox_read": (
        {"kind": "query", "bind": "x", "sql": "SELECT * FROM _envfarm_counters"},
        SandboxError,
        "reading table '_envfarm_counters' is not allowed",
    ),
    "sandbox_write": (
        {"kind": "exec", "sql": "DELETE FROM _envfarm_changes"},
        SandboxError,
        "DELETE on table '_envfarm_changes' is not allowed",
    ),
    "budget_select": (
        {"kind": "query", "bind": "x", "sql": _BOMB},
        SandboxError,
        "exceeded its step budget of 200,000 SQLite steps",
    ),
    "budget_write": (  # an interrupted write makes SQLite roll the transaction back itself
        {"kind": "exec", "sql": f"UPDATE accounts SET balance = balance + ({_BOMB}) WHERE account_id = 'U1'"},
        SandboxError,
        "exceeded its step budget",
    ),
}


def _failing_tool(name: str, step: dict[str, Any]) -> dict[str, Any]:
    return tool(
        f"fail_{name}",
        steps=[
            {"kind": "query", "bind": "n", "sql": "SELECT new_id('ORD') AS id"},
            {
                "kind": "exec",
                "sql": "INSERT INTO orders (order_id, account_id, status, total, created_at) "
                "VALUES (:n.id, 'U1', 'pending', 1, :now)",
            },
            {"kind": "exec", "sql": "UPDATE accounts SET balance = balance + 1 WHERE account_id = 'U2'"},
            step,
        ],
    )


ENGINE_SPEC = with_tools(*EXTRA_TOOLS, *(_failing_tool(n, step) for n, (step, _, _) in FAILURES.items()))


@pytest.fixture(scope="module")
def env() -> Environment:
    return shop_env(ENGINE_SPEC, step_budget=200_000)


@pytest.fixture
def ep(env: Environment) -> Episode:
    episode = env.episode()
    yield episode
    episode.close()


def _row(ep: Episode, sql: str) -> dict[str, Any] | None:
    rows = ep.query(sql)
    return rows[0] if rows else None


# -- query steps ---------------------------------------------------------------------------------------


def test_query_one_binds_the_row_for_later_steps(ep: Episode) -> None:
    assert ep.call_tool("find_account", {"email": "bob@example.com"}).content == "U2"


def test_query_one_without_a_row_fails_with_its_message(ep: Episode) -> None:
    with pytest.raises(StateError, match=r"^No account with email carol@example\.com$"):
        ep.call_tool("find_account", {"email": "carol@example.com"})


def test_query_optional_binds_null_columns_when_no_row(ep: Episode) -> None:
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


def test_require_empty_message_names_the_offending_row(ep: Episode) -> None:
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
    assert _row(ep, "SELECT balance FROM accounts WHERE account_id = 'U1'") == {"balance": 130.0}


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
    assert _row(ep, "SELECT status FROM order_items WHERE item_id = 'I3'") == {"status": "ok"}


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
    assert _row(ep, "SELECT tags FROM accounts WHERE account_id = 'U1'") == {"tags": '["b","a"]'}
    assert ep.call_tool("account", {"account_id": "U1"}).content["tags"] == ["b", "a"]


# -- atomicity --------------------------------------------------------------------------------------------


def _control_ids(env: Environment) -> bytes:
    control = env.episode()
    assert control.call_tool("new_order", {"account_id": "U1"}).content == "ORD1001"
    control.call_tool("cancel_order", {"order_id": "O1"})
    assert control.call_tool("new_order", {"account_id": "U2"}).content == "ORD1002"
    out = control.serialize()
    control.close()
    return out


@pytest.mark.parametrize("name", list(FAILURES))
def test_every_failure_rolls_back_the_whole_call(env: Environment, ep: Episode, name: str) -> None:
    _, error, fragment = FAILURES[name]
    assert ep.call_tool("new_order", {"account_id": "U1"}).content == "ORD1001"
    ep.call_tool("cancel_order", {"order_id": "O1"})  # committed work before the failure
    before, hash_before, keys_before = ep.serialize(), ep.state_hash(), ep.changed_keys()

    with pytest.raises(error) as info:
        ep.call_tool(f"fail_{name}")
    assert fragment in str(info.value)

    assert ep.serialize() == before
    assert ep.state_hash() == hash_before
    assert ep.changed_keys() == keys_before
    assert _row(ep, "SELECT count(*) AS n FROM orders") == {"n": 3}
    assert _row(ep, "SELECT balance FROM accounts WHERE account_id = 'U2'") == {"balance": 5.0}
    # The failed call's new_id() was rolled back too: the next id is the one it took.
    assert ep.call_tool("new_order", {"account_id": "U2"}).content == "ORD1002"
    assert ep.serialize() == _control_ids(env)


def test_failures_on_a_fresh_episode_also_roll_back(env: Environment, ep: Episode) -> None:
    for name in ("require_false", "insert_or_rollback", "budget_write", "sandbox_read"):
        with pytest.raises(ToolError):
            ep.call_tool(f"fail_{name}")
        assert ep.serialize() == env.image
    assert ep.changed_keys() == {}
    assert ep.call_tool("new_order", {"account_id": "U1"}).content == "ORD1001"


def test_step_budget_default_and_message() -> None:
    env = shop_env(with_tools(tool("spin", kind="read", steps=[{"kind": "return", "sql": _BOMB}])))
    ep = env.episode()
    with pytest.raises(SandboxError, match=r"Tool 'spin' exceeded its step budget of 5,000,000 SQLite steps"):
        ep.call_tool("spin")
    assert ep.call_tool("find_account", {"email": "ann@example.com"}).content == "U1"


# -- arguments ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool_name", "arguments", "field", "text"),
    [
        ("cancel_order", {}, "order_id", "Missing required argument 'order_id' for tool 'cancel_order'"),
        ("cancel_order", {"order_id": 1}, "order_id", "Invalid argument 'order_id' for tool 'cancel_order': 1 is not"),
        ("cancel_order", {"order_id": "O1", "reason": "x"}, "reason", "Unexpected argument 'reason'"),
        ("return_items", {"order_id": "O1", "item_ids": ["I1", 2]}, "item_ids.1", "2 is not of type 'string'"),
        ("return_items", {"order_id": "O1", "item_ids": []}, "item_ids", "Invalid argument 'item_ids'"),
        ("charge", {"account_id": "U1", "amount": -1}, "amount", "less than the minimum of 0"),
        ("charge", {"account_id": "U1", "amount": "5"}, "amount", "'5' is not of type 'number'"),
        (
            "add_items",
            {"order_id": "O1", "items": [{"item_id": "A", "price": 1}, {"item_id": "B", "price": "free"}]},
            "items.1.price",
            "'free' is not of type 'number'",
        ),
        ("add_items", {"order_id": "O1", "items": [{"item_id": "A"}]}, "items.0.price", "price"),
        ("add_items", {"order_id": "O1", "items": [{"item_id": "A", "price": 1, "qty": 2}]}, "items.0.qty", "qty"),
        ("book", {"day": "2026-02-30"}, "day", "is not a 'date'"),
        ("book", {"day": "tomorrow"}, "day", "'tomorrow' is not a 'date'"),
        ("book", {"day": "2026-02-03", "note": None}, "note", "None is not of type 'string'"),
    ],
)
def test_argument_errors_name_the_field(
    ep: Episode, tool_name: str, arguments: dict[str, Any], field: str, text: str
) -> None:
    before = ep.serialize()
    with pytest.raises(ToolArgumentError) as info:
        ep.call_tool(tool_name, arguments)
    assert info.value.field == field
    assert field.split(".")[-1] in str(info.value)
    assert text in str(info.value)
    assert ep.serialize() == before


def test_valid_format_passes(ep: Episode) -> None:
    assert ep.call_tool("book", {"day": "2026-02-03"}).content == "2026-02-03"


def test_arguments_must_be_an_object(ep: Episode) -> None:
    with pytest.raises(ToolArgumentError) as info:
        ep.call_tool("cancel_order", ["O1"])  # type: ignore[arg-type]
    assert info.value.field == ""
    assert "must be a JSON object, got list" in str(info.value)


def test_none_arguments_mean_no_arguments(ep: Episode) -> None:
    assert ep.call_tool("clock", None).content["today"] == "2026-01-15"
    with pytest.raises(ToolArgumentError, match="Missing required argument 'order_id'"):
        ep.call_tool("cancel_order", None)


def test_unknown_tool_suggests_close_names(ep: Episode) -> None:
    with pytest.raises(UnknownTool) as info:
        ep.call_tool("cancel_ordr", {"order_id": "O1"})
    assert info.value.tool == "cancel_ordr"
    assert str(info.value).startswith("Unknown tool 'cancel_ordr'. Did you mean 'cancel_order'")
    with pytest.raises(UnknownTool) as info:
        ep.call_tool("zzzz")
    assert "Did you mean" not in str(info.value)


# -- read tools -------------------------------------------------------------------------------------------


def test_read_tool_cannot_write() -> None:
    spec = with_tools(
        tool(
            "sneaky_read",
            kind="read",
            steps=[
                {
                    "kind": "query",
                    "bind": "x",
                    "sql": "UPDATE accounts SET balance = 0 WHERE account_id = 'U1' RETURNING account_id",
                },
                {"kind": "return", "sql": "SELECT 1"},
            ],
        ),
        tool(
            "sneaky_insert",
            kind="read",
            steps=[
                {
                    "kind": "return",
                    "sql": "INSERT INTO accounts (account_id, email, balance) VALUES ('U3', 'c@example.com', 1) "
                    "RETURNING *",
                }
            ],
        ),
    )
    env = shop_env(spec)
    ep = env.episode()
    with pytest.raises(SandboxError, match="UPDATE on 'accounts' is not allowed in a read-only tool"):
        ep.call_tool("sneaky_read")
    with pytest.raises(SandboxError, match="INSERT on 'accounts' is not allowed in a read-only tool"):
        ep.call_tool("sneaky_insert")
    assert ep.serialize() == env.image
    # The same SQL in a write tool's query step is allowed: the denial is about the tool's kind.
    spec["tools"][-2]["kind"] = "write"
    ep2 = shop_env(spec).episode()
    ep2.call_tool("sneaky_read")
    assert _row(ep2, "SELECT balance FROM accounts WHERE account_id = 'U1'") == {"balance": 0.0}


def test_episode_query_is_read_only(ep: Episode, env: Environment) -> None:
    with pytest.raises(SandboxError, match="not allowed in a read-only tool"):
        ep.query("DELETE FROM orders")
    assert ep.serialize() == env.image
    assert ep.query("SELECT count(*) AS n FROM orders WHERE account_id = :a", {"a": "U1"}) == [{"n": 2}]


def test_read_tool_changes_no_bytes(ep: Episode, env: Environment) -> None:
    for name, arguments in [
        ("find_account", {"email": "ann@example.com"}),
        ("get_order", {"order_id": "O2"}),
        ("order_summary", {"account_id": "U1"}),
        ("account_digest", {"account_id": "U2"}),
    ]:
        ep.call_tool(name, arguments)
    assert ep.serialize() == env.image
    assert ep.changed_keys() == {}


def test_new_id_in_a_read_tool_does_not_advance_the_counter() -> None:
    env = shop_env(
        with_tools(
            tool("peek_id", kind="read", steps=[{"kind": "return", "shape": "value", "sql": "SELECT new_id('R')"}])
        )
    )
    ep = env.episode()
    start = ep.state_hash()
    assert ep.call_tool("peek_id").content == "R1001"
    assert ep.call_tool("peek_id").content == "R1001"
    assert ep.state_hash() == start
    ep.call_tool("return_items", {"order_id": "O1", "item_ids": ["I1"]})
    assert _row(ep, "SELECT order_id FROM orders WHERE order_id LIKE 'R%'") == {"order_id": "R1001"}


# -- SQL injection ----------------------------------------------------------------------------------------

INJECTIONS = [
    "O1'; DROP TABLE orders; --",
    "' OR '1'='1",
    "O1' OR 1=1 --",
    'x"; DELETE FROM accounts; --',
    "O1); DROP TABLE accounts; --",
    ":order_id",
    "O1' UNION SELECT * FROM accounts --",
]


@pytest.mark.parametrize("value", INJECTIONS)
def test_injection_strings_are_plain_values(ep: Episode, env: Environment, value: str) -> None:
    with pytest.raises(StateError, match="not found"):
        ep.call_tool("cancel_order", {"order_id": value})
    with pytest.raises(StateError) as info:
        ep.call_tool("find_account", {"email": value})
    assert str(info.value) == f"No account with email {value}"
    assert ep.call_tool("list_orders", {"status": value}).content == []
    with pytest.raises(StateError, match="not found"):
        ep.call_tool("charge", {"account_id": value, "amount": 1})
    assert ep.serialize() == env.image
    assert _row(ep, "SELECT count(*) AS n FROM orders") == {"n": 2}
    assert _row(ep, "SELECT count(*) AS n FROM accounts") == {"n": 2}
    assert {r["name"] for r in ep.query("SELECT name FROM sqlite_master WHERE type = 'table'")} >= {
        "accounts",
        "orders",
        "order_items",
    }


def test_injection_strings_are_stored_verbatim(ep: Episode) -> None:
    tags = ["'); DROP TABLE accounts; --", "' OR '1'='1", '"]}']
    ep.call_tool("set_tags", {"account_id": "U2", "tags": tags})
    assert ep.call_tool("account", {"account_id": "U2"}).content["tags"] == tags
    assert _row(ep, "SELECT count(*) AS n FROM accounts") == {"n": 2}
    with pytest.raises(StateError, match=r"Item '\); DROP TABLE accounts; -- not found in order O1"):
        ep.call_tool("return_items", {"order_id": "O1", "item_ids": ["I1", tags[0]]})


# -- determinism, isolation, snapshots ---------------------------------------------------------------------

CALLS = [
    ToolCall(tool="find_account", arguments={"email": "ann@example.com"}),
    ToolCall(tool="return_items", arguments={"order_id": "O1", "item_ids": ["I1"]}),
    ToolCall(tool="new_order", arguments={"account_id": "U2"}),
    ToolCall(tool="cancel_order", arguments={"order_id": "O1"}),
    ToolCall(tool="add_items", arguments={"order_id": "O2", "items": [{"item_id": "Z", "price": 1.25}]}),
    ToolCall(tool="return_items", arguments={"order_id": "O2", "item_ids": ["I3"]}),
    ToolCall(tool="set_tags", arguments={"account_id": "U1", "tags": ["x"]}),
]


def test_same_calls_give_identical_bytes_and_hash(env: Environment) -> None:
    a, b = env.episode(), env.episode()
    results_a = [r.content for r in a.replay(CALLS)]
    results_b = [r.content for r in b.replay([c.model_dump() for c in CALLS])]  # dicts work too
    assert results_a == results_b
    assert results_a[2] == "ORD1001"
    assert a.serialize() == b.serialize()
    assert a.state_hash() == b.state_hash()
    assert a.serialize() != env.image
    assert a.state_hash() != env.episode().state_hash()


def test_new_id_sequence_is_deterministic_per_prefix(env: Environment) -> None:
    ep = env.episode()
    ep.replay(CALLS)
    ids = sorted(r["order_id"] for r in ep.query("SELECT order_id FROM orders WHERE order_id NOT LIKE 'O_'"))
    assert ids == ["ORD1001", "R1001", "R1002"]
    assert ep.call_tool("new_order", {"account_id": "U1"}).content == "ORD1002"


def test_compiling_the_same_spec_twice_gives_the_same_image() -> None:
    assert shop_env().image == shop_env().image


def test_state_hash_depends_on_counters(env: Environment) -> None:
    a, b = env.episode(), env.episode()
    a.call_tool("new_order", {"account_id": "U1"})
    b.call_tool("new_order", {"account_id": "U1"})
    assert a.state_hash() == b.state_hash()
    b.call_tool("new_order", {"account_id": "U1"})
    assert a.state_hash() != b.state_hash()


def test_episodes_are_isolated(env: Environment) -> None:
    a, b = env.episode(), env.episode()
    a.call_tool("cancel_order", {"order_id": "O1"})
    a.call_tool("new_order", {"account_id": "U1"})
    assert b.call_tool("list_orders", {"status": "pending"}).content == [{"order_id": "O1", "status": "pending"}]
    assert b.serialize() == env.image
    assert b.changed_keys() == {}
    assert b.call_tool("new_order", {"account_id": "U2"}).content == "ORD1001"
    assert a.call_tool("order_total", {"order_id": "ORD1001"}).content == 0.0
    assert _row(a, "SELECT account_id FROM orders WHERE order_id = 'ORD1001'") == {"account_id": "U1"}
    assert _row(b, "SELECT account_id FROM orders WHERE order_id = 'ORD1001'") == {"account_id": "U2"}


def test_restore_continues_identically(env: Environment) -> None:
    original = env.episode()
    original.replay(CALLS[:3])
    snapshot = original.serialize()
    restored = env.restore(snapshot)
    assert restored.serialize() == snapshot
    assert restored.state_hash() == original.state_hash()
    assert restored.changed_keys() == original.changed_keys()
    for ep in (original, restored):
        ep.replay(CALLS[3:])
        assert ep.call_tool("new_order", {"account_id": "U1"}).content == "ORD1002"
    assert restored.serialize() == original.serialize()
    assert restored.written_tables == original.written_tables
    # The snapshot itself is unaffected by what either episode did afterwards.
    assert env.restore(snapshot).call_tool("new_order", {"account_id": "U1"}).content == "ORD1002"


def test_closed_episode_cannot_be_used(env: Environment) -> None:
    ep = env.episode()
    ep.close()
    with pytest.raises(Exception, match="closed"):
        ep.serialize()


# -- initial_patch -----------------------------------------------------------------------------------------


def test_initial_patch_insert_update_delete(env: Environment) -> None:
    task = shop_task(
        id="patched",
        initial_patch=[
            {
                "op": "insert",
                "table": "accounts",
                "rows": [{"account_id": "U3", "email": "cy@example.com", "balance": 7.5}],
            },
            {
                "op": "update",
                "table": "orders",
                "where": {"order_id": "O2"},
                "set": {"status": "pending", "total": 25.0},
            },
            {"op": "delete", "table": "order_items", "where": {"order_id": "O1", "item_id": "I2"}},
        ],
    )
    ep = env.episode(task)
    assert ep.dump("accounts")[-1] == {"account_id": "U3", "email": "cy@example.com", "balance": 7.5, "tags": "[]"}
    assert _row(ep, "SELECT status, total FROM orders WHERE order_id = 'O2'") == {"status": "pending", "total": 25.0}
    assert [r["item_id"] for r in ep.dump("order_items")] == ["I1", "I3"]
    # The patched state is where the task starts: nothing counts as changed yet.
    assert ep.changed_keys() == {}
    assert ep.written_tables == set()
    assert env.task_image(task) is env.task_image(task)  # built once
    # The seed is untouched.
    assert env.episode().serialize() == env.image
    ep.call_tool("cancel_order", {"order_id": "O2"})
    assert ep.changed_keys() == {"orders": {("O2",)}, "accounts": {("U1",)}}


def test_task_without_patch_starts_from_the_seed(env: Environment) -> None:
    assert env.episode(shop_task(id="plain")).serialize() == env.image


@pytest.mark.parametrize(
    ("op", "text"),
    [
        ({"op": "insert", "table": "nope", "rows": [{"a": 1}]}, "unknown table 'nope'"),
        (
            {"op": "update", "table": "orders", "where": {"order_id": "O1"}, "set": {"colour": 1}},
            "unknown column(s) ['colour'] of 'orders'",
        ),
        (
            {"op": "update", "table": "orders", "where": {"order_id": "O9"}, "set": {"total": 1}},
            "update matched no row of 'orders'",
        ),
        ({"op": "delete", "table": "orders", "where": {"order_id": "O9"}}, "delete matched no row of 'orders'"),
        (
            {"op": "update", "table": "orders", "where": {"order_id": "O1"}, "set": {"status": "lost"}},
            "update failed: CHECK constraint failed",
        ),
        (
            {"op": "delete", "table": "accounts", "where": {"account_id": "U1"}},
            "delete failed: FOREIGN KEY constraint failed",
        ),
    ],
)
def test_initial_patch_errors_name_the_op(env: Environment, op: dict[str, Any], text: str) -> None:
    ok = {"op": "update", "table": "accounts", "where": {"account_id": "U2"}, "set": {"balance": 6.0}}
    task = shop_task(id=f"bad-{op['op']}-{op['table']}", initial_patch=[ok, op])
    with pytest.raises(SpecError) as info:
        env.episode(task)
    assert info.value.location == "initial_patch[1]"
    assert text in str(info.value)


@pytest.mark.parametrize(
    ("rows", "text"),
    [
        ([{"account_id": "U1", "email": "dup@example.com", "balance": 1.0}], "UNIQUE constraint failed"),
        ([{"account_id": "U3", "email": "c@example.com", "balance": -1.0}], "CHECK constraint failed"),
        ([{"account_id": "U3", "email": "c@example.com", "balance": "lots"}], "cannot store TEXT value"),
    ],
)
def test_initial_patch_insert_errors_name_the_row(env: Environment, rows: list[dict[str, Any]], text: str) -> None:
    ok = {"op": "insert", "table": "accounts", "rows": [{"account_id": "U4", "email": "d@example.com", "balance": 1.0}]}
    task = shop_task(
        id=f"bad-insert-{text.split()[0].lower()}",
        initial_patch=[ok, {"op": "insert", "table": "accounts", "rows": rows}],
    )
    with pytest.raises(SpecError) as info:
        env.episode(task)
    assert info.value.location == "initial_patch[1].rows[0]"
    assert text in str(info.value)


def test_initial_patch_foreign_keys_are_checked_after_all_ops(env: Environment) -> None:
    dangling = {
        "order_id": "O9",
        "account_id": "U9",
        "status": "pending",
        "total": 1.0,
        "created_at": "2026-01-01 00:00:00",
    }
    task = shop_task(id="dangling", initial_patch=[{"op": "insert", "table": "orders", "rows": [dangling]}])
    with pytest.raises(SpecError, match=r"FOREIGN KEY|references a missing 'accounts' row"):
        env.episode(task)


def test_failed_patch_is_not_cached(env: Environment) -> None:
    task = shop_task(id="never", initial_patch=[{"op": "delete", "table": "orders", "where": {"order_id": "O9"}}])
    for _ in range(2):
        with pytest.raises(SpecError):
            env.task_image(task)


# -- change tracking ---------------------------------------------------------------------------------------


def test_changed_keys_and_written_tables(ep: Episode) -> None:
    assert ep.changed_keys() == {}
    assert ep.written_tables == set()
    ep.call_tool("get_order", {"order_id": "O1"})
    assert ep.written_tables == set()
    ep.call_tool("return_items", {"order_id": "O1", "item_ids": ["I2"]})
    assert ep.changed_keys() == {"order_items": {("O1", "I2")}, "orders": {("R1001",)}}
    assert ep.written_tables == {"order_items", "orders"}
    ep.call_tool("charge", {"account_id": "U2", "amount": 2.5})
    assert ep.changed_keys()["accounts"] == {("U2",)}
    assert ep.written_tables == {"order_items", "orders", "accounts"}
    assert ep.rows_by_key("accounts", [("U2",), ("U9",)]) == {
        ("U2",): {"account_id": "U2", "email": "bob@example.com", "balance": 2.5, "tags": "[]"},
        ("U9",): None,
    }


def test_dump_is_ordered_by_primary_key(ep: Episode) -> None:
    ep.call_tool("add_items", {"order_id": "O1", "items": [{"item_id": "A", "price": 1}]})
    assert [(r["order_id"], r["item_id"]) for r in ep.dump("order_items")] == [
        ("O1", "A@0"),
        ("O1", "I1"),
        ("O1", "I2"),
        ("O2", "I3"),
    ]


def test_environment_exposes_tools_and_builtins(env: Environment) -> None:
    assert set(env.tools) == {t["name"] for t in ENGINE_SPEC["tools"]}
    assert env.table_names == {t["name"] for t in SHOP["tables"]}
    assert env.builtins == {"now": "2026-01-15 09:00:00", "today": "2026-01-15"}
