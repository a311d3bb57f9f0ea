"""Seed rows under the arrangement the domain implies (the quality report's measure 79,
:mod:`envs.quality.implied_parents`): every meal-kit box goes out under a subscription of its
subscriber and plan that had started by its delivery date.

:func:`settle_implied_parents` runs once the arrangements' dates are final (after
``periods.settle_periods``) and before the periodic rows are spaced (``periodic_rows``). A row with
no such arrangement takes the two references of one that had started by its date: one of the same
first record (the subscriber) where there is one, else any; a money value that copied the old
parent's (a box's price, the plan's price per box) copies the new one's. Where none had started, the
row is dropped, unless another row references it.
"""

from __future__ import annotations

import random
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.implied_parents import implied_arrangements


def _copied(spec: EnvSpec, table: str, row: dict[str, Any], column: str, new: Any) -> None:
    """Re-copy the money values of ``row`` that equal its old parent's (by ``column``) from ``new``."""
    tables = {t.name: t for t in spec.tables}
    fk = next(f for f in tables[table].foreign_keys if f.columns == [column])
    rows = {r.get(fk.references[0]): r for r in spec.seed.get(fk.table, [])}
    old, fresh = rows.get(row.get(column)), rows.get(new)
    if old is None or fresh is None:
        return
    for c in tables[table].columns:
        if c.type != "real" or not isinstance(row.get(c.name), int | float):
            continue
        source = next((k for k, v in old.items() if isinstance(v, int | float) and abs(v - row[c.name]) < 0.005), None)
        if source is not None and isinstance(fresh.get(source), int | float):
            row[c.name] = fresh[source]


def settle_implied_parents(spec: EnvSpec) -> int:
    """Put ``spec``'s seed rows under an arrangement of their two records (in place); returns the number
    of rows moved or dropped (deterministic)."""
    rng = random.Random(f"implied-parents:{spec.id}")
    tables = {t.name: t for t in spec.tables}
    changed = 0
    for rule in implied_arrangements(spec):
        first, second = rule.keys
        started = [r for r in spec.seed.get(rule.arrangement, []) if isinstance(r.get(rule.start), str)]
        pairs = {(r.get(first), r.get(second)) for r in started}
        referenced = {
            r.get(fk.columns[0])
            for t in spec.tables
            for fk in t.foreign_keys
            if fk.table == rule.table
            for r in spec.seed.get(t.name, [])
        }
        key = tables[rule.table].primary_key[0]
        kept = []
        for row in spec.seed.get(rule.table, []):
            day = row.get(rule.date)
            if not isinstance(day, str) or (
                (row.get(first), row.get(second)) in pairs
                and any(
                    (r.get(first), r.get(second)) == (row.get(first), row.get(second))
                    and r[rule.start][:10] <= day[:10]
                    for r in started
                )
            ):
                kept.append(row)
                continue
            fits = [r for r in started if r[rule.start][:10] <= day[:10]]
            for column in (first, second):
                same = [r for r in fits if r.get(column) == row.get(column)]
                if same:
                    fits = same
                    break
            if fits:
                chosen = rng.choice(sorted(fits, key=lambda r: str(r.get(rule.start))))
                for column in (first, second):
                    if chosen.get(column) != row.get(column):
                        _copied(spec, rule.table, row, column, chosen.get(column))
                        row[column] = chosen.get(column)
                kept.append(row)
                changed += 1
            elif row.get(key) in referenced:
                kept.append(row)
            else:
                changed += 1
        spec.seed[rule.table] = kept
    return changed
