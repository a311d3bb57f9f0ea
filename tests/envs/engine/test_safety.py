"""Calls are atomic, arguments are validated, read tools cannot write, and injected strings stay values."""

from __future__ import annotations

from typing import Any

import pytest

from envs.engine import Environment, Episode
from envs.errors import SandboxError, StateError, ToolArgumentError, ToolError, UnknownTool
from tests.envs.specs import shop_env, tool, with_tools

from .spec import FAILURES, RUNAWAY_SQL, row

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
    assert row(ep, "SELECT count(*) AS n FROM orders") == {"n": 3}
    assert row(ep, "SELECT balance FROM accounts WHERE account_id = 'U2'") == {"balance": 5.0}
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
    env = shop_env(with_tools(tool("spin", kind="read", steps=[{"kind": "return", "sql": RUNAWAY_SQL}])))
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
        ("book", {"day": None, "note": "x"}, "day", "None is not of type 'string'"),  # null for a required one
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


def test_null_for_an_optional_argument_is_absent(ep: Episode) -> None:
    """Strict function calling sends every property; null for an optional one means "not given"."""
    assert ep.call_tool("book", {"day": "2026-02-03", "note": None}).content == "2026-02-03"


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
    assert str(info.value).startswith("Tool 'cancel_ordr' not found. Did you mean 'cancel_order'")
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
    assert row(ep2, "SELECT balance FROM accounts WHERE account_id = 'U1'") == {"balance": 0.0}


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
    assert row(ep, "SELECT order_id FROM orders WHERE order_id LIKE 'R%'") == {"order_id": "R1001"}


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
    assert row(ep, "SELECT count(*) AS n FROM orders") == {"n": 2}
    assert row(ep, "SELECT count(*) AS n FROM accounts") == {"n": 2}
    assert {r["name"] for r in ep.query("SELECT name FROM sqlite_master WHERE type = 'table'")} >= {
        "accounts",
        "orders",
        "order_items",
    }


def test_injection_strings_are_stored_verbatim(ep: Episode) -> None:
    tags = ["'); DROP TABLE accounts; --", "' OR '1'='1", '"]}']
    ep.call_tool("set_tags", {"account_id": "U2", "tags": tags})
    assert ep.call_tool("account", {"account_id": "U2"}).content["tags"] == tags
    assert row(ep, "SELECT count(*) AS n FROM accounts") == {"n": 2}
    with pytest.raises(StateError, match=r"Item '\); DROP TABLE accounts; -- not found in order O1"):
        ep.call_tool("return_items", {"order_id": "O1", "item_ids": ["I1", tags[0]]})
