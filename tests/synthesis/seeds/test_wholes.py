"""Seeds keep measure 113: a balance within its party at the tour's price, payments within the price."""

from __future__ import annotations

import pytest

from envs.quality.wholes import parts_above_whole
from synthesis.domains.wholes import fit_parts_within_wholes

from ...envs.quality.whole_specs import tour_shop
from .generated import generated_spec


def _amounts(rows, key):
    return {r[key]: r["amount"] for r in rows}


def test_a_balance_above_its_whole_is_redrawn_within_it_and_one_within_is_left():
    spec = tour_shop()
    fit_parts_within_wholes(spec)
    one, three = spec.seed["tour_bookings"]
    assert 0 < one["balance_due"] < 2445.20
    assert three["balance_due"] == 5000.0


def test_the_largest_payment_pays_what_the_others_leave_of_the_whole():
    spec = tour_shop()
    fit_parts_within_wholes(spec)
    # the deposit keeps the sum the policy fixes; the refund is not touched
    assert _amounts(spec.seed["tour_payments"], "tour_payment_id") == {"P1": 200.0, "P2": 7135.60, "P3": 9000.0}


def test_payments_the_smaller_ones_alone_exceed_are_scaled_down_together():
    spec = tour_shop()
    assert fit_parts_within_wholes(spec) == 3
    paid = _amounts(spec.seed["eyewear_payments"], "eyewear_payment_id")
    assert round(paid["Y1"] + paid["Y2"] + paid["Y3"], 2) == 200.71
    assert paid["Y1"] < paid["Y2"] < paid["Y3"]  # in proportion, each still a payment of something
    assert (paid["Y4"], paid["Y5"]) == (30.55, 100.0)
    assert parts_above_whole(spec).parts_above_whole == 0
    assert fit_parts_within_wholes(spec) == 0


@pytest.mark.parametrize("name", ["guided_tour_packages", "eyewear_prescription_orders"])
def test_generated_seeds_hold_no_amount_above_its_whole(name):
    counts = parts_above_whole(generated_spec(name))
    assert counts.whole_parts_checked > 10
    assert counts.parts_above_whole == 0
