"""A record paid in full whose amount paid is the sum of its payments has payments that add up to its
price (measure 59's "paid, yet owing or paid nothing", :mod:`envs.quality.own_row`): a layaway
`paid_off` with 0.00 paid, because its posted payments were drawn apart from it, is one no customer
would believe.

:func:`pay_children_in_full` runs before the aggregates are settled (``aggregates.settle_aggregates``),
once statuses are final: for a paid row whose balance is its total less a sum of its children, the
children that sum counts are scaled to the total, the last one taking the cents left; where none is
counted (a reversed payment, a refund), the first child becomes a counted one (posted, of the last
kind the sum takes: a payoff). A paid row with no children at all is left as it is.
"""

from __future__ import annotations

import math
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.own_row import PAID

from .aggregates import Relation, _scale, relations
from .domain import Domain
from .sqlgen import pk


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _paid_sums(domain: Domain) -> list[tuple[Relation, str]]:
    """(sum relation, the column it is taken from) for each ``total - paid`` difference over a sum."""
    found = relations(domain)
    out = []
    for rel in found:
        if rel.aggregate.kind != "difference" or rel.entity.lifecycle is None:
            continue
        left, right = rel.aggregate.operands
        source = next((r for r in found if r.entity is rel.entity and r.column == right), None)
        if source is not None and source.aggregate.kind == "sum" and source.child is not None:
            out.append((source, left))
    return out


def _make_counted(rel: Relation, child: dict[str, Any]) -> None:
    """Give ``child`` the first state and the last ``where`` value the sum takes (posted, a payoff)."""
    agg, entity = rel.aggregate, rel.child
    assert entity is not None
    if agg.states and entity.lifecycle is not None:
        child[entity.lifecycle.field] = agg.states[0]
    for name, values in (agg.where or {}).items():
        if child.get(name) not in values:
            child[name] = values[-1]


def pay_children_in_full(domain: Domain, spec: EnvSpec) -> int:
    """Make the counted children of each paid row add up to its total (in place); returns the rows changed."""
    changed = 0
    for rel, total_column in _paid_sums(domain):
        assert rel.child is not None and rel.ref_column is not None and rel.entity.lifecycle is not None
        column, field = rel.aggregate.column or "", rel.entity.lifecycle.field
        children: dict[Any, list[dict[str, Any]]] = {}
        for child in spec.seed.get(rel.child.table, []):
            children.setdefault(child.get(rel.ref_column), []).append(child)
        for row in spec.seed.get(rel.table, []):
            total = _number(row.get(total_column))
            kids = children.get(row[pk(rel.entity)], [])
            if row.get(field) not in PAID or not total or total <= 0 or not kids:
                continue
            counted = [c for c in kids if rel.counted(c)]
            paid = round(sum(_number(c.get(column)) or 0.0 for c in counted), 2)
            if abs(paid - total) <= 0.005:
                continue
            if not counted or paid <= 0:
                counted = counted[:1] or kids[:1]
                _make_counted(rel, counted[0])
                counted[0][column] = total
            else:
                _scale(rel, counted, total)
                last = counted[-1]
                rest = round(total - sum(_number(c.get(column)) or 0.0 for c in counted), 2)
                last[column] = math.floor(((_number(last.get(column)) or 0.0) + rest) * 100 + 0.5) / 100
            changed += 1
    return changed
