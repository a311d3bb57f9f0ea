"""Amounts out of proportion to what they are for (measure 41): an offer far from its listing's price,
earnest money a sliver of the offer, an escrow deposit that is not the offer's earnest money."""

from __future__ import annotations

import copy
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.amount_bands import amount_pairs, amounts_out_of_proportion, deposit_kind

from ..specs import SHOP


def _table(name: str, key: str, columns: list[tuple[str, str]], parent: str | None = None) -> dict[str, Any]:
    fks = [{"columns": [f"{parent}_id"], "table": f"{parent}s", "references": [f"{parent}_id"]}] if parent else []
    return {
        "name": name,
        "primary_key": [key],
        "columns": [{"name": key, "type": "text"}] + [{"name": n, "type": t, "nullable": True} for n, t in columns],
        "foreign_keys": fks,
    }


TABLES = [
    _table("listings", "listing_id", [("list_price", "real"), ("hoa_fee", "real")]),
    _table(
        "offers",
        "offer_id",
        [("listing_id", "text"), ("offer_price", "real"), ("earnest_money", "real"), ("status", "text")],
        "listing",
    ),
    _table("escrow_deposits", "escrow_deposit_id", [("offer_id", "text"), ("amount", "real")], "offer"),
    _table("rentals", "rental_id", [("monthly_charge", "real"), ("deposit", "real"), ("deposit_balance", "real")]),
]


def spec_with(seed: dict[str, list[dict[str, Any]]]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"] += copy.deepcopy(TABLES)
    spec["seed"] |= seed
    return EnvSpec.model_validate(spec)


SEED: dict[str, list[dict[str, Any]]] = {
    "listings": [{"listing_id": "L1", "list_price": 400000.0, "hoa_fee": 300.0}],
    "offers": [
        {"offer_id": "O1", "listing_id": "L1", "offer_price": 390000.0, "earnest_money": 8000.0},  # in band
        {"offer_id": "O2", "listing_id": "L1", "offer_price": 144000.0, "earnest_money": 8000.0},  # 36 % of list
        {"offer_id": "O3", "listing_id": "L1", "offer_price": 400000.0, "earnest_money": 1200.0},  # 0.3 % earnest
        {"offer_id": "O4", "listing_id": "L1", "offer_price": 400000.0, "earnest_money": 0.0},  # none taken
    ],
    "escrow_deposits": [
        {"escrow_deposit_id": "E1", "offer_id": "O1", "amount": 8000.0},
        {"escrow_deposit_id": "E2", "offer_id": "O1", "amount": 15000.0},  # not O1's earnest money
    ],
    "rentals": [{"rental_id": "R1", "monthly_charge": 100.0, "deposit": 900.0, "deposit_balance": 5.0}],
}


def test_pairs_are_read_from_names_and_keys():
    pairs = {(p.table, p.column): (p.base, p.via and p.via[1], p.band) for p in amount_pairs(spec_with({}))}
    assert pairs == {
        ("offers", "offer_price"): ("list_price", "listings", (0.85, 1.10)),  # not the HOA fee
        ("offers", "earnest_money"): ("offer_price", None, (0.01, 0.10)),
        ("escrow_deposits", "amount"): ("earnest_money", "offers", (1.0, 1.0)),
    }  # a deposit against a monthly charge, and a deposit balance, are not checked
    assert [deposit_kind(n) for n in ("down_payment", "deposit_paid", "deposit_on_file", "earnest_money")] == [
        "down",
        "deposit",
        None,
        "earnest",
    ]


def test_amounts_out_of_proportion_are_counted():
    counts = amounts_out_of_proportion(spec_with(copy.deepcopy(SEED)))
    # 4 offer prices, 3 earnest amounts above zero, 2 escrow deposits; O2's offer, O3's earnest, E2
    assert (counts.amount_pairs_checked, counts.amounts_out_of_proportion) == (9, 3)
