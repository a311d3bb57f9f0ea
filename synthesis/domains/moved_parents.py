"""Children under the parent their making moved (the quality report's measure 91,
:mod:`envs.quality.moved_parents`): no scheduled pickup on a return still ``authorized``.

The seed draws a child under a parent in the state its create requires (an authorized return) and
leaves the parent there, though the create moves it on as it makes the child (the return is then
``pickup_scheduled``). :func:`settle_moved_parents` gives half such parents of each state that move,
where it is still before it in its status column's order and every child still as made under it asks
for the same one; the children of the others, and of a parent already past the move some other way
(a bill paid, a port cancelled), are called off, through a tool's move from their made state (a
pickup cancelled, which puts its return back to authorized), so parents are left in the state the
create needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.moved_parents import MovedParent, unmoved_parents
from envs.quality.seed import status_columns

from .write_rules import _called_off


def settle_moved_parents(spec: EnvSpec, keeps: Callable[[str, dict[str, Any], Any], bool] | None = None) -> int:
    """Move each parent a child's making moves, or call the child off (in place), moving none that
    ``keeps`` (``parent_states.keeps_children``) says would strand a row. Returns the rows changed."""
    tables = {t.name: t for t in spec.tables}
    found = list(unmoved_parents(spec, spec.seed))
    by_parent: dict[int, list[tuple[MovedParent, dict[str, Any]]]] = {}
    parents: dict[int, tuple[MovedParent, dict[str, Any]]] = {}
    for rule, row, parent, unmoved in found:
        by_parent.setdefault(id(parent), []).append((rule, row))
        if unmoved:
            parents.setdefault(id(parent), (rule, parent))
    # half the parents of each state stay in it, their children called off (a pickup cancelled puts its
    # return back to authorized): otherwise no return would be left to schedule a pickup for
    drawn: dict[tuple[str, Any], int] = {}
    for rule, parent in parents.values():
        key = (rule.parent, parent.get(rule.column))
        drawn[key] = drawn.get(key, 0) + 1
    moved: dict[tuple[str, Any], int] = {}
    changed = 0
    for pid, (rule, parent) in parents.items():
        key = (rule.parent, parent.get(rule.column))
        children = by_parent[pid]
        movable = _before(spec, rule, parent) and {r.to for r, _ in children} == {rule.to}
        movable = movable and (keeps is None or keeps(rule.parent, parent, rule.to))
        offs = {id(row): _called_off(spec, r.child, r.made) for r, row in children}
        if movable and (moved.get(key, 0) < (drawn[key] + 1) // 2 or not all(offs.values())):
            parent[rule.column] = rule.to
            moved[key] = moved.get(key, 0) + 1
            changed += 1
            continue
        for r, row in children:
            if off := offs[id(row)]:
                row[status_columns(tables[r.child])[0].name] = off
                changed += 1
    return changed


def _before(spec: EnvSpec, rule: MovedParent, parent: dict[str, Any]) -> bool:
    """Whether ``parent``'s status comes before the one the making moves it to."""
    table = next(t for t in spec.tables if t.name == rule.parent)
    column = next(c for c in table.columns if c.name == rule.column)
    order = [str(v) for v in column.enum or ()]
    state = str(parent.get(rule.column))
    return state in order and rule.to in order and order.index(state) < order.index(rule.to)
