"""Amounts within the whole they are part of (the quality report's measure 113,
:mod:`envs.quality.wholes`): a tour booking for three at 2,919.93 a person owes no more than 8,759.79,
and the payments on a pair of glasses add up to no more than their price.

The amounts are drawn one column at a time, and later steps (copied fares, payments of the whole,
deposits posted at a fixed sum) set some of them again, so a part can land above its whole.
:func:`fit_parts_within_wholes` runs after the last step that sets amounts, before the balances follow
what was paid. It moves the part, never the whole, which the money bands (measure 102) and a parent's
sum of its items hold:

* a part on the row above its whole is redrawn as a share of it (the balance of a booking partly paid);
* payments above their record's whole keep the smaller ones (a deposit at the sum the policy fixes) and
  the largest pays what is left of the whole; where the smaller ones alone reach it, all are scaled
  down together, in proportion, to pay the whole.
"""

from __future__ import annotations

import random

from envs.formats.spec import EnvSpec
from envs.quality.wholes import CENT, Finding, whole_findings

#: The share of its whole a part on the row is redrawn to.
_PART_SHARE = (0.4, 0.95)


def _pay_within(finding: Finding) -> None:
    paying = sorted(finding.paid, key=lambda r: float(r[finding.column]), reverse=True)
    rest = round(sum(float(r[finding.column]) for r in paying[1:]), 2)
    left = round(finding.whole - rest, 2)
    if left >= CENT * 2:
        paying[0][finding.column] = left
        return
    scale = finding.whole / finding.amount
    for row in paying:
        row[finding.column] = max(round(float(row[finding.column]) * scale, 2), 0.01)
    off = round(finding.whole - sum(float(r[finding.column]) for r in paying), 2)
    paying[0][finding.column] = round(float(paying[0][finding.column]) + off, 2)  # the cents rounding moved


def fit_parts_within_wholes(spec: EnvSpec) -> int:
    """Bring every part above its whole within it (in place); returns how many records changed."""
    rng = random.Random(f"wholes:{spec.id}")
    changed = 0
    for finding in list(whole_findings(spec, spec.seed)):
        if not finding.above or finding.whole <= 0:
            continue
        if finding.kind == "paid":
            _pay_within(finding)
        else:
            finding.row[finding.column] = round(finding.whole * rng.uniform(*_PART_SHARE), 2)
        changed += 1
    return changed
