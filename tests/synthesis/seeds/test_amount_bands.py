"""Seed amounts in proportion to what they are for: an offer near its listing's price, earnest money a
usual part of the offer, an escrow deposit the offer's earnest money (measure 41)."""

from __future__ import annotations

import copy

import pytest

from envs.quality.amount_bands import amounts_out_of_proportion
from synthesis.domains.amounts import fit_amounts

from ...envs.quality.test_amount_bands import SEED, spec_with
from .generated import generated_spec


def test_amounts_out_of_proportion_are_redrawn_inside_their_band():
    spec = spec_with(copy.deepcopy(SEED))
    assert fit_amounts(spec) == 3
    offers = {r["offer_id"]: r for r in spec.seed["offers"]}
    assert offers["O1"] == SEED["offers"][0]  # in proportion already: kept
    assert 400000 * 0.92 <= offers["O2"]["offer_price"] <= 400000 * 1.03
    assert offers["O2"]["offer_price"] % 1000 == 0  # three significant figures, as a buyer offers
    assert 4000 <= offers["O3"]["earnest_money"] <= 40000
    assert offers["O4"]["earnest_money"] == 0.0  # no earnest money taken is no contradiction
    assert [r["amount"] for r in spec.seed["escrow_deposits"]] == [8000.0, 8000.0]
    assert amounts_out_of_proportion(spec).amounts_out_of_proportion == 0
    assert fit_amounts(spec) == 0


@pytest.mark.parametrize("domain_id", ["home_purchase_offers", "carrier_load_tendering", "dealership_test_drives"])
def test_generated_amounts_are_in_proportion(domain_id):
    counts = amounts_out_of_proportion(generated_spec(domain_id))
    assert counts.amount_pairs_checked >= 20
    assert counts.amounts_out_of_proportion == 0
