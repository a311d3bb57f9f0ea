"""Records still in good standing past the date that ends it (measure 74, docs/synthesis.md): a safe
deposit box refused as past due because its renewal passed, beside another whose renewal also passed
and is still ``active``; a roadside membership active a month after it was to renew; a payment
arrangement active two months after its next installment was due, beside arrangements broken for that.

Read by status words and column names alone, so the measure runs on any catalog; the seed generator
keeps the rule (``synthesis.domains.lapses``). Where a status column names both a state in good
standing (:data:`periods.IN_FORCE`: active, current, open) and one reached because a date passed
(:data:`LAPSED_STATES`: past due, delinquent, overdue, lapsed, expired, a broken arrangement),
a row in good standing keeps its *lapse dates* (:func:`lapse_dates`: a renewal, a due date, a next
payment or billing) on or after the clock's day: had one passed, the row would have lapsed with the
others. The lapsed side is not read: a policy lapses for a missed payment before its renewal comes.
Measure 31 reads ends (an expiry) on records in force and due dates on overdue ones; this reads the
dates a lifecycle lapses by that are no end of a term: a renewal, a due date on a record in good
standing, a next payment.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .periods import IN_FORCE, LAPSED, OVERDUE
from .seed import status_columns
from .text import word_set

#: Statuses reached because a date passed: past due, delinquent, lapsed, an arrangement broken.
LAPSED_STATES = OVERDUE | LAPSED | word_set("broken")
#: Words of a date a record in good standing must reach before it lapses.
LAPSE_WORDS = word_set("due renewal renews renew next")


def _word(value: Any) -> str:
    return value.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else ""


@dataclass(frozen=True)
class Lapse:
    """``status`` of ``table`` has states in good standing and lapsed ones; ``dates`` say which."""

    table: str
    status: str
    dates: tuple[str, ...]


def lapse_dates(table: TableSpec) -> tuple[str, ...]:
    """The date columns of ``table`` a record lapses by (:data:`LAPSE_WORDS`)."""
    return tuple(
        c.name for c in table.columns if c.type in ("date", "datetime") and set(c.name.lower().split("_")) & LAPSE_WORDS
    )


def lapses(spec: EnvSpec) -> list[Lapse]:
    """The tables whose status column names both sides of a lapse and that have a lapse date."""
    out = []
    for table in spec.tables:
        dates = lapse_dates(table)
        for column in status_columns(table) if dates else ():
            words = {_word(v) for v in column.enum or ()}
            if words & IN_FORCE and words & LAPSED_STATES:
                out.append(Lapse(table.name, column.name, dates))
    return out


def off_side(lapse: Lapse, row: Mapping[str, Any], clock: datetime) -> list[str] | None:
    """The lapse dates of ``row`` on the wrong side of the clock; None where the row is not read."""
    days = {c: v[:10] for c in lapse.dates if isinstance(v := row.get(c), str) and len(v) >= 10}
    if _word(row.get(lapse.status)) not in IN_FORCE or not days:
        return None
    today = clock.strftime("%Y-%m-%d")
    return [c for c, d in days.items() if d < today]


@dataclass
class LapseCounts:
    """Rows in good standing with a lapse date, and those with one already passed."""

    lapse_rows_checked: int = 0
    lapse_dates_against_status: int = 0


def lapse_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(table, off) for every row read."""
    for lapse in lapses(spec):
        for row in rows.get(lapse.table, []):
            if (off := off_side(lapse, row, spec.clock)) is not None:
                yield lapse.table, bool(off)


def lapse_dates_against_status(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> LapseCounts:
    """Measure 74 over ``rows`` (table -> rows; the seed by default) against ``spec.clock``."""
    out = LapseCounts()
    for _, off in lapse_findings(spec, spec.seed if rows is None else rows):
        out.lapse_rows_checked += 1
        out.lapse_dates_against_status += off
    return out
