"""The engine tests' environment: the shop spec plus tools for every step kind and every way a call fails."""

from __future__ import annotations

from typing import Any

from envs.engine import Episode
from envs.errors import SandboxError, StateError, ToolError
from tests.envs.specs import params, tool, with_tools

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

RUNAWAY_SQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

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
        {"kind": "query", "bind": "x", "sql": RUNAWAY_SQL},
        SandboxError,
        "exceeded its step budget of 200,000 SQLite steps",
    ),
    "budget_write": (  # an interrupted write makes SQLite roll the transaction back itself
        {"kind": "exec", "sql": f"UPDATE accounts SET balance = balance + ({RUNAWAY_SQL}) WHERE account_id = 'U1'"},
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


def row(ep: Episode, sql: str) -> dict[str, Any] | None:
    """The first row ``sql`` returns in ``ep``, or None."""
    rows = ep.query(sql)
    return rows[0] if rows else None
