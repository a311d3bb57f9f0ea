"""The sandbox: a hostile spec's SQL is denied (or stopped by the step budget), the call changes
nothing, and the episode stays usable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from envs.engine import Environment, Episode
from envs.errors import SandboxError, StateError, ToolError
from envs.formats.spec import EnvSpec
from tests.envs.specs import shop_env, tool, with_tool, with_tools

BOMB = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"

#: name -> (SQL a step tries, text of the SandboxError)
DENIED: dict[str, tuple[str, str]] = {
    "attach": ("ATTACH DATABASE ':memory:' AS other", "ATTACH is not allowed"),
    "detach": ("DETACH DATABASE temp", "DETACH is not allowed"),
    "pragma_writable_schema": ("PRAGMA writable_schema = 1", "PRAGMA is not allowed"),
    "pragma_foreign_keys_off": ("PRAGMA foreign_keys = OFF", "PRAGMA is not allowed"),
    "pragma_table_function": ("SELECT * FROM pragma_table_info('orders')", "reading table 'pragma_table_info'"),
    "pragma_database_list": ("SELECT name FROM pragma_database_list", "reading table 'pragma_database_list'"),
    "create_table": ("CREATE TABLE loot (x)", "not allowed"),
    "create_temp_table": ("CREATE TEMP TABLE loot (x)", "access to database 'temp' is not allowed"),
    "create_index": ("CREATE INDEX loot ON orders (total)", "not allowed"),
    "create_trigger": (
        "CREATE TRIGGER loot AFTER INSERT ON orders BEGIN DELETE FROM accounts; END",
        "CREATE TRIGGER is not allowed",
    ),
    "create_view": ("CREATE VIEW loot AS SELECT * FROM accounts", "not allowed"),
    "drop_table": ("DROP TABLE orders", "not allowed"),
    "drop_tracking_trigger": ("DROP TRIGGER _envfarm_track_ins_orders", "DROP TRIGGER is not allowed"),
    "alter_add_column": ("ALTER TABLE orders ADD COLUMN note TEXT", "ALTER TABLE is not allowed"),
    "alter_rename": ("ALTER TABLE orders RENAME TO old_orders", "ALTER TABLE is not allowed"),
    "load_extension": ("SELECT load_extension('x')", "function load_extension() is not allowed"),
    "quoted_random": ('SELECT "random"()', "function random() is not allowed"),
    "bracketed_randomblob": ("SELECT hex([randomblob](4))", "function randomblob() is not allowed"),
    "update_sqlite_master": (
        "UPDATE sqlite_master SET sql = 'CREATE TABLE x (y)' WHERE name = 'orders' RETURNING name",
        "sqlite_master may not be modified",
    ),
    "insert_sqlite_master": (
        "INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('table', 't', 't', 0, '') RETURNING 1",
        "INSERT on table 'sqlite_master' is not allowed",
    ),
    "delete_sqlite_master": ("DELETE FROM sqlite_master RETURNING name", "sqlite_master may not be modified"),
    "read_changes_table": ("SELECT * FROM _envfarm_changes", "reading table '_envfarm_changes' is not allowed"),
    "count_counters_table": ("SELECT count(*) FROM _envfarm_counters", "reading table '_envfarm_counters'"),
    "exists_changes_table": ("SELECT 1 FROM _envfarm_changes", "reading table '_envfarm_changes' is not allowed"),
    "count_dbstat": ("SELECT count(*) FROM dbstat", "reading table 'dbstat' is not allowed"),
    "count_pragma_function": ("SELECT count(*) FROM pragma_table_info('orders')", "not allowed"),
    "count_sqlite_stmt": ("SELECT count(*) FROM sqlite_stmt", "reading table 'sqlite_stmt' is not allowed"),
    "write_counters_table": (
        "INSERT INTO _envfarm_counters VALUES ('ORD', 5000) RETURNING prefix",
        "INSERT on table '_envfarm_counters' is not allowed",
    ),
    "temp_schema": ("SELECT * FROM temp.sqlite_master", "access to database 'temp' is not allowed"),
    "begin": ("BEGIN", "transaction control is not allowed"),
    "commit": ("COMMIT", "transaction control is not allowed"),
    "end": ("END", "transaction control is not allowed"),
    "rollback": ("ROLLBACK", "transaction control is not allowed"),
    "savepoint": ("SAVEPOINT s", "SAVEPOINT is not allowed"),
    "release": ("RELEASE s", "SAVEPOINT is not allowed"),
    "rollback_to": ("ROLLBACK TO s", "SAVEPOINT is not allowed"),
    "reindex": ("REINDEX", "REINDEX is not allowed"),
    "analyze": ("ANALYZE", "ANALYZE is not allowed"),
    "recursive_cte_bomb": (BOMB, "exceeded its step budget of 100,000 SQLite steps"),
}


def _step(kind: str, sql: str) -> dict[str, Any]:
    if kind == "query":
        return {"kind": "query", "bind": "x", "expect": "optional", "sql": sql}
    if kind == "require":
        return {"kind": "require", "mode": "empty", "sql": sql, "message": "never"}
    return {"kind": "return", "sql": sql}


def _evil_env(sql: str, kind: str, tool_kind: str = "write") -> Environment:
    steps = [
        {"kind": "query", "bind": "warmup", "sql": "SELECT count(*) AS n FROM orders"},
        _step(kind, sql),
    ]
    if tool_kind == "write":  # make sure a denied call also undoes a write made before it
        steps.insert(0, {"kind": "exec", "sql": "UPDATE accounts SET balance = 0 WHERE account_id = 'U1'"})
    return shop_env(with_tool(tool("evil", steps, kind=tool_kind)), step_budget=100_000)


def _still_works(env: Environment, ep: Episode, before: bytes) -> None:
    assert ep.serialize() == before
    assert [r["name"] for r in ep.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")] == [
        "_envfarm_changes",
        "_envfarm_counters",
        "accounts",
        "order_items",
        "orders",
    ]
    result = ep.call_tool("cancel_order", {"order_id": "O1"})
    assert result.content == {"order_id": "O1", "status": "cancelled"}
    assert ep.query("SELECT balance FROM accounts WHERE account_id = 'U1'") == [{"balance": 130.0}]
    assert ("O1",) in ep.changed_keys()["orders"]


@pytest.mark.parametrize("kind", ["query", "require", "return"])
@pytest.mark.parametrize("name", list(DENIED))
def test_denied_in_a_write_tool(name: str, kind: str) -> None:
    sql, text = DENIED[name]
    env = _evil_env(sql, kind)
    ep = env.episode()
    ep.call_tool("charge", {"account_id": "U2", "amount": 1})  # some committed state first
    before = ep.serialize()
    for _ in range(2):  # denied every time, not only when first prepared
        with pytest.raises(SandboxError) as info:
            ep.call_tool("evil")
        assert text in str(info.value)
        assert str(info.value).startswith("Tool 'evil' ")
    _still_works(env, ep, before)


@pytest.mark.parametrize(
    "name",
    [
        "attach",
        "pragma_writable_schema",
        "pragma_table_function",
        "create_table",
        "drop_table",
        "load_extension",
        "read_changes_table",
        "commit",
        "savepoint",
        "recursive_cte_bomb",
    ],
)
def test_denied_in_a_read_tool(name: str) -> None:
    sql, text = DENIED[name]
    env = _evil_env(sql, "return", tool_kind="read")
    ep = env.episode()
    with pytest.raises(SandboxError) as info:
        ep.call_tool("evil")
    assert text in str(info.value) or "not allowed in a read-only tool" in str(info.value)
    _still_works(env, ep, env.image)


@pytest.mark.parametrize(
    ("sql", "text"),
    [
        ("DELETE FROM _envfarm_changes", "DELETE on table '_envfarm_changes' is not allowed"),
        ("UPDATE _envfarm_counters SET last = 0", "UPDATE on table '_envfarm_counters' is not allowed"),
        ("INSERT INTO _envfarm_counters VALUES ('ORD', 1)", "INSERT on table '_envfarm_counters' is not allowed"),
        ("INSERT INTO sqlite_master VALUES ('table', 't', 't', 0, '')", "INSERT on table 'sqlite_master'"),
        ("DELETE FROM sqlite_master WHERE name = 'orders'", "sqlite_master may not be modified"),
        ("UPDATE sqlite_master SET sql = '' WHERE name = 'orders'", "sqlite_master may not be modified"),
    ],
)
def test_exec_steps_cannot_write_internal_or_schema_tables(sql: str, text: str) -> None:
    env = shop_env(with_tool(tool("evil", [{"kind": "exec", "sql": sql}])))
    ep = env.episode()
    with pytest.raises(SandboxError, match="sandbox") as info:
        ep.call_tool("evil")
    assert text in str(info.value)
    _still_works(env, ep, env.image)


def test_engine_statements_cached_by_sqlite_are_not_reused_for_spec_sql() -> None:
    """The engine runs BEGIN / COMMIT / its counters' SELECT unsandboxed and sqlite3 caches statements
    by text: a spec step with the same text must still go through the sandbox."""
    spec = with_tools(
        tool(
            "commit_midway",
            [
                {"kind": "exec", "sql": "UPDATE accounts SET balance = 0 WHERE account_id = 'U1'"},
                {"kind": "query", "bind": "x", "expect": "optional", "sql": "COMMIT"},
                {"kind": "require", "sql": "SELECT 0", "message": "fail after commit"},
            ],
        ),
        tool("begin_again", [{"kind": "query", "bind": "x", "expect": "optional", "sql": "BEGIN"}]),
        tool("counters", [{"kind": "return", "sql": "SELECT prefix, last FROM _envfarm_counters"}]),
    )
    env = shop_env(spec)
    ep = env.episode()
    ep.call_tool("return_items", {"order_id": "O1", "item_ids": ["I1"]})  # caches BEGIN, COMMIT, counters SQL
    with pytest.raises(StateError):  # caches ROLLBACK too
        ep.call_tool("charge", {"account_id": "U1", "amount": 1000})
    before = ep.serialize()
    for name in ("commit_midway", "begin_again", "counters"):
        with pytest.raises(SandboxError, match="not allowed"):
            ep.call_tool(name)
        assert ep.serialize() == before
    assert ep.query("SELECT balance FROM accounts WHERE account_id = 'U1'") == [{"balance": 100.0}]


def test_attach_creates_no_file(tmp_path: Path) -> None:
    target = tmp_path / "stolen.db"
    env = _evil_env(f"ATTACH DATABASE '{target}' AS stolen", "query")
    ep = env.episode()
    with pytest.raises(SandboxError, match="ATTACH is not allowed"):
        ep.call_tool("evil")
    assert not target.exists()
    _still_works(env, ep, env.image)


def test_vacuum_into_writes_no_file(tmp_path: Path) -> None:
    target = tmp_path / "copy.db"
    env = _evil_env(f"VACUUM INTO '{target}'", "query")
    ep = env.episode()
    with pytest.raises(ToolError, match="VACUUM"):  # refused inside the call's transaction
        ep.call_tool("evil")
    with pytest.raises(SandboxError, match="ATTACH is not allowed"):  # and denied outside one
        ep.query(f"VACUUM INTO '{target}'")
    assert not target.exists()
    _still_works(env, ep, env.image)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM _envfarm_changes",
        "SELECT * FROM pragma_table_info('orders')",
        "PRAGMA foreign_keys = OFF",
        "DELETE FROM orders",
        "DROP TABLE orders",
        "BEGIN",
        "SELECT * FROM temp.sqlite_master",
    ],
)
def test_episode_query_is_sandboxed_too(sql: str) -> None:
    env = shop_env()
    ep = env.episode()
    with pytest.raises(SandboxError, match=r"^Query was stopped by the sandbox"):
        ep.query(sql)
    _still_works(env, ep, env.image)


def test_budget_stops_episode_query() -> None:
    env = shop_env(step_budget=50_000)
    ep = env.episode()
    with pytest.raises(SandboxError, match=r"^Query exceeded its step budget of 50,000 SQLite steps$"):
        ep.query(BOMB)
    _still_works(env, ep, env.image)


def test_budget_is_per_call_not_per_episode() -> None:
    bounded = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 2000) SELECT count(*) FROM c"
    env = shop_env(
        with_tool(tool("count", [{"kind": "return", "shape": "value", "sql": bounded}], kind="read")),
        step_budget=50_000,
    )
    ep = env.episode()
    for _ in range(20):  # together far more than the budget
        assert ep.call_tool("count").content == 2000


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5) SELECT count(*) FROM c", 5),
        ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5) SELECT sum(x) FROM c", 15),
        ("WITH t AS (SELECT total FROM orders) SELECT sum(total) FROM t", 50.0),
        ("WITH t AS (SELECT 1 AS a UNION ALL SELECT 2) SELECT count(*) FROM t", 2),
        ("WITH _envfarm_x AS (SELECT 1 AS a) SELECT count(*) FROM _envfarm_x", 1),
        ("SELECT count(*) FROM Orders", 2),
        ("SELECT count(*) FROM orders o JOIN order_items i ON i.order_id = o.order_id", 3),
        ("SELECT count(*) FROM (SELECT 1 UNION ALL SELECT 2)", 2),
        ("SELECT sum(value) FROM json_each('[1, 2, 3]')", 6),
        ("SELECT count(*) FROM json_tree('{\"a\": [1, 2]}')", 4),
        ("SELECT abs(-3) + length('abc') + instr('abc', 'c')", 9),
    ],
)
def test_pure_sql_is_allowed(sql: str, expected: Any) -> None:
    env = shop_env(with_tool(tool("calc", [{"kind": "return", "shape": "value", "sql": sql}], kind="read")))
    assert env.episode().call_tool("calc").content == expected


@pytest.mark.parametrize(
    "sql", ["SELECT random()", "SELECT randomblob(4)", "SELECT date('now')", "SELECT CURRENT_TIMESTAMP"]
)
def test_nondeterministic_functions_are_refused_before_the_sandbox(sql: str) -> None:
    with pytest.raises(ValidationError, match="is not deterministic"):
        EnvSpec.model_validate(with_tool(tool("evil", [{"kind": "return", "sql": sql}])))


def test_multiple_statements_in_one_step_fail_without_running() -> None:
    env = _evil_env("SELECT 1; DELETE FROM orders", "query")
    ep = env.episode()
    with pytest.raises(ToolError, match="one statement at a time"):
        ep.call_tool("evil")
    _still_works(env, ep, env.image)
