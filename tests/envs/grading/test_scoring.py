"""Scoring an episode against a task: exact reward, partial credit, and the diff."""

from __future__ import annotations

from typing import Any

import pytest

from envs.engine import Environment, Episode
from envs.errors import SpecError
from envs.formats.task import Task
from envs.grading.results import Score
from envs.grading.scoring import expected_outcome, score_episode
from tests.envs.specs import TASK, params, shop_env, shop_task, tool, with_tools

STR = {"type": "string"}
SCORING_SPEC = with_tools(
    tool(
        "set_balance",
        parameters=params(account_id=STR, balance={"type": "number"}),
        steps=[
            {
                "kind": "exec",
                "min_changes": 1,
                "message": "Account {account_id} not found",
                "sql": "UPDATE accounts SET balance = :balance WHERE account_id = :account_id",
            }
        ],
    ),
    tool(
        "set_tags_raw",
        parameters=params(account_id=STR, raw=STR),
        steps=[{"kind": "exec", "sql": "UPDATE accounts SET tags = json(:raw) WHERE account_id = :account_id"}],
    ),
    tool(
        "remove_item",
        parameters=params(order_id=STR, item_id=STR),
        steps=[
            {
                "kind": "exec",
                "min_changes": 1,
                "message": "No item {item_id}",
                "sql": "DELETE FROM order_items WHERE order_id = :order_id AND item_id = :item_id",
            }
        ],
    ),
)


@pytest.fixture
def env() -> Environment:
    """A fresh environment per test: expected outcomes are cached per environment and task id."""
    return shop_env(SCORING_SPEC)


def play(env: Environment, task: Task, calls: list[tuple[str, dict[str, Any]]]) -> Episode:
    ep = env.episode(task)
    for name, arguments in calls:
        ep.call_tool(name, arguments)
    return ep


CANCEL_O1 = ("cancel_order", {"order_id": "O1"})


def test_gold_replay_scores_exactly_one(env: Environment) -> None:
    task = shop_task()
    ep = env.episode(task)
    ep.replay(task.gold_actions)
    score = score_episode(env, task, ep, answer="Done: your new balance is $130.00.")
    assert isinstance(score, Score)
    assert score.reward == 1.0
    assert score.partial_credit == 1.0
    assert score.diff == []
    assert score.components == {"state": 1.0, "outputs": 1.0, "assertions": 1.0}
    assert (score.expected_changes, score.achieved_changes, score.unexpected_changes) == (2, 2, 0)
    assert [c.passed for c in score.checklist] == [True, True, True]
    assert score.explain() == "task shop-1: reward 1.00, partial credit 1.00"


def test_same_end_state_by_another_route_scores_one(env: Environment) -> None:
    task = shop_task()
    # No lookups, and an extra write that leaves the row as it was.
    ep = play(env, task, [("charge", {"account_id": "U1", "amount": 0}), CANCEL_O1])
    assert score_episode(env, task, ep, answer="130").reward == 1.0


def test_expected_outcome_is_the_gold_replay(env: Environment) -> None:
    task = shop_task()
    expected = expected_outcome(env, task)
    assert expected.results[0] == "U1"
    assert expected.results[2] == {"order_id": "O1", "status": "cancelled"}
    assert expected.written_tables == {"orders", "accounts"}
    assert expected.rows[("orders", ("O1",))][0]["status"] == "cancelled"  # type: ignore[index]
    assert expected.rows[("orders", ("O1",))][1]["status"] == "pending"  # type: ignore[index]
    assert expected_outcome(env, task) is expected  # cached


def test_failing_gold_action_is_a_broken_task(env: Environment) -> None:
    task = shop_task(id="broken", gold_actions=[{"tool": "cancel_order", "arguments": {"order_id": "O2"}}])
    with pytest.raises(SpecError) as info:
        expected_outcome(env, task)
    assert "gold action 0 (cancel_order) fails: Order O2 is delivered" in str(info.value)
    assert info.value.source == "task broken"


# -- the diff -------------------------------------------------------------------------------------------


def test_changed_column_shows_expected_and_actual(env: Environment) -> None:
    task = shop_task()
    ep = env.episode(task)  # the agent does nothing
    score = score_episode(env, task, ep, answer="")
    assert score.reward == 0.0
    assert score.components["state"] == 0.0
    by_table = {d.table: d for d in score.diff}
    assert set(by_table) == {"accounts", "orders"}
    (order,) = by_table["orders"].changed
    assert order.key == {"order_id": "O1"}
    assert [(c.column, c.expected, c.actual) for c in order.columns] == [("status", "cancelled", "pending")]
    (account,) = by_table["accounts"].changed
    assert [(c.column, c.expected, c.actual) for c in account.columns] == [("balance", 130.0, 100.0)]
    assert by_table["orders"].missing == [] and by_table["orders"].extra == []


def test_missing_row_is_shown(env: Environment) -> None:
    # The gold actions insert a row (the return order R1001) that the agent never creates.
    task = shop_task(
        id="return-1",
        gold_actions=[{"tool": "return_items", "arguments": {"order_id": "O1", "item_ids": ["I1"]}}],
        outputs=[],
        assertions=[],
    )
    ep = play(env, task, [("return_items", {"order_id": "O1", "item_ids": ["I1"]})])
    assert score_episode(env, task, ep).reward == 1.0
    ep = play(env, task, [("set_tags", {"account_id": "U2", "tags": []})])  # a no-op write
    score = score_episode(env, task, ep)
    orders = next(d for d in score.diff if d.table == "orders")
    assert [r["order_id"] for r in orders.missing] == ["R1001"]
    assert orders.missing[0]["created_at"] == "2026-01-15 09:00:00"
    assert orders.extra == []
    items = next(d for d in score.diff if d.table == "order_items")
    assert items.changed[0].key == {"order_id": "O1", "item_id": "I1"}
    assert "orders: missing row" in score.explain()
    assert '"order_id": "R1001"' in score.explain()


def test_extra_row_is_shown(env: Environment) -> None:
    task = shop_task()
    ep = play(env, task, [CANCEL_O1, ("return_items", {"order_id": "O2", "item_ids": ["I3"]})])
    score = score_episode(env, task, ep, answer="130")
    orders = next(d for d in score.diff if d.table == "orders")
    assert [r["order_id"] for r in orders.extra] == ["R1001"]
    assert orders.missing == []
    assert orders.changed == []  # O1 is as expected
    assert "orders: unexpected row" in score.explain()


def test_deleted_row_is_missing_and_undeleted_row_is_extra(env: Environment) -> None:
    task = shop_task(
        id="remove-1",
        gold_actions=[{"tool": "remove_item", "arguments": {"order_id": "O1", "item_id": "I2"}}],
        outputs=[],
        assertions=[],
    )
    # The agent removes the wrong item: I2 should be gone (extra) and I1 should still be there (missing).
    ep = play(env, task, [("remove_item", {"order_id": "O1", "item_id": "I1"})])
    score = score_episode(env, task, ep)
    (items,) = score.diff
    assert items.table == "order_items"
    assert [r["item_id"] for r in items.extra] == ["I2"]
    assert [r["item_id"] for r in items.missing] == ["I1"]
    assert (score.expected_changes, score.achieved_changes, score.unexpected_changes) == (1, 0, 1)


def test_state_is_compared_only_on_changed_rows_and_tables(env: Environment) -> None:
    task = shop_task()
    ep = play(env, task, [CANCEL_O1, ("charge", {"account_id": "U2", "amount": 1})])
    score = score_episode(env, task, ep, answer="130")
    assert [d.table for d in score.diff] == ["accounts"]
    (row,) = score.diff[0].changed
    assert row.key == {"account_id": "U2"}
    assert [(c.column, c.expected, c.actual) for c in row.columns] == [("balance", 5.0, 4.0)]


def test_state_comparison_ignores_untouched_rows_even_if_they_differ_from_the_seed(env: Environment) -> None:
    # The task starts from a patched state; untouched patched rows are not "changes" of the agent.
    task = shop_task(
        id="patched",
        initial_patch=[{"op": "update", "table": "accounts", "where": {"account_id": "U2"}, "set": {"balance": 50.0}}],
    )
    ep = play(env, task, [CANCEL_O1])
    score = score_episode(env, task, ep, answer="130")
    assert score.reward == 1.0
    assert score.unexpected_changes == 0


def test_ignored_columns_are_left_out(env: Environment) -> None:
    gold = [{"tool": "set_tags", "arguments": {"account_id": "U1", "tags": ["vip"]}}]
    strict = shop_task(id="tags", gold_actions=gold, outputs=[], assertions=[])
    lenient = shop_task(id="tags-ignored", gold_actions=gold, outputs=[], assertions=[], ignore=["accounts.tags"])
    calls = [("set_tags", {"account_id": "U1", "tags": ["gold"]})]
    score = score_episode(env, strict, play(env, strict, calls))
    assert score.reward == 0.0
    change = score.diff[0].changed[0].columns[0]
    assert (change.column, change.expected, change.actual) == ("tags", ["vip"], ["gold"])
    assert score_episode(env, lenient, play(env, lenient, calls)).reward == 1.0


def test_ignored_column_does_not_hide_other_columns(env: Environment) -> None:
    task = shop_task(id="ignore-status", ignore=["orders.status"])
    ep = play(env, task, [("charge", {"account_id": "U1", "amount": 0})])  # no cancel, no refund
    score = score_episode(env, task, ep, answer="130")
    assert [d.table for d in score.diff] == ["accounts"]


def test_json_key_order_is_irrelevant(env: Environment) -> None:
    gold = [{"tool": "set_tags_raw", "arguments": {"account_id": "U1", "raw": '{"a": 1, "b": [1, 2]}'}}]
    task = shop_task(id="json", gold_actions=gold, outputs=[], assertions=[])
    same = play(env, task, [("set_tags_raw", {"account_id": "U1", "raw": '{"b": [1, 2], "a": 1}'})])
    assert same.query("SELECT tags FROM accounts WHERE account_id = 'U1'") == [{"tags": '{"b":[1,2],"a":1}'}]
    assert score_episode(env, task, same).reward == 1.0
    other = play(env, task, [("set_tags_raw", {"account_id": "U1", "raw": '{"b": [2, 1], "a": 1}'})])
    score = score_episode(env, task, other)
    assert score.reward == 0.0
    change = score.diff[0].changed[0].columns[0]
    assert change.expected == {"a": 1, "b": [1, 2]}
    assert change.actual == {"a": 1, "b": [2, 1]}


@pytest.mark.parametrize(
    ("balance", "equal"),
    [
        (130.0, True),
        (130.0000001, True),  # relative difference ~8e-10
        (130.0001, True),  # ~7.7e-7, inside 1e-6
        (130.001, False),  # ~7.7e-6
        (130.01, False),
        (129.99, False),
    ],
)
def test_float_tolerance_is_one_in_a_million(env: Environment, balance: float, equal: bool) -> None:
    gold = [{"tool": "set_balance", "arguments": {"account_id": "U1", "balance": 130.0}}]
    task = shop_task(id="float", gold_actions=gold, outputs=[], assertions=[])
    score = score_episode(env, task, play(env, task, [("set_balance", {"account_id": "U1", "balance": balance})]))
    assert score.components["state"] == (1.0 if equal else 0.0)
    if not equal:
        change = score.diff[0].changed[0].columns[0]
        assert (change.column, change.expected, change.actual) == ("balance", 130.0, balance)


# -- partial credit ----------------------------------------------------------------------------------------
# partial = (checks passed + expected changes achieved - unexpected changes) / (checks + expected changes),
# clamped to [0, 1]. TASK has 3 checks (2 assertions + output "130") and 2 expected row changes (O1, U1).


def test_partial_credit_right_state_wrong_answer(env: Environment) -> None:
    task = shop_task()
    score = score_episode(env, task, play(env, task, [CANCEL_O1]), answer="Your balance is 100.")
    # (2 assertions + 2 achieved - 0) / (3 + 2) = 4/5
    assert score.partial_credit == pytest.approx(0.8)
    assert score.reward == 0.0
    assert score.components == {"state": 1.0, "outputs": 0.0, "assertions": 1.0}


def test_partial_credit_nothing_done_but_right_answer(env: Environment) -> None:
    task = shop_task()
    score = score_episode(env, task, env.episode(task), answer="It is 130")
    # (1 output + 0 achieved - 0) / (3 + 2) = 1/5
    assert score.partial_credit == pytest.approx(0.2)
    assert (score.expected_changes, score.achieved_changes, score.unexpected_changes) == (2, 0, 0)


def test_partial_credit_with_an_unexpected_change(env: Environment) -> None:
    task = shop_task()
    ep = play(env, task, [CANCEL_O1, ("charge", {"account_id": "U2", "amount": 1})])
    score = score_episode(env, task, ep, answer="130")
    # (3 checks + 2 achieved - 1 unexpected) / (3 + 2) = 4/5
    assert score.partial_credit == pytest.approx(0.8)
    assert score.unexpected_changes == 1
    assert score.reward == 0.0  # the state differs


def test_partial_credit_half_of_the_changes(env: Environment) -> None:
    task = shop_task()
    # Status right, balance wrong: the assertion on the refund fails and U1 is not the expected row.
    ep = play(env, task, [("set_balance", {"account_id": "U1", "balance": 125.0}), CANCEL_O1])
    score = score_episode(env, task, ep, answer="")
    # (1 assertion + 1 achieved (O1) - 0) / (3 + 2) = 2/5
    assert score.partial_credit == pytest.approx(0.4)
    assert (score.expected_changes, score.achieved_changes) == (2, 1)


def test_partial_credit_is_clamped_at_zero(env: Environment) -> None:
    task = shop_task(
        id="clamp",
        gold_actions=[{"tool": "set_balance", "arguments": {"account_id": "U2", "balance": 6.0}}],
        outputs=[],
        assertions=[],
    )
    ep = play(
        env,
        task,
        [
            ("set_balance", {"account_id": "U1", "balance": 1.0}),
            CANCEL_O1,
            ("return_items", {"order_id": "O2", "item_ids": ["I3"]}),
        ],
    )
    score = score_episode(env, task, ep)
    # (0 + 0 - 4 unexpected: U1, O1, I3, R1001) / (0 + 1) = -4 -> 0
    assert score.unexpected_changes == 4
    assert score.partial_credit == 0.0


def test_information_task_without_checks(env: Environment) -> None:
    task = shop_task(id="info", gold_actions=[TASK["gold_actions"][0]], outputs=[], assertions=[], expects_change=False)
    assert score_episode(env, task, env.episode(task)).partial_credit == 1.0
    ep = play(env, task, [("charge", {"account_id": "U2", "amount": 1})])
    score = score_episode(env, task, ep)
    assert score.partial_credit == 0.0  # no denominator: any unexpected change gives 0
    assert score.reward == 0.0


# -- reward basis and checklist -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("basis", "reward"),
    [
        (["state", "outputs", "assertions"], 0.0),
        (["outputs"], 1.0),
        (["state"], 0.0),
        (["assertions"], 0.0),
        (["outputs", "assertions"], 0.0),
    ],
)
def test_reward_basis_when_only_the_answer_is_right(env: Environment, basis: list[str], reward: float) -> None:
    task = shop_task(id=f"basis-{'-'.join(basis)}", reward_basis=basis)
    assert score_episode(env, task, env.episode(task), answer="130").reward == reward


@pytest.mark.parametrize(
    ("basis", "reward"),
    [(["state"], 1.0), (["assertions"], 1.0), (["state", "assertions"], 1.0), (["state", "outputs"], 0.0)],
)
def test_reward_basis_when_only_the_state_is_right(env: Environment, basis: list[str], reward: float) -> None:
    task = shop_task(id=f"state-{'-'.join(basis)}", reward_basis=basis)
    score = score_episode(env, task, play(env, task, [CANCEL_O1]), answer="no idea")
    assert score.reward == reward
    assert score.partial_credit == pytest.approx(0.8)  # does not depend on the basis


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("SELECT nosuch FROM orders", "no such column: nosuch"),
        ("SELECT * FROM _envfarm_changes", "sandbox"),
        ("DELETE FROM orders", "not allowed"),
    ],
)
def test_an_assertion_that_errors_counts_as_failed(env: Environment, sql: str, error: str) -> None:
    task = shop_task(
        id="bad-assertion",
        assertions=[*TASK["assertions"], {"description": "Broken check", "sql": sql}],
    )
    ep = env.episode(task)
    ep.replay(task.gold_actions)
    score = score_episode(env, task, ep, answer="130")
    broken = score.checklist[2]
    assert (broken.kind, broken.description, broken.passed) == ("assertion", "Broken check", False)
    assert broken.error is not None and error in broken.error
    assert score.components == {"state": 1.0, "outputs": 1.0, "assertions": 0.0}
    assert score.reward == 0.0
    # (3 of 4 checks + 2 achieved) / (4 + 2) = 5/6
    assert score.partial_credit == pytest.approx(5 / 6)
    assert ep.query("SELECT count(*) AS n FROM orders") == [{"n": 2}]


def test_assertion_returning_no_row_or_falsy_fails(env: Environment) -> None:
    task = shop_task(
        id="falsy",
        assertions=[
            {"description": "no row", "sql": "SELECT 1 FROM orders WHERE order_id = 'O9'"},
            {"description": "zero", "sql": "SELECT 0"},
            {"description": "null", "sql": "SELECT NULL"},
            {"description": "truthy", "sql": "SELECT 'yes'"},
        ],
    )
    ep = env.episode(task)
    ep.replay(task.gold_actions)
    score = score_episode(env, task, ep, answer="130")
    assert [(c.description, c.passed) for c in score.checklist if c.kind == "assertion"] == [
        ("no row", False),
        ("zero", False),
        ("null", False),
        ("truthy", True),
    ]


def test_explain_names_tables_columns_and_failed_checks(env: Environment) -> None:
    task = shop_task()
    ep = play(env, task, [("set_balance", {"account_id": "U1", "balance": 125.0})])
    text = score_episode(env, task, ep, answer="").explain()
    lines = text.splitlines()
    assert lines[0] == "task shop-1: reward 0.00, partial credit 0.00"
    assert "  [assertion] not satisfied: O1 is cancelled" in lines
    assert "  [output] not satisfied: 130" in lines
    assert "  accounts {'account_id': 'U1'}: balance: expected 130.0, got 125.0" in lines
    assert "  orders {'order_id': 'O1'}: status: expected 'cancelled', got 'pending'" in lines


def test_scoring_does_not_change_the_episode(env: Environment) -> None:
    task = shop_task()
    ep = play(env, task, [CANCEL_O1, ("charge", {"account_id": "U2", "amount": 1})])
    before = ep.serialize()
    first = score_episode(env, task, ep, answer="130")
    assert ep.serialize() == before
    assert score_episode(env, task, ep, answer="130") == first
