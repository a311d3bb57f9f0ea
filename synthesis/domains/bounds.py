"""Seed values that agree with the record they belong to (the quality report's measures 48 and 49,
:mod:`envs.quality.bounds` and :mod:`envs.quality.agreement`): guests within the room's capacity, a
rebate asked within its program's maximum, a program paid at most its list price, an expense receipt
not before the trip; a bill still owed paid in part, not in full; a vehicle under a live hold not
marked available; net pay within gross; a fine balance what the open fines add up to.

:func:`fit_bounds` runs with the amounts (``amounts.fit_amounts``), once statuses are final, and
redraws a count or an amount beyond its bound inside it, scales the payments of a record still owed
to a part of what it owes, and marks a thing under a live hold taken. :func:`settle_bound_dates`
runs with the children's dates (``child_dates.settle_child_dates``) and moves a date of what
happened during a span to the span's first days, on the same side of the clock.
"""

from __future__ import annotations

import math
import random
from datetime import timedelta
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.agreement import Link, due_column, paid_links, paid_towards, paid_yet_due, taken_links
from envs.quality.bounds import STILL_OWED, balances, beyond, bounds, is_during, is_start, limit_rows, still_owed
from envs.quality.one_off import free_flag, held, says_free
from envs.quality.seed import status_columns
from envs.quality.seed_time import date_columns

from .domain import Domain, Entity
from .timeline import TIME, inverted, parse

#: Values of a free flag that say a thing is taken, in the order they are preferred.
TAKEN_VALUES = ("on_hold", "held", "reserved", "occupied", "rented", "leased", "taken", "unavailable")
#: The part of what it owes a record still owed has been paid, at most (a payment on account).
PART_PAID = (0.2, 0.6)
#: Below the bound, a redrawn count or amount: a room well filled, a rebate near its maximum.
_FILL = (0.55, 1.0)
#: A part of an amount on its row, redrawn: net pay is 60-85 % of gross.
_PART = (0.6, 0.85)
_SPAN_DAYS = 3  # a date moved into a span falls on one of its first days


def fit_bounds(spec: EnvSpec) -> int:
    """Redraw the seed values that disagree with their record (in place); returns how many changed."""
    rng = random.Random(f"bounds:{spec.id}")
    kinds = {(t.name, c.name): c.type for t in spec.tables for c in t.columns}
    changed = 0
    for bound in bounds(spec):
        if bound.kind != "at most":
            continue
        for row, parent in limit_rows(bound, spec.seed):
            limit = parent.get(bound.limit)
            if not beyond(bound, row.get(bound.column), limit) or not isinstance(limit, int | float):
                continue
            if "paid" in bound.column.split("_") and kinds[bound.table, bound.column] == "real":
                row[bound.column] = limit  # a list price is what is paid for it
            elif kinds[bound.table, bound.column] == "integer":
                row[bound.column] = rng.randint(max(1, math.ceil(limit * _FILL[0])), int(limit))
            else:
                share = rng.uniform(*(_PART if not bound.path else _FILL))
                row[bound.column] = math.floor(limit * share * 100) / 100
            changed += 1
    return changed + _pay_in_part(spec, rng) + _mark_taken(spec) + _settle_balances(spec)


def _settle_balances(spec: EnvSpec) -> int:
    """Make each balance what its children still owe: the open fines scaled to a balance that has
    them (so members owing more than a limit stay), a balance of 0 set to the sum of its open fines.
    A balance with no open fine is left (measure 48 still counts it): zeroing it took the members a
    borrowing limit refuses from the tasks."""
    settled = 0
    for balance in balances(spec):
        owed = still_owed(balance, spec.seed)
        key, column = balance.fk.references[0], balance.fk.columns[0]
        for parent in spec.seed.get(balance.parent, []):
            value, due = parent.get(balance.column), owed.get(parent.get(key), 0.0)
            if not isinstance(value, int | float) or abs(value - due) <= 0.005 or (value > 0 and due == 0):
                continue  # a balance no open child stands for is left: members owing above a limit stay for tasks
            if value > 0 and due > 0:
                open_rows = [
                    r
                    for r in spec.seed.get(balance.child, [])
                    if r.get(column) == parent.get(key)
                    and isinstance(r.get("amount"), int | float)
                    and any(str(r.get(s) or "").lower() in STILL_OWED for s in balance.statuses)
                ]
                left = round(value, 2)
                for r in open_rows[:-1]:
                    r["amount"] = math.floor(r["amount"] * value / due * 100) / 100
                    left = round(left - r["amount"], 2)
                open_rows[-1]["amount"] = left
            else:
                parent[balance.column] = round(due, 2)
            settled += 1
    return settled


def balances_follow_children(spec: EnvSpec) -> int:
    """Set each balance that open children stand for to what they add up to (in place): run once a
    child's amount is fixed by the tool that posts it (a lost-item fine of 25.00), which the balance
    then follows rather than the other way round. Returns how many balances changed."""
    settled = 0
    for balance in balances(spec):
        owed = still_owed(balance, spec.seed)
        key = balance.fk.references[0]
        for parent in spec.seed.get(balance.parent, []):
            value, due = parent.get(balance.column), owed.get(parent.get(key), 0.0)
            if isinstance(value, int | float) and due > 0 and abs(value - due) > 0.005:
                parent[balance.column] = round(due, 2)
                settled += 1
    return settled


def _pay_in_part(spec: EnvSpec, rng: random.Random) -> int:
    """Scale the payments of each record still owed, and paid in full, to a part of what it owes."""
    scaled = 0
    for link in paid_links(spec):
        paid = paid_towards(link, spec.seed)
        key, column = link.fk.references[0], link.fk.columns[0]
        for parent in spec.seed.get(link.parent.name, []):
            total = paid.get(parent.get(key))
            if total is None or total <= 0 or not paid_yet_due(link, parent, total):
                continue
            share = parent[due_column(link.parent) or ""] * rng.uniform(*PART_PAID) / total
            for row in spec.seed.get(link.child.name, []):
                if row.get(column) == parent.get(key) and isinstance(row.get("amount"), int | float):
                    row["amount"] = math.floor(row["amount"] * share * 100) / 100
            scaled += 1
    return scaled


def _mark_taken(spec: EnvSpec) -> int:
    """Mark each thing under a live hold (lease, rental, permit) taken, where its flag can say so."""
    marked = 0
    for link in taken_links(spec):
        flag = free_flag(link.parent)
        assert flag is not None
        column = next(c for c in link.parent.columns if c.name == flag)
        seen = {r.get(flag) for r in spec.seed.get(link.parent.name, [])}
        choices = column.enum or sorted(v for v in seen if isinstance(v, str))
        taken: bool | str | None = False
        if column.type == "text":
            taken = next((v for v in TAKEN_VALUES if v in choices), None)
            if taken is None:
                continue
        held = {r.get(link.fk.columns[0]) for r in spec.seed.get(link.child.name, []) if _live(link, r)}
        for parent in spec.seed.get(link.parent.name, []):
            if parent.get(link.fk.references[0]) in held and says_free(parent.get(flag)):
                parent[flag] = taken
                marked += 1
    return marked


def _live(link: Link, row: dict[str, Any]) -> bool:
    return any(held(row.get(c.name)) for c in status_columns(link.child))


def started_columns(domain: Domain, entity: Entity) -> dict[str, str]:
    """Reference column -> the parent's date its span started, for an entity dated by something that
    happened during that span (a claim's incident during its policy's trip): the seed generator puts
    such a row under a parent whose span has started, so the date can fall inside it."""
    if not any(a.kind in ("date", "datetime") and is_during(a.name) for a in entity.attributes):
        return {}
    out = {}
    for ref in entity.references:
        parent = domain.entity(ref.entity)
        start = next((a.name for a in parent.attributes if a.kind in ("date", "datetime") and is_start(a.name)), None)
        if ref.entity != entity.name and start is not None:
            out[ref.column] = start
    return out


def settle_bound_dates(spec: EnvSpec) -> int:
    """Move a child's date of what happened during its record's span (an incident, a receipt) that
    falls before the span started to one of its first days (in place). The date stays on its side of
    the clock, so a date a lifecycle times (an aired spot's air date) may move too: a
    move that would put a past event after the clock, or turn the row's dates backwards, is not made.
    Returns how many rows moved."""
    rng = random.Random(f"bound-dates:{spec.id}")
    moved = 0
    for bound in bounds(spec):
        if bound.kind != "not before":
            continue
        table = next(t for t in spec.tables if t.name == bound.table)
        kinds = {c.name: c.type for c in date_columns(table)}
        for row, parent in limit_rows(bound, spec.seed):
            start = parent.get(bound.limit)
            value = row.get(bound.column)
            if not beyond(bound, value, start):
                continue
            assert isinstance(value, str) and isinstance(start, str)
            new = parse(start[:10]) + timedelta(days=rng.randint(0, _SPAN_DAYS), hours=rng.randint(9, 17))
            if parse(value) <= spec.clock < new:  # a past event stays past (a date a lifecycle times, too)
                continue
            before = row[bound.column]
            row[bound.column] = new.strftime("%Y-%m-%d") if kinds.get(bound.column) == "date" else new.strftime(TIME)
            if inverted(row, kinds):
                row[bound.column] = before
                continue
            moved += 1
    return moved
