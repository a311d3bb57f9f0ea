"""Grader misses the seed-71 review found on real tasks (docs/synthesis.md, "Seed 71"), on the shop
engine and on the review's own records: the record's status said as unchanged beside a refusal on a
time rule is no allowing status; ids the task's own calls send name records, and what a write was
done to is reported, not read out; and "I'm sorry, I can't do that." after the writes a task asked
for, with the values after it, reports nothing."""

from __future__ import annotations

import copy

import pytest

from envs.formats.task import Task
from envs.grading.reports import turned_down
from envs.grading.restating import dumped_records

from ..specs import shop_env
from .scoring_helpers import score_after_gold
from .test_answers import REFUSED, _score, _shop_with_rule


@pytest.mark.parametrize(
    "answer",
    [
        "Your order O1 is still pending, but I can't cancel it: it was placed on January 10, 2026, more than 3 days "
        "ago.",
        "Order O1 stays pending: I can't cancel it because it was placed on 2026-01-10, past the 3-day window.",
        "Your order O1 remains pending. I'm unable to cancel it, since it was placed on January 10, 2026.",
    ],
)
def test_the_status_said_as_unchanged_beside_a_time_reason_passes(answer):
    assert _score(answer) == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        # the status said as the record's value, beside the reason: which rule stops it is unsaid
        "I can't cancel order O1: the status is pending and it was placed on 2026-01-10, more than 3 days ago.",
        "I'm sorry, I can't cancel your order O1. The status is pending. The created at is 2026-01-10 10:00:00.",
        "Status: pending. Placed 2026-01-10. I can't cancel it.",
        # said as kept, but the values after the refusal are any record's: the refusal gives no reason
        "Your order O1 is still pending, but I'm sorry, I can't cancel it. The created at is 2026-01-10 10:00:00.",
    ],
)
def test_the_status_said_plainly_beside_a_time_reason_still_fails(answer):
    assert _score(answer) == 0.0


def _question(output: str = "30.0") -> dict:
    task = {k: v for k, v in copy.deepcopy(REFUSED).items() if k not in ("refusals", "answer")}
    instruction = "I'm ann@example.com. What is the total of my pending order?"
    return {**task, "id": "shop-total", "instruction": instruction, "outputs": [output]}


def test_an_id_the_tasks_calls_send_names_its_record_beside_another_key():
    # O1 is the order the gold reads: naming it with its account is no reading out
    answer = "Your order O1 on account U1, placed January 10, 2026 at 10:00 AM, totals $30.00."
    assert _score(answer, _question()) == 1.0
    assert _score("Your order O1, placed January 10, 2026 at 10:00 AM, totals $30.00.", _question()) == 1.0


def test_a_record_stated_in_every_field_is_read_out_whatever_names_it():
    answer = "Order O1, account U1, status pending, total 30.00, created 2026-01-10 10:00:00."
    assert _score(answer, _question()) == 0.0
    assert _score(f"I'm sorry, I can't do that because {answer}", _question()) == 0.0


#: The review's rows (frequent_flyer_awards_kb-011, newspaper_home_delivery_kb-002).
FLIGHT = {
    "award_flight_id": "AF0026",
    "route_code": "RT-802766026",
    "origin": "Taylorville",
    "destination": "Coryland",
    "departs_on": "2026-03-21",
    "miles_required": 21194,
    "award_seats": 5,
    "taxes": 61.64,
}
MISSED = {
    "missed_delivery_id": "MD0018",
    "subscriber_id": "NS0004",
    "print_subscription_id": "PS0030",
    "delivery_date": "2026-01-09",
    "issue": "damaged",
    "status": "reported",
}


def test_the_record_a_write_acted_on_is_reported_not_read_out():
    booked = (
        "I cancelled your two award tickets and booked the March 21 Taylorville to Coryland flight for 21,194 "
        "miles plus $61.64 in taxes. Your new miles balance is 135,261."
    )
    done = ["135261", "21194", "61.64", "AF0026", "FM0037"]
    assert dumped_records(booked, [FLIGHT], done, names=["AF0026"]) == ["AF0026"]
    assert dumped_records(booked, [FLIGHT], done, names=["AF0026"], acted_on=["AF0026"]) == []
    # read out whole, it is the record, booked or not
    whole = "AF0026 RT-802766026 Taylorville Coryland 2026-03-21 21194 5 61.64"
    assert dumped_records(whole, [FLIGHT], done, names=["AF0026"], acted_on=["AF0026"]) == ["AF0026"]


def test_the_refused_record_named_by_its_id_and_its_parents_is_no_reading_out():
    answer = (
        "The missed delivery from January 9 (MD0018, damaged) can't be redelivered because its print subscription "
        "PS0030 has been cancelled."
    )
    user = "redeliver my missed delivery dated January 9"
    assert dumped_records(answer, [MISSED], ["cancelled"], user) == ["MD0018"]
    assert dumped_records(answer, [MISSED], ["cancelled"], user, names=["MD0018", "NS0004", "PS0030"]) == []
    lazy = "Can't redeliver MD0018: NS0004 PS0030 2026-01-09 damaged reported."
    assert dumped_records(lazy, [MISSED], ["cancelled"], user, names=["MD0018", "NS0004", "PS0030"]) == ["MD0018"]


CHARGE = {
    **{k: v for k, v in copy.deepcopy(REFUSED).items() if k not in ("refusals", "answer")},
    "id": "shop-charge",
    "instruction": "I'm ann@example.com. Please charge $12.50 to my account, then tell me my new balance.",
    "gold_actions": [
        {"tool": "find_account", "arguments": {"email": "ann@example.com"}},
        {"tool": "charge", "arguments": {"account_id": "U1", "amount": 12.5}},
    ],
    "outputs": ["87.5"],
    "expects_change": True,
}


def _charged(answer: str) -> float:
    return score_after_gold(shop_env(_shop_with_rule().model_dump(mode="json")), Task.model_validate(CHARGE), answer)


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, I can't do that. 100 12.5 87.5",
        "Unfortunately I'm unable to help with that request. Balance: 87.50.",
        "I can't do that. Your new balance is $87.50.",
    ],
)
def test_the_tasks_own_request_turned_down_after_its_writes_fails(answer):
    assert _charged(answer) == 0.0


@pytest.mark.parametrize(
    "answer",
    [
        "I've charged $12.50 to your account; your new balance is $87.50.",
        "Done. Your balance is now $87.50. Note that a charge can't be undone after 3 days.",
        "All set: $12.50 charged, new balance $87.50. There's nothing more to do on your side.",
    ],
)
def test_a_report_of_the_writes_with_a_no_about_something_else_passes(answer):
    assert _charged(answer) == 1.0


def test_a_bare_refusal_is_one_that_names_nothing():
    assert turned_down("I'm sorry, I can't do that. 52339 54061") == "i'm sorry, i can't do that."
    assert turned_down("Unfortunately, I'm not able to help with this request.")
    assert turned_down("Done. You can't change the seat after check-in.") is None
    assert turned_down("Your balance is $87.50; you won't be charged again.") is None
