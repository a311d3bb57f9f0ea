"""``check_env``: the admission gate. It reports problems (naming what is wrong) and never raises."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.check import CheckReport, Problem, check_env
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from tests.envs.specs import SHOP, TASK, shop_task, tool, with_tool


def report_of(spec: dict[str, Any] | EnvSpec, *tasks: Task) -> CheckReport:
    report = check_env(spec, list(tasks))
    assert isinstance(report, CheckReport)
    return report


def only_problem(report: CheckReport) -> Problem:
    assert not report.ok
    assert len(report.problems) == 1, report.problems
    return report.problems[0]


def test_shop_and_its_task_pass() -> None:
    report = report_of(EnvSpec.model_validate(SHOP), shop_task())
    assert report.ok, report.problems
    assert report.env_id == "shop"
    assert report.tasks_passed == 1
    # spec + two schema checks per tool (valid; every model API accepts what clients see) + one per
    # step and invariant + the task
    n_steps = sum(len(t["steps"]) for t in SHOP["tools"])
    assert report.checks_run == 1 + 2 * len(SHOP["tools"]) + n_steps + len(SHOP["invariants"]) + 1
    as_dict = report.to_dict()
    assert as_dict["ok"] is True
    assert as_dict["problems"] == []
    assert as_dict["tasks_passed"] == 1


def test_spec_given_as_a_dict_is_validated() -> None:
    assert report_of(copy.deepcopy(SHOP), shop_task()).ok


def test_broken_spec_dict_reports_the_field() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tables"][1]["columns"][2]["enum"] = "pending"
    problem = only_problem(report_of(spec))
    assert problem.check == "spec"
    assert problem.where == "tables.1.columns.2.enum"
    assert "valid list" in problem.message


def test_broken_spec_dict_reports_a_model_rule() -> None:
    spec = with_tool(tool("t", [{"kind": "return", "sql": "SELECT :nope"}]))
    problem = only_problem(report_of(spec))
    assert problem.check == "spec"
    assert problem.where == f"tools.{len(SHOP['tools'])}"
    assert "tool 't' steps[0]: SQL uses :nope" in problem.message
    assert not problem.message.startswith("Value error")
    assert report_of(spec).env_id == "shop"


def test_unknown_column_in_sql_names_tool_and_step() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tools"][2]["steps"][3]["sql"] = (
        "UPDATE accounts SET balanse = balance + :order.total WHERE account_id = :order.account_id"
    )
    problem = only_problem(report_of(spec))
    assert problem.check == "sql"
    assert problem.where == "tool cancel_order steps[3]"
    assert "no such column: balanse" in problem.message
    assert str(problem).startswith("[sql] tool cancel_order steps[3]: ")


def test_unknown_table_in_sql_names_tool_and_step() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tools"][0]["steps"][0]["sql"] = "SELECT * FROM acounts WHERE email = :email"
    problem = only_problem(report_of(spec))
    assert problem.where == "tool find_account steps[0]"
    assert "no such table: acounts" in problem.message


def test_sandbox_denial_in_sql_is_reported_without_running() -> None:
    spec = with_tool(tool("peek", [{"kind": "return", "sql": "SELECT * FROM _envfarm_changes"}], kind="read"))
    problem = only_problem(report_of(spec))
    assert problem.where == "tool peek steps[0]"
    assert "reading table '_envfarm_changes' is not allowed" in problem.message


def test_write_in_a_read_tool_query_step_is_reported() -> None:
    sql = "UPDATE orders SET total = 0 RETURNING order_id"
    spec = with_tool(
        tool("sneaky", [{"kind": "query", "bind": "x", "sql": sql}, {"kind": "return", "sql": "SELECT 1"}], kind="read")
    )
    problem = only_problem(report_of(spec))
    assert problem.where == "tool sneaky steps[0]"
    assert "not allowed in a read-only tool" in problem.message


def test_broken_invariant_sql_is_reported() -> None:
    spec = copy.deepcopy(SHOP)
    spec["invariants"][0]["violations"] = "SELECT order_id FROM orders WHERE totl < 0"
    report = report_of(spec)
    assert not report.ok
    assert any(
        p.where == "invariant non_negative_totals" and "no such column: totl" in p.message for p in report.problems
    )


@pytest.mark.parametrize(
    ("table", "index", "change", "text"),
    [
        ("accounts", 1, {"balance": -1.0}, "CHECK constraint failed: balance >= 0"),
        ("orders", 0, {"status": "lost"}, "CHECK constraint failed"),
        ("orders", 0, {"created_at": "2026-01-10T10:00:00"}, "CHECK constraint failed"),
        ("accounts", 1, {"email": "ann@example.com"}, "UNIQUE constraint failed: accounts.email"),
        ("orders", 1, {"total": None}, "NOT NULL constraint failed: orders.total"),
        ("orders", 1, {"total": "twenty"}, "cannot store TEXT value in REAL column orders.total"),
    ],
)
def test_seed_row_violating_a_constraint_names_the_row(
    table: str, index: int, change: dict[str, Any], text: str
) -> None:
    spec = copy.deepcopy(SHOP)
    spec["seed"][table][index].update(change)
    problem = only_problem(report_of(spec))
    assert problem.check == "seed"
    assert f"seed.{table}[{index}]" in problem.message
    assert text in problem.message


def test_seed_row_violating_a_foreign_key_is_named() -> None:
    spec = copy.deepcopy(SHOP)
    spec["seed"]["orders"][1]["account_id"] = "U9"
    problem = only_problem(report_of(spec))
    assert problem.check == "seed"
    assert "a row of 'orders' references a missing 'accounts' row" in problem.message
    assert "'O2'" in problem.message


def test_seed_violating_an_invariant_names_it_and_the_row() -> None:
    spec = copy.deepcopy(SHOP)
    spec["seed"]["orders"][1]["total"] = -20.0
    problem = only_problem(report_of(spec))
    assert (problem.check, problem.where) == ("invariant", "seed")
    assert "invariant 'non_negative_totals' (Totals are never negative) is violated by" in problem.message
    assert '"order_id": "O2"' in problem.message


def test_a_broken_schema_skips_the_tasks() -> None:
    spec = copy.deepcopy(SHOP)
    spec["seed"]["orders"][1]["total"] = -20.0
    report = report_of(spec, shop_task(gold_actions=[{"tool": "nope"}]))
    assert [p.check for p in report.problems] == ["invariant"]
    assert report.tasks_passed == 0


# -- tasks ---------------------------------------------------------------------------------------------------


def test_task_with_an_unknown_tool_is_named() -> None:
    task = shop_task(gold_actions=[TASK["gold_actions"][0], {"tool": "cancel_ordr", "arguments": {"order_id": "O1"}}])
    problem = only_problem(report_of(SHOP, task))
    assert (problem.check, problem.where) == ("task", "task shop-1 gold_actions[1]")
    assert "unknown tool 'cancel_ordr'" in problem.message


def test_task_of_another_env_is_named() -> None:
    problem = only_problem(report_of(SHOP, shop_task(env="clinic")))
    assert problem.check == "task"
    assert "belongs to env 'clinic', not 'shop'" in problem.message


def test_task_whose_gold_action_fails_names_the_action() -> None:
    task = shop_task(gold_actions=[TASK["gold_actions"][0], {"tool": "cancel_order", "arguments": {"order_id": "O2"}}])
    report = report_of(SHOP, task)
    problem = only_problem(report)
    assert (problem.check, problem.where) == ("gold", "task shop-1")
    assert "gold action 1 (cancel_order) fails" in problem.message
    assert "Order O2 is delivered; only pending orders can be cancelled" in problem.message
    assert report.tasks_passed == 0


def test_task_whose_gold_action_has_bad_arguments_names_the_field() -> None:
    task = shop_task(gold_actions=[{"tool": "cancel_order", "arguments": {"order": "O1"}}])
    problem = only_problem(report_of(SHOP, task))
    assert problem.check == "gold"
    assert "gold action 0 (cancel_order)" in problem.message
    assert "'order_id'" in problem.message


def test_task_whose_patch_fails_names_the_op() -> None:
    task = shop_task(initial_patch=[{"op": "delete", "table": "orders", "where": {"order_id": "O9"}}])
    problem = only_problem(report_of(SHOP, task))
    assert (problem.check, problem.where) == ("task", "task shop-1 initial_patch")
    assert "initial_patch[0]" in problem.message
    assert "delete matched no row of 'orders'" in problem.message


def test_task_whose_assertion_does_not_hold_is_named() -> None:
    task = shop_task(
        assertions=[
            *TASK["assertions"],
            {
                "description": "O2 is cancelled too",
                "sql": "SELECT status = 'cancelled' FROM orders WHERE order_id = 'O2'",
            },
        ]
    )
    report = report_of(SHOP, task)
    assert not report.ok
    assert (
        Problem("assertion", "task shop-1", "'O2 is cancelled too' does not hold after the gold actions")
        in report.problems
    )
    oracle = next(p for p in report.problems if p.check == "oracle")
    assert "gold replay scores 0.0" in oracle.message
    assert "not satisfied: O2 is cancelled too" in oracle.message


def test_task_whose_assertion_cannot_run_is_named() -> None:
    task = shop_task(assertions=[{"description": "typo", "sql": "SELECT stat FROM orders"}])
    report = report_of(SHOP, task)
    assert any(
        p.check == "assertion" and "'typo' cannot run" in p.message and "no such column: stat" in p.message
        for p in report.problems
    )


def test_task_saying_no_change_when_gold_changes_state() -> None:
    problem = only_problem(report_of(SHOP, shop_task(expects_change=False)))
    assert (problem.check, problem.where) == ("change", "task shop-1")
    assert "the task says the state is not to change, but the gold actions change it" in problem.message


def test_task_saying_change_when_gold_only_reads() -> None:
    task = shop_task(gold_actions=TASK["gold_actions"][:2], assertions=[], outputs=[])
    problem = only_problem(report_of(SHOP, task))
    assert problem.check == "change"
    assert "the task says the state is to change, but the gold actions do not change it" in problem.message


def test_information_task_passes() -> None:
    task = shop_task(gold_actions=TASK["gold_actions"][:2], assertions=[], outputs=["U1"], expects_change=False)
    report = report_of(SHOP, task)
    assert report.ok, report.problems
    assert report.warnings == []


def test_gold_actions_breaking_an_invariant_are_reported() -> None:
    spec = copy.deepcopy(SHOP)
    spec["tools"][2]["steps"][2]["sql"] = (
        "UPDATE orders SET status = 'cancelled', total = -1 WHERE order_id = :order_id"
    )
    report = report_of(spec, shop_task(assertions=[]))
    assert any(
        p.check == "invariant" and p.where == "task shop-1" and "non_negative_totals" in p.message
        for p in report.problems
    )


def test_output_absent_from_gold_results_is_only_a_warning() -> None:
    report = report_of(SHOP, shop_task(outputs=["999"]))
    assert report.ok
    assert [str(w) for w in report.warnings] == [
        "[output] task shop-1: required output '999' appears in no gold result nor the policy"
    ]


def test_several_tasks_are_counted() -> None:
    good = shop_task()
    bad = shop_task(id="shop-2", expects_change=False)
    report = report_of(SHOP, good, bad)
    assert report.tasks_passed == 1
    assert [p.where for p in report.problems] == ["task shop-2"]
