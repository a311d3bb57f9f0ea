"""A status agrees with the day named for it (the quality report's measure 109,
:mod:`envs.quality.status_dates`): no glasses ready for pickup before their ready day, none still at
the lab a month after it.

:func:`settle_status_dates` runs once statuses and dates are final. A row whose status says the event
happened takes a day 0–6 days before the clock; a row still waiting for it, one 1–10 days ahead. The
row's dates on or after the old day move with it by the same shift, so a term counted from it (a
warranty 30 days after the ready day) keeps its length, and its earlier dates (the day it was made)
stay before it. A day whose move would break what its create checked on the day it tells the row was
made (measure 52: glasses ordered ten days before their ready day, on a prescription not yet expired)
tries the other days of its range (a late row's from a few days late on, moving it least first).
Where none holds, a late row that a tool may call off from its status, and that no row points at, is
called off (an order placed a month ago on a prescription expired since was cancelled); any other is
left as drawn.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec, TableSpec
from envs.quality.one_off import called_off
from envs.quality.seed import status_columns
from envs.quality.status_dates import LATE_DAYS, status_date_findings
from envs.quality.status_fields import moved_from
from envs.quality.terms import MadeCheck, Term, breaks_term, holds, made_checks, made_day, parse_day, terms

#: Days before the clock a day that has come is put on, and after it one still awaited.
DONE_DAYS = (0, 6)
WAITING_DAYS = (1, 10)


class _Made:
    """What measure 52 reads of one row: its terms and its create's checks on the day it was made."""

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self.terms: list[Term] = terms(spec)
        self.checks: list[MadeCheck] = made_checks(spec)

    def broken(self, table: str, row: dict[str, Any]) -> int:
        out = sum(breaks_term(t, row, self.spec.clock) for t in self.terms if t.table == table)
        for check in (c for c in self.checks if c.table == table):
            parent = next(
                (r for r in self.spec.seed.get(check.parent, []) if r.get(check.key) == row.get(check.via)), None
            )
            made = made_day(self.spec, table, row, self.terms)
            value = parse_day(parent.get(check.column)) if parent else None
            out += made is not None and value is not None and not holds(check, made, value)
        return out


def _shifted(value: str, days: int) -> str:
    moved = datetime.strptime(value[:10], "%Y-%m-%d") + timedelta(days=days)
    return moved.strftime("%Y-%m-%d") + value[10:]


def _move_row(row: dict[str, Any], column: str, dated: list[str], target: str) -> bool:
    """Move ``row[column]`` to the day ``target`` with the row's later dates; False where it would land
    before an earlier date of the row."""
    old = str(row[column])
    earlier = [str(row[c])[:10] for c in dated if c != column and isinstance(row.get(c), str) and row[c] < old]
    if any(day > target for day in earlier):
        return False
    days = (datetime.strptime(target, "%Y-%m-%d") - datetime.strptime(old[:10], "%Y-%m-%d")).days
    for c in dated:
        if isinstance(row.get(c), str) and len(row[c]) >= 10 and (c == column or row[c] >= old):
            row[c] = _shifted(row[c], days)
    return True


def _referenced(spec: EnvSpec, table: TableSpec, row: dict[str, Any]) -> bool:
    """Whether some row of another table points at ``row`` by a single-column key."""
    key = row.get(table.primary_key[0])
    return any(
        other.name != table.name and r.get(fk.columns[0]) == key
        for other in spec.tables
        for fk in other.foreign_keys
        if fk.table == table.name and len(fk.columns) == 1
        for r in spec.seed.get(other.name, [])
    )


def _call_off(spec: EnvSpec, table: TableSpec, row: dict[str, Any], column: str) -> bool:
    """Move a late ``row`` to a called-off status a tool reaches from its own; False where none does or
    a row points at it."""
    status = row.get(column)
    ends = [s for s, froms in moved_from(spec, table).items() if called_off(s) and (status in froms or "*" in froms)]
    if not ends or _referenced(spec, table, row):
        return False
    row[column] = sorted(ends)[0]
    return True


def settle_status_dates(spec: EnvSpec) -> int:
    """Put each row's status-named day on the side of the clock its status says (in place); returns
    the rows moved."""
    rng = random.Random(f"status-dates:{spec.id}")
    tables = {t.name: t for t in spec.tables}
    today = datetime(spec.clock.year, spec.clock.month, spec.clock.day)
    made = _Made(spec)
    changed = 0
    for found, row, wrong in list(status_date_findings(spec, spec.seed)):
        if not wrong:
            continue
        # a done row is wrong only with its day ahead, a waiting one only with it long past
        done = str(row[found.column])[:10] > today.strftime("%Y-%m-%d")
        lo, hi = DONE_DAYS if done else WAITING_DAYS
        first = rng.randint(lo, hi)
        # the drawn day first, then the others; a late row's least moved first (late, but within the week)
        shifts = [-first] if done else [first]
        shifts += [-d for d in range(lo, hi + 1)] if done else list(range(-LATE_DAYS + 1, hi + 1))
        dated = [c.name for c in tables[found.table].columns if c.type in ("date", "datetime")]
        was, broken = dict(row), made.broken(found.table, row)
        for shift in shifts:
            target = (today + timedelta(days=shift)).strftime("%Y-%m-%d")
            if _move_row(row, found.column, dated, target) and made.broken(found.table, row) <= broken:
                changed += 1
                break
            row.update(was)
        else:
            status = status_columns(tables[found.table])[0].name
            changed += not done and _call_off(spec, tables[found.table], row, status)
    return changed
