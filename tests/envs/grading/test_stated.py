"""Policy lines that make an action wait on what the user says, read from their words."""

from __future__ import annotations

import pytest

from envs.grading.stated import policy_conditions, read_stated


@pytest.mark.parametrize(
    ("line", "action", "statement", "unless"),
    [
        (
            "- Open a dispute only after the cardholder says they tried to resolve it with the merchant, "
            "unless it is fraud.",
            "Open a dispute",
            "I tried to resolve it with the merchant",
            "fraud",
        ),
        (
            "Comp an order only when the guest reports a problem with it, and tell them the new folio balance.",
            "Comp an order",
            "I'm reporting a problem with it",
            None,
        ),
        (
            "Report a visit as missed only when the tenant says the technician never arrived.",
            "Report a visit as missed",
            "The technician never arrived",
            None,
        ),
        (
            "Cancel a line only after the subscriber confirms that the number will be lost.",
            "Cancel a line",
            "I confirm the number will be lost",
            None,
        ),
        (
            "Flag a charge only when the employee says they were travelling for work.",
            "Flag a charge",
            "I was travelling for work",
            None,
        ),
    ],
)
def test_a_condition_is_read_with_the_users_own_words(line, action, statement, unless):
    stated = read_stated(line)
    assert stated is not None
    assert (stated.action, stated.statement, stated.unless) == (action, statement, unless)


@pytest.mark.parametrize(
    "line",
    [
        "Verify a dependent only when the employee says which document they provided.",  # a question
        "Renew a loan only if the member asks for it explicitly.",  # a request, not a statement
        "Tell the member their new points balance after every change.",
        "To move a passenger, cancel the booking and book the new flight, only after the passenger confirms both steps.",
    ],
)
def test_lines_that_state_no_fact_of_the_user_are_not_read(line):
    assert read_stated(line) is None


def test_a_statement_is_said_in_any_fact_that_holds_it_and_not_in_one_that_does_not():
    stated = read_stated("Open a dispute only after the cardholder says they tried to resolve it with the merchant.")
    assert stated is not None
    assert stated.said_in(["About my dining charge: I tried to resolve it with the merchant."])
    assert not stated.said_in(["I never tried to call the merchant.", "Why I'm asking to dispute it: duplicate"])
    # each line once, however many documents repeat it
    assert len(policy_conditions([stated.line, f"# Rules\n- {stated.line}"])) == 1
