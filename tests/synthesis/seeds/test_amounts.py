"""Seed amounts within their whole: refunds scaled down to the price together, shares to 100 %."""

from __future__ import annotations

import pytest

from envs.quality.amounts import amounts_beyond_parent
from synthesis.domains.amounts import settle_amounts

from ...envs.quality.test_amounts import spec_with
from .generated import generated_spec


def test_children_are_scaled_down_together_in_proportion():
    spec = spec_with(
        [
            {"refund_id": "R1", "order_id": "O1", "refund_amount": 20.0},
            {"refund_id": "R2", "order_id": "O1", "refund_amount": 40.0},
            {"refund_id": "R3", "order_id": "O2", "refund_amount": 5.0},
        ],
        [
            {"heir_id": "H1", "account_id": "U1", "share_percent": 75},
            {"heir_id": "H2", "account_id": "U1", "share_percent": 75},
            {"heir_id": "H3", "account_id": "U1", "share_percent": 50},
        ],
    )
    assert settle_amounts(spec) == 2
    refunds = {r["refund_id"]: r["refund_amount"] for r in spec.seed["refunds"]}
    assert refunds == {"R1": 10.0, "R2": 20.0, "R3": 5.0}  # 30 split as 1:2; R3 was within its order
    assert [r["share_percent"] for r in spec.seed["heirs"]] == [37, 37, 25]
    assert amounts_beyond_parent(spec).amounts_beyond_parent == 0
    assert settle_amounts(spec) == 0


@pytest.mark.parametrize("domain_id", ["electronics_returns", "certificate_of_deposit_accounts"])
def test_generated_amounts_stay_within_their_whole(domain_id):
    counts = amounts_beyond_parent(generated_spec(domain_id))
    assert counts.amount_groups_checked >= 10
    assert counts.amounts_beyond_parent == 0


@pytest.mark.parametrize("domain_id", ["online_certificate_programs", "employee_expense_claims"])
def test_refunds_named_plain_amount_and_totals_made_from_items_stay_within_their_whole(domain_id):
    """``program_refunds.amount`` is money back (its table says so), and a report total the seed takes
    from its items afterwards still covers the reimbursements paid on it."""
    counts = amounts_beyond_parent(generated_spec(domain_id))
    assert counts.amount_groups_checked >= 4
    assert counts.amounts_beyond_parent == 0
