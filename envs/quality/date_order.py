"""Two dates of one row in the order their domain fixes (measure 96, docs/synthesis.md): a hospital
bill due before the service it bills, a free-look period ending after the contract it belongs to
expired, an appeal's hearing before the appeal was filed, a report submitted before it was created.

Measure 12 reads a period's start against its end and measure 33 a deadline against the day its record
came to be; this one reads the other pairs whose order names alone fix, and leaves theirs to them.
Columns are picked by their names (split at ``_``) alone, so the measure runs on any catalog; the seed
generator keeps the rule (``synthesis.domains.date_order``). The pairs, earlier first:

* **What a bill is for, then its due date**: a day of what is billed (:data:`BILLED_WORDS`:
  ``service_date``, ``statement_date``, ``incurred_on``) before a date named ``due`` (``due_date``,
  ``next_due``). A payment due before a trip it pays for is no such pair: a departure bills nothing.
* **A window, then the term it runs in**: the end of a window inside a term (:data:`WINDOW_WORDS`:
  ``free_look_ends``, ``grace_period_until``, ``trial_ends_on``) on or before the term's end
  (``expires_on``, ``end_date``, not itself a window's).
* **A filing, then what follows it**: the day a record was filed, submitted or started (a past event,
  :data:`FILED_WORDS`) before an event set for it (:data:`FOLLOWING_WORDS`: ``hearing_date``,
  ``inspection_date``, ``next_delivery``).
* **Steps of a process in order**: a day a record was made (:data:`MADE_WORDS`: ``created_at``) before
  one it was sent in (:data:`SENT_WORDS`: ``submitted_on``), both before one it was decided or
  closed (:data:`DECIDED_WORDS`: ``approved_on``, ``closed_at``).

Compared by day (a plain date has no time); a row with either date empty is not read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import ColumnSpec, EnvSpec, TableSpec
from .deadlines import answer_columns, deadline_columns, opening_columns, start_columns
from .seed_time import date_columns, date_pairs, names_past_event
from .text import word_set

#: Days of what a bill is for.
BILLED_WORDS = word_set("service treatment visit procedure statement invoice billing usage incurred repair")
#: Windows inside a term, and words of where they end.
WINDOW_WORDS = word_set("look grace cooling trial")
END_WORDS = word_set("end ends ended until expires expiry expiration through")
#: Past events a record is filed or begun by, and events that follow the filing.
FILED_WORDS = word_set("filed submitted applied requested started opened created enrolled")
FOLLOWING_WORDS = word_set("hearing inspection interview review next")
#: Steps of a process: made, sent in, decided or closed.
MADE_WORDS = word_set("created opened drafted")
SENT_WORDS = word_set("submitted filed applied")
DECIDED_WORDS = word_set(
    "approved denied rejected declined decided resolved closed completed reimbursed refunded withdrawn cancelled"
)


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def _past(col: ColumnSpec, words: frozenset[str]) -> bool:
    return names_past_event(col.name) and bool(_words(col.name) & words)


def _to_come(col: ColumnSpec, words: frozenset[str]) -> bool:
    return not names_past_event(col.name) and bool(_words(col.name) & words)


def _billed(col: ColumnSpec) -> bool:
    return bool(_words(col.name) & BILLED_WORDS) and "due" not in _words(col.name)


def _window_end(col: ColumnSpec) -> bool:
    words = _words(col.name)
    return bool(words & WINDOW_WORDS) and bool(words & END_WORDS)


def _term_end(col: ColumnSpec) -> bool:
    words = _words(col.name)
    return not words & WINDOW_WORDS and bool(words & END_WORDS) and not names_past_event(col.name)


def _step(col: ColumnSpec) -> int:
    """Where a past event's day stands in a process: 0 made, 1 sent in, 2 decided; -1 for none (or
    for a name of two steps, which says nothing of its order)."""
    steps = [i for i, words in enumerate((MADE_WORDS, SENT_WORDS, DECIDED_WORDS)) if _past(col, words)]
    return steps[0] if len(steps) == 1 else -1


@dataclass(frozen=True)
class OrderedPair:
    """On a row of ``table``, ``earlier`` is on or before ``later`` (by day); ``kind`` names the rule."""

    table: str
    earlier: str
    later: str
    kind: str


def ordered_pairs(table: TableSpec) -> list[OrderedPair]:
    """The pairs of the table's date columns whose order the domain fixes, but those measures 12
    (a start and an end) and 33 (a deadline and an opening, an answer and a start) read."""
    cols = date_columns(table)
    theirs = set(date_pairs((c.name, c.type) for c in cols))
    theirs |= {(o, d) for d in deadline_columns(table) for o in opening_columns(table)}
    theirs |= {(a, s) for a in answer_columns(table) for s in start_columns(table)}
    found: dict[tuple[str, str], str] = {}
    for a in cols:
        for b in cols:
            if a.name == b.name:
                continue
            if _billed(a) and _to_come(b, word_set("due")):
                found.setdefault((a.name, b.name), "billed")
            if _window_end(a) and _term_end(b):
                found.setdefault((a.name, b.name), "window")
            if _past(a, FILED_WORDS) and _to_come(b, FOLLOWING_WORDS):
                found.setdefault((a.name, b.name), "filed")
            if _step(a) < _step(b) and _step(a) >= 0:
                found.setdefault((a.name, b.name), "steps")
    return [
        OrderedPair(table.name, e, later, kind)
        for (e, later), kind in sorted(found.items())
        if (e, later) not in theirs and (later, e) not in theirs
    ]


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def out_of_order(row: Mapping[str, Any], pair: OrderedPair) -> bool | None:
    """Whether ``row`` holds ``pair``'s later date before its earlier one; None where either is empty."""
    first, then = _day(row.get(pair.earlier)), _day(row.get(pair.later))
    if first is None or then is None:
        return None
    return then < first


@dataclass
class DateOrderCounts:
    """Ordered pairs of date columns found (per table), rows read against them, rows breaking one."""

    ordered_date_pairs: int = 0
    ordered_rows_checked: int = 0
    rows_out_of_order: int = 0


def date_order_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[OrderedPair, dict[str, Any], bool]]:
    """(pair, row, out of order) for every pair a row holds both dates of."""
    for table in spec.tables:
        for pair in ordered_pairs(table):
            for row in rows.get(table.name, []):
                if (wrong := out_of_order(row, pair)) is not None:
                    yield pair, row, wrong


def rows_out_of_order(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> DateOrderCounts:
    """Measure 96 over ``rows`` (table -> rows; the seed by default); a row counts once."""
    rows = spec.seed if rows is None else rows
    out = DateOrderCounts(ordered_date_pairs=sum(len(ordered_pairs(t)) for t in spec.tables))
    read: dict[int, bool] = {}
    for _, row, wrong in date_order_findings(spec, rows):
        read[id(row)] = read.get(id(row), False) or wrong
    out.ordered_rows_checked, out.rows_out_of_order = len(read), sum(read.values())
    return out
