"""How tasks are put into words: requests built from transition names, questions about when-columns."""

from __future__ import annotations

import random
import re
from datetime import date, datetime

import pytest

from envs.quality.requests import dictates_form
from synthesis.tasks.phrasing import Phrasing, record_question, verb_phrase

RECORD = "my order O1"


@pytest.mark.parametrize(
    ("verb", "said"),
    [
        ("cancel", "cancel my order O1"),
        ("dispose", "dispose of my order O1"),
        ("check_in", "check in my order O1"),  # a phrasal verb keeps its particle before the record
        ("check_in_online", "check in my order O1 online"),
        ("pay_with_gift_card", "pay my order O1 with gift card"),  # a prepositional tail goes after it
        ("return_to_sender", "return my order O1 to sender"),
        ("end_early", "end my order O1 early"),
        ("add_late_penalty", "add a late penalty to my order O1"),  # 'late' here is not a tail
        ("add_extra_bag", "add an extra bag to my order O1"),
        ("add_hours", "add hours to my order O1"),
        ("approve_estimate", "approve the estimate for my order O1"),
        ("apply_shop_credit", "apply the shop credit to my order O1"),
        ("remove_overlock", "remove the overlock from my order O1"),
        ("record_pass", "record my order O1 as passed"),
        ("resolve_lost", "resolve my order O1 as lost"),
        ("mark_no_show", "mark my order O1 as no show"),
        ("go_live", "take my order O1 live"),
        ("opt_out", "opt out of my order O1"),
    ],
)
def test_a_transition_name_becomes_an_english_request(verb: str, said: str) -> None:
    assert verb_phrase(verb, RECORD) == said


@pytest.mark.parametrize(
    ("column", "asked"),
    [
        ("requested_on", "When was my order O1 requested?"),
        ("paid_on", "When was my order O1 paid?"),
        ("arrived_at", "When did my order O1 arrive?"),
        ("topped_up_on", "When was my order O1 topped up?"),
        ("expires_on", "When does my order O1 expire?"),
        ("starts_at", "When does my order O1 start?"),
        ("scheduled_at", None),  # the time it is for, not when it was booked
        ("lesson_at", None),
        ("status", None),
    ],
)
def test_when_columns_named_after_an_event_are_asked_as_when_questions(column: str, asked: str | None) -> None:
    assert record_question(RECORD, column) == asked


def test_other_columns_are_asked_by_a_noun_a_reader_would_use() -> None:
    say = Phrasing(random.Random(0))
    assert "the lesson time of my order O1" in say.ask_record_value(RECORD, "lesson_at")
    assert "the expected date of my order O1" in say.ask_record_value(RECORD, "expected_on")
    assert say.ask_record_value(RECORD, "requested_on") == "When was my order O1 requested?"


def test_a_greeting_runs_into_the_first_sentence_in_lower_case() -> None:
    texts = {
        Phrasing(random.Random(seed)).instruction(["My email is a@b.c."], ["Please cancel it."]) for seed in range(40)
    }
    assert any(t.startswith("Hello, my email is a@b.c. Please cancel it.") for t in texts)
    assert all(", My " not in t for t in texts)
    assert any(t.startswith("My email") for t in texts)  # no greeting: the sentence starts as written
    mine = {Phrasing(random.Random(seed)).instruction(["I'm Ann Lee, zip 12345."], ["Help."]) for seed in range(40)}
    assert all("i'm" not in t for t in mine)  # "I" stays a capital


def test_request_details_count_plural_quantities() -> None:
    said = Phrasing(random.Random(0)).request("add_time", RECORD, {"extra_days": 2, "reason": "Plans changed"})
    assert (
        " I'd like 2 more days. " in said
        and '"Plans changed"' in said
        and said.endswith(("reason.", '"Plans changed".'))
    )
    said = Phrasing(random.Random(0)).request("hire", RECORD, {"hours": 1, "duration_hours": 3})
    assert said.endswith(" It's for 1 hour. It's for 3 hours.")


def test_a_shift_in_time_is_said_with_its_verb() -> None:
    said = Phrasing(random.Random(0)).request("extend", RECORD, {"extra_days": 2, "reason": "Plans changed"})
    assert f"extend {RECORD} by 2 days." in said and "reason" in said and '"Plans changed"' in said
    assert "postpone my order O1 by 1 day" in Phrasing(random.Random(0)).request("postpone", RECORD, {"days": 1})


def test_a_reference_refusal_states_the_record_value_or_the_rule_own_limit() -> None:
    from synthesis.tasks.answers import refusal_sentence

    dated = refusal_sentence(
        "cancel", "my booking", "2026-03-02", "the booking's start must be more than 24 hours away"
    )
    assert dated.endswith("away, and here it is 2026-03-02.")
    limit = refusal_sentence("pay_deposit", "my booking", "50", "the amount requested must be at least 50")
    assert (
        limit
        == "I'm sorry, I can't pay the deposit for your booking: the policy says the amount requested must be at least 50."
    )
    # a value that only looks like the limit ("50" in "at least 50.5") is not it
    assert "here it is 50" in refusal_sentence("pay", "my fine", "50", "the fine must be at least 50.5")
    # a status of a thing and its deed is said as a status, not as what the record is
    assert refusal_sentence("waive_signature", "my parcel", "delivery attempted", None, status=True).endswith(
        ": its status is delivery attempted."
    )
    assert refusal_sentence("cancel", "my crown", "lab processing", None, status=True).endswith(
        ": its status is lab processing."
    )
    assert refusal_sentence("cancel", "my order", "past due", None, status=True).endswith(": it is past due.")
    assert refusal_sentence("cancel", "my order", "pending review", None, status=True).endswith(
        ": it is pending review."
    )
    # a value of another column is no status, whatever its words
    assert refusal_sentence("pay", "my bill", "wire transfer", None).endswith(": it is wire transfer.")


def test_asked_values_are_said_in_sentences_of_their_own() -> None:
    from synthesis.tasks.answers import told_value, values_sentence

    told = [told_value("my repair visit on 2026-03-03", "status"), told_value("my account", "wallet balance", now=True)]
    said = values_sentence(["scheduled", "54.61"], told)
    assert said == "The status of your repair visit on 2026-03-03 is scheduled. Your wallet balance is now 54.61."
    assert values_sentence(["1.5", "2.5"]) == "Here is what you asked for: 1.5; 2.5."
    braces = told_value("my entry for Project {X}", "status")  # a title's braces are not a placeholder
    assert values_sentence(["open"], [braces]) == "The status of your entry for Project {X} is open."
    total = told_value("my active memberships", "total monthly fee")
    assert values_sentence(["10.50"], [total]) == "The total monthly fee of your active memberships is 10.50."


def test_a_persona_fits_the_users_age() -> None:
    young = {Phrasing(random.Random(s)).persona(22) for s in range(200)}
    old = {Phrasing(random.Random(s)).persona(70) for s in range(200)}
    assert not any("retired" in p for p in young) and any("student" in p for p in young)
    assert not any("student" in p or "parent" in p for p in old) and any("retired" in p for p in old)
    assert len({Phrasing(random.Random(s)).persona() for s in range(200)}) == 10  # age unknown: any


@pytest.mark.parametrize(
    ("details", "said"),
    [
        ({"bags": 2}, ("It's for 2 bags.", "I need 2 bags.")),
        ({"seats": 1}, ("It's for 1 seat.", "I need 1 seat.")),
        (
            {"start_date": "2026-04-04"},
            ("For the start date, April 4, 2026 works for me.", "I'm thinking April 4, 2026 for the start date."),
        ),
        (
            {"note": "Ring twice."},
            ('Please put this as the note: "Ring twice."', 'For the note, please put "Ring twice."'),
        ),
    ],
)
def test_request_details_are_said_as_a_person_gives_them(details: dict[str, object], said: tuple[str, ...]) -> None:
    text = Phrasing(random.Random(0)).request("cancel", RECORD, details)
    assert text.endswith(said), text
    assert "should be" not in text and "number of" not in text


def test_a_detail_is_said_the_same_way_whatever_the_generator_drew_before() -> None:
    texts = {
        Phrasing(random.Random(seed)).request("cancel", RECORD, {"reason": "Plans changed"}).split(RECORD)[1][1:]
        for seed in range(20)
    }
    assert len(texts) == 1  # the wording comes from the detail, not from the shared RNG


def test_a_persona_fits_the_users_history():
    one = {Phrasing(random.Random(seed)).persona(40, records=1) for seed in range(200)}
    many = {Phrasing(random.Random(seed)).persona(40, records=5) for seed in range(200)}
    assert any("first-time" in p for p in one) and not any("frequent" in p for p in one)
    assert any("frequent" in p for p in many) and not any("first-time" in p for p in many)


def test_a_sentence_is_quoted_whatever_field_it_goes_in_and_ends_with_one_stop():
    say = Phrasing(random.Random(0))
    sentence = "Economics courses abroad would broaden my view of global markets."
    said = say.request("submit", RECORD, {"personal_statement": sentence})
    assert f'"{sentence}"' in said and ".." not in said
    changed = say.update_request("personal_statement", RECORD, sentence, first=False)
    assert changed == f'Also, please change the personal statement of {RECORD} to "{sentence}"'
    assert say.update_request("colour", RECORD, "blue", first=False).endswith(" to blue.")  # a value, not a quote


@pytest.mark.parametrize(
    ("details", "said"),
    [
        ({"project_type": "roof"}, ("It's a roof project.",)),
        ({"valuation": 5017.17}, ("It's valued at $5,017.17.",)),
        ({"method": "check"}, ("I'd like to pay by check.",)),
        (
            {"new_slot_time": "2026-03-24 10:00:00"},
            ("Please move it to March 24 at 10 AM.", "March 24 at 10 AM would suit me better."),
        ),
        ({"requested_date": "2026-03-24"}, ("I'd like it on March 24.", "March 24 would suit me best.")),
        ({"limit_price": 51.41}, ("I'm looking at a limit price of $51.41.", "A limit price of $51.41, please.")),
        ({"cabin": "economy"}, ("I'd like the economy cabin.",)),
        # seed 101: "I'd like the patricia.watkins@example.org recommender email."
        (
            {"recommender_email": "patricia.watkins@example.org"},
            ("The recommender's email is patricia.watkins@example.org.",),
        ),
        ({"recommender_name": "Patricia Watkins"}, ("The recommender is Patricia Watkins.",)),
    ],
)
def test_details_are_said_as_a_person_says_them_not_as_form_fields(
    details: dict[str, object], said: tuple[str, ...]
) -> None:
    """ "Please make the project type roof. The valuation is 5017.17.", "I'd like the method to be
    check", "Please make the new slot time 2026-03-24 10:00": the seed-53 review's form wording."""
    text = Phrasing(random.Random(0), date(2026, 3, 2)).request("cancel", RECORD, details)
    assert text.endswith(said), text
    assert not dictates_form(text), text


def test_a_request_says_why_after_its_details() -> None:
    """A detail after the reason reads as a fragment stitched on ("I'm travelling for a few weeks.
    It's for 2 nights."; the seed-109 review): the details go with the request, the reason closes it."""
    say = Phrasing(random.Random(0))
    text = say.request("book", RECORD, {"nights": 2}, motive="I'm travelling for a few weeks.")
    assert text.endswith("order O1. It's for 2 nights. I'm travelling for a few weeks.") or text.endswith(
        "order O1? It's for 2 nights. I'm travelling for a few weeks."
    ), text
    changed = say.update_request("address", RECORD, "14 Elm Street", first=True, motive="I've just moved.")
    assert changed.endswith("to 14 Elm Street. I've just moved."), changed
    moved = say.update_request("visit_on", RECORD, "2026-03-24", first=False)
    assert moved == "Also, please change the visit date of my order O1 to March 24, 2026.", moved


def test_a_user_acting_for_their_child_is_no_student() -> None:
    """tutoring_center_sessions-024 (seed 71): a parent's family account played as "a student on a
    tight budget"."""
    parents = {Phrasing(random.Random(s)).persona(24, role="family_account") for s in range(200)}
    assert parents and not {p for p in parents if "student" in p.lower()}
    learners = {Phrasing(random.Random(s)).persona(24, role="learner") for s in range(200)}
    assert {p for p in learners if "student" in p.lower()}


def test_a_records_one_amount_and_a_reward_are_asked_as_a_person_asks_them() -> None:
    """frequent_flyer_awards-020: "the miles of my mileage activity for the retail partner"."""
    say = Phrasing(random.Random(0))
    activity = {"miles": "quantity", "activity_type": "enum", "posted_on": "date"}
    phrase = "my mileage activity for the retail partner"
    asked = say.ask_record_value(phrase, "miles", activity)
    assert asked == "How many miles did my mileage activity for the retail partner earn me?"
    claim = {"amount": "money", "status": "enum"}
    assert say.ask_record_value("my damage claim for the booking on April 6", "amount", claim) == (
        "How much is my damage claim for the booking on April 6?"
    )
    # beside a second amount "how much" cannot say which: the column is named
    both = {"amount": "money", "deposit": "money"}
    assert "the amount of my damage claim" in say.ask_record_value("my damage claim", "amount", both)
    assert "the miles redeemed of" in say.ask_record_value(RECORD, "miles_redeemed", {"miles_redeemed": "quantity"})


@pytest.mark.parametrize(
    ("verb", "extra", "said"),
    [
        ("schedule_redelivery", {"days": 8}, "schedule the redelivery for my order O1, 8 days later than planned."),
        ("pause_subscription", {"pause_days": 14}, "for my order O1 for 14 days."),
        ("postpone_lesson", {"days": 1}, "by 1 day."),
        ("report_delay", {"days": 3}, "It's running 3 days late."),
    ],
)
def test_a_count_of_time_is_said_with_its_action_never_bare(verb: str, extra: dict[str, int], said: str) -> None:
    """parcel_delivery_exceptions-025: "Please schedule the redelivery for one of my parcels. … I need 8 days."."""
    text = Phrasing(random.Random(0)).request(verb, RECORD, extra, motive="It suits me.")
    assert said in text, text
    assert not re.search(r"I need \d|I'm after \d|It's for \d", text), text


def test_a_thing_the_user_did_or_allows_is_said_as_theirs() -> None:
    from synthesis.tasks.details import detail

    assert detail("invoice_uploaded", True) == "I've uploaded the invoice."
    assert detail("invoice_uploaded", False) == "I haven't uploaded the invoice yet."
    assert detail("access_permitted", True) == "You have my permission for access."
    assert detail("loaner_requested", True) == "I'll need a loaner."
    assert detail("account_locked", True) == "I'd like the account locked."


def test_a_field_of_ones_own_account_is_said_as_its_owner_says_it() -> None:
    """324 requests read "change the phone of my account to …" (seed-83 spot read)."""
    for seed in range(6):
        say = Phrasing(random.Random(seed))
        asked = say.update_request("phone", "my account", "+15550100", first=seed % 2 == 0)
        assert "my phone number" in asked and "of my account" not in asked, asked
        other = say.update_request("delivery_instructions", "my grocery order", "Leave it at the door", first=True)
        assert "the delivery instructions of my grocery order" in other, other
        assert "of my account" not in say.ask_record_value("my account", "points_balance")


def test_a_student_on_a_tight_budget_deals_in_no_sums_of_thousands() -> None:
    # seed 83, building_permit_applications-010: the student's permits were valued at $198,409
    rich = {Phrasing(random.Random(seed)).persona(22, 3, "applicants", largest_amount=198_409.81) for seed in range(60)}
    assert not any("tight budget" in p for p in rich)
    poor = {Phrasing(random.Random(seed)).persona(22, 3, "applicants", largest_amount=48.5) for seed in range(60)}
    assert any("tight budget" in p for p in poor)


def test_a_persona_fits_whom_the_user_acts_for() -> None:
    # seed 89: "a busy parent" for an ocean shipper, "a small-business owner" for an employee's card
    shipper = {Phrasing(random.Random(seed)).persona(40, 3, "ocean_shippers") for seed in range(80)}
    assert not any("parent" in p or "student" in p for p in shipper)
    employee = {Phrasing(random.Random(seed)).persona(40, 3, "employees") for seed in range(80)}
    assert not any("business owner" in p for p in employee)
    customer = {Phrasing(random.Random(seed)).persona(40, 3, "customers") for seed in range(80)}
    assert any("parent" in p for p in customer) and any("business owner" in p for p in customer)


def test_asking_someone_keeps_what_is_asked_of_them() -> None:
    """study_abroad_applications-003 (seed 101): "I'd like to ask a faculty member." asked nothing."""
    say = Phrasing(random.Random(0))
    asked = say.create_request(
        "Ask a faculty member for a recommendation letter for a draft or submitted application", [], {}, first=False
    )
    assert asked == "I'd also like to ask a faculty member for a recommendation letter.", asked
    approved = say.create_request(
        "Ask the architectural committee to approve an exterior change, at least two weeks ahead", [], {}, first=False
    )
    assert approved == "I'd also like to ask the architectural committee to approve an exterior change.", approved
    assert say.create_request("Ask for an accommodation for a summons", [], {}, first=False) == (
        "I'd also like to ask for an accommodation."
    )


def test_an_address_given_for_someone_is_theirs_never_a_made_up_handle() -> None:
    """seed 101: a recommender named Patricia Watkins reached at probe4594@example.org."""
    from synthesis.tasks.values import UserValues

    values = UserValues(random.Random(3), Phrasing(random.Random(3)), datetime(2026, 3, 2))
    assert re.fullmatch(r"patricia\.watkins@example\.(?:org|net)", values.email("Patricia Watkins"))
    assert re.fullmatch(r"[a-z]+\.[a-z]+@example\.(?:org|net)", values.email())
    assert values.email("Dr. Anne-Marie O'Neil Jr").startswith("annemarie.oneil@")


def test_a_new_record_names_what_it_is_for_inside_its_request_and_its_details_before_the_reason() -> None:
    """guided_tour_packages-028 (seed 109): "I'd also like to ask for a room arrangement. It belongs
    with it, so I'd rather do both now. It is for the same tour booking. It's a twin room."."""
    say = Phrasing(random.Random(0))
    asked = say.create_request(
        "Ask for a room arrangement for a tour booking",
        ["the same tour booking"],
        {"room_type": "twin"},
        first=False,
        motive="We're travelling as two friends.",
    )
    assert asked == (
        "I'd also like to ask for a room arrangement for the same tour booking. It's a twin room. "
        "We're travelling as two friends."
    ), asked


def test_a_detail_of_a_request_comes_before_its_reason() -> None:
    """eyewear_prescription_orders-023: "… I'd rather use it before I forget. A benefit amount of
    $38.65, please." left the amount as a fragment after the reason."""
    said = Phrasing(random.Random(0)).request(
        "add_hours", "my move job", {"extra_hours": 3}, first=False, motive="We're bringing more than we planned."
    )
    assert said.endswith("to my move job. I'd like 3 more hours. We're bringing more than we planned."), said


def test_a_new_record_named_like_its_request_is_not_said_twice() -> None:
    """campground_site_reservations: "reserve a campsite for campsite SITE-013504302"."""
    said = Phrasing(random.Random(0)).create_request(
        "Reserve a campsite for some nights", ["campsite SITE-013504302"], {}, first=False
    )
    assert said == "I'd also like to reserve campsite SITE-013504302.", said
    ranked = Phrasing(random.Random(0)).create_request(
        "Reserve a campsite for some nights", ["the most expensive tent campsite"], {}, first=False
    )
    assert ranked == "I'd also like to reserve the most expensive tent campsite.", ranked
