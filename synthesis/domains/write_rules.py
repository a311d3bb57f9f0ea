"""Seed rows that carry a write within the write's rules (the quality report's measure 82,
:mod:`envs.quality.write_rules`): a pickup transcript order is never the one marked expedited, no
emissions test waits for a vehicle already marked emissions ok, no offer waits on a load an accepted
offer has covered.

:func:`carry_parent_effects` first gives a parent what its children's moves set on it, as the move
would have: an accepted offer's load is covered, a passed test's vehicle emissions ok (the domain's
transitions, staff ones too, which the tools alone do not show). :func:`fit_write_rules` then brings
each row carrying a write within the write's rules: a value of the row's own is redrawn on the rule's
side (the delivery method of an expedited order is mail or electronic); a row still as its create
made it under a record that no longer meets the create's rules is called off, through a tool's move
from its made state (a test booked for a vehicle since found emissions ok is cancelled).
"""

from __future__ import annotations

import random
import re
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.event_children import CALLED_OFF
from envs.quality.seed import status_columns
from envs.quality.write_rules import WriteRule, broken_write_rules

from .domain import Domain, Effect, Entity, Lifecycle, Transition
from .parent_states import keeps_children
from .sqlgen import pk

_FROM = re.compile(r"^SELECT :rec\.status IN \(([^)]*)\)$")
_MOVE = re.compile(r"^UPDATE \"?(\w+)\"? SET \"?status\"? = '(\w+)' WHERE")
#: A create's limit on the rows of one value of a column: ``(SELECT count(*) FROM "t" WHERE "c" = :c AND
#: "status" IN ('submitted')) < 2``.
_LIMIT = re.compile(
    r'^SELECT \(SELECT count\(\*\) FROM "?(\w+)"? WHERE "?(\w+)"? = :\w+(?: AND "?status"? IN \(([^)]*)\))?\) < (\d+)$'
)


def _sets(t: Transition, target: str) -> bool:
    return any(x.kind == "set" and x.target == target for x in t.effects)


def _carrying(lc: Lifecycle, t: Transition, target: str) -> set[str]:
    """The states a row reaches only through ``t`` and leaves no move that sets ``target`` again."""
    seen, todo = {lc.initial}, [lc.initial]
    while todo:  # reached without t
        state = todo.pop()
        for other in lc.transitions:
            if other is not t and state in other.from_states and other.to not in seen:
                seen.add(other.to)
                todo.append(other.to)
    out, todo = {t.to}, [t.to]
    while todo:
        state = todo.pop()
        for other in lc.transitions:
            if state in other.from_states and other.to not in out and not _sets(other, target):
                out.add(other.to)
                todo.append(other.to)
    return out - seen


def _required(t: Transition, target: str) -> set[str] | None:
    """The values a transition's guards allow ``target`` before it (None: it tests none)."""
    out: set[str] | None = None
    for g in t.guards:
        if g.kind in ("equals", "one_of") and g.field == target:
            values = {str(g.value)} if g.kind == "equals" else {str(v) for v in g.values or []}
            out = values if out is None else out & values
    return out


def _effects(entity: Entity) -> list[tuple[Transition, Effect]]:
    """The literal sets of a transition on a record its row references, where the transition sets that
    record nothing else from a source (a swap that hands the shift to another worker is left whole)."""
    lc = entity.lifecycle
    out = []
    for t in lc.transitions if lc else []:
        for x in t.effects:
            if x.kind != "set" or x.when is not None or not str(x.target).startswith("via:") or not _literal(x.value):
                continue
            ref = str(x.target)[4:].partition(".")[0]
            if all(_literal(o.value) for o in t.effects if str(o.target).startswith(f"via:{ref}.")):
                out.append((t, x))
    return out


def _literal(value: Any) -> bool:
    """Whether an effect's value is a literal, not a source read when it runs (``field:x``, ``today``)."""
    if isinstance(value, str):
        return not value.startswith(("field:", "via:", "param:")) and value not in ("now", "today", "self")
    return isinstance(value, bool | int | float)


def _made_demands(
    entity: Entity, rows: list[dict[str, Any]], demands: dict[tuple[str, str], dict[Any, set[Any]]]
) -> None:
    """What a create sets on a record it references, demanded by the rows no move has set it again
    since (a live hold keeps its vehicle on hold): a parent demanded two ways is left as drawn."""
    lc = entity.lifecycle
    if lc is None or entity.create is None:
        return
    for x in entity.create.effects:
        target = str(x.target)
        if x.kind != "set" or x.when is not None or not target.startswith("via:") or not _literal(x.value):
            continue
        ref = entity.reference(target[4:].partition(".")[0])
        if ref is None:
            continue
        states, todo = {lc.initial}, [lc.initial]
        while todo:
            state = todo.pop()
            for t in lc.transitions:
                if state in t.from_states and t.to not in states and not _sets(t, target):
                    states.add(t.to)
                    todo.append(t.to)
        for row in rows:
            if row.get(ref.column) is not None and row.get(lc.field) in states:
                demands.setdefault((ref.entity, target.partition(".")[2]), {}).setdefault(row[ref.column], set()).add(
                    x.value
                )


def carry_parent_effects(domain: Domain, spec: EnvSpec) -> int:
    """Set on each parent what its children's moves set on it, where they all agree (in place); a
    parent's status only while it is still where the move required it. Returns the values set."""
    demands: dict[tuple[str, str], dict[Any, set[Any]]] = {}
    guards: dict[tuple[str, str], dict[Any, set[str] | None]] = {}
    for entity in domain.entities:
        if entity.lifecycle is None:
            continue
        for t, x in _effects(entity):
            ref = entity.reference(str(x.target)[4:].partition(".")[0])
            if ref is None:
                continue
            column = str(x.target).partition(".")[2]
            states = _carrying(entity.lifecycle, t, str(x.target))
            for row in spec.seed.get(entity.table, []):
                parent_id = row.get(ref.column)
                if parent_id is not None and row.get(entity.lifecycle.field) in states:
                    demands.setdefault((ref.entity, column), {}).setdefault(parent_id, set()).add(x.value)
                    guards.setdefault((ref.entity, column), {})[parent_id] = _required(t, str(x.target))
        _made_demands(entity, spec.seed.get(entity.table, []), demands)
    changed = 0
    # a parent's status moves only where every child of it could have been made under the new one: the
    # states a child's create allows are read from the parent's own lifecycle (``parent_states``)
    keeps = keeps_children(domain, spec.seed)
    for (name, column), by_parent in demands.items():
        parent = domain.entity(name)
        is_status = parent.lifecycle is not None and column == parent.lifecycle.field
        for row in spec.seed.get(parent.table, []):
            values = by_parent.get(row[pk(parent)])
            if not values or len(values) > 1:
                continue  # children that disagree leave the parent as drawn
            [value] = values
            if is_status:
                assert parent.lifecycle is not None
                allowed = guards[name, column].get(row[pk(parent)])
                if allowed is None or row.get(column) not in allowed or value not in parent.lifecycle.states:
                    continue  # moved on since, or never where the move needed it
                if not keeps(parent.table, row, value):
                    continue
            if row.get(column) != value:
                row[column] = value
                changed += 1
    return changed


def _called_off(spec: EnvSpec, table: str, made: str) -> str | None:
    """A state a tool moves rows of ``table`` into from ``made`` that calls them off (cancelled)."""
    for tool in spec.tools:
        sql = [(s.kind, (s.sql or "").strip()) for s in tool.steps]
        froms = {v for k, q in sql if k == "require" and (m := _FROM.match(q)) for v in re.findall(r"'(\w+)'", m[1])}
        for kind, q in sql:
            moved = _MOVE.match(q) if kind == "exec" else None
            # a withdrawal, not the work done: the row never went ahead
            if moved and moved[1] == table and made in froms and moved[2].lower().split("_")[-1] in CALLED_OFF:
                return moved[2]
    return None


def _other_parent(
    spec: EnvSpec, rule: WriteRule, row: dict[str, Any], parent: dict[str, Any], rng: random.Random
) -> Any:
    """The key of another row the create's rule holds of, as like ``parent`` as the row needs: the
    same values in every column the two rows share but the key (its owner), each date on the same
    side of the clock (so the row's own time rules stay met); None when there is none."""
    table = next(t for t in spec.tables if t.name == rule.condition.table)
    key = table.primary_key[0]
    now = spec.clock.strftime("%Y-%m-%d %H:%M:%S")
    own = {c.name for c in status_columns(table)} | {key, rule.condition.column}
    shared = [c.name for c in table.columns if c.name not in own and c.type not in ("date", "datetime")]
    shared = [c for c in shared if any(c == o.name for t in spec.tables if t.name == rule.table for o in t.columns)]
    dates = [c.name for c in table.columns if c.type in ("date", "datetime")]

    def side(row: dict[str, Any], column: str) -> bool | None:
        value = row.get(column)
        return None if value is None else str(value) > now

    fits = [
        r[key]
        for r in spec.seed.get(table.name, [])
        if r is not parent
        and rule.condition.holds(r.get(rule.condition.column))
        and all(r.get(c) == parent.get(c) for c in shared)
        and all(side(r, c) == side(parent, c) for c in dates)
        and _room(spec, rule, row, r[key])
        and not _twin(spec, rule, row, r[key])
    ]
    return rng.choice(fits) if fits else None


def _twin(spec: EnvSpec, rule: WriteRule, row: dict[str, Any], parent_id: Any) -> bool:
    """Whether another row not called off already holds every reference ``row`` would hold under
    ``parent_id`` (a second enrollment of one student in one course)."""
    table = next(t for t in spec.tables if t.name == rule.table)
    refs = [fk.columns[0] for fk in table.foreign_keys if len(fk.columns) == 1]
    status = status_columns(table)[0].name
    wanted = {c: (parent_id if c == rule.via else row.get(c)) for c in refs}
    return any(
        r is not row
        and all(r.get(c) == v for c, v in wanted.items())
        and str(r.get(status)).lower().split("_")[-1] not in CALLED_OFF
        for r in spec.seed.get(rule.table, [])
    )


def _room(spec: EnvSpec, rule: WriteRule, row: dict[str, Any], parent_id: Any) -> bool:
    """Whether ``row`` moved under ``parent_id`` stays within every limit a tool puts on the rows of one
    parent (at most 2 submitted applications per student)."""
    status = status_columns(next(t for t in spec.tables if t.name == rule.table))[0].name
    via = rule.via or ""
    for tool in spec.tools:
        for step in tool.steps:
            m = _LIMIT.match((step.sql or "").strip()) if step.kind == "require" else None
            if not m or m[1] != rule.table or m[2] != via:
                continue
            states = set(re.findall(r"'(\w+)'", m[3] or ""))
            if states and row.get(status) not in states:
                continue
            held = [r for r in spec.seed.get(rule.table, []) if r.get(via) == parent_id]
            if sum(not states or r.get(status) in states for r in held) + 1 > int(m[4]):
                return False
    return True


def fit_write_rules(spec: EnvSpec) -> int:
    """Bring the rows carrying a write within its rules (in place); returns how many rows changed."""
    rng = random.Random(f"write-rules:{spec.id}")
    tables = {t.name: t for t in spec.tables}
    changed = 0
    for rule, row, read, broken in list(broken_write_rules(spec, spec.seed)):
        if not broken or rule.condition.holds(read.get(rule.condition.column)):
            continue  # settled by an earlier rule on the same row
        cond = rule.condition
        if rule.via is None:
            column = next(c for c in tables[cond.table].columns if c.name == cond.column)
            if column.type == "boolean":
                read[cond.column] = not read[cond.column]
            else:
                pool = [v for v in column.enum or [] if (v in cond.values) != cond.negated]
                if not pool:
                    continue
                read[cond.column] = rng.choice(pool)
            changed += 1
            continue
        if (other := _other_parent(spec, rule, row, read, rng)) is not None:
            row[rule.via] = other
            changed += 1
            continue
        status = status_columns(tables[rule.table])[0].name
        end = _called_off(spec, rule.table, str(row.get(status)))
        if end is not None:
            row[status] = end
            changed += 1
    return changed
