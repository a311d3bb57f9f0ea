"""The domain's semantics evaluated in Python, independent of the generated SQL.

Both the admission gate (``probe``) and the task generator (``taskgen``) predict, from the domain
description alone, whether a guard holds for a record; a generated tool is trusted only when its
behaviour matches these predictions.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from envs.formats.spec import EnvSpec

from ..domains.domain import Domain, Entity, Guard
from ..domains.sqlgen import pk


class Oracle:
    """Evaluates domain value sources and guards on seed rows, in Python."""

    def __init__(self, domain: Domain, spec: EnvSpec) -> None:
        self.domain = domain
        self.clock = spec.clock
        self.rows = {e.name: {r[pk(e)]: r for r in spec.seed.get(e.table, [])} for e in domain.entities}

    def value(self, source: Any, entity: Entity, row: dict[str, Any], args: dict[str, Any]) -> Any:
        if isinstance(source, str):
            if source.startswith("field:"):
                return row.get(source[6:])
            if source.startswith("via:"):
                ref_name, _, col = source[4:].partition(".")
                ref = entity.reference(ref_name)
                if ref is None:
                    return None
                parent_id = args.get(ref.column, row.get(ref.column))
                parent = self.rows[ref.entity].get(parent_id) if parent_id else None
                return parent.get(col) if parent and col else parent_id
            if source.startswith("param:"):
                return args.get(source[6:])
            if source == "now":
                return self.clock.strftime("%Y-%m-%d %H:%M:%S")
            if source == "today":
                return self.clock.strftime("%Y-%m-%d")
        return source

    def owner_of(self, entity: Entity, row: dict[str, Any]) -> Any:
        """The id of the user-entity record that owns ``row`` (following owner references), if any."""
        seen = 0
        while entity.name != self.domain.user_entity and seen < 5:
            ref = next((r for r in entity.references if r.role == "owner"), None)
            if ref is None or row.get(ref.column) is None:
                return None
            entity = self.domain.entity(ref.entity)
            row = self.rows[entity.name].get(row[ref.column], {})
            seen += 1
        return row.get(pk(entity)) if entity.name == self.domain.user_entity else None

    def holds(self, guard: Guard, entity: Entity, row: dict[str, Any], args: dict[str, Any]) -> bool:
        v = self.value(guard.field, entity, row, args)
        if guard.kind in ("min", "max"):
            amount = self.value(guard.amount, entity, row, args)
            if v is None or amount is None:
                return False
            return bool(v >= amount) if guard.kind == "min" else bool(v <= amount)
        if guard.kind in ("future", "past", "within"):
            if v is None:
                return False
            now = self.clock.strftime("%Y-%m-%d %H:%M:%S")
            if guard.kind == "within":
                start = (self.clock - timedelta(hours=guard.hours)).strftime("%Y-%m-%d %H:%M:%S")
                return bool(start <= v <= now)
            when = (self.clock + timedelta(hours=guard.hours)).strftime("%Y-%m-%d %H:%M:%S")
            return bool(v > when) if guard.kind == "future" else bool(v <= when)
        if guard.kind == "equals":
            return bool(v == guard.value)
        if guard.kind == "not_equals":
            return bool(v != guard.value)
        if guard.kind == "one_of":
            return v in (guard.values or [])
        if guard.kind == "differs":
            return bool(v != self.value(guard.amount, entity, row, args))
        if guard.kind in ("count_max", "sum_max"):
            return self._aggregate_holds(guard, v, self.value(guard.amount, entity, row, args), entity, row, args)
        return True

    def _aggregate_holds(
        self, guard: Guard, key: Any, bound: Any, entity: Entity, row: dict[str, Any], args: dict[str, Any]
    ) -> bool:
        assert guard.entity is not None and guard.match is not None
        other = self.domain.entity(guard.entity)
        status = other.lifecycle.field if other.lifecycle else None
        rows = [
            r
            for r in self.rows[other.name].values()
            if key is not None
            and r.get(guard.match) == key
            and (not guard.states or (status is not None and r.get(status) in guard.states))
        ]
        if bound is None:
            return False
        if guard.kind == "count_max":
            return bool(len(rows) < bound)
        added = self.value(guard.add, entity, row, args) if guard.add is not None else 0
        total = sum(float(r.get(guard.column or "") or 0) for r in rows) + float(added or 0)
        return bool(round(total, 2) <= bound)
