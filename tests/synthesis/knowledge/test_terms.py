"""A rule's terms read from its words, stated with another value, and applied to a record's value."""

from __future__ import annotations

from datetime import datetime

import pytest

from synthesis.knowledge.distractors import looser, stricter
from synthesis.knowledge.terms import read_terms

NOW = datetime(2026, 3, 2, 9, 0)


@pytest.mark.parametrize(
    "text",
    [
        "the parking reservation's entry time must be more than 24 hours away",
        "the license's expiry date must be no more than 60 days away",
        "the outage ticket's opening time must be within the last 30 days",
        "the equipment rental's rental date must have passed",
        "the subscription's plan must be one of standard, premium",
        "the move job must be completed",
        "not when the parking lot's lot type is valet",
        "the member's fine balance must be 0",
    ],
)
def test_each_form_reads_back_to_its_own_words(text: str):
    terms = read_terms(text)
    assert terms is not None and terms.text == text


@pytest.mark.parametrize(
    "text", ["the hold expiry must be in the future", "the book's copies available must be at least 1", "be nice"]
)
def test_other_forms_are_not_read(text: str):
    assert read_terms(text) is None


def test_a_shorter_notice_lets_through_what_the_rule_refuses():
    rule = read_terms("the entry time must be more than 24 hours away")
    assert rule is not None
    refused = [["2026-03-02 20:00"], ["2026-03-03 08:00"]]  # 11 and 23 hours away
    assert all(rule.allows(NOW, r) is False for r in refused)
    loose = looser(rule, NOW, refused)
    assert loose is not None and loose.number < 24 and loose.text.endswith("hours away")
    assert all(loose.allows(NOW, r) is True for r in refused)  # 8 hours (the closest that flips both)
    assert loose.number == 8
    strict = stricter(rule, NOW)  # no write to refuse: the next round value
    assert strict is not None and strict.number == 36 and strict.allows(NOW, ["2026-03-03 12:00"]) is False
    written = [["2026-03-04 12:00"], ["2026-03-05 10:00"]]  # 51 and 73 hours away: allowed
    strict = stricter(rule, NOW, written)
    assert strict is not None and strict.number == 96  # refuses both, within four times the notice
    assert all(strict.allows(NOW, w) is False for w in written)
    assert stricter(rule, NOW, written, avoid=frozenset({strict.text})) != strict  # another rule's words


def test_a_date_already_past_has_no_looser_notice():
    rule = read_terms("the entry time must be more than 24 hours away")
    assert rule is not None and looser(rule, NOW, [["2026-02-20 10:00"]]) is None


def test_value_rules_get_the_refused_value_and_exclusions_another_one():
    plan = read_terms("the subscription's plan must be one of standard, premium")
    assert plan is not None
    loose = looser(plan, NOW, [["basic_with_ads"]])
    assert (
        loose is not None and loose.text == "the subscription's plan must be one of basic with ads, standard, premium"
    )
    assert plan.text not in loose.text  # the rule's own words are in no distractor
    exclusion = read_terms("not when the parking lot's lot type is valet")
    assert exclusion is not None
    other = looser(exclusion, NOW, [["valet"]], others=["valet", "economy", "garage"])
    assert other is not None and other.text == "not when the parking lot's lot type is economy"
    assert other.allows(NOW, ["valet"]) is True and exclusion.allows(NOW, ["valet"]) is False


def test_an_exact_amount_is_loosened_to_a_limit_above_the_records():
    rule = read_terms("the member's fine balance must be 0")
    assert rule is not None and rule.allows(NOW, ["7.73"]) is False
    loose = looser(rule, NOW, [["7.73"], ["12.5"]])
    assert loose is not None and loose.text == "the member's fine balance must be at most 20"
