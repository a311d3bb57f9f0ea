"""The states a parent record must be in for a child record to exist, derived from the domain alone.

A child is created only while its parent is in a given state: a score review for a *scored*
registration, a road-hazard warranty on a *completed* installation, a guest review of a *completed*
stay (a ``equals`` / ``one_of`` guard of the child's create on ``via:<parent>.status``), and a row
an action inserts appears when its parent takes that action (a refund row when its return is
refunded). From then on the parent may only move on, so a seed child sits under a parent in that
state or one reachable from it — never under a parent still *registered* or *requested*.
``seedgen`` picks parents so, and ``timing.settle_named_dates`` moves no row to a state that would
leave it, or a child of it, under a parent it could not have been made under.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .domain import Domain, Effect, Entity, Guard, Lifecycle, Transition
from .sqlgen import pk


def reachable(lc: Lifecycle, start: str) -> set[str]:
    """``start`` and every state some chain of transitions leads to from it."""
    seen, todo = {start}, [start]
    while todo:
        state = todo.pop()
        for t in lc.transitions:
            if state in t.from_states and t.to not in seen:
                seen.add(t.to)
                todo.append(t.to)
    return seen


def moved_by_others(domain: Domain, parent: Entity) -> Lifecycle | None:
    """``parent``'s lifecycle with the moves other records' actions make on its status where they
    require it in given states: an accepted offer sets its load, required ``posted``, ``covered``; a
    pickup scheduled for an ``authorized`` return sets it ``pickup_scheduled``. A child made under a
    posted load still fits the load its sibling's acceptance covered."""
    plc = parent.lifecycle
    if plc is None:
        return None
    extra: list[Transition] = []
    for other in domain.entities:
        # a create moves its parent too (scheduling a pickup moves its return to pickup_scheduled)
        actions: list[tuple[str, list[Guard], list[Effect]]] = [
            *((t.name, t.guards, t.effects) for t in (other.lifecycle.transitions if other.lifecycle else [])),
            *([("create", other.create.guards, other.create.effects)] if other.create else []),
        ]
        for name, guards, effects in actions if other is not parent else []:
            for ref in (r for r in other.references if r.entity == parent.name):
                target = f"via:{ref.ref_name}.{plc.field}"
                for x in effects:
                    if x.kind != "set" or x.target != target or str(x.value) not in plc.states:
                        continue
                    # only a move the action checks the parent for: one from anywhere would free every state
                    required = _required_states(guards, target)
                    froms = [s for s in plc.states if s in (required or ())]
                    if froms:
                        extra.append(
                            Transition(name=f"{other.name}_{name}", description="", from_states=froms, to=str(x.value))
                        )
    return plc.model_copy(update={"transitions": [*plc.transitions, *extra]}) if extra else plc


def _required_states(guards: list[Guard], field: str) -> set[str] | None:
    out: set[str] | None = None
    for g in guards:
        if g.kind in ("equals", "one_of") and g.field == field:
            values = {str(g.value)} if g.kind == "equals" else {str(v) for v in g.values or []}
            out = values if out is None else out & values
    return out


class ParentRule(NamedTuple):
    """What a row of an entity needs of one parent: the parent's status column, and per state of the
    row (None for a row without a lifecycle) the states the parent may be in."""

    field: str
    states: dict[str | None, frozenset[str]]

    def allows(self, row_state: Any, parent_state: Any) -> bool:
        wanted = self.states.get(row_state, self.states.get(None))
        return wanted is None or parent_state in wanted


def _status_guard(guards: list[Guard], ref_name: str, field: str, lc: Lifecycle) -> set[str] | None:
    """The parent states that ``guards`` let be reached from (None: they do not test the parent)."""
    out: set[str] | None = None
    for guard in guards:
        if guard.kind in ("equals", "one_of") and guard.field == f"via:{ref_name}.{field}":
            wanted = [guard.value] if guard.kind == "equals" else list(guard.values or [])
            now = set().union(*(reachable(lc, str(v)) for v in wanted if v in lc.states))
            out = now if out is None else out & now
    return out


def _made_under(domain: Domain, entity: Entity, ref_name: str, parent: Entity, plc: Lifecycle) -> frozenset[str]:
    """The parent states a new row of ``entity`` can appear under: through its create (in the states
    its guard names and after, or in any), and through the parent's transitions that insert one
    pointing at the parent (in the state they lead to and after: a refund row once its return is
    refunded). A row inserted any other way (by another record's action) may sit under any state."""
    ways: set[str] = set()
    if entity.create is not None:
        created = _status_guard(entity.create.guards, ref_name, plc.field, plc)
        ways |= set(plc.states) if created is None else created
    for actor in domain.entities:
        effects: list[tuple[Transition | None, Effect]] = [
            (tr, x) for tr in (actor.lifecycle.transitions if actor.lifecycle else []) for x in tr.effects
        ]
        effects += [(None, x) for x in (actor.create.effects if actor.create else [])]
        for tr, x in effects:
            if x.kind != "insert" or x.entity != entity.name:
                continue
            if actor is parent and tr is not None and x.values.get(ref_name) == "self":
                ways |= reachable(plc, tr.to)
            else:
                ways |= set(plc.states)
    return frozenset(ways or plc.states)


def parent_states(domain: Domain, entity: Entity) -> dict[str, ParentRule]:
    """Reference column -> what a row of ``entity`` needs of that parent's state: from how such a row
    is made (its create's guard on the parent's status; a parent's transition that inserts it), and
    from the guards on the parent of the transitions that led the row to its state (a part approved
    while its repair was awaiting approval sits under a repair in that state or a later one).
    References nothing ties to the parent's state are left out."""
    out: dict[str, ParentRule] = {}
    for ref in entity.references:
        parent = domain.entity(ref.entity)
        plc = moved_by_others(domain, parent) if parent is not None else None
        if plc is None:
            continue
        every = frozenset(plc.states)
        start = _made_under(domain, entity, ref.ref_name, parent, plc)
        lc = entity.lifecycle
        if lc is None:
            states: dict[str | None, frozenset[str]] = {None: start}
        else:
            reach: dict[str, set[str]] = {s: set() for s in lc.states}
            reach[lc.initial] = set(start)
            changed = True
            while changed:  # a state's parents: those of every way into it, each narrowed by its guard
                changed = False
                for tr in lc.transitions:
                    guard = _status_guard(tr.guards, ref.ref_name, plc.field, plc)
                    for source in tr.from_states:
                        came = reach[source] if guard is None else reach[source] & guard
                        if not came <= reach[tr.to]:
                            reach[tr.to] |= came
                            changed = True
            states = {s: frozenset(r or start) for s, r in reach.items()}  # no way in: as created
        if any(s != every for s in states.values()):
            out[ref.column] = ParentRule(plc.field, states)
    return out


Seed = dict[str, list[dict[str, Any]]]


def _children(domain: Domain, seed: Seed, parent: Entity) -> list[tuple[dict[str, Any], str, str | None, ParentRule]]:
    """(child row, its reference column, its own status column, the rule) for every child row of
    ``parent`` whose state some guard ties to the parent's."""
    out = []
    for entity in domain.entities:
        own = entity.lifecycle.field if entity.lifecycle else None
        for column, rule in parent_states(domain, entity).items():
            if next(r for r in entity.references if r.column == column).entity == parent.name:
                out += [(row, column, own, rule) for row in seed.get(entity.table, [])]
    return out


def keeps_children(domain: Domain, seed: Seed) -> Callable[[str, dict[str, Any], Any], bool]:
    """Whether moving a row of a table to a status leaves it possible under its parents, and every
    child it has possible under it."""
    by_table = {e.table: e for e in domain.entities}
    children = {e.table: _children(domain, seed, e) for e in domain.entities if e.lifecycle}
    parents = {e.table: parent_states(domain, e) for e in domain.entities}
    rows_by_id = {e.name: {r[pk(e)]: r for r in seed.get(e.table, [])} for e in domain.entities}

    def keeps(table: str, row: dict[str, Any], status: Any) -> bool:
        entity = by_table.get(table)
        if entity is None:
            return True
        for column, rule in parents[table].items():
            ref = next(r for r in entity.references if r.column == column)
            parent = rows_by_id[ref.entity].get(row.get(column))
            if parent is not None and not rule.allows(status, parent.get(rule.field)):
                return False
        key = row.get(pk(entity))
        return all(
            rule.allows(child.get(own) if own else None, status)
            for child, col, own, rule in children.get(table, [])
            if child.get(col) == key
        )

    return keeps


def stranded_children(domain: Domain, seed: Seed) -> tuple[int, int]:
    """(child rows whose parent's state a guard of theirs tests, those under a parent in a state
    they could not have been made in or moved to their own state under)."""
    checked = stranded = 0
    for parent in domain.entities:
        if parent.lifecycle is None:
            continue
        status = {r[pk(parent)]: r.get(parent.lifecycle.field) for r in seed.get(parent.table, [])}
        for child, column, own, rule in _children(domain, seed, parent):
            if child.get(column) in status:
                checked += 1
                stranded += not rule.allows(child.get(own) if own else None, status[child[column]])
    return checked, stranded
