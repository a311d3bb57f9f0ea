"""Labels that belong together: a value drawn from the pool its key's value names.

A session's topic drawn apart from its tutor's subject ("Essay outline for English class" with a
chemistry tutor), a brunch menu for a "Board of Directors Dinner", a liquor licence on a food truck:
each is believable alone and contradicts its neighbour. A domain keys such an attribute by another,
of the same record or of the record a reference points to (``Attribute.examples_by`` for text and
titles, ``Attribute.values_by`` for enums). The seed draws the keyed value after its key
(:class:`Labels`, row by row), the last pass over the finished seed keeps it after other rules moved
a key (:func:`settle_labels`), and a user's new record takes a value that fits its key
(:func:`fit_inputs`). The spec carries the pools (``ColumnSpec.pools``) for the quality report
(measure 72, ``envs.quality.labels``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.labels import fits_pool, pool_for

from .domain import Attribute, Domain, Entity, Reference, Transition, key_attribute
from .seasons import fits, when_column
from .sqlgen import pk


@dataclass(frozen=True)
class Keyed:
    """``attr`` of ``entity`` takes a value from ``pools`` by the value of ``key`` (an attribute of the
    same record, or of the record ``ref`` points to)."""

    entity: Entity
    attr: Attribute
    ref: Reference | None
    key: str
    pools: Mapping[str, list[str]]

    @property
    def spec_key(self) -> str:
        """The key as the spec's ``ColumnSpec.pools.by`` names it: a column, or ``<fk column>.<column>``."""
        return f"{self.ref.column}.{self.key}" if self.ref is not None else self.key

    def pool(self, row: Mapping[str, Any], parent: Callable[[str, Any], Mapping[str, Any] | None]) -> list[str] | None:
        """The values that fit ``row``'s key (None: any); ``parent(entity, id)`` gives a referenced row."""
        if self.ref is None:
            return pool_for(row.get(self.key), self.pools)
        parent_id = row.get(self.ref.column)
        found = parent(self.ref.entity, parent_id) if parent_id is not None else None
        return pool_for(found.get(self.key), self.pools) if found is not None else None


def keyed(domain: Domain, entity: Entity) -> list[Keyed]:
    """The keyed attributes of ``entity``, each after any same-record key it has."""
    out = []
    for attr in entity.attributes:
        if attr.keyed is None:
            continue
        key, pools = attr.keyed
        ref, target = key_attribute(domain, entity, key)
        assert target is not None  # Domain validates keys
        out.append(Keyed(entity, attr, ref, target.name, pools))
    return out


def _draw(k: Keyed, pool: list[str], row: Mapping[str, Any], taken: set[str], rng: random.Random) -> str | None:
    """A value of ``pool`` for ``row``: in season for a dated title, and for a unique attribute one not
    ``taken`` (a numbered edition once the pool's own are)."""
    choices = list(pool)
    when = when_column(k.entity) if k.attr.kind == "title" else None
    if when is not None:
        choices = [v for v in choices if fits(v, row.get(when))] or choices
    if not k.attr.unique:
        return rng.choice(choices)
    for n in range(1, 100):
        fresh = [v if n == 1 else f"{v} {n}" for v in choices]
        if free := [v for v in fresh if v not in taken]:
            return rng.choice(free)
    return None


class Labels:
    """Keeps one entity's keyed values within their key's pool as its seed rows are drawn."""

    def __init__(self, domain: Domain, entity: Entity, rng: random.Random) -> None:
        self.keyed = keyed(domain, entity)
        self.rng = rng  # its own draws: the rows' other values stay as they were
        self.taken: dict[str, set[str]] = {k.attr.name: set() for k in self.keyed if k.attr.unique}

    def fit(self, row: dict[str, Any], parent: Callable[[str, Any], Mapping[str, Any] | None]) -> int:
        """Redraw ``row``'s keyed values that are off their key's pool; how many moved."""
        moved = 0
        for k in self.keyed:
            value = row.get(k.attr.name)
            pool = k.pool(row, parent)
            taken = self.taken.get(k.attr.name)
            twice = taken is not None and str(value) in taken  # a unique title the pool already gave a row
            if value is not None and pool is not None and (twice or not fits_pool(value, pool)):
                new = _draw(k, pool, row, taken or set(), self.rng)
                if new is not None:
                    row[k.attr.name], value, moved = new, new, moved + 1
            if taken is not None and value is not None:
                taken.add(str(value))
        return moved


def settle_labels(domain: Domain, spec: EnvSpec, seed: int = 0) -> int:
    """Redraw the seed's keyed values that a later rule left off their key's pool (a key enum another
    rule moved, a title a season redrew); how many moved."""
    rng = random.Random(f"{domain.id}:{seed}:labels-settled")
    index = {e.name: {r.get(pk(e)): r for r in spec.seed.get(e.table, [])} for e in domain.entities}
    moved = 0
    for entity in domain.entities:
        labels = Labels(domain, entity, rng)
        if not labels.keyed:
            continue
        for row in spec.seed.get(entity.table, []):
            moved += labels.fit(row, lambda name, key: index[name].get(key))
    return moved


def fit_inputs(
    domain: Domain,
    entity: Entity,
    args: Mapping[str, Any],
    given: dict[str, Any],
    parent: Callable[[str, Any], Mapping[str, Any] | None],
    rng: random.Random,
) -> dict[str, Any]:
    """A new record's inputs with each keyed value the user gives in its key's pool (the key given too,
    or the parent record's): a user books a topic their tutor teaches."""
    out = dict(given)
    row = {**args, **out}
    for k in keyed(domain, entity):
        value = out.get(k.attr.name)
        pool = k.pool(row, parent)
        if value is not None and pool is not None and not fits_pool(value, pool):
            out[k.attr.name] = rng.choice(pool)
    return out


def keeps_dependents(
    domain: Domain,
    entity: Entity,
    row: Mapping[str, Any],
    changes: Mapping[str, Any],
    children: Callable[[Entity], list[dict[str, Any]]],
) -> bool:
    """Whether ``changes`` to ``row`` leave every value keyed by it in its pool: an event renamed
    "Board of Directors Dinner" keeps no brunch menu (``children(entity)``: that entity's rows now)."""
    new = {**row, **changes}
    own = pk(entity)
    for other in domain.entities:
        for k in keyed(domain, other):
            if k.key not in changes:
                continue
            if k.ref is None and other is entity:
                pool = k.pool(new, lambda *_: None)
                if new.get(k.attr.name) is not None and pool is not None and not fits_pool(new[k.attr.name], pool):
                    return False
            elif k.ref is not None and k.ref.entity == entity.name:
                for child in children(other):
                    if child.get(k.ref.column) != row.get(own) or child.get(k.attr.name) is None:
                        continue
                    pool = k.pool(child, lambda *_: new)
                    if pool is not None and not fits_pool(child[k.attr.name], pool):
                        return False
    return True


def keyed_params(
    domain: Domain,
    entity: Entity,
    transition: Transition,
    row: Mapping[str, Any],
    parent: Callable[[str, Any], Mapping[str, Any] | None],
) -> dict[str, list[str]]:
    """Parameter -> the pool its value must come from, for the parameters ``transition`` sets a keyed
    attribute of ``row`` to (``set field:dispute_reason = param:reason``)."""
    by_attr = {k.attr.name: k for k in keyed(domain, entity)}
    out = {}
    for eff in transition.effects:
        source, target = str(eff.value or ""), eff.target or ""
        if eff.kind != "set" or eff.when is not None or not source.startswith("param:"):
            continue
        k = by_attr.get(target.removeprefix("field:")) if target.startswith("field:") else None
        if k is not None and (pool := k.pool(row, parent)) is not None:
            out[source.removeprefix("param:")] = pool
    return out
