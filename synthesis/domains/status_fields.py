"""Seed values their status or their person's age allows (the quality report's measure 68,
:mod:`envs.quality.status_fields`): no final grade on an application before its grade is verified, a
grade on every verified one, no guardian named for an adult.

:func:`fit_status_fields` runs with the amounts (``amounts.fit_amounts``), once statuses and birth dates
are drawn: the values follow them. A value a status needs is drawn from the column's values where it
has a list of them (a grade); free text is left for the tasks' words to supply.
"""

from __future__ import annotations

import random

from envs.formats.spec import EnvSpec
from envs.quality.event_values import event_value_findings
from envs.quality.own_row import status_of
from envs.quality.status_fields import guardian_of_adult, guardians, status_fields


def fit_status_fields(spec: EnvSpec) -> int:
    """Clear or fill the values their status or person rules out (in place); returns how many changed."""
    rng = random.Random(f"status-fields:{spec.id}")
    tables = {t.name: t for t in spec.tables}
    changed = 0
    for field in status_fields(spec):
        column = next(c for c in tables[field.table].columns if c.name == field.column)
        for row in spec.seed.get(field.table, []):
            status = status_of(row, tables[field.table])
            if not field.disagrees(row.get(field.column), status):
                continue
            if status in field.earlier:
                row[field.column] = None
                changed += 1
            elif column.enum:
                row[field.column] = rng.choice(column.enum)
                changed += 1
            elif row.get(field.column) is None and (
                held := sorted({r[field.column] for r in spec.seed[field.table] if r.get(field.column)}, key=str)
            ):
                # a value its status names (a filed claim's notes, a score), as another row has it
                row[field.column] = rng.choice(held)
                changed += 1
    for rule, row, before in list(event_value_findings(spec, spec.seed)):
        if before:  # no score recipient on a registration not yet scored: the count it was made with
            column = next(c for c in tables[rule.table].columns if c.name == rule.column)
            row[rule.column] = int(float(rule.made)) if column.type == "integer" else float(rule.made)
            changed += 1
    for guardian in guardians(spec):
        for row in spec.seed.get(guardian.table, []):
            if guardian_of_adult(spec, spec.seed, guardian, row):
                row[guardian.column] = None
                changed += 1
    return changed
