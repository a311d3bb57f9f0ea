"""Codes and company names not written as their trade writes them (measure 100), and the seeds that
write them so (``Attribute.format`` and ``pool``, ``synthesis.domains.forms``)."""

from __future__ import annotations

import pytest

from envs.quality.trade_forms import trade_values_off_form, value_fits_trade
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.mark.parametrize(
    ("column", "fits", "off"),
    [
        ("tire_size", ["225/45R17", "LT265/70R17", "245/40ZR19"], ["R2364", "225-45-17"]),
        ("tracking_number", ["1Z999AA10123456784", "771234567890", "9400111899223397655443"], ["1Z110311006"]),
        (
            "phone",
            ["+14155550123", "(415) 555-0123", "+1-671-555-3429", "415.555.0123", "+442071838750"],
            ["+10650048019", "+15551234", "+1415155012"],
        ),
        ("vin", ["1HGCM82633A004352"], ["1HGCM82633A00435", "1HGCM82633O004352"]),
        ("plate_number", ["7KDL214", "ABC 1234"], ["KDLABC", "12345678901", "7kdl214"]),
        ("unit_code", ["B214", "C-17", "1042"], ["U-010701906"]),
        ("panel_code", ["10231", "2345-7"], ["LAB-790351707"]),
        ("zip_code", ["94107", "94107-1234", "M5V 3L9", "SW1A 1AA"], ["9410", "ABCDE"]),
        ("brand", ["Michelin", "BFGoodrich", "Procter & Gamble"], ["Wells PLC", "Chen and Sons", "Stewart-Griffin"]),
        ("sender_name", ["Cedar & Pine Home Goods"], ["Cook, Bryant and Powell", "Beck Group"]),
    ],
)
def test_a_value_is_read_against_its_columns_trade_form(column, fits, off):
    assert all(value_fits_trade(column, v) for v in fits), [v for v in fits if not value_fits_trade(column, v)]
    assert not any(value_fits_trade(column, v) for v in off), [v for v in off if value_fits_trade(column, v)]


def test_a_column_the_measure_does_not_know_is_not_read():
    assert value_fits_trade("delivery_instructions", "Leave at the door") is None
    assert value_fits_trade("city", "Port Deniseport") is None  # no form short of a gazetteer


def test_the_seed_writes_none_off_form_and_a_generic_value_is_counted():
    domain = next(d for d in load_ontology() if d.id == "tire_shop_installations")
    spec = generate_env(assign_enforcement(domain), seed=0).spec
    counts = trade_values_off_form(spec)
    products = spec.seed["tire_products"]
    assert counts.trade_values_checked >= 2 * len(products) and counts.trade_values_off_form == 0
    products[0]["tire_size"], products[1]["brand"] = "R2364", "Wells PLC"  # the draws before formats
    spec.seed["customers"][0]["phone"] = "+10650048019"  # no area code starts with 0
    assert trade_values_off_form(spec).trade_values_off_form == 3


def test_every_declared_form_draws_values_the_measure_reads_as_the_trades():
    from datetime import datetime

    from synthesis.seeds.seedgen import generate_seed

    read = 0
    for domain in load_ontology():
        declared = {(e.table, a.name) for e in domain.entities for a in e.attributes if a.format or a.pool}
        if not declared:
            continue
        seed = generate_seed(domain, seed=2, clock=datetime(2026, 3, 2, 9))
        for table, column in declared:
            for row in seed[table]:
                if row[column] is None:  # a nullable code not yet given (a return not yet shipped) has no form
                    continue
                if (fits := value_fits_trade(column, str(row[column]))) is not None:
                    assert fits, (domain.id, column, row[column])
                    read += 1
    assert read > 500
