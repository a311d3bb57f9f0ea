"""Seed charges whose kind fits their visit's status (the quality report's measure 61,
:mod:`envs.quality.visit_charges`): a no-show fee on a visit missed, a copay on one that took place, a
cancellation fee on one called off, no refund for a no-show.

:func:`fit_visit_charges` runs once statuses are final, before the aggregates (a folio's balance may
sum some kinds only): a charge whose kind its visit's status contradicts takes the first kind of its
column that fits (a no-show fee for a missed visit, the service for one completed); where none fits
it takes one that says nothing of the visit (a registration fee in place of a refund on a
registration still booked), else it is left as it is. The visit's status is never moved, so tasks
keep the statuses they draw on.
:func:`fit_fixed_charges`, after the aggregates: a charge of a kind a tool posts at a fixed amount
(measure 62, :mod:`envs.quality.fixed_charges`: a late-cancellation fee of 50.00, a missed-visit
credit of 25.00) takes that amount, unless it would take refunds beyond what was paid (measure 34),
and the sums over it are settled again without scaling it.
"""

from __future__ import annotations

from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.amounts import excess, sibling_groups
from envs.quality.fixed_charges import fixed_findings
from envs.quality.visit_charges import charge_findings, kind_fits


def fit_visit_charges(spec: EnvSpec) -> int:
    """Give each charge a kind its visit's status allows (in place); returns how many changed."""
    tables = {t.name: t for t in spec.tables}
    changed = 0
    for pair, row, status, fits in list(charge_findings(spec, spec.seed)):
        if fits:
            continue
        kinds = next(c for c in tables[pair.table].columns if c.name == pair.kind)
        values = kinds.enum or []
        # a kind that fits, else one that says nothing of the visit (a registration fee, not a refund)
        kind = next((v for v in values if kind_fits(v, status)), None) or next(
            (v for v in values if kind_fits(v, status) is None), None
        )
        if kind is not None:
            row[pair.kind] = kind
            changed += 1
    return changed


def fit_fixed_charges(spec: EnvSpec) -> int:
    """Give each charge of a kind a tool posts at a fixed amount that amount (in place); returns how
    many changed. Run last: the sums over them follow it, whatever range they are drawn in."""
    moved: dict[int, tuple[dict[str, Any], str, Any]] = {}
    for row, column, amount, holds in list(fixed_findings(spec, spec.seed)):
        if not holds:
            moved[id(row)] = (row, column, row[column])
            row[column] = amount
    # a fixed amount that takes refunds beyond what was paid (measure 34) is left as it was
    for table, parent, parent_row, children in sibling_groups(spec, spec.seed):
        if any(id(c) in moved for c in children) and excess(table, parent, parent_row, children):
            for child in children:
                if (was := moved.pop(id(child), None)) is not None:
                    child[was[1]] = was[2]
    return len(moved)
