"""A record's dates against the tool that makes it: a "30-day ride guarantee" ending before the install
it covers, a 21-day loan running 127 days, a road-hazard warranty of three years expiring before its
order was installed, an application made after its posting closed (measure 52, docs/synthesis.md).

A create tool says what a new record's dates are: ``guarantee_ends`` is set to ``install_at`` and
moved 30 days on, ``due_date`` to today moved 21 days, ``loaned_on`` to today. Dates set from one
origin (an argument, or the day the record is made) keep their distance, so a seed row is read as
the tool would have written it:

* **Terms.** Two dates of one origin are the tool's distance apart (``due_date`` 21 days after
  ``loaned_on``), or that distance plus a few of the constant moves other tools make on one of them
  (a loan renewed by 14 days, up to :data:`MOST_MOVES` times). A date set from the day the record was
  made with no date of that day beside it (a warranty's ``expires_on``) tells that day: its distance
  before it, not after the clock. A pair that another tool sets freely, or moves by an argument on
  one side only, keeps no distance and is not read.
* **Made while the parent allowed it.** The create's checks of a parent's date against the clock
  (``closes_on > :now``; ``install_at <= :now AND install_at >= datetime(:now, '-1440 hours')``)
  held on the day the record was made: the day of its date set to today, or told by a term.

The seed generator keeps the rules (``synthesis.domains.terms``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..formats.spec import EnvSpec, ExecStep, QueryStep, RequireStep, ToolSpec

#: Renewals and reschedules a term may have had on one side.
MOST_MOVES = 3
MADE = "made"  # the origin of dates a create tool sets from the day it runs

_INSERT = re.compile(r'INSERT INTO "(\w+)" \(([^)]*)\) VALUES \((.*)\)$', re.S)
_UPDATE = re.compile(r'UPDATE "(\w+)" SET "?(\w+)"? = (.*) WHERE (\w+) = (:[\w.]+)$', re.S)
_ADD_DAYS = re.compile(
    r"""^date(?:time)?\((?:max\()?"?(\w+)"?(?:, :(?:today|now)\))?, '\+' \|\| CAST\((.+) AS INTEGER\) \|\| ' days'\)$"""
)
_FROM = re.compile(r'FROM "(\w+)" WHERE (\w+) = :(\w+)$')
_CLOCK_CHECK = re.compile(r":(ref_\w+)\.(\w+) (<=|>=|<|>) (?::now|:today|datetime\(:now, '([+-]\d+) hours'\))")


@dataclass(frozen=True)
class Term:
    """``end`` of a ``table`` row is ``days`` after ``start`` (None: after the day it was made), plus
    up to :data:`MOST_MOVES` of ``moves`` (days other tools add to one side; negative for the start)."""

    table: str
    start: str | None
    end: str
    days: int
    moves: tuple[int, ...] = ()


@dataclass(frozen=True)
class MadeCheck:
    """A ``table`` row was made while its parent's ``column`` (``parent`` through the row's ``via``)
    stood ``op`` the clock moved ``hours``."""

    table: str
    via: str
    parent: str
    key: str
    column: str
    op: str
    hours: int


def _split(values: str) -> list[str]:
    """The top-level comma-separated parts of a VALUES list."""
    parts, depth, current = [], 0, ""
    for ch in values:
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    return [*parts, current.strip()]


def _constant(expr: str) -> int | None:
    return int(expr) if re.fullmatch(r"-?\d+", expr.strip()) else None


@dataclass
class _Origins:
    """Date column -> (origin, days after it) as one create tool sets them."""

    table: str
    dates: dict[str, tuple[str, int]]
    made_from: dict[str, str]  # column -> the argument it was set from


def create_origins(spec: EnvSpec, tool: ToolSpec) -> _Origins | None:
    kinds = {(t.name, c.name): c.type for t in spec.tables for c in t.columns}
    origins: _Origins | None = None
    for step in tool.steps:
        if not isinstance(step, ExecStep):
            continue
        if origins is None and (m := _INSERT.match(step.sql)):
            table, columns = m.group(1), [c.strip() for c in m.group(2).split(",")]
            values = _split(m.group(3))
            if len(values) != len(columns):
                return None
            origins = _Origins(table, {}, {})
            for c, v in zip(columns, values, strict=True):
                if kinds.get((table, c)) not in ("date", "datetime"):
                    continue
                if v in (":today", ":now"):
                    origins.dates[c] = (MADE, 0)
                elif re.fullmatch(r":\w+", v):
                    origins.dates[c] = (v[1:], 0)
                    origins.made_from[c] = v[1:]
        elif origins is not None and (m := _UPDATE.match(step.sql)) and m.group(1) == origins.table:
            column, expr = m.group(2), m.group(3).strip()
            if column not in origins.dates:
                continue
            if re.fullmatch(r":\w+", expr) and expr[1:] in origins.made_from.values():
                origins.dates[column] = (expr[1:], 0)
            elif (a := _ADD_DAYS.match(expr)) and a.group(1) == column and (n := _constant(a.group(2))) is not None:
                origin, days = origins.dates[column]
                origins.dates[column] = (origin, days + n)
            else:
                del origins.dates[column]
    return origins


def _moves(spec: EnvSpec, table: str, creates: set[str]) -> dict[str, list[int | None]]:
    """Column -> how the other tools move it: a constant number of days, or None (freely). A tool that
    moves two dates by the same expression moves neither apart."""
    out: dict[str, list[int | None]] = {}
    for tool in spec.tools:
        if tool.name in creates:
            continue
        moved: dict[str, str] = {}
        for step in tool.steps:
            if isinstance(step, ExecStep) and (m := _UPDATE.match(step.sql)) and m.group(1) == table:
                a = _ADD_DAYS.match(m.group(3).strip())
                moved[m.group(2)] = a.group(2) if a and a.group(1) == m.group(2) else f"set {m.group(3)}"
        exprs = list(moved.values())
        for column, expr in moved.items():
            if exprs.count(expr) > 1 and not expr.startswith("set "):
                continue  # moved together with another date of the row
            out.setdefault(column, []).append(None if expr.startswith("set ") else _constant(expr))
    return out


def terms(spec: EnvSpec) -> list[Term]:
    """Every term the create tools of ``spec`` set (see the module docstring)."""
    out: list[Term] = []
    creates = {t.name for t in spec.tools if t.kind == "write" and t.name.startswith("create_")}
    for tool in spec.tools:
        if tool.name not in creates or (origins := create_origins(spec, tool)) is None:
            continue
        moves = _moves(spec, origins.table, creates)
        by_origin: dict[str, list[tuple[int, str]]] = {}
        for column, (origin, days) in origins.dates.items():
            by_origin.setdefault(origin, []).append((days, column))
        for origin, dated in by_origin.items():
            dated.sort()
            first_days, first = dated[0]
            pairs: list[tuple[str | None, str, int]] = [
                (None, column, days) for days, column in dated[:1] if origin == MADE and days > 0
            ]
            pairs += [(first, column, days - first_days) for days, column in dated[1:]]
            for start, column, gap in pairs:
                if gap <= 0:
                    continue
                sides = moves.get(column, []) + [-m if m is not None else None for m in moves.get(start or "", [])]
                if None in sides or any(m == 0 for m in sides):
                    continue  # set or moved freely: no distance to keep
                out.append(Term(origins.table, start, column, gap, tuple(sorted({m for m in sides if m}))))
    return list(dict.fromkeys(out))


def made_checks(spec: EnvSpec) -> list[MadeCheck]:
    """The create tools' checks of a parent's date against the clock, for tables whose rows tell the
    day they were made (a date set to today, or a term counted from that day)."""
    tables = {t.name: t for t in spec.tables}
    out: list[MadeCheck] = []
    for tool in spec.tools:
        if tool.kind != "write" or not tool.name.startswith("create_"):
            continue
        origins = create_origins(spec, tool)
        if origins is None or origins.table not in tables:
            continue
        refs: dict[str, tuple[str, str, str]] = {}
        for step in tool.steps:
            if isinstance(step, QueryStep) and (m := _FROM.search(step.sql)):
                refs[step.bind] = (m.group(1), m.group(2), m.group(3))
            if not isinstance(step, RequireStep):
                continue
            for m in _CLOCK_CHECK.finditer(step.sql):
                bind, column, op, hours = m.group(1), m.group(2), m.group(3), int(m.group(4) or 0)
                if bind not in refs:
                    continue
                parent, key, arg = refs[bind]
                if any(c.name == arg for c in tables[origins.table].columns):
                    out.append(MadeCheck(origins.table, arg, parent, key, column, op, hours))
    return list(dict.fromkeys(out))


def parse_day(value: Any) -> datetime | None:
    """A seed date or datetime, or None for anything else."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return datetime.fromisoformat(value.replace(" ", "T"))
    except ValueError:
        return None


def gaps(term: Term) -> set[int]:
    """The day counts ``term``'s end may stand after its start."""
    out = {term.days}
    for _ in range(MOST_MOVES):
        out |= {g + m for g in out for m in term.moves}
    return {g for g in out if g > 0}


def made_day(spec: EnvSpec, table: str, row: Mapping[str, Any], all_terms: list[Term]) -> datetime | None:
    """The day ``row`` was made: its date set to today by the create, or its term's end less the term."""
    for term in all_terms:
        if term.table == table and term.start is None and not term.moves and (end := parse_day(row.get(term.end))):
            return end - timedelta(days=term.days)
    column = made_column(spec, table)
    return parse_day(row.get(column)) if column else None


def made_column(spec: EnvSpec, table: str) -> str | None:
    """The date a create tool sets to the day it makes a ``table`` row (``loaned_on``, ``applied_on``)."""
    for tool in spec.tools:
        if tool.kind == "write" and tool.name.startswith("create_"):
            origins = create_origins(spec, tool)
            if origins is not None and origins.table == table:
                return next((c for c, (o, d) in origins.dates.items() if o == MADE and d == 0), None)
    return None


def breaks_term(term: Term, row: Mapping[str, Any], clock: datetime) -> bool:
    end = parse_day(row.get(term.end))
    if end is None:
        return False
    if term.start is None:
        return not term.moves and (end - timedelta(days=term.days)).date() > clock.date()
    start = parse_day(row.get(term.start))
    return start is not None and (end.date() - start.date()).days not in gaps(term)


def holds(check: MadeCheck, made: datetime, value: datetime) -> bool:
    """Whether ``value`` (the parent's date) stood ``check.op`` the clock on ``made``; by the day where
    the made date has no time (a record made that day may have been made at any hour)."""
    edge = made + timedelta(hours=check.hours)
    if made.time() == datetime.min.time():
        value, edge = (
            datetime.combine(value.date(), datetime.min.time()),
            datetime.combine(edge.date(), datetime.min.time()),
        )
    return {"<": value < edge, "<=": value <= edge, ">": value > edge, ">=": value >= edge}[check.op]


def parent_of(check: MadeCheck, rows: Mapping[str, list[dict[str, Any]]]) -> dict[Any, dict[str, Any]]:
    return {r.get(check.key): r for r in rows.get(check.parent, [])}


def broken_checks(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], all_terms: list[Term], checks: list[MadeCheck]
) -> Iterator[tuple[MadeCheck, dict[str, Any], bool]]:
    """(check, row, broken) for each row a made check reads."""
    parents = {c: parent_of(c, rows) for c in checks}
    for check in checks:
        for row in rows.get(check.table, []):
            parent = parents[check].get(row.get(check.via))
            made = made_day(spec, check.table, row, all_terms)
            value = parse_day(parent.get(check.column)) if parent else None
            if made is not None and value is not None:
                yield check, row, not holds(check, made, value)


@dataclass
class TermCounts:
    """Dates read against the tool that makes their record, and those that disagree."""

    term_dates_checked: int = 0
    dates_against_their_terms: int = 0


def dates_against_terms(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> TermCounts:
    """Measure 52 over ``rows`` (table -> rows; the seed by default)."""
    rows = spec.seed if rows is None else rows
    out = TermCounts()
    all_terms = terms(spec)
    for term in all_terms:
        for row in rows.get(term.table, []):
            if parse_day(row.get(term.end)) is None:
                continue
            out.term_dates_checked += 1
            out.dates_against_their_terms += breaks_term(term, row, spec.clock)
    for _, _, broken in broken_checks(spec, rows, all_terms, made_checks(spec)):
        out.term_dates_checked += 1
        out.dates_against_their_terms += broken
    return out
