"""Money rows put in the order life dates them: a record's days trade places between its rows, a row
still before its record's day moves on, and one no day before the clock fits is dropped."""

from __future__ import annotations

from envs.quality.money_dates import money_dates_against_record
from synthesis.domains.money_dates import settle_money_dates

from ...envs.quality.money_specs import charge, payment, rental_shop


def _days(rows, key, column):
    return {r[key]: r[column] for r in rows}


def test_a_final_payment_before_its_deposit_trades_days_with_it():
    spec = rental_shop(
        payments=[payment("F1", "S1", "final", "2025-12-01"), payment("D1", "S1", "deposit", "2025-12-17")]
    )
    assert settle_money_dates(spec) == 2
    assert _days(spec.seed["project_payments"], "project_payment_id", "paid_on") == {
        "D1": "2025-12-01",
        "F1": "2025-12-17",
    }
    assert money_dates_against_record(spec).money_dates_against_record == 0


def test_a_refund_goes_after_what_was_paid_and_the_rest_keeps_its_days():
    spec = rental_shop(
        [
            charge("C1", "R1", "deposit_refund", "2025-12-10"),
            charge("C2", "R1", "monthly_rent", "2025-12-20"),
            charge("C3", "R1", "monthly_rent", "2026-01-20"),
        ]
    )
    settle_money_dates(spec)
    days = _days(spec.seed["rental_charges"], "rental_charge_id", "charged_on")
    assert days["C2"] < days["C3"] <= days["C1"] <= "2026-03-02"
    assert money_dates_against_record(spec).money_dates_against_record == 0


def test_a_charge_before_its_rental_started_moves_on_to_a_few_days_after_the_start():
    spec = rental_shop([charge("C1", "R2", "replacement_fee", "2026-01-20")])  # R2 started 2026-02-10
    assert settle_money_dates(spec) == 1
    assert "2026-02-10" <= spec.seed["rental_charges"][0]["charged_on"] <= "2026-02-13"


def test_a_deposit_refund_on_a_rental_still_out_is_dropped_only_when_asked():
    # R2 runs until April: no day before the clock fits its deposit refund
    spec = rental_shop(
        [charge("C1", "R2", "monthly_rent", "2026-02-10"), charge("C2", "R2", "deposit_refund", "2026-02-20")]
    )
    assert settle_money_dates(spec) == 0
    assert money_dates_against_record(spec).money_dates_against_record == 1
    assert settle_money_dates(spec, drop=True) == 1
    assert [r["rental_charge_id"] for r in spec.seed["rental_charges"]] == ["C1"]


def test_a_date_a_lifecycle_times_stays():
    spec = rental_shop(
        payments=[payment("F1", "S1", "final", "2025-12-01"), payment("D1", "S1", "deposit", "2025-12-17")]
    )
    settle_money_dates(spec, lambda table, row: frozenset({"paid_on"}) if table == "project_payments" else frozenset())
    assert _days(spec.seed["project_payments"], "project_payment_id", "paid_on") == {
        "F1": "2025-12-01",
        "D1": "2025-12-17",
    }
