"""Values their status or their person's age rules out (measure 68): a final grade on an application
still submitted, ``grade_verified`` with no grade, a guardian named for an adult; and the seed rule that
keeps them (``synthesis.domains.status_fields``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.status_fields import fields_ruled_out, guardians, status_fields
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.status_fields import fit_status_fields
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_grade_is_named_by_its_status_and_a_guardian_leads_to_a_birth_date(domains):
    (grade,) = status_fields(generated(domains, "tuition_assistance_claims"))
    assert (grade.column, grade.named, grade.earlier) == (
        "final_grade",
        frozenset({"grade_verified"}),
        # withdrawn is listed after the grade, but the tools reach it only from a submitted application
        frozenset({"submitted", "approved", "withdrawn"}),
    )
    (guardian,) = guardians(generated(domains, "vaccination_clinic_bookings"))
    assert (guardian.column, [fk.table for fk in guardian.path], guardian.birth) == (
        "guardian_name",
        ["vaccination_appointments", "recipients"],
        "date_of_birth",
    )


def test_a_score_is_named_by_the_status_an_event_leaves_and_is_ruled_out_where_the_event_never_came(domains):
    (score,) = status_fields(generated(domains, "standardized_exam_registration"))
    # 'scored' said as the noun 'score'; a no-show's sitting never came, a cancellation left it unsat
    assert (score.column, score.named) == ("total_score", frozenset({"scored"}))
    assert score.earlier == {"registered", "checked_in", "no_show", "cancelled"}


def test_a_status_not_an_events_result_is_read_by_its_word_alone(domains):
    # an excuse may be given before the incident is excused: 'excused' names no event's result
    assert not status_fields(generated(domains, "hourly_shift_swaps"))


@pytest.mark.parametrize(
    "name",
    [
        "tuition_assistance_claims",
        "vaccination_clinic_bookings",
        "electronics_returns",
        "standardized_exam_registration",
    ],
)
def test_generated_seeds_keep_values_their_status_and_person_allow(domains, name):
    counts = fields_ruled_out(generated(domains, name))
    assert counts.status_fields_checked > 20
    assert counts.fields_ruled_out == 0


def test_grades_follow_the_status(domains):
    spec = generated(domains, "tuition_assistance_claims")
    rows = spec.seed["tuition_applications"]
    submitted = next(r for r in rows if r["status"] == "submitted")
    verified = next(r for r in rows if r["status"] == "grade_verified")
    submitted["final_grade"], verified["final_grade"] = "B", None
    assert fields_ruled_out(spec).fields_ruled_out == 2
    assert fit_status_fields(spec) == 2
    assert submitted["final_grade"] is None and verified["final_grade"] in ("A", "B", "C")


def test_a_guardian_named_for_an_adult_is_counted_and_cleared_but_a_childs_is_kept(domains):
    spec = generated(domains, "vaccination_clinic_bookings")
    people = {r["recipient_id"]: r for r in spec.seed["recipients"]}
    visits = {r["vaccination_appointment_id"]: r for r in spec.seed["vaccination_appointments"]}
    forms = spec.seed["consent_forms"]
    adult, child = forms[0], forms[1]
    people[visits[adult["vaccination_appointment_id"]]["recipient_id"]]["date_of_birth"] = "1989-06-01"
    people[visits[child["vaccination_appointment_id"]]["recipient_id"]]["date_of_birth"] = "2015-06-01"
    adult["guardian_name"] = child["guardian_name"] = "Jeffrey Mason"
    assert fields_ruled_out(spec).fields_ruled_out == 1
    assert fit_status_fields(spec) == 1
    assert adult["guardian_name"] is None and child["guardian_name"] == "Jeffrey Mason"


def test_scores_follow_the_status(domains):
    spec = generated(domains, "standardized_exam_registration")
    rows = spec.seed["registrations"]
    missed = next(r for r in rows if r["status"] == "no_show")
    scored = next(r for r in rows if r["status"] == "scored")
    missed["total_score"], scored["total_score"] = 129, None
    assert fields_ruled_out(spec).fields_ruled_out == 2
    assert fit_status_fields(spec) == 2
    assert missed["total_score"] is None and isinstance(scored["total_score"], int)
