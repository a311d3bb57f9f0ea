"""Money rows dated against their record or their siblings (measure 108): a deposit refund before the
rental started or while it ran, a refund before anything was paid, a final payment before its deposit."""

from __future__ import annotations

from collections import Counter

import pytest

from envs.quality.money_dates import (
    BEFORE_START,
    CLOSING,
    DEPOSIT_WHILE_RUNNING,
    OPENING,
    OUT_OF_TURN,
    PAYMENT,
    REFUND,
    REFUND_BEFORE_PAYMENT,
    USE,
    money_date_findings,
    money_dates_against_record,
    money_role,
)
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env

from .money_specs import charge, payment, rental_shop

#: The two environments the seed-107 review rejected for money dated against its record, and six
#: more whose money rows have kinds: each held such rows before the seed kept the order.
PAYING = (
    "medical_equipment_rentals",
    "residential_solar_installs",
    "banquet_event_planning",
    "certificate_of_deposit_accounts",
    "dealership_test_drives",
    "guided_tour_packages",
    "household_moving_jobs",
    "security_deposit_settlement",
)


def _broken(spec) -> Counter[str]:
    return Counter(b for f in money_date_findings(spec, spec.seed) for b in f.broken)


def test_a_rows_role_is_read_from_its_kind_and_a_way_of_paying_tells_no_opening():
    spec = rental_shop(
        [
            charge("C1", "R1", "deposit_refund", "2026-01-10"),
            charge("C2", "R1", "monthly_rent", "2025-12-01", method="direct_deposit"),
        ],
        [payment("D1", "S1", "deposit", "2025-11-01"), payment("F1", "S1", "final", "2026-01-01")],
    )
    tables = {t.name: t for t in spec.tables}
    roles = [money_role(tables["rental_charges"], r) for r in spec.seed["rental_charges"]]
    assert roles == [REFUND, USE]  # paid by direct deposit, still the month's rent
    assert [money_role(tables["project_payments"], r) for r in spec.seed["project_payments"]] == [OPENING, CLOSING]
    assert money_role(tables["project_payments"], payment("I1", "S1", "installment", "2025-12-01")) == PAYMENT


def test_money_in_order_is_read_and_not_counted():
    spec = rental_shop(
        [
            charge("C1", "R1", "monthly_rent", "2025-12-01"),
            charge("C2", "R1", "deposit_refund", "2026-01-08"),
            charge("C3", "R2", "monthly_rent", "2026-02-10"),
        ],
        [
            payment("D1", "S1", "deposit", "2025-10-01"),
            payment("I1", "S1", "installment", "2025-11-01"),
            payment("F1", "S1", "final", "2026-01-01"),
        ],
    )
    counts = money_dates_against_record(spec)
    # every row but the installment has a day it may not come before or after: the final's is its day
    assert (counts.money_dates_checked, counts.money_dates_against_record) == (5, 0)


def test_a_refund_or_a_charge_for_use_before_the_rental_started_is_counted_unless_it_was_called_off():
    spec = rental_shop(
        [
            charge("C1", "R2", "replacement_fee", "2026-01-20"),  # lost three weeks before it was delivered
            charge("C2", "R2", "monthly_rent", "2026-02-10"),
            charge("C3", "R3", "deposit_refund", "2026-02-20"),  # cancelled ahead of its start: refunded ahead
        ]
    )
    assert _broken(spec) == Counter({BEFORE_START: 1})
    assert money_dates_against_record(spec).money_dates_against_record == 1


def test_a_deposit_refunded_before_the_rental_ended_is_counted():
    spec = rental_shop(
        [
            charge("C1", "R1", "monthly_rent", "2025-12-01"),
            charge("C2", "R1", "deposit_refund", "2025-12-20"),  # still out until January 5
            charge("C3", "R2", "monthly_rent", "2026-02-10"),
            charge("C4", "R2", "deposit_refund", "2026-02-25"),  # out until April
        ]
    )
    assert _broken(spec) == Counter({DEPOSIT_WHILE_RUNNING: 2})


def test_a_refund_before_anything_was_paid_and_a_final_payment_before_its_deposit_are_counted():
    spec = rental_shop(
        [charge("C1", "R1", "deposit_refund", "2026-01-06"), charge("C2", "R1", "monthly_rent", "2026-01-07")],
        [
            payment("F1", "S1", "final", "2025-12-01"),  # the review's solar project: final before deposit
            payment("D1", "S1", "deposit", "2025-12-17"),
            payment("D2", "S2", "deposit", "2026-01-20"),  # a deposit after an installment
            payment("I2", "S2", "installment", "2026-01-10"),
        ],
    )
    assert _broken(spec) == Counter({REFUND_BEFORE_PAYMENT: 1, OUT_OF_TURN: 3})
    assert money_dates_against_record(spec).money_dates_against_record == 4


def test_rows_under_the_person_served_are_no_siblings():
    # a refund on one rental before the rent of another says nothing about either
    spec = rental_shop(
        [charge("C1", "R1", "deposit_refund", "2026-01-06"), charge("C2", "R2", "monthly_rent", "2026-02-11")]
    )
    assert money_dates_against_record(spec).money_dates_against_record == 0


@pytest.fixture(scope="module")
def domains():
    return {d.id: d for d in load_ontology()}


@pytest.mark.parametrize("name", PAYING)
def test_generated_seeds_date_money_in_order(domains, name):
    counts = money_dates_against_record(generate_env(assign_enforcement(domains[name]), seed=0).spec)
    assert counts.money_dates_checked > 0
    assert counts.money_dates_against_record == 0


def test_a_damage_settlement_before_its_move_took_place_is_counted(domains):
    # a move has no start column: the day it began is its own event date
    spec = generate_env(assign_enforcement(domains["household_moving_jobs"]), seed=0).spec
    moves = {m["move_job_id"]: m for m in spec.seed["move_jobs"]}
    settled = next(p for p in spec.seed["move_payments"] if p["payment_type"] == "damage_settlement")
    assert money_dates_against_record(spec).money_dates_against_record == 0
    settled["paid_on"] = "2025-01-02"
    assert moves[settled["move_job_id"]]["move_date"][:10] > "2025-01-02"
    assert _broken(spec)[BEFORE_START] == 1
