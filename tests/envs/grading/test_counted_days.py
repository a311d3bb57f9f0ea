"""Days counted from today are read as days ("48 days ago"), except a count after a comparison, which
states a rule's bound ("more than 2 days away"): a gold answer restating its rule must not be read as
naming another day beside its reason."""

from __future__ import annotations

from datetime import date

import pytest

from envs.grading.mentions import counted_days_as_dates, relative_days

TODAY = date(2026, 3, 2)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Renewed 48 days ago; it starts in 6 days.", "Renewed 2026-01-13; it starts 2026-03-08."),
        ("Born 16,694 days ago.", "Born 1980-06-17."),
        ("It's only 6 days from now.", "It's only 2026-03-08."),
        ("It is 2 days away.", "It is 2026-03-04."),
    ],
)
def test_a_counted_day_is_read_as_that_day(text, read):
    assert counted_days_as_dates(text, TODAY) == read


@pytest.mark.parametrize(
    "text",
    [
        "the delivery date must be more than 2 days away",
        "renewals must be no more than 30 days away",
        "at least 7 days away",
        "fewer than 3 days from now",
        "up to 30 days from now",
        "placed more than 3 days ago",
        "within 14 days ago",
    ],
)
def test_a_count_after_a_comparison_is_a_bound_not_a_day(text):
    assert counted_days_as_dates(text, TODAY) == text
    assert relative_days(text, TODAY) == set()


def test_a_bound_and_a_day_in_one_sentence():
    text = "It must be more than 2 days away, and it is 1 day away."
    assert counted_days_as_dates(text, TODAY) == "It must be more than 2 days away, and it is 2026-03-03."
    assert relative_days(text, TODAY) == {(2026, 3, 3)}
