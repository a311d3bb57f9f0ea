"""Measure 81: amounts a write sets out of all measure, dates it moves on that still end in the past."""

from __future__ import annotations

from datetime import datetime

from envs.formats.spec import ColumnSpec, TableSpec
from envs.quality.moved_values import MovedValues, read_write

CLOCK = datetime(2026, 3, 2, 9, 0)
ENTRIES = TableSpec(
    name="customs_entries",
    columns=[
        ColumnSpec(name="customs_entry_id", type="text"),
        ColumnSpec(name="declared_value", type="real"),
        ColumnSpec(name="duty_owed", type="real"),
        ColumnSpec(name="end_date", type="date"),
    ],
    primary_key=["customs_entry_id"],
)
ROW = {"customs_entry_id": "CE0007", "declared_value": 47420.11, "duty_owed": 5110.59, "end_date": "2026-01-04"}


def _read(after: dict[str, object], arguments: dict[str, object]) -> MovedValues:
    found = MovedValues()
    read_write(found, ENTRIES, ROW, {**ROW, **after}, arguments, CLOCK)
    return found


def test_an_amount_corrected_to_a_sliver_of_itself_counts() -> None:
    far = _read({"declared_value": 39.42}, {"customs_entry_id": "CE0007", "corrected_value": 39.42})
    assert far.amounts_checked == 1 and far.amounts_far == ["customs_entries.declared_value 47420.11 -> 39.42"]
    near = _read({"declared_value": 43900.0}, {"customs_entry_id": "CE0007", "corrected_value": 43900.0})
    assert near.amounts_checked == 1 and not near.amounts_far
    huge = _read({"declared_value": 300000.0}, {"declared_value": 300000.0})
    assert huge.amounts_far


def test_an_amount_the_write_works_out_itself_is_not_read() -> None:
    paid = _read({"duty_owed": 0.0}, {"customs_entry_id": "CE0007", "amount": 5110.59})
    assert paid.amounts_checked == 0 and not paid.amounts_far


def test_a_date_moved_on_that_still_ends_in_the_past_counts() -> None:
    past = _read({"end_date": "2026-02-03"}, {"customs_entry_id": "CE0007"})
    assert past.dates_checked == 1 and past.dates_past == ["customs_entries.end_date 2026-01-04 -> 2026-02-03"]
    ahead = _read({"end_date": "2026-04-01"}, {"customs_entry_id": "CE0007"})
    assert ahead.dates_checked == 1 and not ahead.dates_past
    # a date the user gives is theirs to give (a correction of when it ended), not a move
    given = _read({"end_date": "2026-02-03"}, {"end_date": "2026-02-03"})
    assert given.dates_checked == 0
