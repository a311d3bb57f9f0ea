"""Grader misses the seed-61 review and the whole-catalog bench found on real tasks (docs/synthesis.md,
"Seed 61"), on the shop engine: a reason that is a phrase with a number said in words or in another
order, a wrong value said not to be the case, the user's words and the reason no reading out of a
refused record, and the records' labels listed after a colon no reason."""

from __future__ import annotations

import copy

import pytest

from envs.grading.answers import worded
from envs.grading.labels import label_named, label_stated
from envs.grading.restating import dumped_records

from .test_answers import REFUSED, _score


@pytest.mark.parametrize(
    "text",
    [
        "It's a continuous one-month pass, and only Flexi 5-day and Flexi 10-day passes can be refunded.",
        "It's a one-month continuous pass, which isn't refundable.",
        "It's a continuous 1-month pass.",
        "It's a continuous 1 month pass.",
    ],
)
def test_a_reason_phrase_with_a_number_is_read_in_words_hyphenated_and_in_any_order(text):
    assert label_stated(text, "continuous 1 month")


@pytest.mark.parametrize(
    "text",
    ["It's a continuous two-month pass.", "It's a continuous pass; it has 1 day left this month."],
)
def test_another_number_or_the_words_far_apart_do_not_state_it(text):
    assert not label_stated(text, "continuous 1 month")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Your application was submitted via a job board, not through a recruiter.", False),
        ("It came from a job board rather than a recruiter.", False),
        ("A recruiter? No, it came through a job board.", False),
        ("It came through a recruiter.", True),
        ("I'm not sure whether it was a job board or a recruiter.", True),  # a hedge denies nothing
    ],
)
def test_a_wrong_label_said_not_to_be_the_case_is_not_named(text, named):
    assert label_named(text, "recruiter") == named


def _question(instruction: str, output: str, distractor: str) -> dict:
    task = {k: v for k, v in REFUSED.items() if k not in ("refusals", "answer")}
    return {**task, "id": "shop-q", "instruction": instruction, "outputs": [output], "distractors": [distractor]}


def test_a_wrong_amount_said_not_to_be_the_case_is_no_distractor_stated():
    task = _question("I'm ann@example.com. What is the total of my order O1?", "30.0", "55.0")
    assert _score("Your order O1 totals $30.00, not $55.00.", task) == 1.0
    assert _score("Your order O1 totals $30.00 or $55.00.", task) == 0.0


def test_the_records_labels_listed_after_a_colon_give_no_reason():
    assert worded("I can't extend TIP-6: basic 2026-05-11 active.", ["basic", "active"]) == "I can't extend TIP-6:"
    assert worded("I can't pause CK0025: basic.", ["basic"]) == "I can't pause CK0025:"  # a label alone too
    assert (
        worded("I can't pause CK0025: it's on the basic plan.", ["basic"])
        == "I can't pause CK0025: it's on the basic plan."
    )
    assert _score("I can't cancel order O1: pending 2026-01-10 30.") == 0.0
    assert _score("Can't cancel: 2026-01-10 30.00 pending 3.") == 0.0
    assert _score("I can't cancel order O1: it was placed on 2026-01-10, more than 3 days ago.") == 1.0


def test_the_users_words_for_a_refused_record_are_no_reading_of_it_out():
    task = copy.deepcopy(REFUSED)
    task["instruction"] = (
        "I'm ann@example.com, account U1. Please cancel my $30 order from January 10, 2026 at 10:00 AM."
    )
    answer = (
        "I looked up account U1's $30.00 order O1 from January 10, 2026 at 10:00 AM. I can't cancel it: it was "
        "placed on 2026-01-10, more than 3 days ago."
    )
    assert _score(answer, task) == 1.0
    # the same record read out, beyond what the user said of it, is still no reason
    dump = "I can't cancel order O1: order O1, account U1, pending, 30.0, placed 2026-01-10 10:00:00."
    assert _score(dump) == 0.0


_SUBSCRIPTIONS = [
    {
        "print_subscription_id": "PS0025",
        "subscriber_id": "NS0033",
        "edition": "sunday_only",
        "weekly_rate": 11.84,
        "renews_on": "2026-05-10",
        "status": "cancelled",
    },
    {
        "print_subscription_id": "PS0045",
        "subscriber_id": "NS0033",
        "edition": "sunday_only",
        "weekly_rate": 10.41,
        "renews_on": "2025-12-30",
        "status": "cancelled",
    },
]


def test_records_named_by_their_ids_with_amounts_and_a_shared_label_are_not_read_out():
    asked = "What is the total weekly rate of my cancelled subscriptions?"
    answer = (
        "Your two cancelled subscriptions are both Sunday-only: PS0025 at $11.84 a week and PS0045 at $10.41 a "
        "week, so together $22.25 a week."
    )
    assert dumped_records(answer, [_SUBSCRIPTIONS], ["22.25"], asked) == []
    # their other fields read out too is a reading out
    dump = "PS0025 NS0033 sunday_only 11.84 2026-05-10 cancelled; PS0045 NS0033 sunday_only 10.41 2025-12-30 cancelled"
    assert dumped_records(dump, [_SUBSCRIPTIONS], ["22.25"], asked) == ["PS0045", "PS0025"]


def test_a_refused_records_status_given_as_the_reason_is_no_field_read_out():
    row = {
        "degree_verification_id": "DV0005",
        "alumnus_id": "AL0011",
        "employer_name": "Stokes, Young and Stevens",
        "requested_on": "2026-01-31",
        "status": "consent_revoked",
    }
    answer = (
        "I've settled the balance for your alumnus AL0011. I checked your degree verification DV0005 (Stokes, Young "
        "and Stevens): its status is consent revoked, so I can't revoke the consent for it."
    )
    user = "Please revoke the consent for my degree verification from January 31."
    # the reason as said ("consent revoked") is the label the tool writes ("consent_revoked"), and the
    # alumnus is the one whose balance was settled: what the agent did, it may report
    assert dumped_records(answer, [row], ["consent revoked", "AL0011"], user) == []
    assert dumped_records(answer + " It was requested on 2026-01-31.", [row], [], "") == ["DV0005"]
