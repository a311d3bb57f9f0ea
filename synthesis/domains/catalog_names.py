"""Reference rows named once (the quality report's measure 71, :mod:`envs.quality.catalog_names`): an
exchange desk sells each currency once, a furniture maker has one showroom of a name.

:func:`catalog_name` finds the attribute a public entity (one that belongs to nobody: no chain of
references reaches the user entity) is named by — ``name`` or ``title``, or its own noun before it
(``currency_name`` of a currency) — where its values come from a list of examples. The seed generator
draws those names without putting one back, and draws no more rows than the list has names; a name
drawn from a pool keyed by the row's own column (a television among the products of category
``television``) sets that column (:func:`key_of_name`), so the pool's rule keeps the name.
"""

from __future__ import annotations

from typing import Any

from envs.quality.catalog_names import names_thing

from .domain import Attribute, Domain, Entity


def _owned(domain: Domain, entity: Entity, seen: frozenset[str] = frozenset()) -> bool:
    if entity.name == domain.user_entity:
        return True
    return any(
        r.entity not in seen and _owned(domain, domain.entity(r.entity), seen | {entity.name})
        for r in entity.references
    )


def catalog_name(domain: Domain, entity: Entity) -> Attribute | None:
    """The attribute a public ``entity`` is named by, where it draws from examples; else None."""
    if _owned(domain, entity):
        return None
    names = {a.name: a for a in entity.attributes if a.kind in ("title", "text") and a.examples and not a.unique}
    return next((a for name, a in names.items() if names_thing(entity.table, name)), None)


def key_of_name(entity: Entity, attr: Attribute, row: dict[str, Any]) -> None:
    """Set ``row``'s key column to the key whose pool holds its ``attr`` name, where ``attr``'s
    examples are keyed by a column of the entity itself (not a parent's) and the row's key has a pool."""
    keyed = attr.keyed
    if keyed is None:
        return
    column, pools = keyed
    if column not in {a.name for a in entity.attributes}:
        return
    if row.get(column) not in pools:  # a key the pools leave out draws from every name: nothing to fit
        return
    name = row.get(attr.name)
    key = next((k for k, pool in pools.items() if name in pool), None)
    if key is not None:
        row[column] = key
