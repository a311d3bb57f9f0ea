"""Text bound to states: a suspension reason only on suspended licenses, a reviewer's note only once
staff decided; the text stays where its state is."""

from __future__ import annotations

import pytest

from envs.quality.believable import believable_counts
from synthesis.domains.bound_text import bound_states

from .generated import domain, generated_spec

# event texts (reasons, notes, one of set values) and reviewers' notes
DOMAINS = (
    "business_license_renewals",
    "phone_bill_disputes",
    "indie_music_distribution",
    "residential_parking_permits",
    "mobile_plan_support",
    "apartment_rental_applications",
    "employee_expense_claims",
)


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_no_seed_row_holds_an_event_text_outside_its_state(domain_id):
    counts = believable_counts(generated_spec(domain_id), [])
    if domain_id in ("apartment_rental_applications", "employee_expense_claims"):
        return  # reviewers' notes only: measured below
    assert counts.event_reasons_checked > 0
    assert counts.event_reasons_outside_their_state == 0


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_bound_text_is_kept_in_its_states(domain_id):
    d = domain(domain_id)
    spec = generated_spec(domain_id)
    kept = 0
    for entity in d.entities:
        for name, states in bound_states(entity).items():
            rows = spec.seed[entity.table]
            assert all(r[name] is None for r in rows if r["status"] not in states), (entity.name, name)
            kept += sum(r[name] is not None for r in rows if r["status"] in states)
    assert kept > 0


def test_a_reviewers_note_waits_for_a_decision():
    entity = next(e for e in domain("apartment_rental_applications").entities if e.name == "rental_application")
    assert bound_states(entity) == {"decision_note": frozenset({"approved", "denied", "lease_signed"})}
    rows = generated_spec("apartment_rental_applications").seed[entity.table]
    assert {r["status"] for r in rows if r["decision_note"] is not None} <= {"approved", "denied", "lease_signed"}
    assert any(r["status"] == "submitted" for r in rows)  # the state is there, its notes are empty


def test_a_reason_no_state_names_stays_free():
    returns = next(e for e in domain("electronics_returns").entities if e.name == "return_request")
    assert "return_reason" not in bound_states(returns)  # every return request has a reason
