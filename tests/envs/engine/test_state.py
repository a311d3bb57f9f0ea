"""Determinism, isolation and snapshots of episodes; a task's initial patch; change tracking."""

from __future__ import annotations

from typing import Any

import pytest

from envs.engine import Environment, Episode
from envs.errors import SpecError
from envs.formats.task import ToolCall
from tests.envs.specs import SHOP, shop_env, shop_task

from .spec import ENGINE_SPEC, row

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
    assert row(a, "SELECT account_id FROM orders WHERE order_id = 'ORD1001'") == {"account_id": "U1"}
    assert row(b, "SELECT account_id FROM orders WHERE order_id = 'ORD1001'") == {"account_id": "U2"}


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
    assert row(ep, "SELECT status, total FROM orders WHERE order_id = 'O2'") == {"status": "pending", "total": 25.0}
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
def test_initial_patch_insert_errors_name_therow(env: Environment, rows: list[dict[str, Any]], text: str) -> None:
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
