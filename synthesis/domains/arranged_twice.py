"""Seed rows that keep one arrangement of a kind per person or thing at a time (the quality report's
measure 114, :mod:`envs.quality.arranged_twice`): one active full-coverage contract per oil tank, one
claim per benefit year.

Run after the seed's statuses are drawn and before dates follow them. A cover that clashes with an
earlier one of its tank, pet or vehicle and kind is called off by a move its lifecycle has from its
state (the customer's own first: a contract cancelled), and the dates that follow put it in the past.
A claim whose benefit year overlaps a kept one (the live claim, then those with records under them)
and that nothing refers to is dropped: it was never filed. A claim with certifications under it
passes, with them and what is filed under them, to a claimant who holds no claim, since the domain
keeps every claim's benefit year ahead (an earlier, ended year is no state it allows); with no such
claimant left, it is dropped with everything filed under it (its certifications, their payments).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from envs.formats.spec import EnvSpec, TableSpec
from envs.quality.arranged_twice import Arrangement, arrangements, clashes, grouped
from envs.quality.one_off import held
from envs.quality.spec import user_table
from envs.quality.tool_sql import one_reference

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


def referenced_keys(spec: EnvSpec, table: str) -> set[Any]:
    """Keys of ``table``'s rows some other seed row references."""
    out: set[Any] = set()
    for other in spec.tables:
        for fk in other.foreign_keys:
            if fk.table == table and other.name != table and len(fk.columns) == 1:
                out.update(r.get(fk.columns[0]) for r in spec.seed.get(other.name, []))
    return out


def _children(spec: EnvSpec, table: str, keys: set[Any]) -> Iterator[tuple[TableSpec, dict[str, Any]]]:
    """(table, row) of each seed row of another table that references a row of ``table`` keyed in ``keys``."""
    for other in spec.tables:
        for fk in other.foreign_keys:
            if fk.table == table and other.name != table and len(fk.columns) == 1:
                for row in spec.seed.get(other.name, []):
                    if row.get(fk.columns[0]) in keys:
                        yield other, row


def _movable(spec: EnvSpec, rule: Arrangement) -> bool:
    """Whether ``rule``'s rows may pass to another person: keyed by the person and kinds alone, not by
    a thing of the person's own (a tank stays with its owner)."""
    table = next(t for t in spec.tables if t.name == rule.table)
    references = {fk.columns[0] for fk in table.foreign_keys if len(fk.columns) == 1}
    return not references & set(rule.key[1:])


def _free_people(spec: EnvSpec, rule: Arrangement) -> list[Any]:
    """Keys of the people who hold no row of ``rule``'s table, in seed order."""
    users = user_table(spec)
    table = next((t for t in spec.tables if t.name == users), None)
    if table is None or not _movable(spec, rule):
        return []
    holding = {r.get(rule.key[0]) for r in spec.seed.get(rule.table, [])}
    people = [r.get(table.primary_key[0]) for r in spec.seed.get(table.name, [])]
    return [p for p in people if p not in holding]


def _key(spec: EnvSpec, table: str) -> str:
    return next(t for t in spec.tables if t.name == table).primary_key[0]


def _filed_under(spec: EnvSpec, table: str, key: Any) -> list[tuple[TableSpec, dict[str, Any]]]:
    """(table, row) of every seed row filed under ``table``'s row ``key``, directly or through another
    (a certification of a claim, the payment of that certification)."""
    out: list[tuple[TableSpec, dict[str, Any]]] = []
    seen, frontier = {table}, [(table, {key})]
    while frontier:
        table, keys = frontier.pop()
        found: dict[str, set[Any]] = {}
        for child_table, child in _children(spec, table, keys):
            if child_table.name not in seen:
                out.append((child_table, child))
                found.setdefault(child_table.name, set()).add(child.get(child_table.primary_key[0]))
        seen.update(found)
        frontier.extend(found.items())
    return out


def _move(spec: EnvSpec, rule: Arrangement, row: dict[str, Any], person: Any) -> None:
    """Give ``row`` to ``person``, with every row filed under it that names its person, so each still
    names the person of the record it is filed under."""
    users = user_table(spec) or ""
    row[rule.key[0]] = person
    for table, child in _filed_under(spec, rule.table, row.get(_key(spec, rule.table))):
        if (column := one_reference(table, users)) is not None:
            child[column] = person


def _settle_years(spec: EnvSpec, rule: Arrangement) -> int:
    """Leave no two year-long terms of a person overlapping. The live row, then those with records
    under them, are kept; a row clashing with one kept that nothing refers to is dropped (a claim with
    no certification under it was never filed). One with records under it passes, with them, to a
    person who holds none (a domain whose rules keep every claim's year ahead allows no earlier year
    to move it into); with nobody left to take it, it is dropped with everything filed under it, which
    nothing outside refers to."""
    key = _key(spec, rule.table)
    referenced = referenced_keys(spec, rule.table)
    free = _free_people(spec, rule)
    dropped: dict[str, set[int]] = {}
    changed = 0
    for group in grouped(rule, spec.seed).values():
        group.sort(key=lambda r: (not held(r.get(rule.status)), r.get(key) not in referenced))
        for row in list(clashes(rule, group, years=True)):
            group.remove(row)
            if row.get(key) not in referenced:
                dropped.setdefault(rule.table, set()).add(id(row))
            elif free:
                _move(spec, rule, row, free.pop(0))
            else:
                dropped.setdefault(rule.table, set()).add(id(row))
                for table, child in _filed_under(spec, rule.table, row.get(key)):
                    dropped.setdefault(table.name, set()).add(id(child))
            changed += 1
    for name, rows in dropped.items():
        spec.seed[name] = [r for r in spec.seed.get(name, []) if id(r) not in rows]
    return changed


def settle_arrangements(domain: Domain, spec: EnvSpec) -> int:
    """Keep measure 114 at zero in ``spec``'s seed; returns how many rows moved."""
    moved = 0
    for rule in arrangements(spec):
        if rule.covers:
            moved += _end_covers(domain, spec, rule)
        if rule.years:
            moved += _settle_years(spec, rule)
    return moved
