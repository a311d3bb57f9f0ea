"""Seed time in the quality report: start/end pairs that run backwards and timestamps on the wrong
side of the clock, on a small spec built to trigger both, on the reference environments, and the
name rules they read."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

import pytest

from envs import paths
from envs.catalog import Catalog, CatalogEntry
from envs.formats.spec import EnvSpec
from envs.quality import env_quality, quality_report
from envs.quality.seed_time import coming_dates, date_pairs, names_future_event, names_past_event, seed_time
from tests.envs.specs import params, tool

_DATE = {"type": "date", "nullable": True}
_STAY_DATES = ("check_in_date", "check_out_date", "deposit_due_date", "created_at")


def _stay(stay_id: str, guest_id: str, status: str, *dates: str | None) -> dict[str, Any]:
    return {"stay_id": stay_id, "guest_id": guest_id, "status": status, **dict(zip(_STAY_DATES, dates, strict=True))}


STAYS: dict[str, Any] = {
    "id": "stays",
    "name": "Tiny stays",
    "sector": "hospitality",
    "description": "Guests, stays and payments, built to break seed time in every way the report counts.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        {
            "name": "guests",
            "primary_key": ["guest_id"],
            "columns": [
                {"name": "guest_id", "type": "text"},
                {"name": "email", "type": "text"},
                {"name": "date_of_birth", "type": "date"},
            ],
        },
        {
            "name": "stays",
            "primary_key": ["stay_id"],
            "columns": [
                {"name": "stay_id", "type": "text"},
                {"name": "guest_id", "type": "text"},
                {"name": "status", "type": "text", "enum": ["booked", "completed", "cancelled"]},
                {"name": "check_in_date", **_DATE},
                {"name": "check_out_date", **_DATE},
                {"name": "deposit_due_date", **_DATE},
                {"name": "created_at", "type": "datetime", "nullable": True},
            ],
            "foreign_keys": [{"columns": ["guest_id"], "table": "guests", "references": ["guest_id"]}],
        },
        {
            "name": "payments",
            "primary_key": ["payment_id"],
            "columns": [
                {"name": "payment_id", "type": "text"},
                {"name": "stay_id", "type": "text"},
                {"name": "paid_on", **_DATE},
            ],
            "foreign_keys": [{"columns": ["stay_id"], "table": "stays", "references": ["stay_id"]}],
        },
    ],
    "seed": {
        "guests": [
            {"guest_id": "G1", "email": "ann@example.com", "date_of_birth": "1990-01-01"},
            {"guest_id": "G2", "email": "bob@example.com", "date_of_birth": "2030-01-01"},  # born in the future
        ],
        "stays": [
            _stay("S1", "G1", "booked", "2026-03-10", "2026-03-12", "2026-03-09", "2026-02-01 10:00:00"),  # in order
            # out before in; made an hour from now; booked, with its deposit due last month
            _stay("S2", "G1", "booked", "2026-03-15", "2026-03-13", "2026-02-20", "2026-03-02 10:00:00"),
            # a one-day stay is not inverted; a completed stay's dates are not held against the clock
            _stay("S3", "G2", "completed", "2026-02-01", "2026-02-01", "2026-01-20", "2026-01-01 08:00:00"),
            _stay("S4", "G2", "cancelled", "2026-02-10", "2026-02-05", None, None),  # inverted whatever the status
            # booked for today, deposit due today, made half an hour ago: all fine
            _stay("S5", "G2", "booked", "2026-03-02", "2026-03-04", "2026-03-02", "2026-03-02 08:30:00"),
        ],
        "payments": [
            {"payment_id": "P1", "stay_id": "S1", "paid_on": "2026-03-02"},  # today: not after the clock
            {"payment_id": "P2", "stay_id": "S1", "paid_on": "2026-03-03"},  # tomorrow
            {"payment_id": "P3", "stay_id": "S2", "paid_on": None},
        ],
    },
    "tools": [
        tool(
            "find_guest",
            [{"kind": "return", "shape": "one", "sql": "SELECT * FROM guests WHERE email = :email"}],
            kind="read",
            parameters=params(email={"type": "string"}),
        )
    ],
}


def _spec(edit: Any = None) -> EnvSpec:
    data = copy.deepcopy(STAYS)
    if edit is not None:
        edit(data["seed"])
    return EnvSpec.model_validate(data)


def test_inverted_pairs_count_ends_before_their_start() -> None:
    spec = _spec()
    counts = seed_time(spec, spec.seed, spec.clock)
    assert (counts.date_pairs_checked, counts.inverted_date_pairs) == (5, 2)  # S2 and S4; S3's one day is fine


def test_clock_violations_count_past_events_ahead_and_coming_events_behind() -> None:
    spec = _spec()
    counts = seed_time(spec, spec.seed, spec.clock)
    # created_at of S1, S2, S3, S5, paid_on of P1 and P2 and both birth dates: S2 an hour ahead,
    # P2 tomorrow, G2 not born yet
    assert (counts.past_events_checked, counts.past_events_after_clock) == (8, 3)
    # booked stays S1, S2, S5: check-out and deposit due (not check-in, a start with its end on
    # the record); S2's deposit was due in February
    assert (counts.future_events_checked, counts.future_events_before_clock) == (6, 1)
    assert (counts.clock_timestamps_checked, counts.clock_violations) == (14, 4)


def test_a_coherent_seed_has_no_violations_and_the_report_carries_both_measures() -> None:
    def fix(seed: dict[str, Any]) -> None:
        seed["guests"][1]["date_of_birth"] = "2000-01-01"
        s2, s4 = seed["stays"][1], seed["stays"][3]
        s2.update(check_out_date="2026-03-17", deposit_due_date="2026-03-14", created_at="2026-03-01 10:00:00")
        s4["check_out_date"] = "2026-02-12"
        seed["payments"][1]["paid_on"] = "2026-02-28"

    broken = env_quality(CatalogEntry(spec=_spec(), tasks=[])).counts
    assert (broken.inverted_date_pairs, broken.clock_violations) == (2, 4)
    assert (broken.date_pairs_checked, broken.clock_timestamps_checked) == (5, 14)
    fixed = env_quality(CatalogEntry(spec=_spec(fix), tasks=[])).counts
    assert (fixed.inverted_date_pairs, fixed.clock_violations) == (0, 0)
    assert (fixed.date_pairs_checked, fixed.clock_timestamps_checked) == (5, 14)
    report = quality_report([CatalogEntry(spec=_spec(), tasks=[]), CatalogEntry(spec=_spec(fix), tasks=[])])
    t = report.totals
    assert (t.inverted_date_pairs, t.date_pairs_checked, t.clock_violations, t.clock_timestamps_checked) == (
        2,
        10,
        4,
        28,
    )
    assert "| inverted date pairs (end before start) | 2/10 pairs |" in report.to_markdown()
    assert report.to_dict()["envs"][0]["past_events_after_clock"] == 3


def test_datetimes_compare_by_time_and_dates_by_day() -> None:
    spec = _spec()
    late = datetime(2026, 3, 2, 10, 30)  # S2 was made at 10:00: no longer ahead of this clock
    counts = seed_time(spec, spec.seed, late)
    assert counts.past_events_after_clock == 2  # P2 (tomorrow) and G2 remain


@pytest.mark.parametrize(
    ("name", "past"),
    [
        ("paid_on", True),
        ("created_at", True),
        ("topped_up_on", True),
        ("date_of_birth", True),
        ("issue_date", True),
        ("ended_on", True),
        ("scheduled_at", False),  # the time planned
        ("reserved_at", False),  # the table's time, not when it was booked
        ("requested_date", False),  # the date asked for
        ("paid_through", False),  # an end of a period
        ("due_date", False),
    ],
)
def test_names_of_past_events(name: str, past: bool) -> None:
    assert names_past_event(name) is past


def test_pairs_and_coming_dates_from_names() -> None:
    columns = [
        ("start_date", "date"),
        ("end_date", "date"),
        ("check_in_date", "date"),
        ("checkout_date", "date"),
        ("issued_on", "date"),
        ("expires_on", "date"),
        ("notes", "text"),
    ]
    starts, ends = ("start_date", "check_in_date", "issued_on"), ("end_date", "checkout_date", "expires_on")
    assert date_pairs(columns) == [(s, e) for s in starts for e in ends]
    assert date_pairs([("entry_at", "datetime"), ("exit_date", "date")]) == [("entry_at", "exit_date")]
    assert date_pairs([("trip_start", "date"), ("trip_end", "text")]) == []  # only dates pair
    # a start with its end on the record may have begun; a lone start is the event itself
    assert coming_dates([("move_in_date", "date"), ("paid_through", "date")]) == ["paid_through"]
    assert coming_dates([("starts_at", "datetime"), ("created_at", "datetime")]) == ["starts_at"]
    assert names_future_event("deposit_due_date") and not names_future_event("purchase_date")


def test_reference_environments_keep_seed_time() -> None:
    cat = Catalog(paths.BUILTIN_CATALOG)
    for env_id in ("retail", "clinic"):
        c = env_quality(cat.get(env_id)).counts
        assert c.past_events_checked > 0  # retail: placed_at, created_at; clinic: birth dates, created_at
        assert (c.inverted_date_pairs, c.clock_violations) == (0, 0)
