"""The seed rule keeping measure 114 at zero (``synthesis.domains.arranged_twice``): a second live
contract of one plan on one tank is cancelled, a claim never filed inside another's benefit year is dropped."""

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


def test_claims_never_filed_inside_a_live_claims_benefit_year_are_dropped():
    base = generated_spec("unemployment_weekly_claims")
    live = {**copy.deepcopy(base.seed["benefit_claims"][0]), "status": "active"}
    certified = {**live, "benefit_claim_id": "BC9990", "status": "closed"}
    unfiled = {**live, "benefit_claim_id": "BC9991", "status": "closed"}
    spec = _with_rows(base, "benefit_claims", [unfiled, certified, live])
    certification = {**spec.seed["weekly_certifications"][0], "benefit_claim_id": "BC9990"}
    spec.seed["weekly_certifications"] = [certification]
    assert arranged_twice(spec).terms_overlapping == 1
    assert settle_arrangements(domain("unemployment_weekly_claims"), spec) == 1
    assert [r["benefit_claim_id"] for r in spec.seed["benefit_claims"]] == ["BC9990", live["benefit_claim_id"]]
