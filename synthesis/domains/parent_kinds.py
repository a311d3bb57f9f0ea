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

from collections import Counter
from collections.abc import Callable
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.parent_kinds import ParentKind, agrees, denied_children, parent_kinds
from envs.quality.tool_sql import required_statuses


def settle_parent_kinds(spec: EnvSpec, keeps: Callable[[str, dict[str, Any], Any], bool] | None = None) -> int:
    """Move the parent, set what its move sets, or drop the child (in place), for every child whose
    parent's state or values deny its kind. Returns the rows changed."""
    tools = {t.name: t for t in spec.tools}
    drawn: dict[tuple[str, Any], int] = {}
    moved: dict[tuple[str, Any], int] = {}
    dropped: set[int] = set()
    changed = 0
    denials = list(denied_children(spec, spec.seed))
    fits = _fitting_kinds(spec, denials)
    governed_kinds = {r.kind for r in parent_kinds(spec)}
    kept = {(r.parent, r.status) for r in parent_kinds(spec)}
    states = Counter((t, p.get(c)) for t, c in kept for p in spec.seed.get(t, []))
    for rule, row, parent, off in denials:
        if not off or id(row) in dropped:
            continue
        if parent[rule.status] in rule.states:  # in it already, or moved for a child before this one
            changed += _apply_sets(rule, parent)
            continue
        kind = fits.get((rule.child, rule.column, id(parent)))
        if kind in governed_kinds:  # the parent's state makes another kind the move does: that one it is
            row[rule.column or ""] = kind
            changed += 1
            continue
        key = (rule.parent, parent[rule.status])
        drawn[key] = drawn.get(key, 0) + 1
        froms = required_statuses(tools[rule.tool], rule.status)
        movable = (not froms or parent[rule.status] in froms) and (keeps is None or keeps(rule.parent, parent, rule.to))
        referenced = _referenced(spec, rule.child, row)
        # every other parent of that state keeps it (a booking left to refund), its child going instead
        # and moves leave two parents in three of that state in it (a dealer's holds not all let go)
        room = min((drawn[key] + 1) // 2, states[key] // 3)
        if movable and (moved.get(key, 0) < room or (referenced and kind is None)):
            parent[rule.status] = rule.to
            moved[key] = moved.get(key, 0) + 1
            changed += 1 + _apply_sets(rule, parent)
        elif kind is not None:  # a kind the parent's state makes keeps the row where the parent stays
            row[rule.column or ""] = kind
            changed += 1
        elif not referenced:
            dropped.add(id(row))
    for rows in spec.seed.values():
        before = len(rows)
        rows[:] = [r for r in rows if id(r) not in dropped]
        changed += before - len(rows)
    return changed


def _fitting_kinds(
    spec: EnvSpec, denials: list[tuple[ParentKind, dict[str, Any], dict[str, Any], list[str]]]
) -> dict[tuple[str, str | None, int], str]:
    """(child table, kind column, id of a parent) -> a kind of that column whose move the parent's
    state and values already show, for each parent a child of the kind stands under."""
    rules = parent_kinds(spec)
    fits: dict[tuple[str, str | None, int], str] = {}
    for denied, _, parent, _ in denials:
        for rule in rules:
            same = (rule.child, rule.column, rule.parent) == (denied.child, denied.column, denied.parent)
            shown = all(parent.get(c) is None or agrees(parent[c], v) for c, v in rule.sets)
            if same and rule.kind is not None and parent.get(rule.status) in rule.states and shown:
                fits.setdefault((rule.child, rule.column, id(parent)), rule.kind)
    # else a kind no move makes that children of another parent in the same state hold (a deposit
    # paid on a hold still active), so a parent no move fits keeps its state and its child alike
    governed = {(r.child, r.column, r.kind) for r in rules}
    tables = {t.name: t for t in spec.tables}
    for denied, _, parent, _ in denials:
        if denied.column is None or (denied.child, denied.column, id(parent)) in fits:
            continue
        key = tables[denied.parent].primary_key[0]
        state = {r.get(key): r.get(denied.status) for r in spec.seed.get(denied.parent, [])}
        seen: Counter[Any] = Counter(
            row.get(denied.column)
            for row in spec.seed.get(denied.child, [])
            if state.get(row.get(denied.via)) == parent.get(denied.status)
            and (denied.child, denied.column, row.get(denied.column)) not in governed
            and row.get(denied.column) is not None
        )
        if seen:
            fits[denied.child, denied.column, id(parent)] = str(seen.most_common(1)[0][0])
    return fits


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
