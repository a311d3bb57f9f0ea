"""Answers on write and hand-over tasks (docs/formats.md, "Answers"): the writes made may not be said
undone, and an asked value's old value may not be said as the current one."""

from __future__ import annotations

import pytest

from envs.grading.written import denied_writes, old_values, stated_as_current, write_verbs

TOOLS = ["cancel_booking", "add_liftgate_freight_shipment", "create_access_visit"]


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, I can't do that.",
        "Unfortunately I'm unable to help with this request.",
        "I wasn't able to add the liftgate.",
        "Sorry, your booking hasn't been cancelled.",
        "I couldn't book the vault visit for March 14.",
        "No changes were made to your account.",
        "Unfortunately, I wasn't able to process your request.",
        "We have not yet cancelled it.",
        "I couldn't book the visit.",
        "Unfortunately, I wasn't able to create your account.",
    ],
)
def test_an_answer_that_says_the_writes_were_not_made_is_found(answer):
    assert denied_writes(answer, TOOLS) is not None


@pytest.mark.parametrize(
    "answer",
    [
        "Done — your booking is cancelled. I can't refund the booking fee, though.",
        "I've added the liftgate. Note that you can't reschedule it again within 24 hours.",
        "Your booking is cancelled and can't be cancelled again.",
        "I didn't change anything else on your account.",
        "I can't waive the fee, but your visit is booked for March 14 at 10 AM.",
        "There's nothing else you need to do.",
        "Your visit is booked. If you can't make it, let me know.",
        "I've added the liftgate to your shipment. I can't change the pickup terminal, though.",
        "",
    ],
)
def test_a_confirmation_with_side_remarks_says_nothing_of_the_kind(answer):
    assert denied_writes(answer, TOOLS) is None


def test_a_tools_second_word_is_a_particle_only_where_it_is_one():
    assert write_verbs(["check_in_booking"])[:2] == ["check in", "check"]
    assert "pay" in write_verbs(["pay_in_full_hospital_bill"])
    assert denied_writes("I wasn't able to pay your hospital bill.", ["pay_in_full_hospital_bill"]) is not None


def test_after_a_hand_over_to_staff_only_the_transfer_is_the_agents_write():
    verbs = ["transfer_to_human_agent"]
    assert denied_writes("I can't approve it myself, so I've transferred you to a colleague who can.", verbs) is None
    assert denied_writes("I can't do that.", verbs) is not None
    assert denied_writes("I wasn't able to transfer you.", verbs) is not None


def test_only_a_bare_turn_down_denies_what_the_user_does_on_their_own_device():
    thanks = (
        "Thanks for replacing the batteries on your side; I can't do that on your device myself. It's working again."
    )
    assert denied_writes(thanks, []) is None
    # no verb of the agent's own: "I can't toggle it for you" is the user's part, said as theirs
    assert denied_writes("I can't toggle airplane mode for you; thanks for doing it.", []) is None
    assert denied_writes("I'm sorry, I can't do that.", []) is not None


def test_the_old_value_is_that_of_the_column_the_writes_changed_to_the_output():
    rows = {
        ("shippers", ("S1",)): ({"shipper_id": "S1", "credit": 14358.71}, {"shipper_id": "S1", "credit": 14433.71}),
        ("shipments", ("F1",)): ({"fee": 75.0, "liftgate": 1}, {"fee": 0.0, "liftgate": 0}),
    }
    assert old_values(rows, ["14358.71"]) == ["14433.71"]
    assert old_values(rows, ["14358.71", "14433.71"]) == []  # asked for too: no distractor
    assert old_values(rows, ["gold"]) == []  # a label is left to the task's own distractors


@pytest.mark.parametrize(
    ("text", "current"),
    [
        ("Your credit went from 14,433.71 to 14,358.71.", False),
        ("Your credit available is now $14,358.71 (previously $14,433.71).", False),
        ("Your old credit of $14,433.71 is now $14,358.71.", False),
        ("Credit: 14,433.71 → 14,358.71", False),
        ("It was $14,433.71 before the liftgate; now it's $14,358.71.", False),
        ("It was 14433.71 and is now 14358.71.", False),
        ("14,433.71 14,358.71", True),
        ("Credit available: 14,433.71, 14,358.71.", True),
        ("Your credit available is $14,433.71.", True),
        ("The liftgate was added and your credit is 14,433.71.", True),
    ],
)
def test_the_old_value_passes_only_said_as_what_it_was(text, current):
    assert stated_as_current(text, "14433.71") is current
