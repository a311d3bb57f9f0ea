"""Correct answers in other words that the seed-83 review saw fail (issue 33): a status or kind said
in its column's everyday words ("still unpaid" of an open bill, "your device" of an equipment charge,
"a continuous pass" of a continuous 1-month one), a refusal said as the record already being in the
state ("it's already been issued"), and a sum said with its cents ("71 dollars and 40 cents")."""

from __future__ import annotations

import copy

import pytest

from envs.formats.task import Task
from envs.grading.answers import says_no
from envs.grading.everyday import EVERYDAY, blocked_values, kind_word, readings, spec_readings
from envs.grading.labels import label_stated
from envs.grading.outputs import Reading, numbers_in

from ..specs import shop_env
from .scoring_helpers import score_after_gold
from .test_answers import _shop_with_rule
from .test_review_misses_67 import DELIVERED

BILL = ["open", "overdue", "paid"]
PASSES = ["flexi_5_days", "flexi_10_days", "continuous_15_days", "continuous_1_month"]
CHARGES = ["roaming", "premium_sms", "data_overage", "equipment", "international_call"]


def test_a_kind_and_size_label_is_named_by_its_kind():
    assert kind_word("continuous_1_month") == "continuous"
    assert kind_word("annual_twelve") == "annual"
    # not a size: a label of two kinds, a status, or a number alone
    assert kind_word("data_overage") is None
    assert kind_word("picked_up") is None
    assert kind_word("class_100") is None


def test_the_kind_word_counts_only_where_every_value_sharing_it_is_turned_down_too():
    rule = ["the rail pass's pass type must be one of flexi 5 days, flexi 10 days"]
    assert "continuous" in readings("continuous_1_month", PASSES, blocked_values(rule, PASSES))
    # with no rule naming the passes, a continuous 15-day pass might be refundable: "continuous" says neither
    assert "continuous" not in readings("continuous_1_month", PASSES)
    assert "flexi" not in readings("flexi_5_days", PASSES, blocked_values(rule, PASSES))


def test_everyday_words_need_every_other_value_they_fit_to_be_turned_down():
    assert "unpaid" not in readings("open", BILL)  # an overdue bill is unpaid too
    assert "unpaid" in readings("open", BILL, blocked_values(["the bill must be one of paid"], BILL))
    assert "unpaid" in readings("open", ["open", "paid", "waived"])
    assert {"device", "hardware"} <= readings("equipment", CHARGES)
    # a word of the record's table names a field there: "owed" of duty_owed is no status
    assert "still owed" not in readings("duty_due", ["filed", "duty_due"], names=["customs_entries", "duty_owed"])


def test_blocked_values_read_both_forms_of_rule():
    assert blocked_values(["not when the charge's charge type is equipment"], CHARGES) == {"equipment"}
    assert blocked_values(["the customs entry's status must be one of filed, documents requested"], [
        "filed", "documents_requested", "duty_due", "released"
    ]) == {"duty due", "released"}  # fmt: skip
    assert blocked_values(["the due date must be in the future"], BILL) == set()


def test_every_everyday_group_lists_what_it_names_among_what_it_fits():
    # a group's labels are the values as tools write them; its words are what people say
    for named, fits, words in EVERYDAY:
        assert named and words and named <= fits
        assert all(w == w.lower() and "_" not in w for w in words)


def test_a_word_that_could_describe_a_label_does_not_name_it():
    # "unpaid" could describe a disputed bill, but it names an open one; a submitted form is not "unresolved"
    assert "unpaid" not in readings("disputed", ["open", "disputed"], blocked=["open"])
    assert "not resolved" not in readings("submitted", ["submitted", "approved"])
    assert "sick" not in readings("sick_visit", ["wellness_exam", "sick_visit"])


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        ("Customs has already assessed the duty and it's awaiting payment.", True),
        ("Your entry is still unpaid.", True),
        ("The entry is not awaiting payment.", False),  # denied
        ("The duty owed on your entry is $5,110.59.", False),  # a field, not a state
    ],
)
def test_a_label_in_its_columns_everyday_words(text, stated):
    also = readings("duty_due", ["filed", "documents_requested", "duty_due", "released"], names=["duty_owed"])
    assert label_stated(text, "duty_due", also=also) is stated


def test_everyday_words_restating_the_request_say_no_state():
    also = readings("collected", ["ready", "collected"])
    assert label_stated("It was already picked up on Monday.", "collected", also=also)
    assert not label_stated("I'm sorry, it can't be picked up.", "collected", also=also)


def _score_delivered(answer: str, extra_status: str | None = None, rule: str | None = None) -> float:
    spec = _shop_with_rule().model_dump(mode="json")
    status = next(c for t in spec["tables"] if t["name"] == "orders" for c in t["columns"] if c["name"] == "status")
    status["enum"] += ["shipped", *([extra_status] if extra_status else [])]  # O1 is shipped
    if rule:
        spec["rules"][0]["text"] = rule
    env = shop_env(spec)
    return score_after_gold(env, Task.model_validate(copy.deepcopy(DELIVERED)), answer)


def test_a_status_said_in_everyday_words_gives_the_reason():
    assert _score_delivered("I can't cancel order O2: it has already arrived.") == 1.0
    assert _score_delivered("I can't cancel order O2: it hasn't arrived yet.") == 0.0


def test_everyday_words_fitting_another_status_that_allows_it_give_no_reason():
    # a received order has arrived too: unless a rule turns received orders down, "arrived" says neither
    assert _score_delivered("I can't cancel order O2: it has already arrived.", "received") == 0.0
    only_pending = "the order's status must be one of pending"
    assert _score_delivered("I can't cancel order O2: it has already arrived.", "received", only_pending) == 1.0


def test_spec_readings_hold_in_every_column_of_the_label():
    spec = _shop_with_rule()
    assert "already arrived" in spec_readings(spec, "delivered")
    assert spec_readings(spec, "2026-01-10") == set()


@pytest.mark.parametrize(
    ("answer", "turned_down"),
    [
        ("It's already been issued; issuing only applies to approved permits.", True),
        ("Your permit was issued already.", True),
        ("I've already issued your permit.", False),  # the agent says it did it
        ("It's issued.", False),  # no "already": a state, not a turn-down
        ("If it's already issued, you'll get an email.", False),  # only supposed
    ],
)
def test_already_in_the_requested_state_turns_it_down(answer, turned_down):
    assert says_no(answer, already=["issued"]) is turned_down
    assert not says_no(answer)


def test_already_in_the_reasons_state_turns_it_down_on_the_shop():
    assert _score_delivered("Order O2 has already been delivered.") == 1.0
    assert _score_delivered("Order O2 is delivered.") == 0.0


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("It comes to 71 dollars and 40 cents.", "71.40"),
        ("It comes to 1,071 dollars and 40 cents.", "1071.4"),
        ("Seventy dollars and five cents is due.", "70.05"),
        ("That's 12 dollars, and 5 cents of tax.", "12.05"),
    ],
)
def test_a_sum_with_its_cents_said_after_it(text, value):
    assert Reading(text).states(value)


def test_a_sum_with_cents_says_neither_part():
    assert numbers_in("It comes to 71 dollars and 40 cents.") == [71.4]
    assert not Reading("It comes to 71 dollars and 40 cents.").states("40")
    assert not Reading("71 dollars and 140 cents").states("72.40")


@pytest.mark.parametrize(
    ("text", "value", "stated"),
    [
        ("It starts at quarter past ten in the morning on the 9th of June, 2026.", "2026-06-09 10:15:00", True),
        ("It starts at quarter past ten in the morning on the 9th of June, 2026.", "2026-06-09 22:15:00", False),
        ("Come by at half past two pm.", "14:30", True),
        ("Come by at quarter to three.", "14:45", True),  # no part of the day: either half
        ("Come by at seven o'clock in the evening.", "07:00", False),
        ("Come by at half past ten.", "10:00", False),
    ],
)
def test_a_time_in_words(text, value, stated):
    assert Reading(text).states(value) is stated


def test_a_tools_description_says_which_values_it_allows():
    text = "Hand over an item. Allowed only when the layaway is paid_off; it must belong to the customer given."
    assert blocked_values([text], ["open", "paid_off", "picked_up"]) == {"open", "picked up"}
    assert blocked_values(["Hand over an item."], ["open", "paid_off"]) == set()
