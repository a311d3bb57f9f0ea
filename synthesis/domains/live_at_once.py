"""Seed rows that keep a person in one place, one home and one open job per thing at a time (the
quality report's measure 60, :mod:`envs.quality.live_at_once`): a hotel guest in house in one room,
a tenant with one lease running, one open repair ticket per bike.

The seed generator asks :class:`LiveHoldings` (through ``one_off.Holdings``) while it draws a table's
rows: a row that would be a second live one of its person or thing takes a state that is over (a
stay checked out, a ticket collected) instead, so the person keeps the record for tasks to find
among, not a second one at once. Leases with no status are drawn before their tickets and live by
their end date: :func:`end_extra_homes` ends all but one of a person's running leases after the
draw, and closes the jobs still open under every lease that has ended (a ticket on a lease that
ended is no open one).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from envs.formats.spec import EnvSpec, TableSpec
from envs.quality.live_at_once import (
    JOBS,
    THINGS,
    VISITS,
    end_columns,
    ended_homes,
    job_open,
    live_rules,
    present,
)
from envs.quality.one_off import called_off, singular

from .domain import Domain, Entity

#: Days before the clock an ended lease's end date is drawn within.
_ENDED_DAYS = (20, 200)


def _last(table: str) -> str:
    return singular(table.lower().split("_")[-1])


def _rules(domain: Domain, entity: Entity) -> list[tuple[str, Callable[[Any], bool]]]:
    """(reference column, whether a status is live) for each way ``entity``'s rows are held one at a time."""
    if entity.lifecycle is None:
        return []
    out: list[tuple[str, Callable[[Any], bool]]] = []
    person = [r.column for r in entity.references if r.entity == domain.user_entity]
    if len(person) == 1 and _last(entity.table) in VISITS:
        out.append((person[0], present))
    if _last(entity.table) in JOBS:
        for ref in entity.references:
            if ref.entity not in (entity.name, domain.user_entity) and _last(domain.entity(ref.entity).table) in THINGS:
                out.append((ref.column, job_open))
    return out


class LiveHoldings:
    """Who or what holds a live row of one table so far, against measure 60."""

    def __init__(self, domain: Domain, entity: Entity) -> None:
        self.rules = _rules(domain, entity)
        states = entity.lifecycle.states if entity.lifecycle else []
        leaving = {s for t in entity.lifecycle.transitions for s in t.from_states} if entity.lifecycle else set()
        over = [s for s in states if not any(live(s) for _, live in self.rules)]
        # a state that is over for good and was not called off first (checked out, collected)
        self.over = sorted(over, key=lambda s: (s in leaving, called_off(s)))
        self._held: set[tuple[str, Any]] = set()

    def settle(self, row: dict[str, Any], status: Any, alike: list[str]) -> Any:
        """``status``, or, when a live one of the row's person or thing is held already, a state that
        is not live: of ``alike`` (those its dates fit: a second car reserved, not parked) first, else
        one that is over (a stay checked out)."""
        for column, live in self.rules:
            if live(status) and (column, row.get(column)) in self._held:
                fitting = [s for s in alike if not any(test(s) for _, test in self.rules)]
                return (fitting or self.over or [status])[0]
        return status

    def keep(self, row: dict[str, Any], status: Any) -> None:
        self._held.update((column, row.get(column)) for column, live in self.rules if live(status))

    def keeps(self, table_rows: list[dict[str, Any]], field: str, row: dict[str, Any], status: Any) -> bool:
        """Whether moving ``row`` to ``status`` leaves it the only live one of its person or thing."""
        return not any(
            live(status) and any(o is not row and o.get(c) == row.get(c) and live(o.get(field)) for o in table_rows)
            for c, live in self.rules
        )


# -- homes with no status ----------------------------------------------------------------------------
def _home_tables(spec: EnvSpec) -> list[tuple[TableSpec, str, list[str]]]:
    """(table, person column, end columns) of the status-less home tables measure 60 reads."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for rule in live_rules(spec):
        table = tables[rule.table]
        statuses = any(c.name == "status" or c.name.endswith("_status") for c in table.columns)
        if rule.shape == "home" and not statuses and (ends := end_columns(table)):
            out.append((table, rule.key, ends))
    return out


def end_extra_homes(domain: Domain, spec: EnvSpec) -> int:
    """End all but one of each person's running status-less leases (the one with the most open records
    under it, then the latest to end stays), and call off the jobs still open under every lease that
    ended (closed, not cancelled); returns how many leases ended."""
    rng = random.Random(f"homes:{spec.id}")
    today = spec.clock.strftime("%Y-%m-%d")
    changed = 0
    for table, person, ends in _home_tables(spec):
        entity = next(e for e in domain.entities if e.table == table.name)
        key = table.primary_key[0]
        rows = spec.seed.get(table.name, [])
        running: dict[Any, list[dict[str, Any]]] = {}
        for row in rows:
            if all(str(row.get(e) or "")[:10] >= today for e in ends) and row.get(person) is not None:
                running.setdefault(row[person], []).append(row)
        for leases in running.values():
            if len(leases) < 2:
                continue
            leases.sort(key=lambda r: (_open_under(domain, entity, spec, r[key]), max(str(r[e]) for e in ends)))
            for row in leases[:-1]:
                day = spec.clock - timedelta(days=rng.randint(*_ENDED_DAYS))
                for e in ends:
                    row[e] = f"{day:%Y-%m-%d}"
                changed += 1
        _close_under(domain, entity, spec, ended_homes(spec, spec.seed)[table.name][1])
    return changed


def _children(domain: Domain, entity: Entity, jobs: bool = False) -> list[tuple[Entity, str]]:
    """(child entity, its reference column) of the entities with a lifecycle under ``entity``; with
    ``jobs``, those named for work (tickets, repairs)."""
    return [
        (child, ref.column)
        for child in domain.entities
        for ref in child.references
        if ref.entity == entity.name and child.name != entity.name and child.lifecycle is not None
        if not jobs or _last(child.table) in JOBS
    ]


def _open_under(domain: Domain, entity: Entity, spec: EnvSpec, key: Any) -> int:
    """How many rows under ``entity``'s row ``key`` are in a state some transition leaves (still open)."""
    count = 0
    for child, column in _children(domain, entity):
        lc = child.lifecycle
        assert lc is not None
        leaving = {s for t in lc.transitions for s in t.from_states}
        count += sum(
            1 for row in spec.seed.get(child.table, []) if row.get(column) == key and row.get(lc.field) in leaving
        )
    return count


def _close_under(domain: Domain, entity: Entity, spec: EnvSpec, ended: set[Any], jobs: bool = True) -> None:
    """Open rows under an ended record (its jobs, then what is open under those) take their own end,
    one that is over for good and not called off where there is one (a ticket closed, a visit
    completed): a tenant who moved out had the leak seen to."""
    for child, column in _children(domain, entity, jobs=jobs):
        assert child.lifecycle is not None
        field, key = child.lifecycle.field, _pk(spec, child.table)
        moved = set()
        for row in spec.seed.get(child.table, []):
            if row.get(column) in ended and (end := _end_state(child, row.get(field))) != row.get(field):
                row[field] = end
                moved.add(row[key])
        if moved:
            _close_under(domain, child, spec, moved, jobs=False)


def _pk(spec: EnvSpec, table: str) -> str:
    return next(t.primary_key[0] for t in spec.tables if t.name == table)


def _end_state(entity: Entity, status: Any) -> Any:
    """``status`` if it is over for good, else the entity's first end not called off (else its first end)."""
    lc = entity.lifecycle
    assert lc is not None
    leaving = {s for t in lc.transitions for s in t.from_states}
    ends = sorted((s for s in lc.states if s not in leaving), key=lambda s: called_off(s))
    return ends[0] if ends and status in leaving else status
