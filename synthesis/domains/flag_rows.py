"""A check on a flag also checks the rows the flag stands for: placing a hold on a vehicle that reads
``available`` also asks that no active hold is on it.

A parent's column *summarizes* a child when the child's coming into a state sets it (a new hold marks
its vehicle ``on_hold``) and leaving that state sets it back (releasing the hold makes the vehicle
``available``). A guard that a parent's column holds one of some values the summarizing states do
not set (the vehicle is ``available``) then says that no child is in them, and the tool checks that
too: a ``count_max`` guard (fewer than one such child), which the tool always checks and which the
seed world keeps (``limits``), so a flag out of step with its rows cannot let a second hold in.
"""

from __future__ import annotations

from .domain import Domain, Effect, Entity, Guard, Reference

_KINDS = ("equals", "one_of")


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _sets(effects: list[Effect], ref: Reference, column: str) -> set[str]:
    """The literal values ``effects`` set a parent's ``column`` to, through ``ref``."""
    target = f"via:{ref.ref_name}.{column}"
    return {str(x.value) for x in effects if x.kind == "set" and x.target == target and x.when is None}


def summarizing_states(child: Entity, ref: Reference, column: str, allowed: set[str]) -> list[str]:
    """The child's states whose coming in sets the parent's ``column`` outside ``allowed`` and whose
    leaving sets it back into ``allowed`` (empty when the column does not summarize the child)."""
    lc = child.lifecycle
    if lc is None:
        return []
    entered: dict[str, set[str]] = {}
    if child.create is not None:
        entered.setdefault(lc.initial, set()).update(_sets(child.create.effects, ref, column))
    for t in lc.transitions:
        entered.setdefault(t.to, set()).update(_sets(t.effects, ref, column))
    out = []
    for state, values in entered.items():
        if not values or values & allowed:
            continue
        leaving = [t for t in lc.transitions if state in t.from_states and t.to != state]
        if any(_sets(t.effects, ref, column) & allowed for t in leaving):
            out.append(state)
    return sorted(out)


def _row_guards(domain: Domain, acting: Entity, guards: list[Guard], in_create: bool) -> list[Guard]:
    """The count guards a list of guards of ``acting`` lacks."""
    added: list[Guard] = []
    for g in guards:
        if g.kind not in _KINDS or not str(g.field).startswith("via:"):
            continue
        ref_name, _, column = str(g.field)[4:].partition(".")
        ref = acting.reference(ref_name)
        if ref is None:
            continue
        allowed = {str(g.value)} if g.kind == "equals" else {str(v) for v in g.values or []}
        parent = domain.entity(ref.entity)
        for child in domain.entities:
            if child is acting and not in_create:  # the record's own hold would count against it
                continue
            for child_ref in (r for r in child.references if r.entity == parent.name):
                states = summarizing_states(child, child_ref, column, allowed)
                if not states or any(
                    x.kind == "count_max" and x.entity == child.name and x.match == child_ref.column
                    for x in [*guards, *added]
                ):
                    continue
                said = " or ".join(s.replace("_", " ") for s in states)
                source = f"param:{ref.column}" if in_create else f"field:{ref.column}"
                shown = f"{{{ref.column}}}" if in_create else f"{{rec.{ref.column}}}"
                added.append(
                    Guard(
                        kind="count_max",
                        field=source,
                        entity=child.name,
                        match=child_ref.column,
                        states=states,
                        amount=1,
                        enforced_by="tool",
                        message=f"{parent.human.capitalize()} {shown} already has {_a(said)} {child.human}",
                    )
                )
    return added


def check_flagged_rows(domain: Domain) -> Domain:
    """A copy of ``domain`` whose guards on a summarizing column also count the rows it summarizes."""
    copy = domain.model_copy(deep=True)
    for e in copy.entities:
        if e.create is not None:
            e.create.guards += _row_guards(copy, e, e.create.guards, in_create=True)
        for t in e.lifecycle.transitions if e.lifecycle else []:
            t.guards += _row_guards(copy, e, t.guards, in_create=False)
    return copy
