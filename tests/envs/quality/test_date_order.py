"""Two dates of one row out of the order their domain fixes (measure 96): a hospital bill due before
its service, a free-look period ending after its contract expired; and the seed rule that keeps it
(``synthesis.domains.date_order``)."""

from __future__ import annotations

import copy

import pytest

from envs.formats.spec import ColumnSpec, EnvSpec, TableSpec
from envs.quality.date_order import OrderedPair, ordered_pairs, rows_out_of_order
from synthesis.domains.date_order import settle_date_order
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.timing import anchored_dates
from synthesis.tools.envgen import generate_env

_DOMAINS = {d.id: d for d in load_ontology()}


def _spec(domain_id: str) -> EnvSpec:
    return generate_env(assign_enforcement(_DOMAINS[domain_id]), seed=0).spec


@pytest.fixture(scope="module")
def bills() -> EnvSpec:
    return _spec("hospital_bill_payment_plans")


def _table(*names: str) -> TableSpec:
    columns = [ColumnSpec(name="id", type="text"), *(ColumnSpec(name=n, type="date", nullable=True) for n in names)]
    return TableSpec(name="things", columns=columns, primary_key=["id"])


def test_a_bill_is_due_after_the_service_it_bills(bills):
    tables = {t.name: t for t in bills.tables}
    assert OrderedPair("hospital_bills", "service_date", "due_date", "billed") in ordered_pairs(
        tables["hospital_bills"]
    )


def test_generated_bills_fall_due_after_their_service(bills):
    counts = rows_out_of_order(bills)
    assert counts.ordered_rows_checked >= len(bills.seed["hospital_bills"]) > 0
    assert counts.rows_out_of_order == 0


def test_a_bill_due_before_its_service_is_counted_and_its_service_moved_back(bills):
    spec = bills.model_copy(update={"seed": copy.deepcopy(bills.seed)})
    row = spec.seed["hospital_bills"][0]
    due = row["due_date"]
    row["service_date"] = "2026-12-01"  # after any due date the clock allows
    assert rows_out_of_order(spec).rows_out_of_order == 1
    assert settle_date_order(spec) == 1
    assert row["due_date"] == due  # the due date a status times stays
    assert row["service_date"] < due
    assert rows_out_of_order(spec).rows_out_of_order == 0


def test_a_window_ends_within_its_term_and_a_hearing_follows_its_filing():
    pairs = ordered_pairs(_table("free_look_ends", "expires_on", "filed_on", "hearing_date"))
    found = {(p.earlier, p.later, p.kind) for p in pairs}
    assert ("free_look_ends", "expires_on", "window") in found
    assert ("filed_on", "hearing_date", "filed") in found
    assert ("expires_on", "free_look_ends", "window") not in found  # the term is no window of its own


def test_steps_of_a_process_run_in_order():
    found = {(p.earlier, p.later) for p in ordered_pairs(_table("created_at", "submitted_on", "approved_on"))}
    assert found == {("created_at", "submitted_on"), ("created_at", "approved_on"), ("submitted_on", "approved_on")}


def test_pairs_measures_12_and_33_read_are_left_to_them():
    # a start and its end (measure 12), a deadline and the day the record opened (measure 33)
    assert ordered_pairs(_table("start_date", "end_date", "issued_on", "due_date")) == []


def test_a_row_in_order_or_with_a_date_missing_is_no_fault(bills):
    base = {k: v for k, v in bills.seed["hospital_bills"][0].items() if k not in ("service_date", "due_date")}
    rows = {
        "hospital_bills": [
            {**base, "service_date": "2026-01-05", "due_date": "2026-02-04"},
            {**base, "service_date": "2026-01-05", "due_date": None},
            {**base, "service_date": "2026-03-01", "due_date": "2026-02-04"},
        ]
    }
    counts = rows_out_of_order(bills, rows)
    assert (counts.ordered_rows_checked, counts.rows_out_of_order) == (2, 1)


def test_once_the_earlier_date_is_bound_the_later_follows_it_on_its_side_of_the_clock(bills):
    spec = bills.model_copy(update={"seed": copy.deepcopy(bills.seed)})
    today = spec.clock.strftime("%Y-%m-%d")
    row = spec.seed["hospital_bills"][0]
    row["service_date"], row["due_date"] = "2026-02-20", "2025-12-01"  # due long past, before the service
    assert settle_date_order(spec, forward=True) == 1
    assert row["service_date"] == "2026-02-20"
    assert "2026-02-20" <= row["due_date"] <= today  # a bill already due stays due
    assert rows_out_of_order(spec).rows_out_of_order == 0


def test_a_date_its_lifecycle_times_stays_and_the_later_one_moves_on():
    domain = assign_enforcement(_DOMAINS["vehicle_warranty_claims"])
    spec = generate_env(domain, seed=0).spec
    today = spec.clock.strftime("%Y-%m-%d")
    row = max(
        (r for r in spec.seed["warranty_contracts"] if r["status"] == "active"), key=lambda r: r["free_look_ends"]
    )
    look = row["free_look_ends"]  # an active contract's free look is still ahead: its lifecycle says so
    assert look > today
    row["expires_on"] = today  # still running, yet ending before its free look
    assert rows_out_of_order(spec).rows_out_of_order == 1
    assert settle_date_order(spec, anchored_dates(domain)) == 1
    assert row["free_look_ends"] == look and row["expires_on"] > look
