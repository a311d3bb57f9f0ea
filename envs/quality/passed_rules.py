"""Records past a rule they break (measure 67, docs/synthesis.md): open rebate applications of one
customer totalling 3,827.68 where a new one is refused past 3,000, a week paid with 34 hours worked
where a week over 30 cannot be certified.

Read from the tools' SQL alone, so the measure runs on any catalog; the seed generator keeps the rules
(``synthesis.domains.passed_rules``).

* **A total a create caps.** A create's check that the rows of one value of a column, in some states,
  total at most a literal amount with the new one (``sum("amount_requested") … AND "status" IN
  ('submitted', …) + :amount_requested <= 3000``) holds of every group of the seed already.
* **A check a status passed.** A tool that moves a row into a status only if a number column of the row
  is within a literal bound (``:rec.hours_worked <= 30`` to submit) or a flag is set (``:rec.x IS 1``)
  says every row in that status, or a later one (the status column's values in order) that no tool
  reaches from a status before it, passed the check: a paid week was submitted. A column the moving tool
  sets itself, or one another tool moves in any state or once the row is past the move, is not read;
  one another tool moves only before it is (a storage unit moving out owes nothing: the balance is paid
  while the unit is rented, and scheduling the move-out checks it is paid).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .own_row import status_of
from .seed import status_columns
from .tool_sql import number, required_moves, required_statuses, updated_columns

_CAP = re.compile(
    r'round\(\(SELECT coalesce\(sum\("?(\w+)"?\), 0\) FROM "?(\w+)"? WHERE "?(\w+)"? = :[\w.]+'
    r'(?: AND "?status"? IN \(([^)]*)\))?\) \+ :[\w.]+, 2\) <= (\d+(?:\.\d+)?)\s*$'
)
_BOUND = re.compile(r"^SELECT :rec\.(\w+) (<=|>=|<|>) (\d+(?:\.\d+)?)$")
_FLAG = re.compile(r"^SELECT :rec\.(\w+) (?:IS|=) (?:1|TRUE)$", re.I)
_EDIT = re.compile(r'^UPDATE "?\w+"? SET "?\w+"? = :\w+ WHERE "?\w+"? = :\w+$')
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
    "=": operator.eq,
}


@dataclass(frozen=True)
class Cap:
    """Rows of ``table`` with one ``group`` value, in ``states`` (all when empty), total at most
    ``amount`` of ``column``."""

    table: str
    column: str
    group: str
    states: frozenset[str]
    amount: float


@dataclass(frozen=True)
class Passed:
    """Rows of ``table`` in ``states`` hold ``column`` ``op`` ``bound``."""

    table: str
    column: str
    op: str
    bound: float
    states: frozenset[str]

    def holds(self, value: float) -> bool:
        return _COMPARE[self.op](value, self.bound)


def caps(spec: EnvSpec) -> list[Cap]:
    """The totals creates cap by a literal amount."""
    out = set()
    for tool in spec.tools:
        for step in tool.steps:
            if step.kind == "require" and (m := _CAP.search(step.sql or "")):
                out.add(Cap(m[2], m[1], m[3], frozenset(re.findall(r"'(\w+)'", m[4] or "")), float(m[5])))
    return sorted(out, key=lambda c: (c.table, c.column, c.group))


def _moves(spec: EnvSpec) -> Iterator[tuple[str, str, set[str], list[str], set[tuple[str, str]]]]:
    """(table, status moved to, from-states, the tool's own-row checks, the columns it sets beside) of
    every tool moving a status."""
    for tool, move, froms in required_moves(spec):
        checks = [(s.sql or "").strip() for s in tool.steps if s.kind == "require"]
        sets = {key for s in tool.steps if s.kind == "exec" for key in updated_columns((s.sql or "").strip())}
        yield move.table, move.state, set(froms), checks, sets


def passed_checks(spec: EnvSpec) -> list[Passed]:
    """The own-row checks a status says its rows passed."""
    tables = {t.name: t for t in spec.tables}
    moves = list(_moves(spec))
    moved = _moved_from(spec)  # a column moved after the check says nothing of what it found
    out = []
    for table, to, _froms, checks, sets in moves:
        statuses = status_columns(tables[table]) if table in tables else []
        order = [v for v in (statuses[0].enum or [])] if statuses else []
        if to not in order:
            continue
        states = _past(order, table, to, moves)
        for check in checks:
            found = _BOUND.match(check) or _FLAG.match(check)
            # a column the move itself sets (a balance paid off as the plan is), or one another tool moves
            # in any state or once the row is past the move, may have left what the check found; one
            # another tool moves only before the move (a balance paid while the unit is rented) was
            # checked as the row moved
            if found and (
                (table, found[1]) in sets or any(not f or f & states for f in moved.get((table, found[1]), []))
            ):
                continue
            if m := _BOUND.match(check):
                out.append(Passed(table, m[1], m[2], float(m[3]), states))
            elif m := _FLAG.match(check):
                out.append(Passed(table, m[1], "=", 1.0, states))
    return out


def _past(
    order: list[str], table: str, to: str, moves: list[tuple[str, str, set[str], list[str], set[tuple[str, str]]]]
) -> frozenset[str]:
    before = set(order[: order.index(to)])
    later = [
        s
        for s in order[order.index(to) + 1 :]
        if not any(t == table and d == s and f & before for t, d, f, _, _ in moves)
    ]
    return frozenset([to, *later])


def states_past(spec: EnvSpec, table: str, to: str) -> frozenset[str]:
    """The statuses of ``table`` that say a row was moved to ``to``: ``to`` and every later one (the
    status column's values in order) that no tool reaches from a status before it; empty where ``to``
    is no value of the status column."""
    tables = {t.name: t for t in spec.tables}
    statuses = status_columns(tables[table]) if table in tables else []
    order = list(statuses[0].enum or []) if statuses else []
    return _past(order, table, to, list(_moves(spec))) if to in order else frozenset()


def _moved_from(spec: EnvSpec) -> dict[tuple[str, str], list[set[str]]]:
    """(table, column) -> the from-states of each tool that moves it by an UPDATE (empty: any state);
    an edit to a parameter's value is no move."""
    out: dict[tuple[str, str], list[set[str]]] = {}
    for tool in spec.tools:
        sql = [(s.kind, (s.sql or "").strip()) for s in tool.steps]
        froms = set(required_statuses(tool))
        for kind, q in sql:
            if kind != "exec" or _EDIT.match(q):
                continue  # a field edited to what the user says is a correction, no step of the process
            for key in updated_columns(q):
                out.setdefault(key, []).append(froms)
    return out


@dataclass
class PassedRuleCounts:
    """Groups and rows read against a rule their records passed, and those past it (measure 67)."""

    capped_rows_checked: int = 0
    rows_past_their_rules: int = 0


def group_totals(cap: Cap, rows: list[dict[str, Any]], table: TableSpec) -> dict[Any, list[dict[str, Any]]]:
    """The rows a cap counts, by their group value."""
    out: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        if row.get(cap.group) is not None and (not cap.states or status_of(row, table) in cap.states):
            out.setdefault(row.get(cap.group), []).append(row)
    return out


def passed_rule_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(shape, breaks) for every group and row read."""
    tables = {t.name: t for t in spec.tables}
    for cap in caps(spec):
        if cap.table not in tables:
            continue
        for group in group_totals(cap, rows.get(cap.table, []), tables[cap.table]).values():
            total = sum(number(r.get(cap.column)) or 0.0 for r in group)
            yield "cap", total > cap.amount + 0.005
    for check in passed_checks(spec):
        for row in rows.get(check.table, []):
            value = row.get(check.column)
            value = float(value) if isinstance(value, bool) else number(value)
            if status_of(row, tables[check.table]) in check.states and value is not None:
                yield "passed", not check.holds(value)


def rows_past_their_rules(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> PassedRuleCounts:
    """Measure 67 over ``rows`` (table -> rows; the seed by default)."""
    out = PassedRuleCounts()
    for _, breaks in passed_rule_findings(spec, spec.seed if rows is None else rows):
        out.capped_rows_checked += 1
        out.rows_past_their_rules += breaks
    return out
