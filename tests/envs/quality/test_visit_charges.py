"""Charges against their visit's status (measure 61: a no-show fee on a completed visit, a copay on a
missed one, a deposit refunded for a no-show) and charges off the amount a tool posts their kind at
(measure 62: a missed-visit credit of 48.56 where the tool credits 25.00); the seed rules that keep
them."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.fixed_charges import charges_off_fixed_amount, fixed_amounts
from envs.quality.visit_charges import charges_against_visit, kind_fits
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env

STATUSES = ["booked", "completed", "cancelled", "no_show"]
KINDS = ["copay", "no_show_fee", "late_cancellation_fee", "deposit_refund", "minibar"]
LATE_CANCEL = {
    "name": "late_cancel_appointment",
    "description": "Cancel late: a 50.00 fee is charged.",
    "kind": "write",
    "parameters": {"type": "object", "properties": {"appointment_id": {"type": "string"}}},
    "steps": [
        {
            "kind": "exec",
            "sql": 'INSERT INTO "charges" (charge_id, appointment_id, amount, charge_type) '
            "VALUES (new_id('CH'), :appointment_id, 50, 'late_cancellation_fee')",
        },
        {"kind": "exec", "sql": "UPDATE appointments SET status = 'cancelled' WHERE appointment_id = :appointment_id"},
    ],
}


def spec_with(charges: list[tuple[str, str, float]]) -> EnvSpec:
    """Appointments A1-A4 in STATUSES order, with ``charges`` (appointment, kind, amount)."""
    return EnvSpec.model_validate(
        {
            "id": "clinic",
            "name": "Clinic",
            "sector": "health",
            "description": "Appointments and their charges.",
            "policy": "Be nice.",
            "clock": "2026-03-02T09:00:00",
            "tables": [
                {
                    "name": "appointments",
                    "primary_key": ["appointment_id"],
                    "columns": [
                        {"name": "appointment_id", "type": "text"},
                        {"name": "status", "type": "text", "enum": STATUSES},
                    ],
                },
                {
                    "name": "charges",
                    "primary_key": ["charge_id"],
                    "columns": [
                        {"name": "charge_id", "type": "text"},
                        {"name": "appointment_id", "type": "text"},
                        {"name": "amount", "type": "real"},
                        {"name": "charge_type", "type": "text", "enum": KINDS},
                    ],
                    "foreign_keys": [
                        {"columns": ["appointment_id"], "table": "appointments", "references": ["appointment_id"]}
                    ],
                },
            ],
            "seed": {
                "appointments": [{"appointment_id": f"A{i}", "status": s} for i, s in enumerate(STATUSES, 1)],
                "charges": [
                    {"charge_id": f"C{i}", "appointment_id": a, "charge_type": k, "amount": x}
                    for i, (a, k, x) in enumerate(charges, 1)
                ],
            },
            "tools": [LATE_CANCEL],
        }
    )


def test_kinds_are_read_against_the_status_they_name():
    assert kind_fits("no_show_fee", "no_show") and not kind_fits("no_show_fee", "completed")
    assert kind_fits("copay", "completed") and not kind_fits("copay", "no_show") and not kind_fits("copay", "cancelled")
    assert kind_fits("late_cancellation_fee", "cancelled") and not kind_fits("late_cancel_fee", "booked")
    assert not kind_fits("deposit_refund", "no_show") and kind_fits("deposit_refund", "cancelled")
    assert kind_fits("minibar", "no_show") is None  # says nothing of the visit


def test_charges_against_their_visit_are_counted():
    spec = spec_with(
        [
            ("A2", "copay", 30.0),
            ("A2", "no_show_fee", 25.0),  # against: the visit took place
            ("A3", "late_cancellation_fee", 50.0),
            ("A4", "copay", 30.0),  # against: missed
            ("A4", "deposit_refund", 20.0),  # against: a no-show forfeits it
            ("A4", "minibar", 8.0),  # not read
        ]
    )
    counts = charges_against_visit(spec)
    assert (counts.visit_charges_checked, counts.charges_against_visit) == (5, 3)


def test_a_kind_a_tool_posts_at_a_fixed_amount_is_read_at_it():
    spec = spec_with(
        [("A3", "late_cancellation_fee", 50.0), ("A3", "late_cancellation_fee", 34.93), ("A2", "copay", 9)]
    )
    assert fixed_amounts(spec) == {("charges", "charge_type", "late_cancellation_fee"): {"amount": 50.0}}
    counts = charges_off_fixed_amount(spec)
    assert (counts.fixed_charges_checked, counts.charges_off_fixed_amount) == (2, 1)


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


@pytest.mark.parametrize(
    "name",
    ["day_spa_appointments", "dental_clinic_appointments", "restaurant_table_bookings", "physical_therapy_sessions"],
)
def test_generated_seeds_charge_a_visit_for_what_happened(domains, name):
    spec = generate_env(assign_enforcement(domains[name]), seed=0).spec
    counts = charges_against_visit(spec)
    # a day spa's late-cancellation fee is posted once per appointment (measure 70): fewer charges there
    assert counts.visit_charges_checked > (8 if name == "day_spa_appointments" else 20)
    assert counts.charges_against_visit == 0


@pytest.mark.parametrize("name", ["rental_maintenance_tickets", "dental_clinic_appointments", "day_spa_appointments"])
def test_generated_seeds_post_a_fixed_kind_at_its_amount(domains, name):
    spec = generate_env(assign_enforcement(domains[name]), seed=0).spec
    counts = charges_off_fixed_amount(spec)
    assert counts.fixed_charges_checked >= 5  # a late-cancellation fee once per appointment (measure 70)
    assert counts.charges_off_fixed_amount == 0


def test_a_tenants_credit_balance_is_the_sum_of_the_fixed_credits(domains):
    spec = generate_env(assign_enforcement(domains["rental_maintenance_tickets"]), seed=0).spec
    credits: Counter[str] = Counter()
    for row in spec.seed["rent_credits"]:
        credits[row["tenant_id"]] += row["amount"]
    for tenant in spec.seed["tenants"]:
        assert round(credits[tenant["tenant_id"]], 2) == tenant["rent_credit_balance"]
