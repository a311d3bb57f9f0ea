"""Seed charges whose kind fits their visit's status (the quality report's measure 61,
:mod:`envs.quality.visit_charges`): a no-show fee on a visit missed, a copay on one that took place, a
cancellation fee on one called off, no refund for a no-show.

:func:`fit_visit_charges` runs once statuses are final, before the aggregates (a folio's balance may
sum some kinds only): a charge whose kind its visit's status contradicts takes the first kind of its
column that fits (a no-show fee for a missed visit, the service for one completed); where none fits
it is left as it is. The visit's status is never moved, so tasks keep the statuses they draw on.
:func:`fit_fixed_charges`, after the aggregates: a charge of a kind a tool posts at a fixed amount
(measure 62, :mod:`envs.quality.fixed_charges`: a late-cancellation fee of 50.00, a missed-visit
credit of 25.00) takes that amount, and the sums over it are settled again without scaling it.
"""

from __future__ import annotations

from envs.formats.spec import EnvSpec
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
        kind = next((v for v in kinds.enum or [] if kind_fits(v, status)), None)
        if kind is not None:
            row[pair.kind] = kind
            changed += 1
    return changed


def fit_fixed_charges(spec: EnvSpec) -> int:
    """Give each charge of a kind a tool posts at a fixed amount that amount (in place); returns how
    many changed. Run last: the sums over them follow it, whatever range they are drawn in."""
    changed = 0
    for row, column, amount, holds in list(fixed_findings(spec, spec.seed)):
        if not holds:
            row[column] = amount
            changed += 1
    return changed
