"""One owner holds a thing once (the quality report's measure 84, :mod:`envs.quality.owned_twice`): no
player owns one game through two purchases.

:func:`settle_owned_twice` runs once statuses are final: a second row owning what the person already
owns moves to a thing of the same table they do not own yet, keeping its status, dates and the rows
under it; where they own every one, the row is left as drawn.
"""

from __future__ import annotations

import random

from envs.formats.spec import EnvSpec
from envs.quality.owned_twice import held_twice


def settle_owned_twice(spec: EnvSpec) -> int:
    """Move each second copy of a thing a person owns to one they do not (in place); returns how many
    rows moved."""
    rng = random.Random(f"owned-twice:{spec.id}")
    tables = {t.name: t for t in spec.tables}
    moved = 0
    for title, row, again in list(held_twice(spec, spec.seed)):
        if not again:
            continue
        key = tables[title.thing_table].primary_key[0]
        held = {
            r.get(title.thing)
            for r in spec.seed.get(title.table, [])
            if r.get(title.person) == row.get(title.person) and r.get("status") in title.states
        }
        free = [r[key] for r in spec.seed.get(title.thing_table, []) if r[key] not in held]
        if free:
            row[title.thing] = rng.choice(free)
            moved += 1
    return moved
