"""Two forms of a correct answer the outside suite wrote and the grader missed: dates with a
two-digit year ("11/30/25"), and the rule said of records in general after the refusal ("Pet policies
are cancelled when their status allows it."). Neither may let a claim or a wrong day through."""

from __future__ import annotations

import pytest

from envs.grading.answers import claimed
from envs.grading.mentions import date_stated, days_in, without_dates


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("2025-11-30", "It was paid on 11/30/25."),
        ("2026-04-13", "The renewal date is 13.04.26."),
        ("1980-05-02", "Date of birth on file: 5/2/80."),
        ("2026-06-09", "due 06/09/2026"),
    ],
)
def test_a_numeric_date_with_a_two_digit_year_states_its_day(value: str, text: str) -> None:
    assert date_stated(value, text)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("2025-11-30", "It was paid on 11/30/24."),  # another year
        ("2026-06-09", "version 6.9.2"),  # no year at all
        ("2026-01-19", "the address is 192.168.1.19"),  # inside a longer chain of numbers
    ],
)
def test_other_numbers_state_no_such_day(value: str, text: str) -> None:
    assert not date_stated(value, text)


def test_a_two_digit_year_date_is_blanked_from_the_amounts() -> None:
    assert "30" not in without_dates("Paid 11/30/25: $12.50") and "12.50" in without_dates("Paid 11/30/25: $12.50")
    assert (1969, 1, 2) in days_in("1/2/69") and (2068, 1, 2) in days_in("1/2/68")


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, I can't cancel it: it's lapsed. Pet policies are cancelled when their status allows it.",
        "I can't renew it. Business licenses are renewed only when the expiry date is no more than 60 days away.",
        "That one can't be reopened: it's closed. Tickets are usually reopened if they were resolved last week.",
    ],
)
def test_the_rule_said_of_records_in_general_claims_nothing(answer: str) -> None:
    assert claimed(answer, ["cancelled", "renewed", "reopened"]) is None


@pytest.mark.parametrize(
    "answer",
    [
        "Your licenses are renewed when the fee clears.",  # owned: these are the user's records
        "Policies are cancelled when you asked, as requested.",  # the agent says it did it
        "Policies are cancelled when requested.",  # "when requested" is no condition on the record
        "Licenses are renewed.",  # no condition at all
        "It's lapsed. Pet policies are cancelled when requested, and yours is cancelled now.",
    ],
)
def test_a_claim_dressed_as_a_rule_still_claims(answer: str) -> None:
    assert claimed(answer, ["cancelled", "renewed"]) is not None
