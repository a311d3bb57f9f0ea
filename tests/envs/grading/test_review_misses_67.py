"""Grader misses the seed-67 review found on real tasks (docs/synthesis.md, "Seed 67"), on the shop
engine: a value of another column said beside a status reason is no rival of it (an exam type, a
service type, a billing plan), and a wrong value said as the one an asked value replaces ("from
$73.77 to $98.77") is not stated as the answer."""

from __future__ import annotations

import copy

import pytest

from envs.formats.task import Task
from envs.grading.labels import without_superseded
from envs.grading.restating import reason_labels

from ..specs import shop_env
from .scoring_helpers import score_after_gold
from .test_answers import CANCEL_DELIVERED, REFUSED, _score, _shop_with_rule


def _score_shipped(answer: str, task: dict) -> float:
    """``answer`` scored on the shop whose orders may also be shipped (a status no rule or tool
    description names, so an answer has no reason to say it)."""
    spec = _shop_with_rule().model_dump(mode="json")
    status = next(c for t in spec["tables"] if t["name"] == "orders" for c in t["columns"] if c["name"] == "status")
    status["enum"].append("shipped")
    return score_after_gold(shop_env(spec), Task.model_validate(task), answer)


#: Order O2 is delivered, its item I3 returned; O1 (shipped) is read too.
DELIVERED = {
    **copy.deepcopy(REFUSED),
    "id": "shop-delivered",
    "instruction": "I'm ann@example.com. Please cancel my order O2.",
    "initial_patch": [
        {"op": "update", "table": "order_items", "where": {"item_id": "I3"}, "set": {"status": "returned"}},
        {"op": "update", "table": "orders", "where": {"order_id": "O1"}, "set": {"status": "shipped"}},
    ],
    "gold_actions": [
        {"tool": "find_account", "arguments": {"email": "ann@example.com"}},
        {"tool": "get_order", "arguments": {"order_id": "O1"}},
        {"tool": "get_order", "arguments": {"order_id": "O2"}},
    ],
    "refusals": [{**CANCEL_DELIVERED, "rule": "cancel_order.0"}],
    "answer": "I'm sorry, I can't cancel order O2: it has been delivered.",
}


def test_a_reasons_rivals_are_the_values_of_its_own_column():
    spec = _shop_with_rule()
    assert reason_labels(spec, ["delivered"]) == {"pending", "cancelled", "delivered"}
    assert reason_labels(spec, ["returned"]) == {"ok", "returned"}
    assert reason_labels(spec, ["2026-01-10"]) == set()


def test_another_columns_value_beside_a_status_reason_is_no_rival():
    # the item's status (another column) said in passing, as "your GMAT" beside "checked in"
    answer = "I can't cancel order O2: it has been delivered, and its item I3 was returned."
    assert _score_shipped(answer, DELIVERED) == 1.0
    assert _score_shipped(DELIVERED["answer"], DELIVERED) == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        # another status of the order's own column beside the reason: which one stops it is unsaid
        "I can't cancel order O2: it is delivered or shipped.",
        "I can't cancel order O2: its status is delivered, shipped, pending or cancelled.",
    ],
)
def test_the_other_values_of_the_reasons_column_are_still_rivals(answer):
    assert _score_shipped(answer, DELIVERED) == 0.0


def _balance_question() -> dict:
    task = {k: v for k, v in REFUSED.items() if k not in ("refusals", "answer")}
    asked = "I'm ann@example.com. What would my balance be once my $30 refund is added?"
    return {**task, "id": "shop-balance", "instruction": asked, "outputs": ["130.0"], "distractors": ["100.0"]}


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        ("Your balance would go from $100.00 to $130.00.", 1.0),
        ("It was $100.00, now $130.00.", 1.0),
        ("Your balance would be $130.00.", 1.0),
        # the wrong value stated otherwise, or the change to a wrong value
        ("Your balance would be $100.00 or $130.00.", 0.0),
        ("Your balance would go from $100.00 to $120.00.", 0.0),
        ("Your balance would go from $100.00 to $120.00; the refund is $30.00, making $130.00.", 0.0),
        ("Your balance would go from $90.00 to $100.00, then $130.00.", 0.0),
    ],
)
def test_a_distractor_said_as_the_before_value_of_the_asked_change_is_not_stated(answer, reward):
    assert _score(answer, _balance_question()) == reward


def test_only_a_change_to_an_asked_value_drops_its_before_value():
    assert "73.77" not in without_superseded("It would go from $73.77 to $98.77.", ["98.77"])
    assert "73.77" in without_superseded("It would go from $73.77 to $90.00.", ["98.77"])
    assert "73.77" in without_superseded("It would go from $73.77 to $98.77.", [])


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        # every status the order could hold, none shown by a tool: the reason is among them, unsaid which
        ("I can't cancel order O2: it is delivered, shipped, pending or cancelled.", 0.0),
        ("I can't cancel order O2: it is delivered, shipped or pending.", 0.0),
        # one such status said in passing is often another record's; the status the action is allowed in, said as the rule (the tool's description names it)
        ("I can't cancel order O2: it is delivered, and only pending orders can be cancelled.", 1.0),
        ("I can't cancel order O2: it is delivered. Your shipped order is on its way.", 1.0),
    ],
)
def test_statuses_of_the_reasons_column_listed_beside_it_are_rivals_though_no_tool_showed_them(answer, reward):
    task = {**DELIVERED, "initial_patch": [], "gold_actions": DELIVERED["gold_actions"][::2]}  # O2 read alone
    assert _score_shipped(answer, task) == reward
