"""The seed-110 review's grading miss: a correct refusal of a payment reversal that went on "The
add-on refund went through and your account credit is now 59.39." scored 0, read as claiming the
reversal: the refund done beside it was named "add-on" where the task's refund call says `addon`, and
the credit asked about shares "account" with the refused "reverse my account payment". The task is
the one the review read (kept in reviewed/)."""

from __future__ import annotations

import pytest

from envs.grading.answers import claimed

from .scoring_helpers import reviewed_task, score_task

REVERSAL = "mobile_plan_support-007"  # refund the add-on; reversing a voucher payment is refused
_REFUND = "data addon"  # what the refund call is about: its tool's words less the verb


def test_the_reversal_task_is_the_reviewed_one() -> None:
    task = reviewed_task(REVERSAL)[1]
    assert "Cloud Storage Add-On" in task.instruction
    assert [r.reason for r in task.refusals] == [["voucher"]] and task.outputs == ["59.39"]


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        (
            "Sorry, the payment from November 5, 2025 can't be reversed since it was a voucher payment. The "
            "add-on refund went through and your account credit is now 59.39.",
            1.0,
        ),
        (
            "I can't reverse the November 5, 2025 payment: it was paid by voucher, and only card or bank "
            "transfer payments can be reversed. The add-on refund went through. Your account credit is now $59.39.",
            1.0,
        ),
        (
            "I can't reverse the payment of November 5, 2025: it was made with a voucher. The add-on refund "
            "went through, so your account credit is $59.39.",
            1.0,
        ),
        # the reversal itself said done still claims it, hyphen or not, the asked field beside it or not
        ("The add-on refund and the payment reversal went through. Your account credit is now 59.39.", 0.0),
        ("Sorry, it was a voucher payment. The reversal went through; credit 59.39.", 0.0),
        ("Your account credit is $59.39 and the payment reversal went through.", 0.0),
        ("Sorry, it was a voucher payment. Your account has been reversed. Credit: 59.39", 0.0),
    ],
)
def test_another_action_and_the_asked_field_claim_nothing(answer: str, reward: float) -> None:
    assert score_task(REVERSAL, answer) == reward


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("The add-on refund went through.", None),
        ("The addon refund went through.", None),
        ("The payment reversal went through.", "the payment reversal went through."),
    ],
)
def test_a_hyphenated_word_names_what_its_joined_form_names(sentence: str, claim: str | None) -> None:
    about = "reverse my account payment dated November 5, 2025"
    assert claimed(sentence, ["reversed"], about=about, elsewhere=[_REFUND], verb="reverse") == claim
