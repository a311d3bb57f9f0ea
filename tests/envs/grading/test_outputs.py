"""Matching required outputs in an agent's answer: numbers by value, text on word boundaries."""

from __future__ import annotations

import pytest

from envs.grading.outputs import as_number, normalize, numbers_in, output_present


@pytest.mark.parametrize(
    ("required", "answer"),
    [
        ("10", "It costs $10.00."),
        ("10", "It costs $10."),
        ("10", "10"),
        ("10", "(10)"),
        ("10", "between 5 and 10, roughly"),
        ("10", "10.0"),
        ("12.50", "Refund: 12.5"),
        ("12.5", "Refund: $12.50"),
        ("$12.50", "a refund of 12.5 dollars"),
        ("1,234.50", "Total 1234.5"),
        ("1234.5", "Total $1,234.50"),
        ("1,000,000", "one million (1000000)"),
        ("10%", "a 10 percent discount"),
        ("130", "Your new balance is 130.0000000001"),
        ("-5", "The balance is -5 dollars"),
        ("-5", "balance:-5"),
        ("-12.50", "a change of -12.5"),
        ("+3", "it rose by 3"),
        ("5", "pages 5-10"),
        ("10", "pages 5-10"),
    ],
)
def test_numbers_match_by_value(required: str, answer: str) -> None:
    assert output_present(required, answer)


@pytest.mark.parametrize(
    ("required", "answer"),
    [
        ("10", "It costs 100 dollars"),
        ("10", "It costs 10.5 dollars"),
        ("10", "It costs 1.10 dollars"),
        ("10", "10,000 items"),
        ("10", "the 10th of May"),
        ("10", "code x10"),
        ("10", "A10"),
        ("12.50", "12.51"),
        ("1,234.50", "1234.05"),
        ("1001", "order A1001"),
        ("1003", "order #W1003"),
        ("-5", "The balance is 5"),
        ("5", "The balance is -5"),
        ("130", "Your new balance is 130.01"),
        ("10", "no numbers here"),
        ("10", ""),
    ],
)
def test_numbers_do_not_match_other_values_or_parts_of_tokens(required: str, answer: str) -> None:
    assert not output_present(required, answer)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("10", 10.0),
        ("$1,234.50", 1234.5),
        ("-3", -3.0),
        ("12.50", 12.5),
        ("  7 ", 7.0),
        ("15%", 15.0),
        ("€8", 8.0),
        ("A1001", None),
        ("#W1003", None),
        ("10 items", None),
        ("1,23", None),
        ("", None),
    ],
)
def test_as_number(text: str, value: float | None) -> None:
    assert as_number(text) == value


def test_numbers_in_skips_identifiers() -> None:
    assert numbers_in("Refund of $1,234.50 for order #W1003 (item A1001), 2 items, -3 points") == [1234.5, 2.0, -3.0]
    assert numbers_in("V0402 ITM0042 v2 2x") == []


@pytest.mark.parametrize(
    ("required", "answer"),
    [
        ("A1001", "Your appointment A1001 is booked."),
        ("A1001", "id: a1001"),
        ("#W1003", "Order #W1003 was cancelled"),
        ("#W1003", "(#W1003)"),
        ("gold", "You are a Gold member."),
        ("gold", "gold-plated"),
        ("Dr. Osei", "with dr.  osei at 10"),
        ("cancelled", "It is CANCELLED"),
        ("maria.lopez@example.com", "I wrote to maria.lopez@example.com."),
    ],
)
def test_identifiers_and_words_match_as_text(required: str, answer: str) -> None:
    assert output_present(required, answer)


@pytest.mark.parametrize(
    ("required", "answer"),
    [
        ("gold", "golden"),
        ("gold", "marigold"),
        ("A1001", "A10011"),
        ("A1001", "XA1001"),
        ("A1001", "A100"),
        ("#W1003", "W1003"),
        ("cancel", "cancelled"),
        ("Dr. Osei", "Dr Osei"),
    ],
)
def test_text_needs_word_boundaries(required: str, answer: str) -> None:
    assert not output_present(required, answer)


@pytest.mark.parametrize(
    ("required", "answer"),
    [
        ("10 AM", "at 10\u00a0am"),  # non-breaking space
        ("10 AM", "at 10\u202fAM"),  # narrow no-break space
        ("file", "the \ufb01le"),  # ligature fi
        ("Café", "CAFÉ"),
        ("Café", "Cafe\u0301"),  # decomposed accent
        ("ABC", "\uff21\uff22\uff23"),  # full-width letters
        ("42", "\uff14\uff12"),  # full-width digits are numbers too
        ("new   york", "New\nYork"),
    ],
)
def test_case_and_unicode_normalization(required: str, answer: str) -> None:
    assert output_present(required, answer)


def test_accents_are_not_dropped() -> None:
    assert not output_present("cafe", "café")


def test_normalize() -> None:
    assert normalize("  Order\u00a0 #W1003\n") == "order #w1003"
    assert normalize("\ufb01") == "fi"


def test_empty_required_output_is_trivially_present() -> None:
    assert output_present("", "anything")
    assert output_present("   ", "")
