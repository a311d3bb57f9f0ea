"""Spec and task validation: every mistake is rejected at load time with a clear message and location."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from envs.errors import SpecError
from envs.formats.spec import EnvSpec, ToolSpec
from envs.formats.task import Task
from tests.envs.specs import SHOP, TASK, params, tool, with_tool

NEW_TOOL = len(SHOP["tools"])  # index of a tool added by with_tool()
ARRAY_PARAMS = params(
    required=[],
    ids={"type": "array", "items": {"type": "string"}},
    name={"type": "string"},
)


def first_error(model: type[EnvSpec] | type[Task], data: dict[str, Any]) -> tuple[tuple[int | str, ...], str]:
    """The location and message of the first validation error (the model must reject ``data``)."""
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    err = info.value.errors()[0]
    return tuple(err["loc"]), err["msg"]


def spec_error(data: dict[str, Any]) -> tuple[tuple[int | str, ...], str]:
    return first_error(EnvSpec, data)


def test_shop_spec_and_task_are_valid() -> None:
    spec = EnvSpec.model_validate(SHOP)
    assert [t.name for t in spec.tables] == ["accounts", "orders", "order_items"]
    assert spec.tool("cancel_order") is not None
    assert spec.tool("nope") is None
    assert spec.tool("return_items").required_params == ["order_id", "item_ids"]  # type: ignore[union-attr]
    assert spec.table("orders").column("total").type == "real"  # type: ignore[union-attr]
    with pytest.raises(KeyError):
        spec.table("nope")
    task = Task.model_validate(TASK)
    assert task.reward_basis == ["state", "outputs", "assertions"]
    assert task.expects_change is True


def test_tool_without_parameters_gets_an_empty_object_schema() -> None:
    t = ToolSpec.model_validate(tool("ping", [{"kind": "return", "shape": "value", "sql": "SELECT 1"}]))
    assert t.parameters == {"type": "object", "properties": {}, "additionalProperties": False}
    assert t.required_params == []


# -- unknown keys (extra="forbid") -------------------------------------------------------------------


def test_unknown_top_level_key_is_rejected() -> None:
    loc, msg = spec_error({**SHOP, "colour": "red"})
    assert loc == ("colour",)
    assert "Extra inputs are not permitted" in msg


def test_unknown_key_deep_in_a_step_is_rejected_with_its_path() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tools"][2]["steps"][1]["mesage"] = "typo"
    loc, msg = spec_error(spec)
    assert loc[:4] == ("tools", 2, "steps", 1)
    assert loc[-1] == "mesage"
    assert "Extra inputs" in msg


def test_unknown_key_in_a_column_is_rejected() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][1]["columns"][3]["nulable"] = True
    loc, _ = spec_error(spec)
    assert loc == ("tables", 1, "columns", 3, "nulable")


def test_unknown_step_kind_lists_the_valid_kinds() -> None:
    loc, msg = spec_error(with_tool(tool("t", [{"kind": "delete", "sql": "DELETE FROM orders"}])))
    assert loc == ("tools", NEW_TOOL, "steps", 0)
    assert "'delete'" in msg
    for kind in ("query", "require", "exec", "return"):
        assert kind in msg


def test_unsupported_format_version_is_rejected() -> None:
    loc, _ = spec_error({**SHOP, "format_version": 2})
    assert loc == ("format_version",)


# -- steps -------------------------------------------------------------------------------------------


def test_step_using_an_unknown_param_names_tool_step_and_param() -> None:
    loc, msg = spec_error(
        with_tool(tool("lookup", [{"kind": "return", "sql": "SELECT * FROM orders WHERE order_id = :oder_id"}]))
    )
    assert loc == ("tools", NEW_TOOL)
    assert "tool 'lookup' steps[0]" in msg
    assert ":oder_id" in msg
    assert "known: now, today" in msg


def test_a_binding_is_only_known_after_its_query_step() -> None:
    steps = [
        {"kind": "require", "sql": "SELECT :o.status = 'pending'", "message": "no"},
        {"kind": "query", "bind": "o", "sql": "SELECT * FROM orders LIMIT 1"},
    ]
    _, msg = spec_error(with_tool(tool("t", steps)))
    assert "steps[0]" in msg
    assert ":o," in msg
    # In the right order the same steps validate.
    EnvSpec.model_validate(with_tool(tool("t", steps[::-1])))


def test_dotted_binding_column_is_accepted() -> None:
    steps = [
        {"kind": "query", "bind": "o", "sql": "SELECT * FROM orders WHERE order_id = :order_id"},
        {"kind": "return", "sql": "SELECT :o.total, :o.account_id, :now, :today"},
    ]
    spec = EnvSpec.model_validate(with_tool(tool("t", steps, parameters=params(order_id={"type": "string"}))))
    assert spec.tool("t") is not None


def test_param_names_in_strings_and_comments_are_not_checked() -> None:
    sql = "SELECT ':nope' AS a, \"x:nope\" -- :nope\n /* :nope */ FROM orders"
    EnvSpec.model_validate(with_tool(tool("t", [{"kind": "return", "sql": sql}])))


def test_bind_shadowing_a_parameter_is_rejected() -> None:
    _, msg = spec_error(
        with_tool(tool("t", [{"kind": "query", "bind": "name", "sql": "SELECT 1"}], parameters=ARRAY_PARAMS))
    )
    assert "steps[0]" in msg
    assert "bind 'name' shadows" in msg


def test_for_each_on_a_non_array_parameter_is_rejected() -> None:
    step = {"kind": "exec", "for_each": "name", "sql": "DELETE FROM orders WHERE order_id = :item"}
    loc, msg = spec_error(with_tool(tool("t", [step], parameters=ARRAY_PARAMS)))
    assert loc == ("tools", NEW_TOOL)
    assert "tool 't' steps[0]" in msg
    assert "for_each 'name' must name an array parameter" in msg


def test_for_each_on_a_missing_parameter_is_rejected() -> None:
    step = {"kind": "exec", "for_each": "nope", "sql": "DELETE FROM orders WHERE order_id = :item"}
    _, msg = spec_error(with_tool(tool("t", [step], parameters=ARRAY_PARAMS)))
    assert "for_each 'nope'" in msg


def test_for_each_on_a_query_step_is_rejected() -> None:
    step = {"kind": "query", "bind": "b", "for_each": "ids", "sql": "SELECT :item"}
    _, msg = spec_error(with_tool(tool("t", [step], parameters=ARRAY_PARAMS)))
    assert "for_each is allowed on 'require' and 'exec' steps only" in msg


def test_item_and_index_are_only_known_inside_for_each() -> None:
    step = {"kind": "exec", "sql": "DELETE FROM orders WHERE order_id = :item"}
    _, msg = spec_error(with_tool(tool("t", [step], parameters=ARRAY_PARAMS)))
    assert ":item" in msg
    EnvSpec.model_validate(with_tool(tool("t", [{**step, "for_each": "ids"}], parameters=ARRAY_PARAMS)))


def test_exec_step_in_a_read_tool_is_rejected() -> None:
    loc, msg = spec_error(with_tool(tool("peek", [{"kind": "exec", "sql": "DELETE FROM orders"}], kind="read")))
    assert loc == ("tools", NEW_TOOL)
    assert "read tool 'peek' has an 'exec' step" in msg
    assert "steps[0]" in msg


@pytest.mark.parametrize("sql", ["SELECT 1", "PRAGMA writable_schema = 1", "DROP TABLE orders", "CREATE TABLE t (x)"])
def test_exec_step_must_be_insert_update_or_delete(sql: str) -> None:
    _, msg = spec_error(with_tool(tool("t", [{"kind": "exec", "sql": sql}])))
    assert "an 'exec' step must be INSERT, UPDATE or DELETE" in msg


def test_exec_step_may_start_with_a_cte() -> None:
    sql = "WITH x AS (SELECT 'O1' AS id) UPDATE orders SET total = 1 WHERE order_id IN (SELECT id FROM x)"
    EnvSpec.model_validate(with_tool(tool("t", [{"kind": "exec", "sql": sql}])))


def test_return_step_not_last_is_rejected() -> None:
    steps = [{"kind": "return", "sql": "SELECT 1"}, {"kind": "exec", "sql": "DELETE FROM orders"}]
    loc, msg = spec_error(with_tool(tool("t", steps)))
    assert loc == ("tools", NEW_TOOL)
    assert "tool 't': a 'return' step may appear once, as the last step" in msg


def test_two_return_steps_are_rejected() -> None:
    steps = [{"kind": "return", "sql": "SELECT 1"}, {"kind": "return", "sql": "SELECT 2"}]
    _, msg = spec_error(with_tool(tool("t", steps)))
    assert "may appear once" in msg


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("SELECT date('now')", "'now'"),
        ("SELECT datetime('now', '+1 day')", "'now'"),
        ("SELECT strftime('%s', 'NOW')", "'now'"),
        ("SELECT random()", "random"),
        ("SELECT abs(RANDOM()) % 6", "random"),
        ("SELECT hex(randomblob(8))", "randomblob"),
        ("SELECT CURRENT_TIMESTAMP", "current_timestamp"),
        ("SELECT current_date", "current_date"),
        ("SELECT Current_Time", "current_time"),
    ],
)
def test_nondeterministic_sql_is_rejected(sql: str, named: str) -> None:
    loc, msg = spec_error(with_tool(tool("t", [{"kind": "return", "sql": sql}])))
    assert loc == ("tools", NEW_TOOL)
    assert f"steps[0]: {named}" in msg
    assert "is not deterministic; use :now / :today or new_id()" in msg


def test_nondeterministic_sql_in_an_exec_step_is_rejected() -> None:
    sql = "UPDATE orders SET created_at = CURRENT_TIMESTAMP WHERE order_id = 'O1'"
    _, msg = spec_error(with_tool(tool("t", [{"kind": "exec", "sql": sql}])))
    assert "current_timestamp is not deterministic" in msg


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'random now' AS note",  # only the exact literal 'now' reads the clock
        "SELECT 1 -- random() in a comment",
        "SELECT random_code FROM (SELECT 1 AS random_code)",  # a word that merely starts with random
        "SELECT :now, :today",
    ],
)
def test_deterministic_lookalikes_are_accepted(sql: str) -> None:
    EnvSpec.model_validate(with_tool(tool("t", [{"kind": "return", "sql": sql}])))


def test_query_step_needs_a_bind_and_require_needs_a_message() -> None:
    loc, msg = spec_error(with_tool(tool("t", [{"kind": "query", "sql": "SELECT 1"}])))
    assert loc[-1] == "bind"
    assert "Field required" in msg
    loc, _ = spec_error(with_tool(tool("t", [{"kind": "require", "sql": "SELECT 1"}])))
    assert loc[-1] == "message"


def test_negative_min_changes_is_rejected() -> None:
    loc, _ = spec_error(with_tool(tool("t", [{"kind": "exec", "min_changes": -1, "sql": "DELETE FROM orders"}])))
    assert loc[-1] == "min_changes"


def test_tool_needs_at_least_one_step() -> None:
    loc, _ = spec_error(with_tool(tool("t", [])))
    assert loc == ("tools", NEW_TOOL, "steps")


# -- tools, tables, seed ----------------------------------------------------------------------------


def test_duplicate_tool_names_are_rejected() -> None:
    _, msg = spec_error(with_tool(tool("cancel_order", [{"kind": "return", "sql": "SELECT 1"}])))
    assert "tool name(s) ['cancel_order'] appear more than once" in msg


@pytest.mark.parametrize("name", ["cancel-order", "1tool", "", "cancel order", "_cancel", "über"])
def test_tool_name_is_letters_digits_and_underscores_from_a_letter(name: str) -> None:
    loc, _ = spec_error(with_tool(tool(name, [{"kind": "return", "sql": "SELECT 1"}])))
    assert loc == ("tools", NEW_TOOL, "name")


def test_a_tool_name_may_hold_capitals_as_a_ported_service_names_it() -> None:
    EnvSpec.model_validate(with_tool(tool("KB_search", [{"kind": "return", "sql": "SELECT 1"}])))  # tau2's name


def test_foreign_key_to_unknown_table_is_rejected() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][1]["foreign_keys"][0]["table"] = "customers"
    _, msg = spec_error(spec)
    assert "table 'orders' foreign_keys[0] references unknown table 'customers'" in msg


def test_foreign_key_to_unknown_column_is_rejected() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][1]["foreign_keys"][0]["references"] = ["acct_id"]
    _, msg = spec_error(spec)
    assert "foreign_keys[0] references unknown column(s) ['acct_id'] of 'accounts'" in msg


def test_foreign_key_columns_and_references_must_have_the_same_length() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][1]["foreign_keys"][0]["references"] = ["account_id", "email"]
    _, msg = spec_error(spec)
    assert "table 'orders' foreign_keys[0]: columns and references differ in length" in msg


def test_foreign_key_from_unknown_column_is_rejected() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][1]["foreign_keys"][0]["columns"] = ["acct"]
    loc, msg = spec_error(spec)
    assert loc == ("tables", 1)
    assert "table 'orders' foreign_keys[0].columns names unknown column(s) ['acct']" in msg


def test_primary_key_must_name_columns() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][0]["primary_key"] = ["id"]
    loc, msg = spec_error(spec)
    assert loc == ("tables", 0)
    assert "table 'accounts' primary_key names unknown column(s) ['id']" in msg


def test_repeated_column_is_rejected() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][0]["columns"].append({"name": "email", "type": "text"})
    _, msg = spec_error(spec)
    assert "table 'accounts' repeats column(s) ['email']" in msg


def test_two_tables_with_one_name_are_rejected() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"].append(copy.deepcopy(spec["tables"][0]))
    _, msg = spec_error(spec)
    assert "two tables share a name" in msg


def test_unknown_column_type_is_rejected() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][0]["columns"][2]["type"] = "money"
    loc, _ = spec_error(spec)
    assert loc == ("tables", 0, "columns", 2, "type")


def test_seed_with_unknown_column_names_table_row_and_column() -> None:
    spec = copy.deepcopy(SHOP)
    spec["seed"]["orders"][1]["colour"] = "red"
    _, msg = spec_error(spec)
    assert "seed.orders[1] has unknown column(s) ['colour']" in msg


def test_seed_for_unknown_table_is_rejected() -> None:
    spec = copy.deepcopy(SHOP)
    spec["seed"]["customers"] = []
    _, msg = spec_error(spec)
    assert "seed names unknown table 'customers'" in msg


# -- parameter schemas -------------------------------------------------------------------------------


@pytest.mark.parametrize("schema", [{"type": "array"}, {"properties": {}}, {"type": "string"}])
def test_parameters_must_be_an_object_schema(schema: dict[str, Any]) -> None:
    loc, msg = spec_error(with_tool(tool("t", [{"kind": "return", "sql": "SELECT 1"}], parameters=schema)))
    assert loc == ("tools", NEW_TOOL, "parameters")
    assert 'parameters must be a JSON Schema with "type": "object" at the root' in msg


def test_parameters_must_be_valid_json_schema_and_the_error_names_the_path() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integr"}}}
    loc, msg = spec_error(with_tool(tool("t", [{"kind": "return", "sql": "SELECT 1"}], parameters=schema)))
    assert loc == ("tools", NEW_TOOL, "parameters")
    assert "parameters is not valid JSON Schema at properties/n/type" in msg
    assert "'integr'" in msg


def test_parameters_with_required_not_a_list_is_invalid_json_schema() -> None:
    schema = {"type": "object", "required": "n", "properties": {"n": {"type": "integer"}}}
    _, msg = spec_error(with_tool(tool("t", [{"kind": "return", "sql": "SELECT 1"}], parameters=schema)))
    assert "not valid JSON Schema at required" in msg


# -- tasks -------------------------------------------------------------------------------------------


def task_error(**changes: Any) -> tuple[tuple[int | str, ...], str]:
    return first_error(Task, {**copy.deepcopy(TASK), **changes})


def test_task_unknown_key_is_rejected() -> None:
    loc, msg = task_error(gold_action=[])
    assert loc == ("gold_action",)
    assert "Extra inputs" in msg


def test_task_unknown_key_in_a_gold_action_is_rejected() -> None:
    loc, _ = task_error(gold_actions=[{"tool": "cancel_order", "args": {}}])
    assert loc == ("gold_actions", 0, "args")


def test_task_ignore_entries_must_be_qualified() -> None:
    _, msg = task_error(ignore=["balance"])
    assert "ignore entry 'balance' must be 'table.column'" in msg


def test_task_reward_basis_must_not_be_empty_nor_unknown() -> None:
    _, msg = task_error(reward_basis=[])
    assert "reward_basis must name at least one component" in msg
    loc, _ = task_error(reward_basis=["vibes"])
    assert loc == ("reward_basis", 0)


@pytest.mark.parametrize("task_id", ["has space", "", "semi;colon"])
def test_task_id_pattern(task_id: str) -> None:
    loc, _ = task_error(id=task_id)
    assert loc == ("id",)


@pytest.mark.parametrize(
    ("op", "expected"),
    [
        ({"op": "insert", "table": "orders"}, "an insert patch needs 'rows'"),
        ({"op": "insert", "table": "orders", "rows": [{}], "where": {"a": 1}}, "an insert patch needs 'rows'"),
        ({"op": "update", "table": "orders", "where": {"order_id": "O1"}}, "an update patch needs 'where' and 'set'"),
        ({"op": "update", "table": "orders", "set": {"total": 1}}, "an update patch needs 'where' and 'set'"),
        ({"op": "delete", "table": "orders"}, "a delete patch needs 'where'"),
        ({"op": "delete", "table": "orders", "where": {"a": 1}, "set": {"b": 2}}, "a delete patch needs 'where'"),
    ],
)
def test_task_patch_op_shape_is_checked(op: dict[str, Any], expected: str) -> None:
    loc, msg = task_error(initial_patch=[{"op": "insert", "table": "orders", "rows": [{"order_id": "X"}]}, op])
    assert loc == ("initial_patch", 1)
    assert expected in msg


def test_task_patch_unknown_op_is_rejected() -> None:
    loc, _ = task_error(initial_patch=[{"op": "upsert", "table": "orders", "rows": [{}]}])
    assert loc == ("initial_patch", 0, "op")


# -- SpecError formatting ------------------------------------------------------------------------------


def test_spec_error_message_names_source_and_location() -> None:
    err = SpecError("bad thing", source="cat/shop/spec.json", location="tools[3].steps[0].sql")
    assert str(err) == "cat/shop/spec.json: at tools[3].steps[0].sql: bad thing"
    assert err.source == "cat/shop/spec.json"
    assert err.location == "tools[3].steps[0].sql"
    assert str(SpecError("plain")) == "plain"
