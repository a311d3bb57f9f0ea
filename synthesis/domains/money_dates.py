"""Money rows dated in the order life dates them (the quality report's measure 108,
:mod:`envs.quality.money_dates`): a deposit first and the final payment last, a refund after what it
gives back, a rental's charges and its deposit refund once it started and ended.

:func:`settle_money_dates` runs once the seed's dates are final (after ``horizons.settle_horizons``)
and again once the amounts have settled the rows' kinds (a paid-off layaway's first payment made its
payoff, ``paid_children.pay_children_in_full``). Within each record's money rows the dates trade
places first, so the record keeps the days it had: sorted, they go to the rows in the order of their
roles (an opening, then payments and charges for use, then what closes the record, refunds last).
Then a row still before the day its record allows (a refund before its rental started, a deposit
refund before it ended) moves on to a few days after that day, never past the clock. A row whose
record only starts or ends after the clock cannot be dated at all (a deposit refunded on a rental
still out): it is dropped where nothing references it, on the first run only, before any total is
taken from the rows.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.child_dates import first_recorded
from envs.quality.money_dates import (
    CLOSING,
    OPENING,
    REFUND,
    MoneyFinding,
    MoneyLink,
    money_date_findings,
    money_role,
)

from .timeline import TIME, inverted, parse
from .timing import Anchors

#: Where each role's rows stand among a record's money rows when their dates are handed out again.
_TURN = {OPENING: 0, CLOSING: 2, REFUND: 3}


def _turn(link: MoneyLink, row: dict[str, Any]) -> int:
    return _TURN.get(money_role(link.table, row), 1)


def settle_money_dates(spec: EnvSpec, anchored: Anchors | None = None, *, drop: bool = False) -> int:
    """Put ``spec``'s money rows in order against their record and siblings (in place); with ``drop``,
    remove a row no day before the clock fits. Returns the rows moved or dropped (deterministic)."""
    rng = random.Random(f"money-dates:{spec.id}:{drop}")
    anchored = anchored or (lambda *_: frozenset())
    changed = 0
    for _ in range(3):  # a row under two records may be put out of turn under the other: read again
        findings = [f for f in money_date_findings(spec, spec.seed) if f.broken]
        if not findings:
            break
        moved = _trade_places(spec, findings, anchored)
        for f in money_date_findings(spec, spec.seed):
            if f.broken and not anchored(f.link.table.name, f.row) & set(f.link.dates):
                moved += _move_on(spec, f, rng)
        changed += moved
        if not moved:
            break
    if drop:
        changed += _drop_unplaced(spec)
    return changed


def _trade_places(spec: EnvSpec, findings: list[MoneyFinding], anchored: Anchors) -> int:
    """Hand the dates of each record holding a row out of turn back to its rows in the order of their
    roles; returns the rows whose date changed."""
    moved = 0
    done: set[tuple[str, str, Any]] = set()
    for f in findings:
        key = (f.link.table.name, f.link.column, f.row.get(f.link.column))
        if not f.link.siblings or key in done:
            continue
        done.add(key)
        family = [
            r
            for r in spec.seed.get(f.link.table.name, [])
            if r.get(f.link.column) == key[2]
            and first_recorded(r, f.link.dates) is not None
            and not anchored(f.link.table.name, r) & set(f.link.dates)
        ]
        days = sorted(first_recorded(r, f.link.dates) or "" for r in family)
        by_turn = sorted(family, key=lambda r: (_turn(f.link, r), first_recorded(r, f.link.dates) or ""))
        for row, day in zip(by_turn, days, strict=True):
            moved += _shift(spec, f.link, row, day)
    return moved


def _move_on(spec: EnvSpec, f: MoneyFinding, rng: random.Random) -> int:
    """Move ``f``'s row to a few days after the day it may not come before, or back to the day it may
    not come after; 0 where that day is past the clock."""
    clock_day = spec.clock.strftime("%Y-%m-%d")
    if f.after is not None and f.after > clock_day:
        return 0
    if f.after is not None:
        day = datetime.strptime(f.after, "%Y-%m-%d") + timedelta(days=rng.randint(0, 3))
        if f.before is not None:
            day = min(day, datetime.strptime(f.before, "%Y-%m-%d"))
    elif f.before is not None:
        day = datetime.strptime(f.before, "%Y-%m-%d") - timedelta(days=rng.randint(0, 3))
    else:
        return 0
    return _shift(spec, f.link, f.row, min(day.strftime("%Y-%m-%d"), clock_day))


def _shift(spec: EnvSpec, link: MoneyLink, row: dict[str, Any], day: str) -> int:
    """Shift ``row``'s recorded dates together so the first falls on ``day`` (keeping times of day);
    undone where a date would pass the clock or a pair of the row run backwards. Returns 1 if moved."""
    first = first_recorded(row, link.dates)
    if first is None or first == day:
        return 0
    before = dict(row)
    delta = datetime.strptime(day, "%Y-%m-%d") - datetime.strptime(first, "%Y-%m-%d")
    kinds = {c.name: c.type for c in link.table.columns}
    for column in link.dates:
        value = row.get(column)
        if isinstance(value, str) and len(value) >= 10:
            new = parse(value) + delta
            if new > spec.clock:  # on the clock's day, a time before it
                new = min(new, spec.clock - timedelta(hours=1)).replace(minute=0, second=0)
            row[column] = new.strftime("%Y-%m-%d") if kinds.get(column) == "date" else new.strftime(TIME)
    if inverted(row, kinds):
        row.update(before)
        return 0
    return 1


def _drop_unplaced(spec: EnvSpec) -> int:
    """Drop the money rows still against their record that no other row references."""
    tables = {t.name: t for t in spec.tables}
    gone: dict[str, set[int]] = {}
    for f in money_date_findings(spec, spec.seed):
        if not f.broken or _referenced(spec, f.link.table.name, f.row, tables):
            continue
        gone.setdefault(f.link.table.name, set()).add(id(f.row))
    for name, ids in gone.items():
        spec.seed[name] = [r for r in spec.seed.get(name, []) if id(r) not in ids]
    return sum(len(ids) for ids in gone.values())


def _referenced(spec: EnvSpec, table: str, row: dict[str, Any], tables: dict[str, Any]) -> bool:
    key = row.get(tables[table].primary_key[0])
    return any(
        r.get(fk.columns[0]) == key
        for t in spec.tables
        for fk in t.foreign_keys
        if fk.table == table
        for r in spec.seed.get(t.name, [])
    )
