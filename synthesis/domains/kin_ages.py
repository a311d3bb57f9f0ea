"""Seed birth dates and documents that fit a stated relationship (the quality report's measure 39,
:mod:`envs.quality.kin_ages`): a child born twenty to forty years after their parent, a spouse an
adult of about the person's age, a child's relationship proven by a birth certificate.

:func:`settle_kin_ages` runs on the finished seed and changes only the related rows the measure
finds wrong: a birth date is drawn again in a narrower, likelier gap (:data:`LIKELY_GAPS`) than the
measure's bounds, and a document is replaced by one of its column's values that proves the
relationship (the first such value of the column's, most of the time: a birth certificate rather
than an adoption decree). The person the relative is related to keeps their own values, which tasks
use to name them.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from envs.formats.spec import EnvSpec
from envs.quality.kin_ages import (
    ADULT_AGE,
    ADULTS,
    BIRTH_GAPS,
    birth_fits,
    child_age_limit,
    day,
    document_column,
    kin_contradictions,
    proves,
)
from envs.quality.kinship import CHILD, GRANDCHILD, GRANDPARENT, PARENT, PARTNER, SIBLING, SPOUSE, Kin, kin_rows

#: Years a relative of each kind is drawn to be born after the person (negative: before).
LIKELY_GAPS = {
    CHILD: (20.0, 40.0),
    PARENT: (-40.0, -20.0),
    GRANDCHILD: (45.0, 70.0),
    GRANDPARENT: (-70.0, -45.0),
    SPOUSE: (-8.0, 8.0),
    PARTNER: (-8.0, 8.0),
    SIBLING: (-8.0, 8.0),
}
_YEAR = 365.25
_FIRST_DOCUMENT = 0.8  # share of documents that are the first fitting value of their column


def settle_kin_ages(spec: EnvSpec) -> int:
    """Redraw the birth dates and documents that contradict a stated relationship (in place).
    Returns the number of rows changed (deterministic)."""
    rng = random.Random(f"kin-ages:{spec.id}")
    changed = 0
    for kin in kin_rows(spec):
        before = dict(kin.row)
        fit_kin_ages(kin, spec, rng)
        changed += kin.row != before
    return changed


def fit_kin_ages(kin: Kin, spec: EnvSpec, rng: random.Random) -> None:
    """Redraw ``kin``'s birth date and document where they contradict its relationship (in place): a
    seed row, or a record a user asks to add."""
    limit = child_age_limit(spec.policy)
    _, birth_off, document_off = kin_contradictions(kin, spec.clock, limit)
    if birth_off:
        _redraw_birth(kin, spec, limit, rng)
    if document_off:
        _fitting_document(kin, spec, rng)


def _redraw_birth(kin: Kin, spec: EnvSpec, limit: int | None, rng: random.Random) -> None:
    column, anchor_column = kin.link.person.birth, kin.link.anchor_person.birth
    assert column is not None and anchor_column is not None
    anchor_born = day(kin.anchor_row.get(anchor_column))
    assert anchor_born is not None
    today = spec.clock.date()
    latest = today - timedelta(days=round(ADULT_AGE * _YEAR) + 1 if kin.kind in ADULTS else 30)
    earliest = today - timedelta(days=round(limit * _YEAR) - 1) if kin.kind == CHILD and limit else date.min
    for lo, hi in (LIKELY_GAPS[kin.kind], BIRTH_GAPS[kin.kind]):
        first = max(anchor_born + timedelta(days=round(lo * _YEAR) + 1), earliest)
        last = min(anchor_born + timedelta(days=round(hi * _YEAR) - 1), latest)
        if first > last:
            continue
        born = first + timedelta(days=rng.randint(0, (last - first).days))
        if birth_fits(kin.kind, born, anchor_born, spec.clock, limit):
            old = kin.row[column]
            kin.row[column] = born.isoformat() + (old[10:] if isinstance(old, str) else "")
            return


def _fitting_document(kin: Kin, spec: EnvSpec, rng: random.Random) -> None:
    column = document_column(kin.link.table)
    assert column is not None
    declared = next((c.enum for c in kin.link.table.columns if c.name == column), None)
    values = declared or sorted(
        {v for r in spec.seed.get(kin.link.table.name, []) if isinstance(v := r.get(column), str)}
    )
    fitting = [v for v in values if kin.kind in (proves(v) or ())]
    if fitting:
        kin.row[column] = fitting[0] if rng.random() < _FIRST_DOCUMENT else rng.choice(fitting)
