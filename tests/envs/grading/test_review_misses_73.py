"""Grader misses the seed-73 review found on real tasks (docs/synthesis.md, "Seed 73"), on the shop
engine: a refusal said as "too close to …" turns the request down, and a wrong status said as no
longer the case ("it's no longer pending payment") is no distractor stated."""

from __future__ import annotations

import pytest

from envs.grading.answers import says_no
from envs.grading.labels import label_named

from .test_answers import REFUSED, _score


@pytest.mark.parametrize(
    "answer",
    [
        "Order O1 was placed on January 10, 2026, more than 3 days ago: it's too near the end of its window to cancel.",
        "It was placed on 2026-01-10, more than 3 days ago, so it's too far out to cancel under the 3-day rule.",
        "Order O1 was placed on January 10, 2026; that is too late to cancel under the 3-day rule.",
    ],
)
def test_a_refusal_said_as_too_close_or_too_far_turns_it_down(answer):
    assert says_no(answer)
    assert _score(answer) == 1.0


def test_too_close_alone_is_no_refusal_of_a_request_that_was_done():
    # a claim of success with "too close" in passing still claims it: no refusal sentence saves it
    assert _score("Done, order O1 is cancelled; it was too close to call.", act=True) == 0.0


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("It's queued: payment went through, so it's no longer pending payment.", False),
        ("It isn't pending payment any more; it's queued.", False),
        ("It is pending payment.", True),
        ("Statuses: queued, pending payment.", True),
    ],
)
def test_a_status_said_to_be_no_longer_the_case_is_not_named(text, named):
    assert label_named(text, "pending payment") == named


def test_a_wrong_status_said_as_no_longer_the_records_is_no_distractor_stated():
    task = {k: v for k, v in REFUSED.items() if k not in ("refusals", "answer")}
    task = {**task, "id": "shop-q", "instruction": "I'm ann@example.com. What is the total of my order O1?"}
    task = {**task, "outputs": ["30.0"], "distractors": ["55.0"]}
    assert _score("Your order O1 totals $30.00; it's no longer $55.00 since the discount.", task) == 1.0
    assert _score("Your order O1 totals $30.00, or is it $55.00.", task) == 0.0
