"""Records awaited long after their event (measure 42): a pending election whose effective date passed
months ago, a stay pending nine weeks after checkout; a claim pending long after its incident is not."""

from __future__ import annotations

import copy
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.awaited import awaited_long_past, awaiting, event_dates

from ..specs import SHOP  # clock 2026-01-15 09:00


def _table(name: str, columns: list[tuple[str, str]]) -> dict[str, Any]:
    key = name[:-1] + "_id"
    return {
        "name": name,
        "primary_key": [key],
        "columns": [{"name": key, "type": "text"}, {"name": "status", "type": "text"}]
        + [{"name": n, "type": t, "nullable": True} for n, t in columns],
    }


TABLES = [
    _table("elections", [("effective_date", "date"), ("ended_on", "date"), ("submitted_on", "date")]),
    _table("stays", [("checkout_date", "date"), ("points", "integer")]),
    _table("claims", [("incident_date", "date"), ("submitted_on", "date"), ("respond_by", "date")]),
]
SEED: dict[str, list[dict[str, Any]]] = {
    "elections": [
        {"election_id": "E1", "status": "pending", "effective_date": "2025-10-01", "ended_on": "2025-11-01"},
        {"election_id": "E2", "status": "pending", "effective_date": "2026-01-01"},  # 14 days ago: within margin
        {"election_id": "E3", "status": "active", "effective_date": "2025-10-01"},  # not awaited
        {"election_id": "E4", "status": "Pending", "effective_date": "2026-02-01", "ended_on": "2025-09-01"},
    ],
    "stays": [
        {"stay_id": "S1", "status": "pending", "checkout_date": "2025-11-12"},  # nine weeks after checkout
        {"stay_id": "S2", "status": "pending_transfer", "checkout_date": "2025-11-12"},  # something else awaited
    ],
    "claims": [
        {"claim_id": "C1", "status": "submitted", "incident_date": "2025-06-01", "submitted_on": "2025-07-01"},
    ],
}


def spec_with(seed: dict[str, list[dict[str, Any]]]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"] += copy.deepcopy(TABLES)
    spec["seed"] |= seed
    return EnvSpec.model_validate(spec)


def test_event_dates_leave_out_records_deadlines_and_what_a_claim_reports_on():
    spec = spec_with({})
    tables = {t.name: t for t in spec.tables}
    assert event_dates(tables["elections"]) == ["effective_date", "ended_on"]
    assert event_dates(tables["stays"]) == ["checkout_date"]
    assert event_dates(tables["claims"]) == []
    assert [awaiting(s) for s in ("pending", "Scheduled", "repair_scheduled", "pending_transfer", "active")] == [
        True,
        True,
        True,
        False,
        False,
    ]


def test_awaited_records_whose_every_event_date_is_long_past_are_counted():
    counts = awaited_long_past(spec_with(copy.deepcopy(SEED)))
    # E1, E2, E4 and S1 are awaited with an event date; E1 and S1 have every one long past
    assert (counts.awaited_rows_checked, counts.awaited_long_past) == (4, 2)
