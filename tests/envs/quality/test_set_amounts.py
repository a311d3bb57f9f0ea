"""Amounts the tools set at a fixed value (measure 70): a fee a create sets plus what a step the row
passed adds, one row per parent of a one-time move; a table of one kind posted at a fixed amount
(measure 62); and the seed rules that keep them."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.fixed_charges import charges_off_fixed_amount, fixed_amounts
from envs.quality.set_amounts import Made, Step, amounts_off_their_setting, made_amounts, posted_once
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.set_amounts import fit_set_amounts
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_fee_set_when_made_and_raised_by_a_flagged_step_is_read_from_the_tools(domains):
    assert made_amounts(generated(domains, "transcript_requests")) == [
        Made("transcript_orders", "fee", 15.0, (Step(20.0, flag="expedited"),))
    ]
    made = made_amounts(generated(domains, "transcript_requests"))[0]
    assert made.expected({"expedited": True}, "queued") == 35.0
    assert made.expected({"expedited": False}, "sent") == 15.0


def test_a_deposit_a_confirmation_records_is_posted_once_at_its_fixed_amount(domains):
    spec = generated(domains, "study_abroad_applications")
    (once,) = posted_once(spec)
    assert (once.table, once.kind, once.parent, "confirmed" in once.states) == (
        "deposit_payments",
        None,
        "applications",
        True,
    )
    # the table sets no kind: every row of it is the one kind the tool posts, at 300.00
    assert fixed_amounts(spec)["deposit_payments", "", ""] == {"amount": 300.0}


@pytest.mark.parametrize("name", ["transcript_requests", "study_abroad_applications", "same_day_courier_jobs"])
def test_generated_seeds_hold_what_the_tools_set(domains, name):
    spec = generated(domains, name)
    counts = amounts_off_their_setting(spec)
    assert counts.set_amounts_checked > 0
    assert counts.amounts_off_their_setting == 0
    assert charges_off_fixed_amount(spec).charges_off_fixed_amount == 0


def test_a_drawn_fee_and_a_second_deposit_are_counted_and_mended(domains):
    spec = generated(domains, "transcript_requests")
    order = spec.seed["transcript_orders"][0]
    order["fee"] = 3.04
    assert amounts_off_their_setting(spec).amounts_off_their_setting == 1
    assert fit_set_amounts(spec) == 1
    assert order["fee"] == (35.0 if order["expedited"] else 15.0)

    spec = generated(domains, "study_abroad_applications")
    deposits = spec.seed["deposit_payments"]
    first = deposits[0]
    deposits.append({**first, "deposit_payment_id": "DP9999", "amount": 121.86})
    counts = amounts_off_their_setting(spec)
    assert counts.amounts_off_their_setting == 1
    assert charges_off_fixed_amount(spec).charges_off_fixed_amount == 1
    assert fit_set_amounts(spec) == 1
    assert [d["deposit_payment_id"] for d in spec.seed["deposit_payments"]].count("DP9999") == 0
