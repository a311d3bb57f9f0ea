"""The seed-107 review's correct answers that scored 0: a refusal whose reason is said in plain words
("you already bought that car" of a ``converted`` hold, "the branch turned it down" of a ``rejected``
request), and a sum that says which record it left out ("your cancelled booking's $136.07 isn't
included")."""

from __future__ import annotations

import pytest

from envs.grading.everyday import readings
from envs.grading.labels import without_excluded
from envs.grading.outputs import Reading


@pytest.mark.parametrize(
    ("label", "column", "said"),
    [
        ("rejected", ["submitted", "rejected", "paid"], "turned down"),
        ("rejected", ["submitted", "rejected", "paid"], "was declined"),
        ("converted", ["active", "converted", "released", "expired"], "already bought"),
        ("converted", ["active", "converted", "released", "expired"], "turned into a purchase"),
    ],
)
def test_a_status_said_in_everyday_words_names_it_where_only_it_is_meant(label, column, said) -> None:
    blocked = [v for v in column if v not in ("submitted", "active")]
    assert said in readings(label, column, blocked=blocked)


def test_everyday_words_that_also_fit_an_allowed_status_name_nothing() -> None:
    # "declined" also describes a cancelled request; where a cancelled one could be withdrawn, it does
    # not say which state turns the request down
    assert "was declined" not in readings("rejected", ["rejected", "cancelled"], blocked=["rejected"])
    assert "already bought" not in readings("converted", ["converted", "completed"], blocked=["converted"])


@pytest.mark.parametrize(
    "answer",
    [
        "Your confirmed reservations hold $378.20 in deposits in total; your cancelled booking's $136.07 "
        "deposit isn't included.",
        "The total, excluding the $136.07 of your cancelled booking, is $378.20.",
        "That's $378.20 — I left out the cancelled one ($136.07).",
        "It comes to $378.20. I didn't include $136.07 from the cancelled booking.",
    ],
)
def test_a_value_said_as_left_out_is_not_given(answer: str) -> None:
    kept = Reading(without_excluded(answer))
    assert kept.states("378.20") and not kept.states("136.07")


@pytest.mark.parametrize(
    "answer",
    [
        "Your deposits total $514.27; $378.20 is not included.",  # the right sum said as left out
        "Excluded: $378.20, $136.07.",
    ],
)
def test_the_asked_value_said_as_left_out_is_not_the_answer(answer: str) -> None:
    assert not Reading(without_excluded(answer)).states("378.20")


def test_an_answer_that_leaves_nothing_out_is_read_as_written() -> None:
    answer = "The total is $378.20 as of June 9, 2026, across four bookings."
    assert without_excluded(answer) == answer


# --- a blind suite written against docs/formats.md alone (eight environments not tuned against) ---


@pytest.mark.parametrize(
    "answer",
    [
        "I tried to update your address, but I'm not certain it went through — it might not have been updated.",
        "Your address is still showing as it was before; the change hasn't taken effect.",
        "I've escalated this to our team and submitted a request; they'll take it from here.",
        "I don't think I updated it.",
        "The system failed to update your address.",
    ],
)
def test_writes_made_then_said_unsure_failed_or_handed_off_are_denied(answer: str) -> None:
    from envs.grading.written import denied_writes

    assert denied_writes(answer, ["update_address"])


@pytest.mark.parametrize(
    "answer",
    [
        "I've updated your address to 12 Elm St.",
        "Done — your address is updated; it takes effect right away.",
        "Your address now reads 12 Elm St; nothing failed.",
        "The courier failed to deliver your parcel, so I've updated your address for the next attempt.",
        "I've updated your address; the change hasn't taken effect yet, it applies from your next order.",
        "Your old address may not have been used yet; I've updated your address to 12 Elm St.",
    ],
)
def test_writes_reported_as_made_are_not_denied(answer: str) -> None:
    from envs.grading.written import denied_writes

    assert denied_writes(answer, ["update_address"]) is None


def test_a_hand_over_the_task_makes_is_reported_not_denied() -> None:
    from envs.grading.written import denied_writes

    assert denied_writes("I've escalated this to our team.", ["transfer_to_human_agents"]) is None


@pytest.mark.parametrize(
    "answer",
    [
        "I checked, and I have to turn down your request to reverse your top up: the method is voucher.",
        "It was more than 60 days ago, which is past the window for reopening.",
        "No, sorry: the method is voucher.",
    ],
)
def test_a_refusal_in_first_person_or_by_its_window_turns_the_request_down(answer: str) -> None:
    from envs.grading.answers import says_no

    assert says_no(answer)


def test_the_rest_of_the_request_taken_care_of_claims_nothing_refused() -> None:
    from envs.grading.answers import claimed

    assert claimed("I've taken care of the rest of your request.", ["cancelled"]) is None
    assert claimed("It's all taken care of.", ["cancelled"]) is not None


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("It should be cancelled within the hour, I believe.", True),
        ("It should now be cancelled.", True),
        ("It should be cancelled once you pay the fee.", False),
        ("It can't be cancelled; it should be cancelled by staff only.", False),
    ],
)
def test_the_refused_action_said_on_its_way_is_claimed(answer: str, claims: bool) -> None:
    from envs.grading.answers import claimed

    assert (claimed(answer, ["cancelled", "canceled"]) is not None) is claims


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("I can't reverse it from here, so I've submitted a request for our team to reverse your top up.", True),
        ("That said, I've submitted a request for our team to reverse it for you.", True),
        ("I can't reverse it. If you like, I can submit a request for our team to review it.", False),
        ("I can't reverse it; I've submitted a request for our team to review your account.", False),
    ],
)
def test_the_refused_action_filed_for_staff_is_claimed(answer: str, claims: bool) -> None:
    from envs.grading.answers import claimed

    assert (claimed(answer, [], verb="reverse") is not None) is claims


def test_a_hand_over_the_task_makes_files_nothing_refused() -> None:
    from envs.grading.answers import claimed

    answer = "I've submitted a request for our team to reverse it."
    assert claimed(answer, [], verb="reverse", elsewhere=["transfer to human agents"]) is None


def test_no_said_of_something_else_turns_nothing_down() -> None:
    from envs.grading.answers import says_no

    assert not says_no("No problem, it's renewed.") and not says_no("Sure, no, sorry for the wait, it's renewed.")
