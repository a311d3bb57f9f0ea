"""The derived-value measure: write arguments the user states or singles out are not worked out; a
record picked by a criterion among several that fit, and an output no tool shows, are."""

from __future__ import annotations

from envs.formats.task import Task
from envs.quality.derived import derived_arguments
from envs.quality.spec import Ownership
from envs.quality.tasks import is_ambiguous
from envs.quality.text import normalize

from ..specs import TASK, shop_env

# a second pending order of Ann's, cheaper than O1: "my pending order" then fits two
SECOND_PENDING = {
    "op": "insert",
    "table": "orders",
    "rows": [
        {"order_id": "O3", "account_id": "U1", "status": "pending", "total": 10.0, "created_at": "2026-01-12 10:00:00"}
    ],
}
CANCEL_O1 = [
    {"tool": "find_account", "arguments": {"email": "ann@example.com"}},
    {"tool": "cancel_order", "arguments": {"order_id": "O1"}},
]


def _derived(**changes) -> list[str]:
    env = shop_env()
    task = Task.model_validate({**TASK, "outputs": [], "assertions": [], "gold_actions": CANCEL_O1, **changes})
    return derived_arguments(env, Ownership.of(env.spec), task)


def test_a_stated_or_singled_out_record_is_not_derived():
    assert _derived(instruction="I'm ann@example.com. Cancel my order O1.") == []
    assert _derived(instruction="I'm ann@example.com. Cancel my pending order.") == []  # the only pending one


def test_a_record_picked_by_a_criterion_among_several_that_fit_is_derived():
    words = "I'm ann@example.com. Cancel my pending order with the highest total."
    assert _derived(instruction=words, initial_patch=[SECOND_PENDING]) == ["cancel_order.order_id=O1"]


def test_the_ambiguity_measure_reads_the_superlative():
    env = shop_env()
    task = Task.model_validate({**TASK, "initial_patch": [SECOND_PENDING]})
    ep = env.episode(task)
    state = Ownership.of(env.spec).state({t.name: ep.dump(t.name) for t in env.spec.tables})
    picked = normalize("Cancel my pending order with the highest total.")
    vague = normalize("Cancel my pending order.")
    wrong = normalize("Cancel my pending order with the lowest total.")
    assert is_ambiguous(state, ("orders", ("O1",)), picked) is False
    assert is_ambiguous(state, ("orders", ("O1",)), vague) is True
    assert is_ambiguous(state, ("orders", ("O1",)), wrong) is True


def test_an_output_no_tool_shows_is_derived():
    # the new balance (130) is in no result: cancel_order returns the order, not the account
    assert _derived(instruction="I'm ann@example.com. Cancel my order O1.", outputs=["130"]) == ["output=130"]
    assert _derived(instruction="I'm ann@example.com. Cancel my order O1.", outputs=["cancelled"]) == []
