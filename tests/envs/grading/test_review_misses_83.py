"""Correct answers the seed-83 review saw fail (docs/synthesis.md, "Seed 83"): a whole sum said in
words before its currency ("fifty dollars"), and a status label used to name a thing ("the plan
review fee") read as the record's status beside the reason."""

from __future__ import annotations

import pytest

from envs.grading.labels import label_named
from envs.grading.outputs import Reading, numbers_in


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The queued orders add up to fifty dollars.", "50.00"),
        ("That's one hundred and twenty-five euros in all.", "125"),
        ("About two thousand three hundred dollars.", "2300"),
        ("Twenty bucks, give or take.", "20"),
    ],
)
def test_a_whole_sum_in_words_before_its_currency_states_it(text, value):
    assert Reading(text).states(value)


def test_a_sum_in_words_says_none_of_its_parts():
    # "twenty-five dollars" is 25, not a twenty and a five beside it
    assert numbers_in("It comes to twenty-five dollars.") == [25.0]
    assert not Reading("It comes to twenty-five dollars.").states("5")
    assert numbers_in("I have a few dollars left.") == []


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("It was issued once the $250.00 plan review fee was paid.", False),
        ("Ask the plan review office.", False),
        ("It is in plan review.", True),
        ("Statuses: plan review, issued.", True),
    ],
)
def test_a_label_naming_a_thing_is_no_status(text, named):
    assert label_named(text, "plan_review") is named
