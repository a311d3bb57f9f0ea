"""Small specs built in code for engine tests (the catalog holds the real environments)."""

from __future__ import annotations

import copy
from typing import Any

from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task

SHOP: dict[str, Any] = {
    "id": "shop",
    "name": "Tiny shop",
    "sector": "retail",
    "description": "Accounts with balances and orders of items, for engine tests.",
    "policy": "Be nice.",
    "clock": "2026-01-15T09:00:00",
    "tables": [
        {
            "name": "accounts",
            "primary_key": ["account_id"],
            "columns": [
                {"name": "account_id", "type": "text"},
                {"name": "email", "type": "text", "unique": True},
                {"name": "balance", "type": "real", "check": "balance >= 0"},
                {"name": "tags", "type": "json", "default": "[]"},
            ],
        },
        {
            "name": "orders",
            "primary_key": ["order_id"],
            "columns": [
                {"name": "order_id", "type": "text"},
                {"name": "account_id", "type": "text"},
                {"name": "status", "type": "text", "enum": ["pending", "cancelled", "delivered"]},
                {"name": "total", "type": "real"},
                {"name": "created_at", "type": "datetime"},
            ],
            "foreign_keys": [{"columns": ["account_id"], "table": "accounts", "references": ["account_id"]}],
        },
        {
            "name": "order_items",
            "primary_key": ["order_id", "item_id"],
            "columns": [
                {"name": "order_id", "type": "text"},
                {"name": "item_id", "type": "text"},
                {"name": "price", "type": "real"},
                {"name": "status", "type": "text", "enum": ["ok", "returned"]},
            ],
            "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
        },
    ],
    "seed": {
        "accounts": [
            {"account_id": "U1", "email": "ann@example.com", "balance": 100.0},
            {"account_id": "U2", "email": "bob@example.com", "balance": 5.0},
        ],
        "orders": [
            {
                "order_id": "O1",
                "account_id": "U1",
                "status": "pending",
                "total": 30.0,
                "created_at": "2026-01-10 10:00:00",
            },
            {
                "order_id": "O2",
                "account_id": "U1",
                "status": "delivered",
                "total": 20.0,
                "created_at": "2026-01-11 10:00:00",
            },
        ],
        "order_items": [
            {"order_id": "O1", "item_id": "I1", "price": 10.0, "status": "ok"},
            {"order_id": "O1", "item_id": "I2", "price": 20.0, "status": "ok"},
            {"order_id": "O2", "item_id": "I3", "price": 20.0, "status": "ok"},
        ],
    },
    "invariants": [
        {
            "name": "non_negative_totals",
            "description": "Totals are never negative",
            "violations": "SELECT order_id FROM orders WHERE total < 0",
        }
    ],
    "tools": [
        {
            "name": "find_account",
            "description": "Find an account by email.",
            "kind": "read",
            "parameters": {
                "type": "object",
                "required": ["email"],
                "additionalProperties": False,
                "properties": {"email": {"type": "string"}},
            },
            "steps": [
                {
                    "kind": "query",
                    "bind": "acct",
                    "sql": "SELECT * FROM accounts WHERE email = :email",
                    "message": "No account with email {email}",
                },
                {"kind": "return", "shape": "value", "sql": "SELECT :acct.account_id"},
            ],
        },
        {
            "name": "get_order",
            "description": "An order with its items.",
            "kind": "read",
            "parameters": {
                "type": "object",
                "required": ["order_id"],
                "additionalProperties": False,
                "properties": {"order_id": {"type": "string"}},
            },
            "steps": [
                {
                    "kind": "query",
                    "bind": "o",
                    "sql": "SELECT * FROM orders WHERE order_id = :order_id",
                    "message": "Order {order_id} not found",
                },
                {
                    "kind": "return",
                    "shape": "one",
                    "json_columns": ["items"],
                    "sql": "SELECT o.*, (SELECT json_group_array(json_object('item_id', item_id, 'price', price, 'status', status)) FROM order_items i WHERE i.order_id = o.order_id) AS items FROM orders o WHERE o.order_id = :order_id",
                },
            ],
        },
        {
            "name": "cancel_order",
            "description": "Cancel a pending order and refund its total to the account balance.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "required": ["order_id"],
                "additionalProperties": False,
                "properties": {"order_id": {"type": "string"}},
            },
            "steps": [
                {
                    "kind": "query",
                    "bind": "order",
                    "sql": "SELECT * FROM orders WHERE order_id = :order_id",
                    "message": "Order {order_id} not found",
                },
                {
                    "kind": "require",
                    "sql": "SELECT :order.status = 'pending'",
                    "message": "Order {order_id} is {order.status}; only pending orders can be cancelled",
                },
                {"kind": "exec", "sql": "UPDATE orders SET status = 'cancelled' WHERE order_id = :order_id"},
                {
                    "kind": "exec",
                    "min_changes": 1,
                    "message": "Account {order.account_id} is gone",
                    "sql": "UPDATE accounts SET balance = round(balance + :order.total, 2) WHERE account_id = :order.account_id",
                },
                {
                    "kind": "return",
                    "shape": "one",
                    "sql": "SELECT order_id, status FROM orders WHERE order_id = :order_id",
                },
            ],
        },
        {
            "name": "return_items",
            "description": "Return delivered items of one order.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "required": ["order_id", "item_ids"],
                "additionalProperties": False,
                "properties": {
                    "order_id": {"type": "string"},
                    "item_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                },
            },
            "steps": [
                {
                    "kind": "query",
                    "bind": "order",
                    "sql": "SELECT * FROM orders WHERE order_id = :order_id",
                    "message": "Order {order_id} not found",
                },
                {
                    "kind": "require",
                    "mode": "empty",
                    "sql": "SELECT j.value AS item_id FROM json_each(:item_ids) j WHERE j.value NOT IN (SELECT item_id FROM order_items WHERE order_id = :order_id)",
                    "message": "Item {item_id} not found in order {order_id}",
                },
                {
                    "kind": "exec",
                    "for_each": "item_ids",
                    "sql": "UPDATE order_items SET status = 'returned' WHERE order_id = :order_id AND item_id = :item",
                },
                {
                    "kind": "exec",
                    "sql": "INSERT INTO orders (order_id, account_id, status, total, created_at) VALUES (new_id('R'), :order.account_id, 'pending', 0, :now)",
                },
                {
                    "kind": "return",
                    "shape": "many",
                    "sql": "SELECT * FROM order_items WHERE order_id = :order_id ORDER BY item_id",
                },
            ],
        },
        {
            "name": "set_tags",
            "description": "Replace an account's tags.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "required": ["account_id", "tags"],
                "additionalProperties": False,
                "properties": {
                    "account_id": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
            },
            "steps": [
                {
                    "kind": "exec",
                    "min_changes": 1,
                    "message": "Account {account_id} not found",
                    "sql": "UPDATE accounts SET tags = :tags WHERE account_id = :account_id",
                },
            ],
        },
        {
            "name": "charge",
            "description": "Charge an account (balance must stay non-negative).",
            "kind": "write",
            "parameters": {
                "type": "object",
                "required": ["account_id", "amount"],
                "additionalProperties": False,
                "properties": {"account_id": {"type": "string"}, "amount": {"type": "number", "minimum": 0}},
            },
            "steps": [
                {
                    "kind": "exec",
                    "min_changes": 1,
                    "message": "Account {account_id} not found",
                    "sql": "UPDATE accounts SET balance = balance - :amount WHERE account_id = :account_id",
                },
            ],
        },
    ],
}

TASK: dict[str, Any] = {
    "id": "shop-1",
    "env": "shop",
    "instruction": "Cancel my pending order O1 and tell me my new balance.",
    "gold_actions": [
        {"tool": "find_account", "arguments": {"email": "ann@example.com"}},
        {"tool": "get_order", "arguments": {"order_id": "O1"}},
        {"tool": "cancel_order", "arguments": {"order_id": "O1"}},
    ],
    "outputs": ["130"],
    "assertions": [
        {"description": "O1 is cancelled", "sql": "SELECT status = 'cancelled' FROM orders WHERE order_id = 'O1'"},
        {"description": "Ann got her refund", "sql": "SELECT balance = 130 FROM accounts WHERE account_id = 'U1'"},
    ],
}


def shop_spec(**changes: Any) -> dict[str, Any]:
    """A deep copy of SHOP with top-level fields replaced."""
    spec = copy.deepcopy(SHOP)
    spec.update(changes)
    return spec


def with_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """SHOP plus one extra tool (for sandbox tests)."""
    spec = copy.deepcopy(SHOP)
    spec["tools"].append(tool)
    return spec


def tool(
    name: str,
    steps: list[dict[str, Any]],
    *,
    kind: str = "write",
    parameters: dict[str, Any] | None = None,
    description: str = "A tool for tests.",
) -> dict[str, Any]:
    """A tool dict; ``parameters`` defaults to an object schema with no properties."""
    out: dict[str, Any] = {"name": name, "description": description, "kind": kind, "steps": steps}
    if parameters is not None:
        out["parameters"] = parameters
    return out


def table(name: str, columns: list[tuple[str, str]], *parents: str, **enums: list[str]) -> dict[str, Any]:
    """A table dict keyed by its first column, with a foreign key to each parent (``"rental"``:
    ``rental_id`` -> ``rentals``) and an enum for each column named in ``enums``."""
    fks = [{"columns": [f"{p}_id"], "table": f"{p}s", "references": [f"{p}_id"]} for p in parents]
    cols = [{"name": c, "type": t} | ({"enum": enums[c]} if c in enums else {}) for c, t in columns]
    return {"name": name, "primary_key": [columns[0][0]], "columns": cols, "foreign_keys": fks}


def params(required: list[str] | None = None, **properties: dict[str, Any]) -> dict[str, Any]:
    """An object JSON Schema with ``properties`` (all required unless ``required`` is given)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties) if required is None else required,
        "properties": properties,
    }


def with_tools(*tools: dict[str, Any]) -> dict[str, Any]:
    """SHOP plus several extra tools."""
    spec = copy.deepcopy(SHOP)
    spec["tools"].extend(copy.deepcopy(list(tools)))
    return spec


def shop_env(spec: dict[str, Any] | None = None, **kwargs: Any) -> Environment:
    """A compiled Environment of ``spec`` (SHOP by default)."""
    return Environment(EnvSpec.model_validate(copy.deepcopy(SHOP) if spec is None else spec), **kwargs)


def shop_task(**changes: Any) -> Task:
    """TASK (or a variant of it) as a validated Task."""
    return Task.model_validate({**copy.deepcopy(TASK), **changes})
