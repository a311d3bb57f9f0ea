"""Seed records within the rules their statuses say they passed (the quality report's measure 67,
:mod:`envs.quality.passed_rules`): one customer's open rebate applications within the 3,000 a new one
is refused past, a week submitted or paid with no more hours than a week may be certified with.

:func:`fit_passed_rules` runs with the amounts (``amounts.fit_amounts``), once statuses are final: the
values follow the status, never the other way round. A capped group is scaled down together, in
proportion, to just under its cap; a value past a check is redrawn on the check's side of its bound.
"""

from __future__ import annotations

import random

from envs.formats.spec import EnvSpec
from envs.quality.own_row import status_of
from envs.quality.passed_rules import caps, group_totals, passed_checks
from envs.quality.tool_sql import number


def _redrawn(op: str, bound: float, integer: bool, rng: random.Random) -> float | int:
    """A value on the allowed side of ``bound``: within its lower three quarters for an upper bound."""
    if op == "=":
        return int(bound) if integer else bound
    if op in ("<=", "<"):
        top = bound - (1 if integer else 0.01) * (op == "<")
        value = rng.uniform(max(top * 0.25, 0), top)
    else:
        low = bound + (1 if integer else 0.01) * (op == ">")
        value = rng.uniform(low, low * 1.5 if low > 0 else 1)
    return int(value) if integer else round(value, 2)


def fit_passed_rules(spec: EnvSpec) -> int:
    """Bring the seed's capped groups and passed checks within their rules (in place); returns how many
    values changed."""
    rng = random.Random(f"passed-rules:{spec.id}")
    tables = {t.name: t for t in spec.tables}
    integer = {(t.name, c.name) for t in spec.tables for c in t.columns if c.type == "integer"}
    changed = 0
    for cap in caps(spec):
        if cap.table not in tables:
            continue
        for group in group_totals(cap, spec.seed.get(cap.table, []), tables[cap.table]).values():
            total = sum(number(r.get(cap.column)) or 0.0 for r in group)
            if total <= cap.amount + 0.005:
                continue
            factor = cap.amount * rng.uniform(0.8, 0.95) / total
            for row in group:
                if (value := number(row.get(cap.column))) is not None:
                    scaled = value * factor
                    row[cap.column] = int(scaled) if (cap.table, cap.column) in integer else round(scaled, 2)
                    changed += 1
    for check in passed_checks(spec):
        is_integer = (check.table, check.column) in integer
        for row in spec.seed.get(check.table, []):
            raw = row.get(check.column)
            value = float(raw) if isinstance(raw, bool) else number(raw)
            if status_of(row, tables[check.table]) in check.states and value is not None and not check.holds(value):
                new = _redrawn(check.op, check.bound, is_integer, rng)
                row[check.column] = bool(new) if isinstance(raw, bool) else new
                changed += 1
    return changed
