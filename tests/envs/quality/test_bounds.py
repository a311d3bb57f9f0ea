"""Counts, amounts and dates beyond the record they belong to (measure 48): guests above the room's
capacity, a rebate asked above its program's maximum, a program paid above its list price, an expense
receipt dated before the trip; a limit that runs down, a line of several units, a deadline are no
such bound."""

from __future__ import annotations

import copy
from typing import Any

from envs.catalog import CatalogEntry
from envs.formats.spec import EnvSpec
from envs.quality import env_quality
from envs.quality.bounds import bounds, values_beyond_record

from ..specs import SHOP


def table(name: str, columns: dict[str, str], parents: dict[str, str] | None = None) -> dict[str, Any]:
    """A table keyed ``<name less its s>_id`` with ``columns`` (name -> type) and foreign keys to ``parents``."""
    parents = parents or {}
    key = name.removesuffix("s") + "_id"
    return {
        "name": name,
        "primary_key": [key],
        "columns": [{"name": key, "type": "text"}]
        + [{"name": n, "type": t, "nullable": True} for n, t in columns.items()]
        + [{"name": c, "type": "text"} for c in parents],
        "foreign_keys": [{"columns": [c], "table": t, "references": [c]} for c, t in parents.items()],
    }


TABLES = [
    table("rooms", {"capacity": "integer", "daily_rate": "real"}),
    table("event_bookings", {"guest_count": "integer", "deposit_paid": "real"}, {"room_id": "rooms"}),
    table("programs", {"max_rebate": "real", "price": "real", "funds_remaining": "real"}),
    table("applications", {"amount_requested": "real", "amount_paid": "real"}, {"program_id": "programs"}),
    table("order_lines", {"amount_paid": "real", "quantity": "integer"}, {"program_id": "programs"}),
    table("trips", {"arrived_on": "date"}),
    table("bag_claims", {"trace_deadline": "date"}, {"trip_id": "trips"}),
    table("expenses", {"receipt_date": "date", "reply_deadline": "date"}, {"bag_claim_id": "bag_claims"}),
]
SEED: dict[str, list[dict[str, Any]]] = {
    "rooms": [{"room_id": "R1", "capacity": 118, "daily_rate": 900.0}],
    "event_bookings": [
        {"event_booking_id": "E1", "room_id": "R1", "guest_count": 194, "deposit_paid": 2500.0},  # above 118
        {"event_booking_id": "E2", "room_id": "R1", "guest_count": 118, "deposit_paid": 50000.0},  # full, no bound
    ],
    "programs": [{"program_id": "P1", "max_rebate": 2349.92, "price": 184.65, "funds_remaining": 10.0}],
    "applications": [
        {"application_id": "A1", "program_id": "P1", "amount_requested": 2732.82, "amount_paid": 184.65},  # above max
        {"application_id": "A2", "program_id": "P1", "amount_requested": 500.0, "amount_paid": 215.34},  # above price
    ],
    "order_lines": [{"order_line_id": "L1", "program_id": "P1", "amount_paid": 369.30, "quantity": 2}],  # two units
    "trips": [{"trip_id": "T1", "arrived_on": "2026-01-05"}],
    "bag_claims": [{"bag_claim_id": "B1", "trip_id": "T1", "trace_deadline": "2026-01-01"}],
    "expenses": [
        {"expense_id": "X1", "bag_claim_id": "B1", "receipt_date": "2025-11-20", "reply_deadline": "2025-12-01"},
        {"expense_id": "X2", "bag_claim_id": "B1", "receipt_date": "2026-01-06", "reply_deadline": None},
    ],
}


def spec_with(seed: dict[str, list[dict[str, Any]]]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"] += copy.deepcopy(TABLES)
    spec["seed"] |= seed
    return EnvSpec.model_validate(spec)


def test_bounds_are_read_from_the_names_of_a_child_and_its_record():
    found = {(b.table, b.column, b.kind, b.parent, b.limit) for b in bounds(spec_with({}))}
    assert found == {
        ("event_bookings", "guest_count", "at most", "rooms", "capacity"),
        ("applications", "amount_requested", "at most", "programs", "max_rebate"),
        ("applications", "amount_paid", "at most", "programs", "price"),
        ("expenses", "receipt_date", "not before", "trips", "arrived_on"),  # through the bag claim
    }  # no funds_remaining (it runs down), no line of two units, no deadline, no deposit against a rate


def test_values_beyond_their_record_are_counted():
    counts = values_beyond_record(spec_with(copy.deepcopy(SEED)))
    # checked: E1, E2 guests; A1, A2 requested; A1, A2 paid; X1, X2 receipts
    # beyond: 194 guests for 118, 2,732.82 asked of 2,349.92, 215.34 paid for 184.65, a receipt before arrival
    assert (counts.bounded_values_checked, counts.values_beyond_their_record) == (8, 4)


def test_the_report_counts_the_seed():
    counts = env_quality(CatalogEntry(spec=spec_with(copy.deepcopy(SEED)), tasks=[])).counts
    assert (counts.bounded_values_checked, counts.values_beyond_their_record) == (8, 4)
