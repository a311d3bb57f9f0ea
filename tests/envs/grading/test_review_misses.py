"""Grader misses a review found on real tasks (docs/synthesis.md, "Seed 59"), on the shop engine:
values listed with no word that relates them give no reason, a date-time's day alone restates it, a
participle naming a total claims nothing, and an answer naming its record by the user's words reads
none out."""

from __future__ import annotations

import copy

import pytest

from envs.grading.answers import claimed, worded
from envs.grading.restating import dumped_records, restated

from .test_answers import REFUSED, _score


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        ("I can't cancel O1. 2026-01-10.", 0.0),  # a sentence of a value alone
        ("I can't cancel order O1: 2026-01-10 30.", 0.0),  # values hung on the refusal by a colon
        ("I can't cancel order O1: 01/10/2026, $30.", 0.0),
        ("I can't cancel order O1: values 2026-01-10, 3 days.", 0.0),  # a word that only says a list follows
        ("I can't cancel order O1. Placed: 2026-01-10.", 1.0),  # a label names the value
        ("I can't cancel order O1: it was placed on 2026-01-10.", 1.0),
        ("January 10, 2026 — that's when order O1 was placed, so I can't cancel it.", 1.0),
    ],
)
def test_values_listed_with_no_word_between_them_give_no_reason(answer, reward):
    assert _score(answer) == reward


def test_worded_keeps_sentences_of_words_and_labelled_values():
    assert worded("I can't cancel it. 2026-01-10.") == "I can't cancel it."
    assert worded("Placed: 2026-01-10. Total: $30.") == "Placed: 2026-01-10. Total: $30."


def test_a_date_times_day_said_alone_restates_it():
    # O2 was placed 2026-01-11 10:00: its day, without the time, is a second date beside the reason
    assert restated("It was placed 2026-01-10, not 2026-01-11.", ["2026-01-11 10:00:00"], ["2026-01-10"]) == [
        "2026-01-11 10:00:00"
    ]
    # the reason's own day, or today's, is no other record's
    assert restated("Today is 2026-01-11.", ["2026-01-11 10:00:00"], ["2026-01-11"]) == []
    task = copy.deepcopy(REFUSED)
    task["gold_actions"].append({"tool": "get_order", "arguments": {"order_id": "O2"}})
    assert _score("I can't cancel order O1: values 2026-01-10 10:00, 2026-01-11.", task) == 0.0
    assert _score("I can't cancel order O1: it was placed on 2026-01-10 at 10:00.", task) == 1.0


@pytest.mark.parametrize(
    ("sentence", "claims"),
    [
        ("its deposit was refunded, so the total deposit paid on it is now $0.", False),
        ("The amount paid so far stays at $30.", False),
        ("The total cancelled: $0.", False),
        ("The total was paid today.", True),
        ("The total was paid and is now $0.", True),
        ("I've paid it; the total is $30.", True),
    ],
)
def test_a_participle_naming_a_total_claims_nothing(sentence, claims):
    assert (claimed(sentence, ["paid", "cancelled"]) is not None) == claims


def test_the_policys_total_beside_a_refusal_passes():
    answer = "I can't cancel order O1: it was placed on 2026-01-10. The total amount cancelled on it is $0."
    assert _score(answer) == 1.0
    assert _score(answer.replace("The total amount cancelled on it is $0.", "The order was cancelled.")) == 0.0


def _question(instruction: str) -> dict:
    task = {k: v for k, v in REFUSED.items() if k not in ("refusals", "answer")}
    return {**task, "id": "shop-total", "instruction": instruction, "outputs": ["30.0"]}


def test_naming_the_asked_record_by_the_users_words_reads_none_out():
    task = _question("I'm ann@example.com. What is the total of my order placed January 10, 2026 at 10:00 AM?")
    assert _score("Your order O1, placed January 10, 2026 at 10:00 AM, totals $30.00. It's pending.", task) == 1.0
    # the same record read out field by field, beyond what the user said and what was asked, still fails
    assert _score("O1, U1, pending, 30.0, 2026-01-10 10:00:00", _question("What is the total of my order O1?")) == 0.0


def test_dumped_records_leaves_out_the_answer_and_the_users_words():
    row = {"id": "CI0003", "load": "LO0004", "amount": 5150.29, "issued_on": "2025-11-17", "status": "submitted"}
    answer = "Your invoice CI0003, issued November 17, 2025, is for $5,150.29. It's currently submitted."
    assert dumped_records(answer, [row]) == ["CI0003"]
    assert dumped_records(answer, [row], ["5150.29"], "my invoice dated November 17, 2025") == []


def test_a_record_read_out_but_for_its_keys_is_read_out_whatever_the_user_said():
    row = {
        "consultation_id": "CS0033",
        "patient_id": "PT0001",
        "visit_code": "TLH-991089057",
        "scheduled_at": "2026-03-13 12:45:00",
        "reason": "Sore throat and fever",
        "status": "scheduled",
    }
    dump = "The visit code is TLH-991089057. The scheduled at is 2026-03-13 12:45:00. The reason is Sore throat and "
    dump += "fever. The status is scheduled."
    asked = "the status of my consultation with visit code TLH-991089057"
    assert dumped_records(dump, [row], ["scheduled"], asked) == ["CS0033"]
    assert dumped_records("Your consultation TLH-991089057 is scheduled.", [row], ["scheduled"], asked) == []
