"""The seed rule keeping measure 114 at zero (``synthesis.domains.arranged_twice``): a second live
contract of one plan on one tank is cancelled, a claim never filed inside another's benefit year is dropped,
a certified one passes to a claimant who holds none."""

from __future__ import annotations

import copy

from envs.formats.spec import EnvSpec
from envs.quality.arranged_twice import arranged_twice
from synthesis.domains.arranged_twice import settle_arrangements

from .generated import domain, generated_spec


def _with_rows(spec: EnvSpec, table: str, rows: list[dict]) -> EnvSpec:
    return spec.model_copy(update={"seed": {**copy.deepcopy(spec.seed), table: rows}})


def test_a_second_live_contract_on_a_tank_is_cancelled_by_the_move_its_lifecycle_has():
    base = generated_spec("heating_oil_deliveries")
    first = copy.deepcopy(next(r for r in base.seed["service_contracts"] if r["status"] == "active"))
    second = {**first, "service_contract_id": "SC9999"}
    other_plan = {**first, "service_contract_id": "SC9998"}
    other_plan["plan"] = next(p for p in ("basic_tune_up", "full_coverage") if p != first["plan"])
    spec = _with_rows(base, "service_contracts", [first, second, other_plan])
    assert arranged_twice(spec).arranged_twice == 1
    assert settle_arrangements(domain("heating_oil_deliveries"), spec) == 1
    assert [r["status"] for r in spec.seed["service_contracts"]] == ["active", "cancelled", "active"]
    assert arranged_twice(spec).arranged_twice == 0


def _claims(rows: list[dict], certifications: list[dict], claimants: int | None = None) -> EnvSpec:
    """The generated claims environment holding ``rows`` and ``certifications``, and its first
    ``claimants`` claimants (all by default)."""
    base = generated_spec("unemployment_weekly_claims")
    spec = _with_rows(base, "benefit_claims", rows)
    spec.seed["weekly_certifications"] = certifications
    spec.seed["benefit_payments"], spec.seed["appeals"] = [], []
    if claimants is not None:
        spec.seed["claimants"] = spec.seed["claimants"][:claimants]
    return spec


def _overlapping_claims() -> tuple[dict, dict, dict, dict]:
    """A live claim of the first claimant, a closed one inside its year with a certification under
    it, and one inside it never filed."""
    base = generated_spec("unemployment_weekly_claims")
    person = base.seed["claimants"][0]["claimant_id"]
    live = {**copy.deepcopy(base.seed["benefit_claims"][0]), "status": "active", "claimant_id": person}
    certified = {**live, "benefit_claim_id": "BC9990", "status": "closed"}
    unfiled = {**live, "benefit_claim_id": "BC9991", "status": "closed"}
    certification = {
        **base.seed["weekly_certifications"][0],
        "benefit_claim_id": "BC9990",
        "claimant_id": person,
        "status": "submitted",
    }
    return live, certified, unfiled, certification


def test_a_certified_claim_inside_another_year_passes_with_its_records_to_a_claimant_who_holds_none():
    # changed with the move: the certified claim used to stay overlapping with its claimant's live one
    live, certified, unfiled, certification = _overlapping_claims()
    spec = _claims([unfiled, certified, live], [certification])
    payment = {**generated_spec("unemployment_weekly_claims").seed["benefit_payments"][0]}
    payment.update(weekly_certification_id=certification["weekly_certification_id"], claimant_id=live["claimant_id"])
    spec.seed["benefit_payments"] = [payment]
    assert arranged_twice(spec).terms_overlapping == 1
    assert settle_arrangements(domain("unemployment_weekly_claims"), spec) == 2
    assert [r["benefit_claim_id"] for r in spec.seed["benefit_claims"]] == ["BC9990", live["benefit_claim_id"]]
    moved_to = spec.seed["benefit_claims"][0]["claimant_id"]
    assert moved_to != live["claimant_id"]
    assert spec.seed["weekly_certifications"][0]["claimant_id"] == moved_to
    assert spec.seed["benefit_payments"][0]["claimant_id"] == moved_to
    assert arranged_twice(spec).terms_overlapping == 0


def test_with_no_claimant_free_a_certified_claim_inside_another_year_is_dropped_with_its_records():
    live, certified, unfiled, certification = _overlapping_claims()
    spec = _claims([unfiled, certified, live], [certification], claimants=1)
    assert settle_arrangements(domain("unemployment_weekly_claims"), spec) == 2
    assert [r["benefit_claim_id"] for r in spec.seed["benefit_claims"]] == [live["benefit_claim_id"]]
    assert spec.seed["weekly_certifications"] == []
    assert arranged_twice(spec).terms_overlapping == 0
