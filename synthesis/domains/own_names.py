"""A person names each of their own things once (the quality report's measure 95,
:mod:`envs.quality.own_names`): no owner with two businesses trading as "Oak & Iron", no two pets of
one household named Andrea.

:func:`settle_own_names` runs once rows are final: a row repeating a name its owner already gave
takes a name another row of the table has (so the name is one the domain draws, in its pool when the
name is keyed by a column of the row: a campaign's name among those of its kind; one that fits the
row's season: no "Mother's Day Promo" starting in July) that the owner has not given; where every
such name is taken, the row is left as drawn.
"""

from __future__ import annotations

import random

from envs.formats.spec import EnvSpec
from envs.quality.catalog_names import repeated
from envs.quality.own_names import own_names

from .domain import Domain
from .seasons import fits, when_column


def settle_own_names(domain: Domain, spec: EnvSpec) -> int:
    """Rename each row repeating a name its owner gave before (in place); returns how many changed."""
    rng = random.Random(f"own-names:{spec.id}")
    entities = {e.table: e for e in domain.entities}
    renamed = 0
    for names in own_names(spec):
        rows, owner = spec.seed.get(names.table, []), names.parent or ""  # own names always have an owner
        entity = entities.get(names.table)
        attr = next((a for a in entity.attributes if a.name == names.column), None) if entity else None
        key = attr.keyed[0] if attr is not None and attr.keyed is not None else None
        when = when_column(entity) if entity is not None else None  # "Mother's Day Promo" stays in May
        for row in repeated(names, rows):
            given = {str(r.get(names.column)).strip().lower() for r in rows if r.get(owner) == row.get(owner)}
            pool = sorted(
                {
                    r[names.column]
                    for r in rows
                    if isinstance(r.get(names.column), str)
                    and r[names.column].strip().lower() not in given
                    and (key is None or "." in key or r.get(key) == row.get(key))
                    and (when is None or fits(r[names.column], row.get(when)))
                }
            )
            if pool:
                row[names.column] = rng.choice(pool)
                renamed += 1
    return renamed
