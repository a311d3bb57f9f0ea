"""The seed rule keeping measure 116 at zero (``synthesis.domains.ended_parents``): a week still due
on a closed claim is ended by its lifecycle where it can be, else dropped when nothing refers to it."""

from __future__ import annotations

import copy

from envs.formats.spec import EnvSpec
from envs.quality.ended_parents import waiting_under_ended
from synthesis.domains.domain import Domain
from synthesis.domains.ended_parents import settle_waiting_under_ended
from synthesis.domains.lifecycle import Transition

from .generated import domain, generated_spec


def _claims_with_weeks() -> tuple[EnvSpec, list[dict]]:
    """The generated claims environment with a closed and an active claim, each with a week due."""
    base = generated_spec("unemployment_weekly_claims")
    seed = copy.deepcopy(base.seed)
    closed = {**seed["benefit_claims"][0], "status": "closed"}
    active = {**seed["benefit_claims"][1], "status": "active"}
    weeks = []
    for n, claim in enumerate((closed, closed, active)):
        week = {**seed["weekly_certifications"][0], "weekly_certification_id": f"WC99{n}", "status": "due"}
        week.update(benefit_claim_id=claim["benefit_claim_id"], claimant_id=claim["claimant_id"])
        weeks.append(week)
    seed.update(benefit_claims=[closed, active], weekly_certifications=weeks, benefit_payments=[], appeals=[])
    return base.model_copy(update={"seed": seed}), weeks


def test_a_week_due_on_a_closed_claim_is_dropped_unless_something_refers_to_it():
    spec, (dropped, appealed, live) = _claims_with_weeks()
    appeal = {**generated_spec("unemployment_weekly_claims").seed["appeals"][0]}
    appeal.update(weekly_certification_id=appealed["weekly_certification_id"], claimant_id=appealed["claimant_id"])
    spec.seed["appeals"] = [appeal]
    assert waiting_under_ended(spec).waiting_under_ended == 2
    assert settle_waiting_under_ended(domain("unemployment_weekly_claims"), spec) == 1
    kept = [r["weekly_certification_id"] for r in spec.seed["weekly_certifications"]]
    assert kept == [appealed["weekly_certification_id"], live["weekly_certification_id"]]
    assert dropped["weekly_certification_id"] not in kept


def _with_missed_weeks(claims: Domain) -> Domain:
    """``claims`` whose certification lifecycle lets a week due be marked missed."""
    entities = []
    for entity in claims.entities:
        if entity.table == "weekly_certifications" and entity.lifecycle is not None:
            lifecycle = entity.lifecycle
            miss = Transition(
                name="miss",
                description="The week was never certified",
                actor="system",
                from_states=["due"],
                to="expired",
            )
            lifecycle = lifecycle.model_copy(
                update={"states": [*lifecycle.states, "expired"], "transitions": [*lifecycle.transitions, miss]}
            )
            entity = entity.model_copy(update={"lifecycle": lifecycle})
        entities.append(entity)
    return claims.model_copy(update={"entities": entities})


def test_a_week_due_on_a_closed_claim_is_ended_by_its_lifecycle_where_it_has_a_move():
    spec, _ = _claims_with_weeks()
    assert settle_waiting_under_ended(_with_missed_weeks(domain("unemployment_weekly_claims")), spec) == 2
    assert [r["status"] for r in spec.seed["weekly_certifications"]] == ["expired", "expired", "due"]
    assert waiting_under_ended(spec).waiting_under_ended == 0
