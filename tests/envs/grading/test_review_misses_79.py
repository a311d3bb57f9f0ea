"""Correct answers the seed-79 review saw fail (docs/synthesis.md, "Seed 79"): a status of a thing and
what was done to it said as a sentence ("a delivery attempt was already made" for
``delivery_attempted``), and the amount a refusal offers as the way forward ("once you pay the
past-due $358.12") read as a figure no rule names."""

from __future__ import annotations

import pytest

from envs.grading.labels import label_stated, phrasings
from envs.grading.unasked import offered_payments, unasked_figures


@pytest.mark.parametrize(
    "text",
    [
        "It is no longer in transit: a delivery attempt was already made.",
        "A delivery was attempted on Tuesday.",
        "There was an attempted delivery, so I can't waive it.",
        "Its status is delivery attempted.",
    ],
)
def test_a_thing_and_what_was_done_to_it_said_as_a_sentence(text):
    assert label_stated(text, "delivery_attempted", request="waive the signature for my parcel")


@pytest.mark.parametrize(
    "text", ["It is still in transit; no attempt yet.", "I attempted to reach the delivery team.", "It was delivered."]
)
def test_other_sentences_do_not_say_it(text):
    assert not label_stated(text, "delivery_attempted", request="waive the signature for my parcel")


def test_only_a_thing_and_a_deed_are_said_so():
    # a manner or a state word first is no thing; a verb that is no noun makes no "… was made"
    assert phrasings("partially_shipped") == {"partially shipped"}
    assert phrasings("not_started") == {"not started"}
    assert "payment was received" in phrasings("payment_received")
    assert not any("receiv " in p for p in phrasings("payment_received"))


BOX = {"box_id": "SB1", "size": "small", "annual_fee": 358.12, "opened_on": "2024-02-01"}
LEASE = {"box_lease_id": "BL1", "box_id": "SB1", "status": "past_due", "renewal_date": "2026-01-05"}
RULES = ["A key can be replaced only on an active lease."]


def test_the_amount_offered_as_the_way_forward_is_help():
    answer = "I can't replace the key: the lease is past due. Once you pay the past-due $358.12, we can replace it."
    offered = offered_payments(answer)
    assert offered == ["358.12"]
    assert unasked_figures(["358.12"], [BOX, LEASE], RULES, ("box_lease_id", "BL1"), offered=offered) == []


def test_an_amount_read_out_is_still_a_figure_no_rule_names():
    answer = "I can't replace the key: the lease is past due. The box's fee is $358.12."
    offered = offered_payments(answer)
    assert offered == []
    assert unasked_figures(["358.12"], [BOX, LEASE], RULES, ("box_lease_id", "BL1"), offered=offered) == ["358.12"]


def test_only_one_amount_is_excused_as_help():
    # a second figure beside the offered one reads the other row out
    reads = [BOX, LEASE, {"box_id": "SB2", "size": "large", "annual_fee": 512.4}]
    offered = offered_payments("Pay $358.12 or $512.40 and it's done.")
    assert unasked_figures(["358.12", "512.4"], reads, RULES, ("box_lease_id", "BL1"), offered=offered) == ["512.4"]
