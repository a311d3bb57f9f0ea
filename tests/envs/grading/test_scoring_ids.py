"""Generated ids are names: the same rows under other names (another order, a row made and deleted)
score as the gold run's, state, assertions and answer alike."""

from __future__ import annotations

from typing import Any

import pytest

from envs.engine import Environment
from envs.formats.task import Task
from envs.grading.scoring import score_episode
from tests.envs.specs import params, shop_env, tool, with_tools

STR, NUM = {"type": "string"}, {"type": "number"}
SPEC = with_tools(
    tool(
        "place_order",
        parameters=params(account_id=STR, total=NUM),
        steps=[
            {
                "kind": "exec",
                "sql": "INSERT INTO orders (order_id, account_id, status, total, created_at) "
                "VALUES (new_id('N'), :account_id, 'pending', :total, :now)",
            },
            {"kind": "return", "shape": "value", "sql": "SELECT max(order_id) FROM orders WHERE order_id LIKE 'N%'"},
        ],
    ),
    tool(
        "add_item",
        parameters=params(order_id=STR, item_id=STR, price=NUM),
        steps=[
            {
                "kind": "exec",
                "sql": "INSERT INTO order_items (order_id, item_id, price, status) "
                "VALUES (:order_id, :item_id, :price, 'ok')",
            }
        ],
    ),
    tool(
        "delete_order",
        parameters=params(order_id=STR),
        steps=[
            {"kind": "exec", "sql": "DELETE FROM order_items WHERE order_id = :order_id"},
            {"kind": "exec", "min_changes": 1, "sql": "DELETE FROM orders WHERE order_id = :order_id"},
        ],
    ),
)


def _call(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool_name, "arguments": arguments}


TASK = Task.model_validate(
    {
        "id": "shop-ids",
        "env": "shop",
        "instruction": "Order 10 for Ann (with item I9) and 20 for Bob; tell me Bob's order number.",
        "gold_actions": [
            _call("place_order", account_id="U1", total=10),  # N1001
            _call("place_order", account_id="U2", total=20),  # N1002
            _call("add_item", order_id="N1001", item_id="I9", price=10),
        ],
        "outputs": ["N1002"],
        "assertions": [
            {
                "description": "Bob's order is N1002",
                "sql": "SELECT account_id = 'U2' FROM orders WHERE order_id = 'N1002'",
            }
        ],
    }
)


@pytest.fixture(scope="module")
def env() -> Environment:
    return shop_env(SPEC)


def _score(env: Environment, calls: list[dict[str, Any]], answer: str) -> Any:
    episode = env.episode(TASK)
    try:
        episode.replay(calls)
        before = episode.state_hash()
        score = score_episode(env, TASK, episode, answer)
        assert episode.state_hash() == before  # scoring renames a copy, never the episode
        return score
    finally:
        episode.close()


def test_the_gold_run_needs_no_renaming(env: Environment) -> None:
    score = _score(env, TASK.model_dump()["gold_actions"], "Bob's order is N1002")
    assert score.reward == 1.0 and score.renamed_ids == {}


def test_orders_placed_in_the_other_order_score_as_gold(env: Environment) -> None:
    calls = [
        _call("place_order", account_id="U2", total=20),  # N1001 here
        _call("place_order", account_id="U1", total=10),  # N1002 here
        _call("add_item", order_id="N1002", item_id="I9", price=10),  # the reference moves with the name
    ]
    score = _score(env, calls, "Bob's order is N1001.")
    assert score.reward == 1.0, score.explain()
    assert score.renamed_ids == {"N1001": "N1002", "N1002": "N1001"}
    assert all(c.passed for c in score.checklist)
    assert "generated ids read as the gold run's: N1001 as N1002, N1002 as N1001" in score.explain()


def test_a_row_made_and_deleted_does_not_shift_the_rest(env: Environment) -> None:
    calls = [
        _call("place_order", account_id="U1", total=99),  # N1001, a mistake
        _call("delete_order", order_id="N1001"),
        _call("place_order", account_id="U1", total=10),  # N1002
        _call("place_order", account_id="U2", total=20),  # N1003
        _call("add_item", order_id="N1002", item_id="I9", price=10),
    ]
    score = _score(env, calls, "Bob's order is N1003")
    assert score.reward == 1.0, score.explain()
    assert score.renamed_ids == {"N1002": "N1001", "N1003": "N1002"}


def test_renaming_never_hides_a_wrong_state(env: Environment) -> None:
    wrong_total = [
        _call("place_order", account_id="U2", total=25),
        _call("place_order", account_id="U1", total=10),
        _call("add_item", order_id="N1002", item_id="I9", price=10),
    ]
    score = _score(env, wrong_total, "Bob's order is N1001")
    assert score.reward == 0.0 and score.components["state"] == 0.0
    # the best reading still pairs the rows up: only Bob's total differs
    assert [(d.table, len(d.changed), len(d.missing), len(d.extra)) for d in score.diff] == [("orders", 1, 0, 0)]
    assert score.diff[0].changed[0].columns[0].column == "total"

    item_on_the_wrong_order = [
        _call("place_order", account_id="U2", total=20),
        _call("place_order", account_id="U1", total=10),
        _call("add_item", order_id="N1001", item_id="I9", price=10),  # Bob's order, not Ann's
    ]
    assert _score(env, item_on_the_wrong_order, "N1001").reward == 0.0
