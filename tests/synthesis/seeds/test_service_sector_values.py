"""Codes, names and amounts of the education, healthcare, hospitality, hr and travel domains as their
trades write them: a ferry passenger's plate of letters and digits, a hospital bed renting above a
knee scooter, a deposit a share of the rent it secures, a net pay below its gross (the ontology's
``format``, ``pool``, ``range_by`` and ``ratio_of``, ``synthesis.domains.forms`` and ``money_bands``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from envs.quality.money_bands import money_out_of_band
from envs.quality.trade_forms import trade_values_off_form, value_fits_trade
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.forms import form_pattern
from synthesis.domains.ontology import load_ontology
from synthesis.seeds.seedgen import generate_seed
from synthesis.tools.envgen import generate_env

SECTORS = ("education", "healthcare", "hospitality", "hr", "travel")
CLOCK = datetime(2026, 3, 2, 9, 0)


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def test_every_phone_zip_city_and_company_of_these_sectors_is_declared(domains):
    checked = 0
    for domain in domains.values():
        if domain.sector not in SECTORS:
            continue
        for entity in domain.entities:
            for attr in entity.attributes:
                where = f"{domain.id}: {entity.name}.{attr.name}"
                if attr.kind in ("phone", "zip"):
                    assert attr.format, where
                    checked += 1
                if attr.kind in ("city", "company"):
                    assert attr.pool, where
                    checked += 1
    assert checked > 60


@pytest.mark.parametrize(
    ("name", "table", "column", "reads"),
    [
        ("ferry_vehicle_crossings", "account_holders", "vehicle_plate", "plate"),
        ("airport_parking_reservations", "customers", "license_plate", "license_plate"),
        ("campground_site_reservations", "campers", "vehicle_plate", "plate"),
    ],
)
def test_a_plate_has_letters_and_digits_as_a_state_prints_them(domains, name, table, column, reads):
    domain = domains[name]
    attr = next(a for e in domain.entities for a in e.attributes if a.name == column)
    plates = [r[column] for r in generate_seed(domain, seed=1, clock=CLOCK)[table]]
    assert len(plates) >= 10
    for plate in plates:
        assert form_pattern(attr.format or "").fullmatch(plate), plate
        assert value_fits_trade(reads, plate), plate  # "8440" is no plate


@pytest.mark.parametrize(
    "name",
    [
        "medical_equipment_rentals",
        "ferry_vehicle_crossings",
        "cruise_cabin_bookings",
        "travel_insurance_claims",
        "hospital_bill_payment_plans",
        "payroll_corrections",
    ],
)
def test_the_seed_holds_every_amount_to_its_band_and_share_and_every_code_to_its_form(domains, name):
    spec = generate_env(assign_enforcement(domains[name]), seed=0).spec
    counts = money_out_of_band(spec)
    assert counts.banded_amounts_checked + counts.ratio_amounts_checked > 20, counts
    assert counts.amounts_out_of_band == 0 and counts.ratios_out_of_range == 0, counts
    assert trade_values_off_form(spec).trade_values_off_form == 0


def test_equipment_rents_follow_what_is_rented_and_deposits_are_a_share_of_the_rent(domains):
    spec = generate_env(assign_enforcement(domains["medical_equipment_rentals"]), seed=0).spec
    models = {r["equipment_model_id"]: r for r in spec.seed["equipment_models"]}
    rent = {
        kind: [m["monthly_rate"] for m in models.values() if m["category"] == kind]
        for kind in ("hospital_bed", "knee_scooter")
    }
    assert rent["hospital_bed"] and rent["knee_scooter"]
    assert min(rent["hospital_bed"]) > max(rent["knee_scooter"])
    deposits = [r for r in spec.seed["rentals"] if r["deposit"] > 0]
    assert deposits
    for rental in deposits:  # a quarter to half of a month's rent of what is rented
        rate = models[rental["equipment_model_id"]]["monthly_rate"]
        assert 0.25 * rate - 0.01 <= rental["deposit"] <= 0.5 * rate + 0.01, rental


def test_net_pay_is_below_gross_and_a_host_university_is_in_its_country(domains):
    payroll = generate_env(assign_enforcement(domains["payroll_corrections"]), seed=0).spec
    assert all(r["net_pay"] < r["gross_pay"] for r in payroll.seed["payslips"])
    abroad = domains["study_abroad_applications"]
    programs = generate_seed(abroad, seed=1, clock=CLOCK)["exchange_programs"]
    attr = next(a for e in abroad.entities for a in e.attributes if a.name == "host_university")
    assert attr.examples_by is not None
    by_country = next(iter(attr.examples_by.values()))
    for program in programs:
        assert program["host_university"] in by_country[program["host_country"]], program
