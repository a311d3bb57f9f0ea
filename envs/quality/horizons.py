"""Dates at distances from the clock their kind does not have (measure 106, docs/synthesis.md): a
parcel expected four months out, an appointment booked three years ahead, a membership started twenty
years ago, an order placed last decade and still pending.

Read by column names and status words alone, so the measure runs on any catalog; the seed generator
keeps the horizons (``synthesis.domains.horizons``). Each date column has one kind, by the first of
these its name's words fit, and each kind a reach behind and ahead of the clock (:data:`HORIZONS`):

* **arrival** (expected, eta, a hold's end, a next delivery): a parcel or a subscription's next box
  comes within weeks, a courtesy hold lasts days; a booked delivery (custom furniture, a stay's
  arrival) is an event;
* **due** (next, due, billing): a bill or renewal comes within a year;
* **end** (expires, valid, renewal, until, through, a warranty's end): a validity runs up to five years;
* **start** (start, since, joined, move in, effective): a record began within ten years;
* **made** (created, placed, ordered, paid, issued, posted, a purchase): a record was made within five
  years, and within one while its status still awaits a step (pending, placed, processing, open);
* **event** (any other date: an appointment, a pickup, an installation, an air date): within five
  years back and a year ahead.

Birth dates are measure 54's and are not read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..formats.spec import ColumnSpec, EnvSpec, TableSpec
from .seed import status_columns
from .text import word_set

#: Kind -> (reach behind the clock, reach ahead of it).
HORIZONS: dict[str, tuple[timedelta, timedelta]] = {
    "arrival": (timedelta(days=365), timedelta(days=30)),
    "due": (timedelta(days=730), timedelta(days=366)),
    "end": (timedelta(days=730), timedelta(days=5 * 365)),
    "start": (timedelta(days=10 * 365), timedelta(days=366)),
    "made": (timedelta(days=5 * 365), timedelta(days=0)),
    "event": (timedelta(days=5 * 365), timedelta(days=366)),
}
#: How long a record made may still await its next step.
OPEN_REACH = timedelta(days=365)

_BIRTH = word_set("birth dob born")
#: Name words of each kind, tried in this order (``paid_through`` is an end, not a payment).
_KIND_WORDS: tuple[tuple[str, frozenset[str]], ...] = (
    ("arrival", word_set("expected eta hold held")),
    ("due", word_set("next due billing")),
    ("end", word_set("expires expiry expiration valid renews renewal until through thru ends warranty guarantee")),
    ("start", word_set("start starts started since joined enrolled began effective move")),
    (
        "made",
        word_set(
            """created placed ordered submitted requested paid issued posted purchase purchased filed
            logged recorded received signed opened"""
        ),
    ),
)
#: Statuses of a record still waiting for its next step.
OPEN = word_set("pending placed processing open submitted requested awaiting ordered new draft")


def date_kind(name: str) -> str | None:
    """The kind of the date column ``name`` (None for a birth date)."""
    words = set(name.lower().split("_"))
    if words & _BIRTH:
        return None
    if {"next", "delivery"} <= words:  # a subscription's next box comes within weeks, as a parcel does
        return "arrival"
    return next((kind for kind, kind_words in _KIND_WORDS if words & kind_words), "event")


def dated_columns(table: TableSpec) -> list[tuple[ColumnSpec, str]]:
    """The date columns of ``table`` with their kinds."""
    return [(c, kind) for c in table.columns if c.type in ("date", "datetime") and (kind := date_kind(c.name))]


def _open(row: Mapping[str, Any], statuses: list[str]) -> bool:
    return any(isinstance(v := row.get(s), str) and v.lower().replace(" ", "_") in OPEN for s in statuses)


def reach(kind: str, row: Mapping[str, Any], statuses: list[str]) -> tuple[timedelta, timedelta]:
    """How far behind and ahead of the clock a date of ``kind`` on ``row`` may lie."""
    behind, ahead = HORIZONS[kind]
    if kind == "made" and _open(row, statuses):
        behind = min(behind, OPEN_REACH)
    return behind, ahead


def day(value: Any) -> datetime | None:
    """A seed date or datetime's day, or None where it is not one."""
    try:
        return datetime.fromisoformat(value[:10]) if isinstance(value, str) else None
    except ValueError:
        return None


def beyond(value: Any, bounds: tuple[timedelta, timedelta], clock: datetime) -> bool | None:
    """Whether ``value`` lies outside ``bounds`` of the clock's day; None where it is not a date."""
    when = day(value)
    if when is None:
        return None
    today = clock.replace(hour=0, minute=0, second=0, microsecond=0)
    behind, ahead = bounds
    # "made" dates after the clock are measure 8's, not a horizon's
    return when < today - behind or (ahead > timedelta(0) and when > today + ahead)


@dataclass
class HorizonCounts:
    """Dates read, those outside their kind's horizon."""

    horizon_dates_checked: int = 0
    dates_beyond_horizon: int = 0


def horizon_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[str, dict[str, Any], str, bool]]:
    """(table, row, column, off) for every date read."""
    for table in spec.tables:
        columns = dated_columns(table)
        statuses = [c.name for c in status_columns(table)]
        for row in rows.get(table.name, []) if columns else ():
            for column, kind in columns:
                if (off := beyond(row.get(column.name), reach(kind, row, statuses), spec.clock)) is not None:
                    yield table.name, row, column.name, off


def dates_beyond_horizon(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> HorizonCounts:
    """Measure 106 over ``rows`` (table -> rows; the seed by default) against ``spec.clock``."""
    out = HorizonCounts()
    for *_, off in horizon_findings(spec, spec.seed if rows is None else rows):
        out.horizon_dates_checked += 1
        out.dates_beyond_horizon += off
    return out
