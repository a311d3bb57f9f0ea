"""Garbled or form-like words of a request (measure 56) and questions no customer asks (measure 57)
are counted from the seed-61 review's examples, and the task generator writes none of them."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from envs import Task
from envs.formats.spec import EnvSpec
from envs.quality.asked import asked_counts
from envs.quality.naming import person_role
from envs.quality.wording import wording_counts
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.details import detail
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


@functools.cache
def _generated(domain: str) -> Any:
    return generate_env({d.id: d for d in load_ontology()}[domain], seed=0)


def _spec(domain: str) -> EnvSpec:
    return _generated(domain).spec  # type: ignore[no-any-return]


def _task(instruction: str, answer: str | None = None) -> Task:
    return Task(id="t-1", env="e", instruction=instruction, answer=answer, expects_change=answer is None)


@pytest.mark.parametrize(
    ("text", "counter"),
    [
        ("Please cancel my subscription with the renews on June 2. I won't need it.", "column_verb_tasks"),
        ("I'd like to replace my passport. It's a lost loss.", "repeated_kind_tasks"),
        ("I'd like to set up a vacation hold. I'd like donate papers on.", "switch_garbled_tasks"),
        ("Please book a pet stay. I'd like has allergies off.", "switch_garbled_tasks"),
        ("Please book a service. I'd like loaner requested on.", "switch_garbled_tasks"),
        ("I'd also like to request to move an active number.", "form_request_tasks"),
    ],
)
def test_garbled_words_are_counted(text: str, counter: str) -> None:
    """newspaper_home_delivery-003, passport_renewal-023, number_porting_requests_kb-004."""
    spec = _spec("newspaper_home_delivery")
    assert getattr(wording_counts(spec, [_task(text)]), counter) == 1
    assert (
        wording_counts(spec, [_task("Please cancel my subscription that renews on June 2.")])
        == type(wording_counts(spec, []))()
    )


def test_a_person_named_for_a_record_they_serve_is_counted() -> None:
    """eyewear_prescription_orders-012: "my prescription for Stephanie Baker" (the prescriber)."""
    spec = _spec("eyewear_prescription_orders")
    prescriber = next(r["prescriber"] for r in spec.seed["prescriptions"] if r.get("prescriber"))
    assert wording_counts(spec, [_task(f"Please verify my prescription for {prescriber}.")]).role_as_beneficiary_tasks
    assert not wording_counts(
        spec, [_task(f"Please verify my prescription from {prescriber}.")]
    ).role_as_beneficiary_tasks
    assert (person_role("prescriber"), person_role("technician"), person_role("pickup_person")) == (
        "from",
        "with",
        "for",
    )


def test_details_said_as_a_person_says_them() -> None:
    assert detail("donate_papers", True) == "Please donate papers."
    assert detail("loaner_requested", False) == "I won't need a loaner."
    assert detail("loaner_requested", True) == "I'll need a loaner."
    assert detail("amount", 23.86) in ("It's for $23.86.", "It comes to $23.86.")
    assert detail("has_allergies", True) == "There are allergies to note."
    assert detail("autopay", True) == "I'd like autopay on."
    assert detail("loss_type", "lost") == "It was lost."
    assert detail("project_type", "roof") == "It's a roof project."
    assert detail("service_type", "brake_service") == "It's a brake service."


def test_questions_no_customer_asks_are_counted() -> None:
    """newspaper_home_delivery-006 (the weekly rate of cancelled subscriptions) and
    candidate_recruiting_pipeline-002 (the source of one's own application)."""
    news = _spec("newspaper_home_delivery")
    ended = _task("What is the total weekly rate of my cancelled print subscriptions?", "The total weekly rate "
                  "of your cancelled print subscriptions is 22.25.")  # fmt: skip
    live = _task("?", "The total weekly rate of your active print subscriptions is 22.25.")
    assert (asked_counts(news, [ended]).totals_over_ended, asked_counts(news, [live]).totals_over_ended) == (1, 0)
    jobs = _spec("candidate_recruiting_pipeline")
    own = _task("?", "The source of your job application for Associate Director is job board.")
    theirs = _task("?", "The status of your job application for Associate Director is screening.")
    assert asked_counts(jobs, [own]).own_choice_questions == 1
    assert asked_counts(jobs, [theirs]).own_choice_questions == 0


@pytest.mark.parametrize(
    "domain",
    ["newspaper_home_delivery", "passport_renewal", "eyewear_prescription_orders", "candidate_recruiting_pipeline"],
)
def test_generated_tasks_read_as_a_person_asks(domain: str) -> None:
    spec = _spec(domain)
    tasks = generate_tasks({d.id: d for d in load_ontology()}[domain], spec, _generated(domain).meta, count=40, seed=0)[
        0
    ]
    assert wording_counts(spec, tasks) == type(wording_counts(spec, []))()
    asked = asked_counts(spec, tasks)
    assert (asked.totals_over_ended, asked.own_choice_questions) == (0, 0)
