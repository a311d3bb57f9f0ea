"""Free text that contradicts its row's status (measure 89): a denied claim whose decision note reads
"Approved …"; and the seed rule that keeps notes with their status (``synthesis.domains.status_notes``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.status_notes import note_columns, notes_against_status, verdicts_named
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.status_notes import settle_status_notes
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_note_names_a_verdict_by_the_words_a_person_writes_unless_negated():
    assert verdicts_named("Denied, loose trim noted by attendant at check-in") == {"refused"}
    assert verdicts_named("Waiting on photos from the member before deciding") == {"waiting"}
    assert verdicts_named("Not approved yet") == set()
    assert verdicts_named("Partial approval, 6 of 10 hours verified") == {"granted"}
    assert verdicts_named("Site manager inspected the vehicle and confirmed the damage") == set()


def test_a_column_named_for_an_event_explains_that_event_and_is_not_read(domains):
    spec = generated(domains, "number_porting_requests")
    table = next(t for t in spec.tables if t.name == "port_out_requests")
    assert "rejection_reason" not in {c.name for c in note_columns(table)}


@pytest.mark.parametrize("name", ["car_wash_memberships", "apartment_rental_applications", "payroll_corrections"])
def test_generated_seeds_keep_notes_with_their_status(domains, name):
    counts = notes_against_status(generated(domains, name))
    assert counts.status_notes_checked >= 5
    assert counts.notes_against_status == 0


def test_a_note_drawn_against_its_status_is_counted_and_redrawn(domains):
    domain = assign_enforcement(domains["car_wash_memberships"])
    spec = generate_env(domain, seed=0).spec
    claims = spec.seed["damage_claims"]
    denied = next(r for r in claims if r["status"] == "denied")
    approved = next(r for r in claims if r["status"] == "approved")
    broken = copy.deepcopy(spec)
    rows = broken.seed["damage_claims"]
    for row in rows:
        if row["damage_claim_id"] == denied["damage_claim_id"]:
            row["decision_note"] = "Approved, damage consistent with the brush fault logged that day"
        if row["damage_claim_id"] == approved["damage_claim_id"]:
            row["decision_note"] = "Waiting on photos from the member before deciding"
    assert notes_against_status(broken).notes_against_status == 2
    assert settle_status_notes(domain, broken) == 2
    assert notes_against_status(broken).notes_against_status == 0
    redrawn = {r["damage_claim_id"]: r["decision_note"] for r in rows}
    # a redrawn note names its own row's verdict where the domain's examples give one
    assert "refused" in verdicts_named(redrawn[denied["damage_claim_id"]])
    assert "granted" in verdicts_named(redrawn[approved["damage_claim_id"]])
