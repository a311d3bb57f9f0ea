"""Records in good standing past the date they lapse by (measure 74): an active box whose renewal passed
beside boxes past due for the same; and the seed rule that keeps them (``synthesis.domains.lapses``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.lapses import Lapse, lapse_dates_against_status, lapses, off_side
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.lapses import settle_lapses
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_lifecycle_with_a_lapsed_state_names_the_dates_it_lapses_by(domains):
    assert lapses(generated(domains, "safe_deposit_box_rentals")) == [Lapse("box_leases", "status", ("renewal_date",))]
    assert lapses(generated(domains, "personal_loan_servicing")) == [Lapse("loans", "status", ("next_due_date",))]
    # no state reached because a date passed: nothing to lapse by
    assert lapses(generated(domains, "library_loans")) == []


def test_only_rows_in_good_standing_are_held_to_their_dates(domains):
    spec = generated(domains, "safe_deposit_box_rentals")
    lapse = lapses(spec)[0]
    assert off_side(lapse, {"status": "active", "renewal_date": "2026-01-24"}, spec.clock) == ["renewal_date"]
    assert off_side(lapse, {"status": "active", "renewal_date": "2026-03-02"}, spec.clock) == []
    # a policy lapses for a missed payment before its renewal: the lapsed side is not read
    assert off_side(lapse, {"status": "past_due", "renewal_date": "2026-05-01"}, spec.clock) is None


@pytest.mark.parametrize("name", ["safe_deposit_box_rentals", "heating_oil_deliveries", "roadside_assistance_dispatch"])
def test_generated_seeds_keep_records_in_good_standing_before_their_lapse(domains, name):
    counts = lapse_dates_against_status(generated(domains, name))
    assert counts.lapse_rows_checked > 10
    assert counts.lapse_dates_against_status == 0


def test_an_active_box_past_its_renewal_is_counted_and_its_renewal_moved_ahead(domains):
    spec = generated(domains, "safe_deposit_box_rentals")
    row = next(r for r in spec.seed["box_leases"] if r["status"] == "active")
    row["renewal_date"] = "2025-12-31"
    assert lapse_dates_against_status(spec).lapse_dates_against_status == 1
    assert settle_lapses(spec) == 1
    assert "2026-03-02" <= row["renewal_date"] <= "2026-12-28"
