"""Status labels as people say them: a reason said in words ("under dispute" for ``disputed``) passes,
the request's own verb restated ("it can't be disputed") does not; a refusal worded "there's no
payment to retry" says no; a distractor status that is also a verb ("filed") counts only as a status.
Each is scored on the engine with the tiny shop, its orders in the statuses of the catalog's tasks."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.formats.task import Task
from envs.grading.answers import says_no
from envs.grading.labels import label_named, label_stated, phrasings

from ..specs import SHOP, shop_env
from .scoring_helpers import score_after_gold

STATUSES = [
    "pending",
    "paid",
    "cancelled",
    "delivered",
    "disputed",
    "under_review",
    "in_review",
    "past_due",
    "filed",
    "duty_due",
]


def _score(answer: str, *, status: str, task: dict[str, Any], other: str = "delivered") -> float:
    spec = copy.deepcopy(SHOP)
    orders = next(t for t in spec["tables"] if t["name"] == "orders")
    next(c for c in orders["columns"] if c["name"] == "status")["enum"] = STATUSES
    spec["seed"]["orders"][0]["status"] = status
    spec["seed"]["orders"][1]["status"] = other
    return score_after_gold(shop_env(spec), Task.model_validate(task), answer)


def _refusal(request: str, reason: str, claims: list[str] | None = None) -> dict[str, Any]:
    return {
        "id": "shop-status",
        "env": "shop",
        "instruction": f"I'm ann@example.com. Please {request}.",
        "gold_actions": [
            {"tool": "find_account", "arguments": {"email": "ann@example.com"}},
            {"tool": "get_order", "arguments": {"order_id": "O1"}},
        ],
        "refusals": [{"request": request, "reason": [reason], "claims": claims or []}],
        "answer": f"I'm sorry, I can't {request}: it is {reason}.",
        "expects_change": False,
        "reward_basis": ["state", "outputs"],
    }


DISPUTE = _refusal("dispute my order O1", "disputed")
CANCEL = _refusal("cancel my order O1", "cancelled", ["cancelled", "canceled"])


@pytest.mark.parametrize(
    ("status", "task", "answer"),
    [
        # hotel_loyalty_points-001, as the seed-53 reviewer wrote it
        (
            "disputed",
            DISPUTE,
            "I can't open a new dispute: it's already under dispute, so our team is already reviewing it.",
        ),
        ("disputed", DISPUTE, "I'm afraid I can't: order O1 is in dispute already."),
        ("disputed", DISPUTE, "Unfortunately I can't, since it is already being disputed."),
        ("under_review", _refusal("cancel my order O1", "under_review"), "I can't cancel it: it's being reviewed."),
        ("under_review", _refusal("cancel my order O1", "under_review"), "I can't cancel it while it's in review."),
        ("in_review", _refusal("cancel my order O1", "in_review"), "I can't cancel it, it is under review."),
        ("past_due", _refusal("cancel my order O1", "past_due"), "I'm unable to cancel order O1: it's overdue."),
        ("cancelled", CANCEL, "I can't cancel order O1: it has already been cancelled."),
        ("paid", _refusal("pay my order O1", "paid"), "I can't take a payment for order O1: it's already been paid."),
    ],
)
def test_a_status_said_as_a_person_says_it_is_the_reason(status: str, task: dict[str, Any], answer: str) -> None:
    assert _score(answer, status=status, task=task) == 1.0


@pytest.mark.parametrize(
    ("status", "task", "answer"),
    [
        ("disputed", DISPUTE, "I'm sorry, I can't dispute your order O1."),
        ("disputed", DISPUTE, "I'm sorry, order O1 can't be disputed."),
        ("disputed", DISPUTE, "I'm afraid I'm unable to get it disputed for you."),
        ("cancelled", CANCEL, "I'm afraid order O1 can't be cancelled."),
        ("cancelled", CANCEL, "Unfortunately it cannot be cancelled at this point."),
        ("cancelled", CANCEL, "I'm not able to have it cancelled now."),
        ("paid", _refusal("pay my order O1", "paid"), "I'm sorry, order O1 can't be paid."),
        ("past_due", _refusal("cancel my order O1", "past_due"), "I can't cancel it: it is due soon."),
    ],
)
def test_the_request_restated_is_no_reason(status: str, task: dict[str, Any], answer: str) -> None:
    assert _score(answer, status=status, task=task) == 0.0


def test_phrasings_by_rule_and_by_table() -> None:
    assert phrasings("under_review") == {"under review", "in review", "being reviewed"}
    assert phrasings("past_due") == {"past due", "overdue"}
    assert phrasings("active") == {"active"}
    # the participle of another verb than the request's is read wherever it stands
    assert label_stated("It can't be paused: it is cancelled.", "cancelled", request="pause my plan")


RETRY = _refusal("retry the payment for my order O1", "pending")


@pytest.mark.parametrize(
    "answer",
    [
        # streaming_subscriptions-010, as the seed-53 reviewer wrote it
        "There's no payment to retry on it: order O1 is still pending.",
        "Order O1 is pending, so there is no failed payment to retry.",
        "Order O1 is pending; there isn't a payment to retry.",
        "Order O1 is pending, so that's not something I can do.",
    ],
)
def test_nothing_to_act_on_says_no(answer: str) -> None:
    assert _score(answer, status="pending", task=RETRY) == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        "No problem! Order O1 is pending.",
        "No worries, order O1 is pending.",
        "No further action needed — done. Order O1 is pending.",
        "There's no need to worry: order O1 is pending.",
        "There's no fee to retry it, and order O1 is pending.",
    ],
)
def test_no_as_reassurance_is_no_refusal(answer: str) -> None:
    assert not says_no(answer)
    assert _score(answer, status="pending", task=RETRY) == 0.0


STATUS_OF_O2 = {
    "id": "shop-status-of",
    "env": "shop",
    "instruction": "I'm ann@example.com. What is the status of my order O2?",
    "gold_actions": [
        {"tool": "get_order", "arguments": {"order_id": "O1"}},
        {"tool": "get_order", "arguments": {"order_id": "O2"}},
    ],
    "outputs": ["duty_due"],
    "distractors": ["filed"],
    "answer": "The status of your order O2 is duty due.",
    "reward_basis": ["outputs"],
}


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        # customs_clearance_entries-016, as the seed-53 reviewer wrote it
        ("Your entry was filed when the goods arrived on January 10; its status is duty due.", 1.0),
        ("It has been filed by your broker and is now duty due.", 1.0),
        ("Your broker filed it in January; the status is Duty Due.", 1.0),
        # another record's status named as one
        ("Your orders: filed, duty_due, delivered.", 0.0),
        ("O1 status: filed. O2 status: duty due.", 0.0),
        ("Order O2 is duty due, and order O1 is filed.", 0.0),
        ("The status is duty due (the other one is 'filed').", 0.0),
    ],
)
def test_a_distractor_status_that_is_also_a_verb_counts_as_a_status_only(answer: str, reward: float) -> None:
    assert _score(answer, status="filed", other="duty_due", task=STATUS_OF_O2) == reward


def test_a_distractor_that_is_no_verb_counts_wherever_it_stands() -> None:
    assert label_named("It was delivered when you ordered it.", "delivered") is False  # a participle used as a verb
    assert label_named("It was active when you called.", "active") is True
