"""The seed-109 review's grading misses: a lazy refusal whose only number was its own promise ("please
allow 2 business days") passed as giving the reason "2" (2 kW subscribed, 9 asked), and a careful
total that said a cancelled payout was left out ("…was cancelled, so I haven't counted it") failed
as giving a distractor, and so did a correct answer about a cancelled policy that added "Your other
policy … is still active." The tasks are the ones the review read (kept in reviewed/)."""

from __future__ import annotations

import pytest

from envs.formats.task import Task
from envs.grading.answers import claimed
from envs.grading.spans import said_only_as_span

from .scoring_helpers import reviewed_task, score_task

SHARE, PAYOUTS = "community_solar_shares-005", "indie_music_distribution-002"
POLICIES = "travel_insurance_claims-002"  # the status and coverage of a cancelled policy; another is active


def _share_task() -> Task:
    return reviewed_task(SHARE)[1]


def test_the_share_task_is_the_reviewed_one() -> None:
    task = _share_task()
    assert "9 kW" in task.instruction and [r.reason for r in task.refusals] == [["2"]]


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        ("I've filed the dispute on CR0008. I can't release 9 kW because your share is only 2 kW.", 1.0),
        (
            "I've disputed credit statement CR0008. I can't release 9 kW from that share, though: it only has "
            "2 kW subscribed, so there isn't that much to release.",
            1.0,
        ),
        # the number said only as the answer's own promise gives no reason
        (
            "I've filed the dispute on your credit statement CR0008. I wasn't able to reduce the share; please "
            "allow 2 business days and call back.",
            0.0,
        ),
        ("Dispute filed. I couldn't reduce the share, sorry. Give it 2 days and try again.", 0.0),
    ],
)
def test_a_count_said_only_as_days_is_no_reason_where_the_rule_counts_no_time(answer: str, reward: float) -> None:
    assert score_task(SHARE, answer) == reward


def test_a_span_is_the_reason_where_the_rule_counts_time() -> None:
    assert said_only_as_span("Sorry, we can't: allow 2 business days.", "2", ["at most 2 shares at once"])
    assert not said_only_as_span("It renews in 38 days.", "38", ["no more than 30 days before renewal"])
    assert not said_only_as_span("Only 2 kW; allow 2 days.", "2", ["kW released at most kW subscribed"])


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        (
            "You have two payouts still waiting to be sent: $347.43 by bank transfer and $458.37 to PayPal. "
            "Together that's $805.80. The $296.09 one from February was cancelled, so I haven't counted it.",
            1.0,
        ),
        ("Your payout requests add up to $1,101.89.", 0.0),
        ("Here are your payouts: PR0011 347.43 requested, PR0022 458.37 requested, PR0023 296.09 cancelled.", 0.0),
    ],
)
def test_a_value_said_as_not_counted_is_no_distractor(answer: str, reward: float) -> None:
    assert score_task(PAYOUTS, answer) == reward


_DEPOSIT = "set up a check deposit of $52.08 for Roger's lunch account"
_REFUND = "refund my meal purchase for Chicken Tenders with Fries"


@pytest.mark.parametrize(
    ("answer", "claim"),
    [
        # the pronoun after a semicolon goes on about the deposit, the action that was done
        (
            "I've set up a $52.08 check deposit for Roger's lunch account (LD1001); it shows as pending until "
            "the office posts it. I can't refund the Chicken Tenders with Fries, though.",
            None,
        ),
        ("I've set up the check deposit. It is all set. I can't refund the meal.", None),
        # a claim word, or the refused request named, still claims
        ("I've set up the check deposit; it shows as refunded.", "it shows as refunded."),
        ("I've set up the check deposit. The meal refund is all set.", "the meal refund is all set."),
        ("It shows as pending until the office posts it.", "it shows as pending until the office posts it."),
    ],
)
def test_a_sentence_going_on_about_the_action_done_claims_nothing(answer: str, claim: str | None) -> None:
    assert claimed(answer, ["refunded"], about=_REFUND, elsewhere=[_DEPOSIT], verb="refund") == claim


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        (
            "Your travel policy TIP-955569001 is cancelled, with $8,356.34 of coverage remaining. Your other "
            "policy, TIP-514144209, is still active.",
            1.0,
        ),
        ("TIP-955569001 is cancelled; $8,356.34 of coverage remains. Your other policy is still active.", 1.0),
        ("TIP-955569001 is cancelled, with $8,356.34 remaining. TIP-514144209 is still active.", 1.0),
        # the other policy's every asked field, the other record first, or both records in one sentence
        ("TIP-955569001 is cancelled, with $8,356.34 remaining. TIP-514144209 is active, with $6,814.71.", 0.0),
        ("TIP-514144209 is active. TIP-955569001 is cancelled, with $8,356.34 of coverage remaining.", 0.0),
        ("TIP-955569001 is cancelled and TIP-514144209 is active; coverage remaining $8,356.34.", 0.0),
        ("The status is cancelled, with $8,356.34 remaining. It is also active.", 0.0),
        ("Status of each: TP0044: active; TP0059: cancelled. Coverage remaining: 8356.34.", 0.0),
    ],
)
def test_another_records_status_said_as_its_own_is_no_distractor(answer: str, reward: float) -> None:
    assert score_task(POLICIES, answer) == reward
