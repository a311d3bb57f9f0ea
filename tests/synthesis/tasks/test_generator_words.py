"""Requests in a person's words, not the generator's (measure 94; docs/synthesis.md, "Seed 97"): no
record ranked with its status before the noun, no kind asked as a form's field, no step of the
business's own work in a customer's mouth; the measure reads each kind back."""

from __future__ import annotations

import pytest

from envs.formats.task import Task
from envs.quality.generator_words import (
    asks_kind,
    dictates_reason,
    generator_word_counts,
    staff_worded,
    status_ranked,
    statuses,
)
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.details import coded_reason, detail
from synthesis.tasks.phrasing import kind_question, verb_phrase
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

# the domains where the seed-97 review read each kind, and where the main catalog held most of them
DOMAINS = (
    "freight_ltl_shipments",
    "hourly_shift_swaps",
    "banquet_event_planning",
    "efficiency_rebate_programs",
    "credit_card_disputes",
)


def task(text: str) -> Task:
    return Task(id="x-001", env="x", instruction=text)


@pytest.fixture(scope="module", params=DOMAINS)
def generated(request):
    d = assign_enforcement(next(x for x in load_ontology() if x.id == request.param))
    served = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, served.spec, served.meta, count=30, seed=0, twin=twin.spec)
    return served.spec, tasks


@pytest.mark.parametrize(
    ("text", "states", "kind"),
    [
        ("Please decline the open freight quote that expires last.", ["open"], True),
        ("It is for the up for swap shift with the fewest hours.", ["up for swap"], True),
        ("Please cancel my latest booked appointment.", ["booked"], True),
        ("Please decline my freight quote that expires last.", ["open"], False),
        ("Please cancel my booked appointment on March 3.", ["booked"], False),  # a state, no rank
        ("Please pick up my refill with the earliest ready date.", ["ready"], False),  # a column's words
        ("It is for the cheapest active listing.", ["active"], True),
    ],
)
def test_a_rank_with_its_status_before_the_noun_is_read(text, states, kind):
    assert status_ranked(text, states) is kind


def test_the_other_kinds_are_read_and_their_mends_are_not():
    assert asks_kind("What is the payment type of my event payment dated December 30, 2025?")
    assert not asks_kind("What kind of payment is my event payment dated December 30, 2025?")
    assert staff_worded("Please start the review for my application dated January 3.")
    assert not staff_worded("Please have my application dated January 3 reviewed.")
    assert dictates_reason('Please put "not received" as the reason.')
    assert dictates_reason('Please put this as the reason: "I never agreed to that."')
    assert not dictates_reason('For the description, please put "Chip in the windshield".')


def test_a_kind_is_asked_as_a_person_asks_it():
    assert kind_question("my event payment", "payment_type") == "What kind of payment is my event payment?"
    assert kind_question("my ticket", "category") == "What category is my ticket?"
    assert kind_question("my booking", "payment_method") == "What payment method did I use for my booking?"
    assert kind_question("my booking", "payment_amount") is None


def test_a_customer_asks_for_the_business_s_work_to_be_done():
    assert verb_phrase("start_review", "my claim") == "have my claim reviewed"
    assert verb_phrase("start_investigation", "my incident") == "have my incident investigated"
    assert verb_phrase("start_preparing", "my order") == "start preparing my order"  # the idiom stands


def test_generated_requests_carry_none_of_the_generator_s_words(generated):
    spec, tasks = generated
    assert len(tasks) >= 30
    counts = generator_word_counts(spec, tasks)
    assert (counts.status_ranked_tasks, counts.kind_asked_tasks, counts.staff_worded_tasks) == (0, 0, 0)
    assert counts.dictated_reason_tasks == 0


def test_the_measure_reads_the_statuses_of_the_spec(generated):
    spec, _ = generated
    states = statuses(spec)
    assert states, "every domain here has a status column"
    ranked = task(f"Please cancel my {states[-1]} booking that expires last. Please start the review for it.")
    plain = task("Please cancel my booking that expires last.")
    counts = generator_word_counts(spec, [ranked, plain])
    assert (counts.status_ranked_tasks, counts.staff_worded_tasks, counts.kind_asked_tasks) == (1, 1, 0)


def test_a_reason_kept_as_a_code_is_the_user_s_reason_not_text_to_type():
    assert detail("reason", "not received") == "It was not received."
    assert detail("reason", "extended_travel") == "It falls under extended travel."
    assert detail("dispute_reason", "duplicate charge") == "It falls under duplicate charge."
    assert not dictates_reason(detail("reason", "extended travel"))
    # prose is kept word for word, so it is still handed over as said
    assert dictates_reason(detail("reason", "I never agreed to that."))
    assert coded_reason("note", "ring twice") is None  # only a reason is one of a list
    assert coded_reason("reason", "Higher than what the rep quoted me") is None
