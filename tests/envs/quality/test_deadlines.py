"""Deadlines before their record came to be (measure 33): a citation due before it was issued
counts; a citation paid after its due date does not."""

from __future__ import annotations

import copy

from envs.formats.spec import EnvSpec
from envs.quality.deadlines import deadline_columns, deadlines_before_record, opening_columns

from ..specs import SHOP

CITATIONS = {
    "name": "citations",
    "primary_key": ["citation_id"],
    "columns": [
        {"name": "citation_id", "type": "text"},
        {"name": "issued_at", "type": "datetime"},
        {"name": "due_date", "type": "date"},
        {"name": "paid_on", "type": "date", "nullable": True},
    ],
}


def _spec(*rows: dict[str, str | None]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"].append(copy.deepcopy(CITATIONS))
    spec["seed"]["citations"] = [{"citation_id": f"C{i}", **r} for i, r in enumerate(rows)]
    return EnvSpec.model_validate(spec)


def test_deadlines_and_openings_are_read_from_names():
    table = _spec().table("citations")
    assert table is not None
    assert deadline_columns(table) == ["due_date"]
    assert opening_columns(table) == ["issued_at"]  # a payment is no opening


def test_a_deadline_before_the_opening_counts_and_a_late_payment_does_not():
    counts = deadlines_before_record(
        _spec(
            {"issued_at": "2026-01-10 10:00:00", "due_date": "2026-01-05"},  # due before issued
            {"issued_at": "2026-01-10 10:00:00", "due_date": "2026-01-10"},  # due the same day
            {"issued_at": "2025-12-01 10:00:00", "due_date": "2025-12-20", "paid_on": "2026-01-09"},  # late
            {"issued_at": "2025-12-01 10:00:00", "due_date": None},  # no deadline: not checked
        )
    )
    assert (counts.deadline_rows_checked, counts.deadlines_before_record) == (3, 1)
