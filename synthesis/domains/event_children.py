"""Seed rows an event makes, under a parent whose event has happened (the quality report's measure 76,
:mod:`envs.quality.event_children`): no e-prescription pending on a video visit still ahead.

:func:`settle_event_children` runs once statuses and the parents' dates are final (after
``lapses.settle_lapses``) and before the children's own dates follow their parents
(``child_dates.settle_child_dates``). A child under a parent whose event is ahead, or that the event
never reached, moves to a parent in the state its tool requires whose event has passed: one that
agrees with it on every column both rows hold (the same member), with the fewest such children, and
room under a per-parent cap a tool checks and under the most children one parent held as drawn (no
visit gathers a dozen prescriptions). Where none fits, the row is dropped, unless another row
references it; then it is left, and counted.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from envs.formats.spec import EnvSpec, TableSpec
from envs.quality.event_children import EventChild, event_ahead, event_child_findings


def _cap(spec: EnvSpec, rule: EventChild) -> int | None:
    """The most children one parent may hold, by a tool's count of them (None: no cap)."""
    shape = re.compile(rf'count\(\*\) FROM "?{rule.child}"? WHERE "?{rule.column}"? = [^)]*\)\s*(<=|<)\s*(\d+)', re.S)
    caps = [
        int(m[2]) - (m[1] == "<") + 1
        for tool in spec.tools
        for step in tool.steps
        if step.kind == "require" and (m := shape.search(step.sql or ""))
    ]
    return min(caps) if caps else None


def _referenced(spec: EnvSpec, table: TableSpec, row: dict[str, Any]) -> bool:
    key = row.get(table.primary_key[0])
    return any(
        r.get(fk.columns[0]) == key
        for t in spec.tables
        for fk in t.foreign_keys
        if fk.table == table.name
        for r in spec.seed.get(t.name, [])
    )


def settle_event_children(spec: EnvSpec) -> int:
    """Move (or drop) the seed rows of ``spec`` made by an event still ahead of their parent (in
    place); returns the number of rows moved or dropped (deterministic)."""
    rng = random.Random(f"event-children:{spec.id}")
    tables = {t.name: t for t in spec.tables}
    early = [(rule, row) for rule, row, before in event_child_findings(spec, spec.seed) if before]
    changed = 0
    most: dict[str, int] = {}  # a parent holds no more of a child than the most one held as drawn
    for rule, _ in early:
        counts = Counter(r.get(rule.column) for r in spec.seed.get(rule.child, []))
        most.setdefault(rule.child, max(counts.values(), default=1))
    for rule, row in early:
        parent_table, child_table = tables[rule.parent], tables[rule.child]
        children = spec.seed.get(rule.child, [])
        held = Counter(r.get(rule.column) for r in children)
        shared = [
            c.name
            for c in child_table.columns
            if c.name != rule.column
            and c.name not in child_table.primary_key
            and any(p.name == c.name for p in parent_table.columns)
            and any(fk.columns == [c.name] for fk in child_table.foreign_keys)
        ]
        cap = min(most[rule.child], _cap(spec, rule) or most[rule.child])
        key = parent_table.primary_key[0]
        status = next(c.name for c in parent_table.columns if c.name == "status" or c.name.endswith("_status"))
        fits = [
            p
            for p in spec.seed.get(rule.parent, [])
            if p.get(status) in rule.after
            and not event_ahead(spec, parent_table, p, spec.seed)
            and all(p.get(c) == row.get(c) for c in shared)
            and held[p.get(key)] < cap
        ]
        if fits:
            fewest = min(held[p.get(key)] for p in fits)
            row[rule.column] = rng.choice([p for p in fits if held[p.get(key)] == fewest]).get(key)
            changed += 1
        elif not _referenced(spec, child_table, row):
            spec.seed[rule.child] = [r for r in children if r is not row]
            changed += 1
    return changed
