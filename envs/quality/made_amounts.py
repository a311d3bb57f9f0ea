"""Amounts against the tools that make and move them (measure 66, docs/synthesis.md): 54,061 miles
redeemed on an award flight that costs 23,628, a car-care order priced apart from its service, a
parking stay of 58 days at 28.51 a day with 110.13 prepaid.

Read from the tools' SQL alone, so the measure runs on any catalog; the seed generator keeps the rules
(``synthesis.domains.made_amounts``).

* **Copied when made.** A number column that every tool making the row sets from one column of the
  row it references (``miles_redeemed`` = ``:ref_award_flight.miles_required``, in the INSERT or an
  UPDATE of the new row right after it), that no other step changes and whose source no tool changes,
  equals its source on every seed row.
* **By the day.** A number column a tool adds a referenced row's rate to as it moves a date of the row
  on by one day (an extension: ``prepaid_amount`` + ``:ref_parking_lot.daily_rate``, ``exit_date`` +
  1 day) is that rate times the days from the row's start (a start-like date: ``entry_at``) to that
  date, give or take a day (a booking is priced by the day it starts or the night it stays), plus what
  other tools add to it for live children (a car wash ordered on the stay, at the child's own amount).
* **Added up.** A number column a tool adds an argument to as it records a child row of that amount
  (``deposit_paid`` + ``:amount``, an event payment of ``:amount`` of kind ``deposit``) is the sum of
  those children (of that kind), except in a status a tool moves the row to as it sets the column to a
  constant (a cancellation clears the deposit it refunds).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .agreement import still_due
from .asked import ended_state
from .own_row import status_of
from .seed_time import date_of, opens_period
from .tool_sql import BOUND_VALUE, all_updates, bound_tables, inserts, number, one_reference

_SET_NEW = re.compile(r'UPDATE "?(\w+)"? SET "?(\w+)"? = (:\w+\.\w+) WHERE "?\w+"? = :new\.id')
_ADD_BOUND = re.compile(r'UPDATE "?(\w+)"? SET "?(\w+)"? = round\("?\2"? \+ :(\w+)\.(\w+), 2\)')
_ONE_DAY = re.compile(
    r"UPDATE \"?(\w+)\"? SET \"?(\w+)\"? = date\(\"?\2\"?, '\+(?:1 days'|' \|\| CAST\(1 AS INTEGER\) \|\| ' days')\)"
)
_ADD_ARGUMENT = re.compile(r'UPDATE "?(\w+)"? SET "?(\w+)"? = round\("?\2"? \+ :(\w+), 2\)')
_SET_CONSTANT = re.compile(r'UPDATE "?(\w+)"? SET "?(\w+)"? = (\d+(?:\.\d+)?) WHERE')
_STATUS_MOVE = re.compile(r"UPDATE \"?(\w+)\"? SET \"?status\"? = '(\w+)' WHERE")
_KIND_WORDS = ("type", "kind", "reason")
_LITERAL = re.compile(r"^'(\w+)'$")
_CHILD_AMOUNT_WORDS = ("price", "amount", "fee", "cost", "charge", "total")
#: Cents a stored amount may be off by rounding.
CENT = 0.011


@dataclass(frozen=True)
class Copied:
    """``table.column`` is ``parent.source`` of the row its ``reference`` names."""

    table: str
    column: str
    reference: str
    parent: str
    source: str
    #: the kind column and the kinds the tools make, where they set one (a dining charge of the deposit
    #: kind copies the deposit; the seed's other charges are no copy)
    kinds: tuple[str, frozenset[str]] | None = None

    def reads(self, row: Mapping[str, Any]) -> bool:
        return self.kinds is None or row.get(self.kinds[0]) in self.kinds[1]


@dataclass(frozen=True)
class ByTheDay:
    """``table.column`` is ``parent.rate`` (through ``reference``) times the days from ``start`` to
    ``end``, plus the live rows' ``amount`` of each (child table, its reference, amount column)."""

    table: str
    column: str
    reference: str
    parent: str
    rate: str
    start: str
    end: str
    extras: tuple[tuple[str, str, str], ...]


def _numeric(table: TableSpec, column: str) -> bool:
    return any(c.name == column and c.type in ("real", "integer") for c in table.columns)


def copied_columns(spec: EnvSpec) -> list[Copied]:
    """The number columns every tool making their row copies from one referenced row's column."""
    tables = {t.name: t for t in spec.tables}
    updates = all_updates(spec)
    sources: dict[tuple[str, str], set[tuple[str, str]]] = {}
    kinds: dict[str, set[tuple[str, str]]] = {}
    for tool in spec.tools:
        binds = bound_tables(tool)
        sql = [s.sql or "" for s in tool.steps]
        for table, values in (i for q in sql for i in inserts(q)):
            set_new = {m[2]: m[3] for q in sql for m in _SET_NEW.finditer(q) if m[1] == table}
            literal_kinds = [
                (c, k[1]) for c, v in values.items() if c.split("_")[-1] in _KIND_WORDS and (k := _LITERAL.match(v))
            ]
            kinds.setdefault(table, set()).update(literal_kinds or [("", "")])
            for column, value in {**values, **set_new}.items():
                bound = BOUND_VALUE.match(value)
                from_table = binds.get(bound[1]) if bound else None
                made_from = (from_table, bound[2]) if bound and from_table and from_table != table else ("", "")
                sources.setdefault((table, column), set()).add(made_from)
    out = []
    for (table, column), found in sources.items():
        if len(found) != 1 or ("", "") in found or table not in tables or not _numeric(tables[table], column):
            continue
        ((parent, source),) = found
        reference = one_reference(tables[table], parent)
        moved_after = [q for q in updates.get((table, column), []) if not _SET_NEW.search(q)]
        if reference and not moved_after and (parent, source) not in updates:
            made = kinds.get(table, set())
            columns = {c for c, _ in made}
            kind = (columns.pop(), frozenset(k for _, k in made)) if len(columns) == 1 and "" not in columns else None
            out.append(Copied(table, column, reference, parent, source, kind))
    return out


def _start_column(table: TableSpec, end: str) -> str | None:
    found = [c.name for c in table.columns if c.type in ("date", "datetime") and c.name != end and opens_period(c.name)]
    return found[0] if len(found) == 1 else None


def by_the_day(spec: EnvSpec) -> list[ByTheDay]:
    """The amounts a tool prices by the day as it moves their row's end on by one."""
    tables = {t.name: t for t in spec.tables}
    daily: list[tuple[str, str, str, str, str]] = []
    extra_adds: dict[tuple[str, str], set[str]] = {}
    for tool in spec.tools:
        binds = bound_tables(tool)
        sql = " ; ".join(s.sql or "" for s in tool.steps)
        days = {(m[1], m[2]) for m in _ONE_DAY.finditer(sql)}
        for m in _ADD_BOUND.finditer(sql):
            table, column, parent = m[1], m[2], binds.get(m[3])
            ends = [end for t, end in days if t == table]
            if parent and len(ends) == 1:
                daily.append((table, column, parent, m[4], ends[0]))
            else:
                extra_adds.setdefault((table, column), set()).update(t for t, _ in inserts(sql))
    out = []
    for table, column, parent, rate, end in daily:
        reference, start = one_reference(tables[table], parent), _start_column(tables[table], end)
        if reference is None or start is None or not _numeric(tables[table], column):
            continue
        extras = []
        for child in sorted(extra_adds.get((table, column), set())):
            link = one_reference(tables[child], table) if child in tables else None
            amounts = [c.name for c in tables[child].columns if c.type == "real" and c.name in _CHILD_AMOUNT_WORDS]
            if link and amounts:
                extras.append((child, link, amounts[0]))
        out.append(ByTheDay(table, column, reference, parent, rate, start, end, tuple(extras)))
    return out


@dataclass(frozen=True)
class Accumulated:
    """``table.column`` is the sum of ``amount`` over its ``child`` rows (through ``reference``) of
    ``kinds`` (a kind column and its values; every row when None), except on rows in ``reset`` states,
    where a tool sets it to a constant (a cancellation refunds the deposit and clears it)."""

    table: str
    column: str
    child: str
    reference: str
    amount: str
    kinds: tuple[str, frozenset[str]] | None
    reset: frozenset[str]

    def counts(self, child_row: Mapping[str, Any]) -> bool:
        return self.kinds is None or child_row.get(self.kinds[0]) in self.kinds[1]


def accumulated(spec: EnvSpec) -> list[Accumulated]:
    """The number columns a tool adds an argument to as it records a child row of that amount
    (``deposit_paid`` + ``:amount`` with an event payment of ``:amount``, kind ``deposit``)."""
    tables = {t.name: t for t in spec.tables}
    updates = all_updates(spec)
    found: list[tuple[str, str, str, str, str, tuple[str, frozenset[str]] | None, str]] = []
    reset: dict[tuple[str, str], set[str]] = {}
    for tool in spec.tools:
        sql = " ; ".join(s.sql or "" for s in tool.steps)
        moved_to = set(_STATUS_MOVE.findall(sql))
        for m in _SET_CONSTANT.finditer(sql):
            reset.setdefault((m[1], m[2]), set()).update(to for t, to in moved_to if t == m[1])
        for m in _ADD_ARGUMENT.finditer(sql):
            table, column, argument = m[1], m[2], m[3]
            for child, values in inserts(sql):
                amounts = [c for c, v in values.items() if v == f":{argument}"]
                link = one_reference(tables[child], table) if child in tables else None
                literal = [
                    (c, k[1]) for c, v in values.items() if c.split("_")[-1] in _KIND_WORDS and (k := _LITERAL.match(v))
                ]
                kind = (literal[0][0], frozenset([literal[0][1]])) if len(literal) == 1 else None
                if len(amounts) == 1 and link:
                    found.append((table, column, child, link, amounts[0], kind, sql))
    out = []
    for table, column, child, link, amount, kind, own in found:
        others = [q for q in updates.get((table, column), []) if q not in own and not _SET_CONSTANT.search(q)]
        if not others and table in tables and _numeric(tables[table], column):
            out.append(
                Accumulated(table, column, child, link, amount, kind, frozenset(reset.get((table, column), set())))
            )
    return out


def _keyed(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], table: str) -> dict[Any, dict[str, Any]]:
    key = next(t.primary_key[0] for t in spec.tables if t.name == table)
    return {r.get(key): r for r in rows.get(table, [])}


def day_price_range(rule: ByTheDay, row: Mapping[str, Any], rate: float, extra: float) -> tuple[float, float] | None:
    """The least and most ``row``'s amount may be: the rate by the days, a day either way, plus extras."""
    start, end = date_of(row.get(rule.start)), date_of(row.get(rule.end))
    if start is None or end is None or end < start:
        return None
    days = (end - start).days
    return round(rate * max(days - 1, 0), 2), round(rate * (days + 1) + extra, 2)


def live_extras(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], rule: ByTheDay, key: Any) -> float:
    """What the live children of the row keyed ``key`` add to its amount."""
    tables = {t.name: t for t in spec.tables}
    total = 0.0
    for child, link, amount in rule.extras:
        for r in rows.get(child, []):
            status = status_of(r, tables[child])
            if r.get(link) == key and not (status and ended_state(status)):
                total += number(r.get(amount)) or 0.0
    return total


@dataclass
class MadeAmountCounts:
    """Amounts read against the tools that make them, and those that disagree (measure 66)."""

    made_amounts_checked: int = 0
    amounts_against_their_making: int = 0


def made_amount_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(shape, disagrees) for every value read."""
    tables = {t.name: t for t in spec.tables}
    for rule in copied_columns(spec):
        parents = _keyed(spec, rows, rule.parent)
        for row in filter(rule.reads, rows.get(rule.table, [])):
            parent = parents.get(row.get(rule.reference))
            if parent is None or still_due(status_of(parent, tables[rule.parent])):
                continue  # a record still owed is paid in parts (measure 49)
            value, source = number(row.get(rule.column)), number(parent.get(rule.source))
            if value is not None and source is not None:
                yield "copied", abs(value - source) > CENT
    for day_rule in by_the_day(spec):
        parents = _keyed(spec, rows, day_rule.parent)
        key = next(t.primary_key[0] for t in spec.tables if t.name == day_rule.table)
        for row in rows.get(day_rule.table, []):
            parent = parents.get(row.get(day_rule.reference))
            rate = number(parent.get(day_rule.rate)) if parent else None
            value = number(row.get(day_rule.column))
            if rate is None or value is None:
                continue
            bounds = day_price_range(day_rule, row, rate, live_extras(spec, rows, day_rule, row.get(key)))
            if bounds is not None:
                yield "by the day", not bounds[0] - CENT <= value <= bounds[1] + CENT
    for sum_rule in accumulated(spec):
        sums = accumulated_sums(spec, rows, sum_rule)
        key = tables[sum_rule.table].primary_key[0]
        for row in rows.get(sum_rule.table, []):
            value = number(row.get(sum_rule.column))
            if value is not None and status_of(row, tables[sum_rule.table]) not in sum_rule.reset:
                yield "added up", abs(value - round(sums.get(row.get(key), 0.0), 2)) > CENT


def accumulated_sums(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], rule: Accumulated) -> dict[Any, float]:
    """Parent key -> the sum of its counted children's amounts."""
    out: dict[Any, float] = {}
    for r in rows.get(rule.child, []):
        if rule.counts(r):
            out[r.get(rule.reference)] = out.get(r.get(rule.reference), 0.0) + (number(r.get(rule.amount)) or 0.0)
    return out


def amounts_against_their_making(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None
) -> MadeAmountCounts:
    """Measure 66 over ``rows`` (table -> rows; the seed by default)."""
    out = MadeAmountCounts()
    for _, disagrees in made_amount_findings(spec, spec.seed if rows is None else rows):
        out.made_amounts_checked += 1
        out.amounts_against_their_making += disagrees
    return out
