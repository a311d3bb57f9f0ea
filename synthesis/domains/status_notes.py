"""Notes that agree with their row's status (measure 89, ``envs.quality.status_notes``): a denied
claim's decision note gives a reason for the denial, not "Approved, paid directly to the repair
shop"; an approved one is no longer "waiting on photos from the member".

A note drawn from the domain's examples without regard to the status it sits beside is redrawn, once
statuses are final, from the examples that name the row's verdict, else from those that name no
verdict the status column can hold; where none fits, a nullable note is left empty. A note keyed by
the status (``examples_by``) draws from its status's pool first.
"""

from __future__ import annotations

import random

from envs.formats.spec import EnvSpec
from envs.quality.status_notes import against_status, held_verdicts, note_columns, verdict_of, verdicts_named

from .domain import Domain
from .labels import keyed
from .sqlgen import pk


def settle_status_notes(domain: Domain, spec: EnvSpec, seed: int = 0) -> int:
    """Redraw the seed's notes that name a verdict against their row's status; how many changed."""
    rng = random.Random(f"{domain.id}:{seed}:status-notes")
    tables = {t.name: t for t in spec.tables}
    index = {e.name: {r.get(pk(e)): r for r in spec.seed.get(e.table, [])} for e in domain.entities}
    changed = 0
    for entity in domain.entities:
        table = tables.get(entity.table)
        if entity.lifecycle is None or table is None:
            continue
        held = held_verdicts(table)
        field = entity.lifecycle.field
        attrs = {a.name: a for a in entity.attributes}
        by_key = {k.attr.name: k for k in keyed(domain, entity)}
        for column in note_columns(table):
            attr = attrs.get(column.name)
            if attr is None or len(held) < 2:
                continue
            for row in sorted(spec.seed.get(entity.table, []), key=lambda r: str(r.get(pk(entity)))):
                status, value = row.get(field), row.get(column.name)
                if not against_status(value, status, held):
                    continue
                pool = list(attr.examples or [])
                if attr.keyed is not None and attr.keyed[0] == field:
                    pool = list(attr.keyed[1].get(str(status), [])) + pool
                elif column.name in by_key:  # a note keyed by another value stays in its key's pool
                    pool = by_key[column.name].pool(row, lambda name, key: index[name].get(key)) or pool
                own = [v for v in pool if verdict_of(status) in verdicts_named(v)]
                plain = [v for v in pool if not verdicts_named(v) & held]
                choices = own or plain
                if choices:
                    row[column.name] = rng.choice(choices)
                elif attr.nullable:
                    row[column.name] = None
                else:
                    continue
                changed += 1
    return changed
