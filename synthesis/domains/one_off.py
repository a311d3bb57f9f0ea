"""Seed rows that record one real thing once (the quality report's measure 45,
:mod:`envs.quality.one_off`): one return of a purchase, one refund of a return, one claim open at a
time for a claimant, one live subscription per viewer.

The seed generator asks :class:`Holdings` while it draws a table's rows: an act done once to a thing
(a return of a purchase) picks a parent that has none yet, and leaves about a fifth of the parents
without one, so a task can still ask for a first return; a record a person holds one at a time takes
another state of its kind (a cancelled subscription beside the active one) when the person holds one
already, or is left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from envs.quality.one_off import done_once, held, held_one_at_a_time

from .domain import Domain, Entity

#: The share of a one-off act's parents the seed leaves without one, for tasks that file the first.
FREE_SHARE = 5


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
        if not self.key or not held(status) or self._key(row) not in self._held:
            return status
        return next((s for s in alike if not held(s)), None)

    def keep(self, row: dict[str, Any], status: Any) -> None:
        """Count ``row`` (kept with ``status``)."""
        self._taken.update((c, row.get(c)) for c in self.once if row.get(c) is not None)
        if self.key and held(status):
            self._held.add(self._key(row))

    def _key(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row.get(c) for c in self.key)


def holds_once_in_seed(
    domain: Domain, seed: dict[str, list[dict[str, Any]]]
) -> Callable[[str, dict[str, Any], Any], bool]:
    """Whether moving a seed row of a table to a status leaves its person holding one such record at a
    time (a later pass that moves a status to fit a date must not open a second subscription)."""
    keys = {e.table: Holdings(domain, e).key for e in domain.entities}
    fields = {e.table: e.lifecycle.field for e in domain.entities if e.lifecycle is not None}

    def keeps(table: str, row: dict[str, Any], status: Any) -> bool:
        key = keys.get(table)
        if not key or not held(status):
            return True
        mine = tuple(row.get(c) for c in key)
        return not any(
            other is not row and held(other.get(fields[table])) and tuple(other.get(c) for c in key) == mine
            for other in seed.get(table, [])
        )

    return keeps
