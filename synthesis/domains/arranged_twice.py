"""Seed rows that keep one arrangement of a kind per person or thing at a time (the quality report's
measure 114, :mod:`envs.quality.arranged_twice`): one active full-coverage contract per oil tank, one
claim per benefit year.

Run after the seed's statuses are drawn and before dates follow them. A cover that clashes with an
earlier one of its tank, pet or vehicle and kind is called off by a move its lifecycle has from its
state (the customer's own first: a contract cancelled), and the dates that follow put it in the past.
A claim whose benefit year overlaps a kept one (the live claim, then those with records under them)
and that nothing refers to is dropped: it was never filed. A claim with certifications under it
stays, since the domain keeps every claim's benefit year ahead (an earlier, ended year is no state
it allows), so measure 114 may still read such a claimant.
"""

from __future__ import annotations

from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.arranged_twice import Arrangement, arrangements, clashes, grouped
from envs.quality.one_off import held

from .domain import Domain


def _end_move(domain: Domain, table: str, status: Any) -> Any:
    """The state a move takes a held row of ``table`` to that is no longer held: the customer's own
    move first (a contract cancelled, which says nothing of its dates, where an expiry would need its
    free-look window past too); ``status`` when the lifecycle has none."""
    entity = next((e for e in domain.entities if e.table == table), None)
    if entity is None or entity.lifecycle is None:
        return status
    moves = [t for t in entity.lifecycle.transitions if status in t.from_states and not held(t.to)]
    moves.sort(key=lambda t: t.actor != "customer")
    return moves[0].to if moves else status


def _end_covers(domain: Domain, spec: EnvSpec, rule: Arrangement) -> int:
    moved = 0
    for group in grouped(rule, spec.seed).values():
        for row in list(clashes(rule, group)):
            end = _end_move(domain, rule.table, row.get(rule.status))
            if end != row.get(rule.status):
                row[rule.status] = end
                moved += 1
    return moved


def _referenced(spec: EnvSpec, table: str) -> set[Any]:
    """Keys of ``table``'s rows some other seed row references."""
    out: set[Any] = set()
    for other in spec.tables:
        for fk in other.foreign_keys:
            if fk.table == table and other.name != table and len(fk.columns) == 1:
                out.update(r.get(fk.columns[0]) for r in spec.seed.get(other.name, []))
    return out


def _drop_unfiled_years(spec: EnvSpec, rule: Arrangement) -> int:
    """Drop the rows whose year-long term overlaps a kept one and that nothing refers to (a claim with
    no certification under it was never filed); the live row, then those with records under them,
    are kept. A domain whose rules keep every claim's year ahead (a closed claim's benefit year still
    running) leaves no earlier year to move one into, so a claim with records under it stays."""
    table = next(t for t in spec.tables if t.name == rule.table)
    key = table.primary_key[0]
    referenced = _referenced(spec, rule.table)
    dropped: set[int] = set()
    for group in grouped(rule, spec.seed).values():
        group.sort(key=lambda r: (not held(r.get(rule.status)), r.get(key) not in referenced))
        for row in list(clashes(rule, group, years=True)):
            if row.get(key) not in referenced:
                dropped.add(id(row))
                group.remove(row)
    spec.seed[rule.table] = [r for r in spec.seed.get(rule.table, []) if id(r) not in dropped]
    return len(dropped)


def settle_arrangements(domain: Domain, spec: EnvSpec) -> int:
    """Keep measure 114 at zero in ``spec``'s seed; returns how many rows moved."""
    moved = 0
    for rule in arrangements(spec):
        if rule.covers:
            moved += _end_covers(domain, spec, rule)
        if rule.years:
            moved += _drop_unfiled_years(spec, rule)
    return moved
