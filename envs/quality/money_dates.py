"""Money rows dated against their record or their siblings (measure 108, docs/synthesis.md): a deposit
refund dated before the rental started or while it still ran, a refund before anything was paid, a
final payment before its deposit.

Measure 32 reads a child against its parent's *recorded* dates (``created_at``, ``issued_on``), so a
rental known only by its start and end, or a solar project with no date at all, was never read; and
no measure read one money row against another. This one reads each row of a money table (measure
107's, :mod:`.money_rows`) with a recorded date under a single-column foreign key, by its *role*,
taken from the words of its kind (an enum column other than the status; the table's name where the
kind says nothing):

* **refund** (refund, reversal, chargeback; ``deposit_refund``, a ``parking_refunds`` table),
* **closing** (final, balance, payoff, remaining, maturity, applied: what settles the record),
* **opening** (deposit, down payment, initial, first, booking, reservation, retainer, funding),
* **use** (rent, monthly, usage, late, replacement, damage, overage, mileage, fine, penalty: what
  the record's use costs), else a plain **payment**.

A way of paying (``method``, ``channel``) tells a refund or a payoff, never an opening or a use: a
refund by ``direct_deposit`` is no deposit. A row counts once, when any of these holds:

* **Before its record began**: a refund or a use charge dated before its parent's start (a column
  that opens a period: ``start_date``, ``move_in_date``, ``entry_at``; or its own event date,
  measure 7's: a move's ``move_date``), unless the parent was called off (a booking cancelled ahead
  of its start is refunded ahead of it).
* **A deposit refunded while the record ran**: a refund of a deposit dated before its parent's end of
  use (:data:`USE_END_WORDS`: ``end_date``, ``move_out_date``, ``exit_date``, ``checkout_date``;
  not an expiry, which a hold released early comes before), unless the parent was called off.
* **A refund before anything was paid**: a refund dated before every other row of its parent.
* **A final payment before the rest**: a closing row dated before an opening, payment or use row of
  its parent, or an opening one after a payment or use row.

The sibling rules read rows under the same record, never under the person served (a payoff of one
loan may well come before a payment on another). Compared by day. Seeds keep it
(``synthesis.domains.money_dates``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .child_dates import first_recorded, recorded_dates
from .money_rows import money_table, words
from .one_off import called_off
from .seed import event_column, status_columns
from .seed_time import date_columns, opens_period
from .spec import user_table
from .text import word_set

REFUND_WORDS = word_set("refund refunds refunded reversal reversed chargeback")
CLOSING_WORDS = word_set("final balance payoff remaining remainder completion maturity applied")
OPENING_WORDS = word_set("deposit down initial first booking reservation retainer advance funding")
USE_WORDS = word_set("rent monthly usage late replacement damage overage excess mileage fine violation penalty")
#: Words of an enum column that says how money moved, not what for.
HOW_WORDS = word_set("method channel via brand currency card")
#: Words of a date that ends a record's use (a rental returned, a lease moved out of).
USE_END_WORDS = word_set("end ends ended ending return returned checkout exit dropoff")
_USE_END_PHRASES = (("check", "out"), ("move", "out"), ("drop", "off"))

#: Roles, in the order a record's money moves: what opens it, what it costs, what settles it.
OPENING, PAYMENT, USE, CLOSING, REFUND = "opening", "payment", "use", "closing", "refund"
#: The rule each finding breaks.
BEFORE_START, DEPOSIT_WHILE_RUNNING, REFUND_BEFORE_PAYMENT, OUT_OF_TURN = (
    "before its record began",
    "a deposit refunded while its record ran",
    "a refund before anything was paid",
    "a final payment before the rest",
)


def _value_words(value: Any) -> set[str]:
    return set(value.lower().replace(" ", "_").replace("-", "_").split("_")) if isinstance(value, str) else set()


def money_role(table: TableSpec, row: Mapping[str, Any]) -> str:
    """The role of ``row`` of the money table ``table`` (see the module docstring)."""
    statuses = {c.name for c in status_columns(table)}
    kinds: set[str] = set()
    how: set[str] = set()
    for c in table.columns:
        if c.enum and c.type == "text" and c.name not in statuses:
            (how if words(c.name) & HOW_WORDS else kinds).update(_value_words(row.get(c.name)))
    if (kinds | how) & REFUND_WORDS:
        return REFUND
    if (kinds | how) & CLOSING_WORDS:
        return CLOSING
    for said in (kinds, words(table.name)):
        if said & REFUND_WORDS:
            return REFUND
        if said & OPENING_WORDS:
            return OPENING
        if said & USE_WORDS:
            return USE
    return PAYMENT


def refunds_deposit(table: TableSpec, row: Mapping[str, Any]) -> bool:
    """Whether ``row`` gives a deposit back (``deposit_refund``, a ``deposit_refunds`` table)."""
    statuses = {c.name for c in status_columns(table)}
    kinds = set().union(
        *(
            _value_words(row.get(c.name))
            for c in table.columns
            if c.enum and c.type == "text" and c.name not in statuses and not words(c.name) & HOW_WORDS
        )
    )
    return money_role(table, row) == REFUND and "deposit" in kinds | words(table.name)


def ends_use(name: str) -> bool:
    """Whether the date column ``name`` ends a record's use (:data:`USE_END_WORDS`)."""
    split = name.lower().split("_")
    return bool(set(split) & USE_END_WORDS) or any(p in pairwise(split) for p in _USE_END_PHRASES)


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def _status(table: TableSpec, row: Mapping[str, Any]) -> Any:
    return next((row.get(c.name) for c in status_columns(table)), None)


@dataclass(frozen=True)
class MoneyLink:
    """A money table, its recorded dates, one single-column foreign key to a parent table, and
    whether that parent is a record of its own (not the person served) whose rows are siblings; the
    parent's columns of the day it began (one opening a period, its own event date)."""

    table: TableSpec
    dates: list[str]
    column: str
    parent: TableSpec
    siblings: bool
    starts: tuple[str, ...]


def money_links(spec: EnvSpec) -> Iterator[MoneyLink]:
    """Each single-column foreign key of a money table with a recorded date."""
    tables = {t.name: t for t in spec.tables}
    people = user_table(spec)
    for table in spec.tables:
        dates = recorded_dates(table)
        if not money_table(table) or not dates:
            continue
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            if parent is None or parent is table or len(fk.columns) != 1:
                continue
            event = event_column(spec, parent)
            starts = [c.name for c in date_columns(parent) if opens_period(c.name)]
            starts += [event[1].name] if event is not None and event[0] is None else []
            yield MoneyLink(table, dates, fk.columns[0], parent, parent.name != people, tuple(dict.fromkeys(starts)))


@dataclass(frozen=True)
class MoneyFinding:
    """A money row read against its parent and siblings: the rules it breaks (empty when none) and,
    for each, the day it should not come before (``after``) or after (``before``)."""

    link: MoneyLink
    row: dict[str, Any]
    role: str
    broken: tuple[str, ...]
    after: str | None
    before: str | None


def _parent_bounds(link: MoneyLink, parent: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The day ``parent`` started and the day its use ended, where it has such columns."""
    starts = [d for c in link.starts if (d := _day(parent.get(c)))]
    ends = [d for c in date_columns(link.parent) if ends_use(c.name) and (d := _day(parent.get(c.name)))]
    return (min(starts) if starts else None), (max(ends) if ends else None)


def money_date_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[MoneyFinding]:
    """A finding for every money row with a date under a parent it can be read against."""
    for link in money_links(spec):
        key = next(fk.references[0] for fk in link.table.foreign_keys if fk.columns == [link.column])
        parents = {p.get(key): p for p in rows.get(link.parent.name, [])}
        family: dict[Any, list[tuple[str, str]]] = {}
        for row in rows.get(link.table.name, []):
            if (day := first_recorded(row, link.dates)) is not None and row.get(link.column) in parents:
                family.setdefault(row.get(link.column), []).append((money_role(link.table, row), day))
        for row in rows.get(link.table.name, []):
            parent = parents.get(row.get(link.column))
            day = first_recorded(row, link.dates)
            if parent is None or day is None:
                continue
            yield _read(link, row, day, parent, family[row.get(link.column)])


def _read(
    link: MoneyLink, row: dict[str, Any], day: str, parent: Mapping[str, Any], family: list[tuple[str, str]]
) -> MoneyFinding:
    role = money_role(link.table, row)
    start, end = _parent_bounds(link, parent)
    live = not called_off(_status(link.parent, parent))
    broken: list[str] = []
    after: list[str] = []
    before: list[str] = []
    if live and start and role in (REFUND, USE):
        after.append(start)
        broken += [BEFORE_START] if day < start else []
    if live and end and refunds_deposit(link.table, row):
        after.append(end)
        broken += [DEPOSIT_WHILE_RUNNING] if day < end else []
    if link.siblings:
        paid = [d for r, d in family if r != REFUND]
        if role == REFUND and paid:
            after.append(min(paid))
            broken += [REFUND_BEFORE_PAYMENT] if day < min(paid) else []
        rest = [d for r, d in family if r in (PAYMENT, USE)]
        if role == CLOSING and (opened := rest + [d for r, d in family if r == OPENING]):
            after.append(max(opened))
            broken += [OUT_OF_TURN] if day < max(opened) else []
        if role == OPENING and (later := rest + [d for r, d in family if r == CLOSING]):
            before.append(min(later))
            broken += [OUT_OF_TURN] if day > min(later) else []
    return MoneyFinding(
        link, row, role, tuple(dict.fromkeys(broken)), max(after) if after else None, min(before) if before else None
    )


@dataclass
class MoneyDateCounts:
    """Money rows read against their record or their siblings, and those dated against them."""

    money_dates_checked: int = 0
    money_dates_against_record: int = 0


def money_dates_against_record(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None
) -> MoneyDateCounts:
    """Measure 108 over ``rows`` (table -> rows; the seed by default); a row counts once."""
    read: dict[int, bool] = {}
    for f in money_date_findings(spec, spec.seed if rows is None else rows):
        if f.after is None and f.before is None:
            continue
        read[id(f.row)] = read.get(id(f.row), False) or bool(f.broken)
    return MoneyDateCounts(money_dates_checked=len(read), money_dates_against_record=sum(read.values()))
