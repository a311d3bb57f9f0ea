"""Running totals below their parts (measure 78): a miles balance below the accruals posted to it with no
redemption on record; and the seed rule that keeps them (``synthesis.domains.running_totals``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.running_totals import ledger_findings, ledgers, running_totals_below_parts
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.running_totals import settle_running_totals
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_balance_with_a_unit_names_its_ledger_and_which_way_each_kind_goes(domains):
    [miles] = ledgers(generated(domains, "frequent_flyer_awards"))
    assert (miles.parent, miles.total, miles.table, miles.amount) == (
        "members",
        "miles_balance",
        "mileage_activities",
        "miles",
    )
    assert miles.credits == {"flight_accrual", "partner_accrual", "reinstatement"}
    assert miles.debits == {"award_redemption"}
    assert miles.spending == (("award_tickets", "member_id", "miles_redeemed"),)
    # a redemption reversed gives the points back: a credit, not a debit
    [points] = ledgers(generated(domains, "beauty_loyalty_rewards"))
    assert "redemption_reversal" in points.credits and not points.debits


@pytest.mark.parametrize("name", ["frequent_flyer_awards", "hotel_loyalty_points"])
def test_generated_seeds_keep_balances_at_least_their_credits(domains, name):
    counts = running_totals_below_parts(generated(domains, name))
    assert counts.running_totals_checked > 5
    assert counts.running_totals_below_parts == 0


def test_a_balance_below_its_accruals_is_counted_and_raised_by_them(domains):
    spec = generated(domains, "frequent_flyer_awards")
    ledger, member, credits = next(iter(ledger_findings(spec, spec.seed)))
    member[ledger.total] = int(credits) - 1000
    assert running_totals_below_parts(spec).running_totals_below_parts == 1
    assert settle_running_totals(spec) == 1
    assert member[ledger.total] == 2 * int(credits) - 1000


def test_a_redemption_on_record_explains_a_lower_balance(domains):
    spec = generated(domains, "frequent_flyer_awards")
    ledger, member, _ = next(iter(ledger_findings(spec, spec.seed)))
    member[ledger.total] = 0
    entry = next(r for r in spec.seed[ledger.table] if r[ledger.reference] == member["member_id"])
    spec.seed[ledger.table].append({**entry, ledger.kind: "award_redemption", "mileage_activity_id": "MA9999"})
    assert all(m is not member for _, m, _ in ledger_findings(spec, spec.seed))
