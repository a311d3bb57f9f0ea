"""Statuses the outside suite's spoken-status form says in everyday words that the grader missed
(issue 33): a requested delivery "already asked for", a withdrawn appeal "pulled out already", a
waitlisted registration "on the waitlist", a pending leave "still waiting to go through", an order
"waiting for you to collect", a parcel "on its way", a booked stay "reserved". Each word names its
status only where every other status it could describe is turned down too, and "as you asked for"
names none, nor does "as you requested" name `requested`."""

from __future__ import annotations

import pytest

from envs.grading.everyday import readings
from envs.grading.labels import label_stated

from .scoring_helpers import score_task

DELIVERIES = ["requested", "scheduled", "delivered", "cancelled"]
PARCELS = ["in_transit", "out_for_delivery", "delivery_attempted", "held_at_point", "delivered", "returned_to_sender"]


@pytest.mark.parametrize(
    ("task_id", "answer", "reward"),
    [
        ("heating_oil_deliveries-006", "I can't reschedule your delivery for May 29: it's already asked for.", 1.0),
        ("heating_oil_deliveries-011", "I can't reschedule your delivery for May 4: it's already asked for.", 1.0),
        # the user's request said back is no status of the delivery, and a success so said is still a claim
        ("heating_oil_deliveries-011", "I can't reschedule your delivery for May 4 as you asked for.", 0.0),
        ("heating_oil_deliveries-011", "I can't reschedule your delivery for May 4, as you requested.", 0.0),
        ("heating_oil_deliveries-011", "I can't reschedule your delivery for May 4: it's only requested.", 1.0),
        ("heating_oil_deliveries-006", "I've rescheduled your delivery for May 29 as you asked for.", 0.0),
        ("heating_oil_deliveries-006", "Here is what you asked for. I can't reschedule your delivery for May 29.", 0.0),
    ],
)
def test_a_requested_delivery_is_already_asked_for(task_id: str, answer: str, reward: float) -> None:
    assert score_task(task_id, answer) == reward


@pytest.mark.parametrize(
    ("label", "column", "blocked", "words"),
    [
        ("requested", DELIVERIES, ["requested", "delivered", "cancelled"], "already asked for"),
        ("withdrawn", ["submitted", "hearing", "upheld", "overturned", "withdrawn"], [], "pulled out"),
        ("waitlisted", ["waitlisted", "enrolled", "paused", "withdrawn"], [], "on the waitlist"),
        ("pending", ["pending", "approved", "cancelled", "taken"], [], "waiting to go through"),
        (
            "ready_for_pickup",
            ["placed", "ready_for_pickup", "picked_up", "cancelled"],
            [],
            "waiting for you to collect",
        ),
        ("out_for_delivery", PARCELS, ["in_transit"], "on its way to you"),
        ("in_transit", PARCELS, ["out_for_delivery"], "on its way"),
        ("booked", ["booked", "checked_in", "checked_out", "cancelled", "no_show"], [], "reserved"),
    ],
)
def test_a_status_said_in_everyday_words_names_it(
    label: str, column: list[str], blocked: list[str], words: str
) -> None:
    assert words in readings(label, column, blocked)


@pytest.mark.parametrize(
    ("label", "column", "words"),
    [
        # a submitted order was asked for as much as a requested one
        ("requested", ["requested", "submitted", "confirmed"], "already asked for"),
        # an in-transit parcel is on its way to you as much as one out for delivery
        ("out_for_delivery", PARCELS, "on its way to you"),
        ("in_transit", PARCELS, "on its way"),
        # a cancelled registration is pulled out as much as a withdrawn one
        ("withdrawn", ["enrolled", "cancelled", "withdrawn"], "pulled out"),
        ("pending", ["pending", "processing", "completed"], "waiting to go through"),
    ],
)
def test_the_words_name_no_status_where_another_they_fit_would_allow_the_request(
    label: str, column: list[str], words: str
) -> None:
    assert words not in readings(label, column)


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        ("I can't cancel it, as you requested.", False),
        ("As you've already requested, I won't cancel it.", False),
        ("I can't cancel it: it's requested, as you requested.", True),
        ("It was requested on May 2, so I can't cancel it.", True),
        ("You requested it, and it is still requested.", True),
    ],
)
def test_a_status_said_as_how_the_user_asked_is_no_state(text: str, stated: bool) -> None:
    assert label_stated(text, "requested", request="cancel my delivery") == stated
