"""Which coherence rules become spec invariants and create-tool guards.

An invariant is emitted only where every generated tool keeps it (checked here, against the same
tool set ``envgen`` builds): a tool that legitimately moves a date or reassigns a reference would
otherwise be dropped by the admission gate.
"""

from __future__ import annotations

from typing import Any

from envs.engine.compile import quote_ident

from ..domains.coherence import Agreement, agreement_sql, agreements
from ..domains.domain import Creation, Domain, Effect, Entity, Guard, Transition
from ..domains.enforcement import enforced
from ..domains.sqlgen import binding, literal, pk
from ..domains.timing import Timing, date_source, guards_on, timing
from .toolkit import a_


def _tool_transitions(domain: Domain) -> list[tuple[Entity, Transition]]:
    """The transitions that become agent tools (customer actions)."""
    return [(e, t) for e in domain.entities if e.lifecycle for t in e.lifecycle.transitions if t.actor == "customer"]


def _tool_effects(domain: Domain) -> list[tuple[Entity, Effect, bool]]:
    """Every effect a generated tool runs: (acting entity, effect, in a create tool)."""
    out = [(e, x, False) for e, t in _tool_transitions(domain) for x in t.effects]
    out += [(e, x, True) for e in domain.entities if e.create for x in e.create.effects]
    return out


def _target(domain: Domain, e: Entity, target: str | None) -> tuple[str, str] | None:
    """(entity, column) an effect target writes."""
    if not target:
        return None
    if target.startswith("field:"):
        return e.name, target[6:]
    ref_name, _, col = target[4:].partition(".")
    ref = e.reference(ref_name)
    return (ref.entity, col) if ref is not None else None


def _written_columns(domain: Domain) -> set[tuple[str, str]]:
    """(entity, column) pairs some tool's set / add / subtract / add_days effect or update tool writes."""
    out = {t for e, x, _ in _tool_effects(domain) if x.kind != "insert" and (t := _target(domain, e, x.target))}
    out |= {(e.name, a.name) for e in domain.entities for a in e.attributes if a.editable}
    return out


def _inserts_into(domain: Domain, entity: Entity) -> list[tuple[Entity, Effect, bool]]:
    return [(e, x, c) for e, x, c in _tool_effects(domain) if x.kind == "insert" and x.entity == entity.name]


def _denotes(value: Any, acting: Entity, in_create: bool) -> tuple[str, ...] | None:
    """What an insert value names, in terms of the acting record: ('self',), ('ref', r), ('via', r, col)."""
    if not isinstance(value, str):
        return None
    if value == "self":
        return ("self",)
    kind, _, rest = value.partition(":")
    if kind == "via":
        ref_name, _, col = rest.partition(".")
        if acting.reference(ref_name) is None:
            return None
        return ("via", ref_name, col) if col else ("ref", ref_name)
    if kind == "field" or (kind == "param" and in_create):
        ref = next((r for r in acting.references if r.column == rest), None)
        return ("ref", ref.ref_name) if ref is not None else None
    return None


def _insert_agrees(domain: Domain, ag: Agreement, acting: Entity, eff: Effect, in_create: bool, depth: int) -> bool:
    """Whether an insert effect's values for the two references provably agree (or leave one empty)."""
    if ag.target.ref_name not in eff.values or ag.source.ref_name not in eff.values:
        return True  # a reference left out is NULL: no disagreement
    vt = _denotes(eff.values[ag.target.ref_name], acting, in_create)
    vs = _denotes(eff.values[ag.source.ref_name], acting, in_create)
    if vt is None or vs is None:
        return False
    first = ag.path[0]
    if vs == ("self",) and acting.name == ag.source.entity:
        if len(ag.path) == 1:
            return vt == ("ref", first.ref_name)
        return len(ag.path) == 2 and vt == ("via", first.ref_name, ag.path[1].column)
    if vs[0] == "ref":
        if len(ag.path) == 1 and vt == ("via", vs[1], first.column):
            return True
        if vt[0] == "ref":  # the acting record keeps the same agreement between the two
            return any(
                a.target.ref_name == vt[1]
                and a.source.ref_name == vs[1]
                and a.path == ag.path
                and agreement_problem(domain, a, depth + 1) is None
                for a in agreements(domain, acting)
            )
    return False


def agreement_problem(domain: Domain, ag: Agreement, depth: int = 0) -> str | None:
    """Why some generated tool could break an agreement, or None when every tool keeps it.

    Create tools check it (``WriteTools.create``); an effect that rewrites one of the references
    involved, or inserts a record whose two references do not provably agree, breaks it.
    """
    if depth > 4:
        return "agreements depend on each other too deeply"
    entity = domain.entity(ag.entity)
    cols = {(entity.name, ag.target.column), (entity.name, ag.source.column)}
    holder = domain.entity(ag.source.entity)
    for ref in ag.path:
        cols.add((holder.name, ref.column))
        holder = domain.entity(ref.entity)
    if written := sorted(cols & _written_columns(domain)):
        return f"a tool rewrites {written[0][0]}.{written[0][1]}"
    for e, x, c in _inserts_into(domain, entity):
        if not _insert_agrees(domain, ag, e, x, c, depth):
            return f"an insert by {e.name} {'create' if c else 'transition'} may disagree"
    return None


def _date_moves(domain: Domain, holder: str, col: str) -> set[str]:
    """How tools change a date column: 'later' (add_days by a positive constant) or 'any'."""
    out = set()
    for e, x, _ in _tool_effects(domain):
        if x.kind != "insert" and _target(domain, e, x.target) == (holder, col):
            later = x.kind == "add_days" and isinstance(x.amount, int | float) and x.amount > 0
            out.add("later" if later else "any")
    if any(a.name == col and a.editable for a in domain.entity(holder).attributes):
        out.add("any")
    return out


def _status_set_elsewhere(domain: Domain, entity: Entity, states: tuple[str, ...]) -> bool:
    """Whether an effect may set ``entity``'s status to one of ``states`` (outside its own transitions)."""
    assert entity.lifecycle is not None
    for e, x, _ in _tool_effects(domain):
        if x.kind == "cascade" and x.entity == entity.name and x.value in states:
            return True
        if x.kind != "set" or _target(domain, e, x.target) != (entity.name, entity.lifecycle.field):
            continue
        if not isinstance(x.value, str) or x.value in states or x.value.split(":", 1)[0] in ("field", "via", "param"):
            return True
    return False


def timing_problem(domain: Domain, tm: Timing, side: str) -> str | None:
    """Why some generated tool could break the ``before`` or ``after`` side of a timing, or None.

    A tool keeps it when it only moves records into those states from those states, or behind a
    guard on the event date (``future`` for before; ``past`` within ``after_hours`` for after);
    when no tool rewrites the date (before-states tolerate moving it later by a fixed number of
    days) or the reference it is read through; and when records created in such a state are
    created behind the same guard.
    """
    entity = domain.entity(tm.entity)
    assert entity.lifecycle is not None
    states = tm.before if side == "before" else tm.after
    if not states:
        return "no such states"
    src = date_source(domain, entity, tm.field)
    assert src is not None
    holder, col = src
    moves = _date_moves(domain, holder.name, col)
    if "any" in moves or (side == "after" and moves):
        return f"a tool changes {holder.name}.{col}"
    ref = entity.reference(tm.ref_name) if tm.ref_name else None
    if ref is not None and (entity.name, ref.column) in _written_columns(domain):
        return f"a tool changes {entity.name}.{ref.column}"
    if _status_set_elsewhere(domain, entity, states):
        return "an effect sets the status"
    guard = "future" if side == "before" else "past"
    for e, t in _tool_transitions(domain):
        if e.name != entity.name or t.to not in states:
            continue
        kept = [
            g
            for g in enforced(guards_on(t, guard, tm.field))  # a policy-only rule keeps nothing an agent may break
            if side == "before" or g.hours <= tm.after_hours
        ]
        if not set(t.from_states) <= set(states) and not kept:
            return f"{t.name} moves records into {t.to} without a {guard} guard on {tm.field}"
    if entity.lifecycle.initial in states:
        if entity.create is not None:
            made = creation_guards(domain, entity, entity.create)
            guarded = side == "before" and any(g.kind == "future" and g.field == tm.field for g in enforced(made))
            if not guarded or (ref is None and col not in entity.create.inputs):
                return f"create_{entity.name} makes {entity.lifecycle.initial} records without a {guard} guard"
        for e, x, _ in _inserts_into(domain, entity):
            if (ref.ref_name if ref else col) in x.values:
                return f"{e.name} inserts {entity.lifecycle.initial} records with a {tm.column}"
    return None


def creation_guards(domain: Domain, entity: Entity, creation: Creation) -> list[Guard]:
    """The guards of ``entity``'s create tool: the domain's, plus "the event date is ahead" when
    new records start in a before-state and the date is supplied (an input, or a parent's date)."""
    guards = list(creation.guards)
    tm = timing(domain, entity)
    if tm is None or entity.lifecycle is None or entity.lifecycle.initial not in tm.before:
        return guards
    if any(g.kind == "future" and g.field == tm.field for g in enforced(guards)):
        return guards
    what = tm.column.replace("_", " ")
    if tm.ref_name:
        ref = entity.reference(tm.ref_name)
        if ref is None or ref.nullable:
            return guards
        parent = domain.entity(ref.entity)
        message = (
            f"The {what} of {parent.human} {{{ref.column}}} ({{{binding(ref.ref_name)}.{tm.column}}}) "
            "must be in the future"
        )
    else:
        attr = entity.attribute(tm.column)
        if tm.column not in creation.inputs or attr is None or attr.nullable:
            return guards
        message = f"The {what} ({{{tm.column}}}) must be in the future"
    return [*guards, Guard(kind="future", field=tm.field, message=message)]


def timing_violations(domain: Domain, tm: Timing, side: str, now: str = "now()") -> str:
    """SELECT of the rows whose status contradicts their event date (``now`` is an SQL expression)."""
    entity = domain.entity(tm.entity)
    assert entity.lifecycle is not None
    states = tm.before if side == "before" else tm.after
    t = quote_ident(entity.table)
    date = f"x.{quote_ident(tm.column)}"
    if tm.ref_name:
        ref = entity.reference(tm.ref_name)
        assert ref is not None
        parent = domain.entity(ref.entity)
        source = f"{t} x0 JOIN {quote_ident(parent.table)} x ON x.{pk(parent)} = x0.{ref.column}"
        key, status = f"x0.{pk(entity)}", f"x0.{entity.lifecycle.field}"
    else:
        source, key, status = f"{t} x", f"x.{pk(entity)}", f"x.{entity.lifecycle.field}"
    if side == "before":
        cond = f"{date} <= {now}"
    else:
        edge = f"datetime({now}, '+{tm.after_hours} hours')" if tm.after_hours else now
        cond = f"{date} > {edge}"
    return (
        f"SELECT {key} AS id, {status} AS status, {date} AS date FROM {source} "
        f"WHERE {status} IN ({', '.join(map(literal, states))}) AND {cond}"
    )


def coherence_invariants(domain: Domain) -> list[dict[str, Any]]:
    """Invariants for the agreements and timings that every generated tool keeps."""
    out = []
    for e in domain.entities:
        for ag in agreements(domain, e):
            if agreement_problem(domain, ag) is not None:
                continue
            source = domain.entity(ag.source.entity)
            target = domain.entity(ag.target.entity)
            out.append(
                {
                    "name": f"{e.table}_{ag.target.ref_name}_matches_{ag.source.ref_name}"[:64],
                    "description": f"The {target.human} of {a_(e.human)} is the {target.human} of its {source.human}",
                    "violations": f"SELECT x.{pk(e)}, x.{ag.target.column} FROM {quote_ident(e.table)} x "
                    f"WHERE x.{ag.source.column} IS NOT NULL "
                    f"AND x.{ag.target.column} != {agreement_sql(domain, ag, f'x.{ag.source.column}')}",
                }
            )
        tm = timing(domain, e)
        if tm is None:
            continue
        what = tm.column.replace("_", " ")
        for side in ("before", "after"):
            if timing_problem(domain, tm, side) is not None:
                continue
            states = tm.before if side == "before" else tm.after
            when = "is still ahead" if side == "before" else "has passed"
            slack = f" (or is within {tm.after_hours} hours)" if side == "after" and tm.after_hours else ""
            out.append(
                {
                    "name": f"{e.table}_{side}_{tm.column}"[:64],
                    "description": f"The {what} of {a_(e.human)} that is {' or '.join(states)} {when}{slack}",
                    "violations": timing_violations(domain, tm, side),
                }
            )
    return out
