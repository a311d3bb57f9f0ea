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
        frozenset({"submitted", "approved"}),
    )
    (guardian,) = guardians(generated(domains, "vaccination_clinic_bookings"))
    assert (guardian.column, [fk.table for fk in guardian.path], guardian.birth) == (
        "guardian_name",
        ["vaccination_appointments", "recipients"],
        "date_of_birth",
    )


@pytest.mark.parametrize("name", ["tuition_assistance_claims", "vaccination_clinic_bookings", "electronics_returns"])
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
