"""Children of a kind only their parent's move makes, under a parent that made the move (the quality
report's measure 98, :mod:`envs.quality.parent_kinds`): no deposit refund charge on an account still
holding its deposit.

The seed draws a child's kind apart from its parent's state, so a refund lands under a booking still
confirmed. :func:`settle_parent_kinds` gives such a parent the move where the tool could have made it
from the parent's state (and ``keeps``, ``parent_states.keeps_children``, says no other row is
stranded by it), half the parents of each state, with every value the move sets (the deposit held
0); the child under any other parent goes, unless some row points to it. A parent already moved gets
the values the move sets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.parent_kinds import ParentKind, denied_children
from envs.quality.tool_sql import required_statuses


def settle_parent_kinds(spec: EnvSpec, keeps: Callable[[str, dict[str, Any], Any], bool] | None = None) -> int:
    """Move the parent, set what its move sets, or drop the child (in place), for every child whose
    parent's state or values deny its kind. Returns the rows changed."""
    tools = {t.name: t for t in spec.tools}
    drawn: dict[tuple[str, Any], int] = {}
    moved: dict[tuple[str, Any], int] = {}
    dropped: set[int] = set()
    changed = 0
    for rule, row, parent, off in list(denied_children(spec, spec.seed)):
        if not off or id(row) in dropped:
            continue
        if parent[rule.status] in rule.states:  # in it already, or moved for a child before this one
            changed += _apply_sets(rule, parent)
            continue
        key = (rule.parent, parent[rule.status])
        drawn[key] = drawn.get(key, 0) + 1
        froms = required_statuses(tools[rule.tool], rule.status)
        movable = (not froms or parent[rule.status] in froms) and (keeps is None or keeps(rule.parent, parent, rule.to))
        referenced = _referenced(spec, rule.child, row)
        # every other parent of that state keeps it (a booking left to refund), its child going instead
        if movable and (moved.get(key, 0) < (drawn[key] + 1) // 2 or referenced):
            parent[rule.status] = rule.to
            moved[key] = moved.get(key, 0) + 1
            changed += 1 + _apply_sets(rule, parent)
        elif not referenced:
            dropped.add(id(row))
    for rows in spec.seed.values():
        before = len(rows)
        rows[:] = [r for r in rows if id(r) not in dropped]
        changed += before - len(rows)
    return changed


def _apply_sets(rule: ParentKind, parent: dict[str, Any]) -> int:
    """Give ``parent`` each value the move sets (a number where the column holds one). Returns 1 if
    any changed."""
    changed = 0
    for column, value in rule.sets:
        held = parent.get(column)
        new: Any = value
        if isinstance(held, bool):
            new = value.lower() in ("1", "true")
        elif isinstance(held, int | float):
            new = float(value) if "." in value or isinstance(held, float) else int(value)
        if held != new:
            parent[column] = new
            changed = 1
    return changed


def _referenced(spec: EnvSpec, table: str, row: dict[str, Any]) -> bool:
    """Whether a seeded row points to ``row`` of ``table``."""
    own = next(t for t in spec.tables if t.name == table)
    key = row.get(own.primary_key[0]) if len(own.primary_key) == 1 else None
    for t in spec.tables:
        for fk in t.foreign_keys:
            rows = spec.seed.get(t.name, []) if fk.table == table and len(fk.columns) == 1 else []
            if any(r.get(fk.columns[0]) == key for r in rows):
                return True
    return False
