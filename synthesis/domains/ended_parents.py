"""Seed rows that keep no periodic row waiting under a record that has ended (the quality report's
measure 116, :mod:`envs.quality.ended_parents`): no weekly certification due on a claim that closed.

Run once the parents' statuses are settled and before dates follow statuses. A waiting row under an
ended parent is moved by its lifecycle to a state that ends it (a week missed, an installment
cancelled) where the lifecycle has one from its state; otherwise, when no other row refers to it, it
is dropped: nobody was asked to file it.
"""

from __future__ import annotations

from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.ended_parents import ended, waiting_rows, waiting_rules

from .arranged_twice import referenced_keys
from .domain import Domain


def _end_state(domain: Domain, table: str, status: Any) -> Any | None:
    """The state a move of ``table``'s lifecycle takes a row in ``status`` to that ends it, if any."""
    entity = next((e for e in domain.entities if e.table == table), None)
    if entity is None or entity.lifecycle is None:
        return None
    return next((t.to for t in entity.lifecycle.transitions if status in t.from_states and ended(t.to)), None)


def settle_waiting_under_ended(domain: Domain, spec: EnvSpec) -> int:
    """Keep measure 116 at zero in ``spec``'s seed; returns how many rows moved or were dropped."""
    changed = 0
    for rule in waiting_rules(spec):
        table = next(t for t in spec.tables if t.name == rule.table)
        key = table.primary_key[0]
        referenced = referenced_keys(spec, rule.table)
        dropped: set[int] = set()
        for row, parent in list(waiting_rows(rule, spec.seed)):
            if not ended(parent.get(rule.parent_status)):
                continue
            end = _end_state(domain, rule.table, row.get(rule.status))
            if end is not None:
                row[rule.status] = end
                changed += 1
            elif row.get(key) not in referenced:
                dropped.add(id(row))
        spec.seed[rule.table] = [r for r in spec.seed.get(rule.table, []) if id(r) not in dropped]
        changed += len(dropped)
    return changed
