"""Seed rows that record one real thing once (the quality report's measure 45,
:mod:`envs.quality.one_off`): one return of a purchase, one refund of a return, one invoice of a load
offer, one claim open at a time for a claimant, one live subscription per viewer, one live hold on a
vehicle.

The seed generator asks :class:`Holdings` while it draws a table's rows: an act done once to a thing
(a return of a purchase) picks a parent that has none yet, and leaves about a fifth of the parents
without one, so a task can still ask for a first return; a record a person holds one at a time takes
another state of its kind (a cancelled subscription beside the active one) when the person holds one
already, or is left out; a live row that takes one thing (a hold on a vehicle, a lease of a box)
picks a thing no live row takes yet, among those free or taken (not a sold one), or is left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from envs.quality.one_off import done_once, held, held_one_at_a_time, is_free_flag, says_free, taking_table

from .domain import Domain, Entity
from .live_at_once import LiveHoldings

#: The share of a one-off act's parents the seed leaves without one, for tasks that file the first.
FREE_SHARE = 5
#: The share of the things a live row may take that the seed leaves free, for tasks that take one.
TAKEN_SHARE = 3
#: Values of a free flag that say a thing is taken (``synthesis.domains.bounds`` marks them so).
TAKEN_WORDS = frozenset({"on_hold", "held", "reserved", "occupied", "rented", "leased", "taken", "unavailable"})


def _reaches_user(domain: Domain, name: str, hops: int = 4) -> bool:
    entity = domain.entity(name)
    if hops == 0:
        return False
    return any(
        r.entity == domain.user_entity or (r.entity != name and _reaches_user(domain, r.entity, hops - 1))
        for r in entity.references
    )


def once_columns(domain: Domain, entity: Entity) -> list[str]:
    """Reference columns of ``entity`` to a parent that undergoes its act once: a person's record
    (not the person) whose name is one thing, for an entity whose name is such an act."""
    out = []
    for ref in entity.references:
        parent = domain.entity(ref.entity)
        if ref.entity in (entity.name, domain.user_entity) or not _reaches_user(domain, ref.entity):
            continue
        if done_once(entity.table, parent.table):
            out.append(ref.column)
    return out


def taking_columns(domain: Domain, entity: Entity) -> dict[str, str]:
    """Reference column -> the parent's free flag, for an entity whose live rows take one thing each
    (a hold on a vehicle whose ``availability`` says whether it is free)."""
    if entity.lifecycle is None or not taking_table(entity.table):
        return {}
    out = {}
    for ref in entity.references:
        if ref.entity in (entity.name, domain.user_entity):
            continue
        flag = next(
            (
                a.name
                for a in domain.entity(ref.entity).attributes
                if a.kind in ("boolean", "enum") and is_free_flag(a.name)
            ),
            None,
        )
        if flag is not None:
            out[ref.column] = flag
    return out


class Holdings:
    """What one table's seed rows hold so far, against measure 45."""

    def __init__(self, domain: Domain, entity: Entity) -> None:
        self.once = once_columns(domain, entity)
        self._taken: Counter[tuple[str, Any]] = Counter()
        person = [r.column for r in entity.references if r.entity == domain.user_entity]
        self.key: tuple[str, ...] = ()
        if entity.lifecycle is not None and len(person) == 1 and held_one_at_a_time(entity.table):
            others = [r.column for r in entity.references if r.entity != domain.user_entity]
            self.key = (person[0], *others)
        self._held: set[tuple[Any, ...]] = set()
        self.taking = taking_columns(domain, entity)
        self._takers: set[tuple[str, Any]] = set()
        self.live = LiveHoldings(domain, entity)

    def untaken(self, column: str, choices: list[str], status: Any, rows: dict[str, dict[str, Any]]) -> list[str]:
        """The parents in ``choices`` a row in ``status`` may take: for a live row, those no live row
        takes yet and whose flag says free or taken (a hold goes on no sold vehicle), those marked
        taken first, while more than a third of those stay free for tasks that take one."""
        if column not in self.taking or not held(status):
            return choices
        flag = self.taking[column]
        free = {
            p for p, r in rows.items() if says_free(v := r.get(flag)) or v is False or str(v).lower() in TAKEN_WORDS
        }
        taken = sum(1 for c, _ in self._takers if c == column)
        if taken >= len(free) - max(1, len(free) // TAKEN_SHARE):
            return []
        fresh = [p for p in choices if (column, p) not in self._takers and p in free]
        marked = [p for p in fresh if not says_free(rows[p].get(flag))]
        return marked or fresh  # a thing already marked taken first: those marked free stay free

    def parents(self, column: str, choices: list[str], parents: list[str]) -> list[str]:
        """The parents in ``choices`` a new row's act may be of: those with none yet, while more than
        a fifth of all ``parents`` have none."""
        if column not in self.once:
            return choices
        used = sum(1 for (c, _), n in self._taken.items() if c == column and n)
        if used >= len(parents) - max(1, len(parents) // FREE_SHARE):
            return []
        return [p for p in choices if not self._taken[column, p]]

    def settle(self, row: dict[str, Any], status: Any, alike: list[str]) -> Any:
        """``status``, or when the person holds such a record already and ``status`` holds one too, the
        first of ``alike`` that holds none; None when there is none (leave the row out)."""
        if self.key and held(status) and self._key(row) in self._held:
            status = next((s for s in alike if not held(s)), None)
        return self.live.settle(row, status, alike)  # one stay in house per guest: the others checked out

    def keep(self, row: dict[str, Any], status: Any) -> None:
        """Count ``row`` (kept with ``status``)."""
        self._taken.update((c, row.get(c)) for c in self.once if row.get(c) is not None)
        self.live.keep(row, status)
        if self.key and held(status):
            self._held.add(self._key(row))
        if held(status):
            self._takers.update((c, row.get(c)) for c in self.taking if row.get(c) is not None)

    def _key(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row.get(c) for c in self.key)


def holds_once_in_seed(
    domain: Domain, seed: dict[str, list[dict[str, Any]]]
) -> Callable[[str, dict[str, Any], Any], bool]:
    """Whether moving a seed row of a table to a status leaves its person holding one such record at a
    time, and its thing taken by one live row (a later pass that moves a status to fit a date must not
    open a second subscription, nor a second hold on a vehicle)."""
    keys = {e.table: Holdings(domain, e).key for e in domain.entities}
    taking = {e.table: list(taking_columns(domain, e)) for e in domain.entities}
    fields = {e.table: e.lifecycle.field for e in domain.entities if e.lifecycle is not None}
    live = {e.table: LiveHoldings(domain, e) for e in domain.entities}

    def shared(table: str, row: dict[str, Any], key: list[str] | tuple[str, ...], each: bool) -> bool:
        """Whether another held row of ``table`` has ``row``'s values of ``key`` (all, or any one)."""
        mine = [row.get(c) for c in key]
        for other in seed.get(table, []):
            if other is row or not held(other.get(fields[table])):
                continue
            same = [other.get(c) == v and v is not None for c, v in zip(key, mine, strict=True)]
            if any(same) if each else all(same):
                return True
        return False

    def keeps(table: str, row: dict[str, Any], status: Any) -> bool:
        if table in fields and not live[table].keeps(seed.get(table, []), fields[table], row, status):
            return False
        if not held(status):
            return True
        key, takes = keys.get(table), taking.get(table)
        return not (key and shared(table, row, key, False)) and not (takes and shared(table, row, takes, True))

    return keeps
