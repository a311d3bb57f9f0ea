"""A parent's move carries its live children along: cancelling an event withdraws its catering orders
from the kitchen, as tau2's airline refunds a reservation's payments when it is cancelled.

A child's state may need its parent in some states *while* it is in it: a catering order is
submitted only while its event is confirmed (every way into ``submitted`` checks the event's status),
and ``submitted`` is not the end of it (the kitchen still locks it). A customer's action that moves
the parent out of those states would leave the child live against the rule the policy states. Such an
action gets a ``cascade`` effect that takes those children back, through a move the child's own
lifecycle has to a state that withdraws it (``submitted`` -> ``draft``, a reopening without effects
of its own; ``submitted`` -> ``withdrawn``), the customer's move first. The tool's description says
so. Only a move that ends the parent unfulfilled (cancelled,
closed, lost) carries them: children still wait on a parent that went ahead (checked in, paid).
"""

from __future__ import annotations

from .domain import Domain, Effect, Entity, Guard, Lifecycle, Reference, Transition, plural
from .parent_states import reachable

#: Words of a child state that ends it without doing it (a withdrawal, not the work done).
_WITHDRAWN = ("cancel", "withdraw", "void", "revok", "rescind", "draft")
#: Words of a parent state that ends it unfulfilled (called off, closed, lost), not one it reaches by
#: going ahead (checked in, paid, confirmed): children still wait on a parent that went ahead.
_CALLED_OFF = ("cancel", "closed", "ended", "abandon", "withdraw", "declin", "lost", "terminat", "void", "revok")


def _parent_status_values(guards: list[Guard], ref: Reference, field: str) -> set[str] | None:
    """The parent states an ``equals`` / ``one_of`` guard on ``via:<ref>.<field>`` allows, or None."""
    out: set[str] | None = None
    for g in guards:
        if g.kind in ("equals", "one_of") and g.field == f"via:{ref.ref_name}.{field}":
            values = {str(g.value)} if g.kind == "equals" else {str(v) for v in g.values or []}
            out = values if out is None else out & values
    return out


def needed_parent_states(domain: Domain, child: Entity, ref: Reference, parent_field: str) -> dict[str, set[str]]:
    """Child state -> the parent states every way into it checks for (states some way into which
    does not check the parent are left out)."""
    lc = child.lifecycle
    assert lc is not None
    out: dict[str, set[str]] = {}
    inserted = any(
        x.kind == "insert" and x.entity == child.name
        for e in domain.entities
        for x in [
            *(x for t in (e.lifecycle.transitions if e.lifecycle else []) for x in t.effects),
            *(e.create.effects if e.create else []),
        ]
    )
    for state in lc.states:
        into = [t for t in lc.transitions if t.to == state and state not in t.from_states]
        ways: list[list[Guard] | None] = [t.guards for t in into]
        if state == lc.initial:
            ways.append(child.create.guards if child.create is not None else None)
            if inserted:
                ways.append(None)
        needed: set[str] | None = set()
        for guards in ways:
            values = _parent_status_values(guards, ref, parent_field) if guards is not None else None
            if values is None:
                needed = None
                break
            assert needed is not None
            needed |= values
        if ways and needed:
            out[state] = needed
    return out


def _live(lc: Lifecycle, state: str) -> bool:
    return any(state in t.from_states and t.to != state for t in lc.transitions)


def _withdrawal(child: Entity, state: str, allowed: dict[str, set[str]], parent_to: str) -> str | None:
    """The state a child in ``state`` is taken back to: the target of a move out of it without effects
    of its own, to a state whose name says it withdraws (back to draft, cancelled, withdrawn), where the
    parent's new state does not break the child's rule; the customer's move first. None if there is none."""
    lc = child.lifecycle
    assert lc is not None
    fits = [
        t
        for t in lc.transitions
        if state in t.from_states
        and t.to != state
        and not t.effects
        and not any(p.required for p in t.params)
        and parent_to in allowed.get(t.to, {parent_to})
    ]
    fits = [t for t in fits if any(w in t.to for w in _WITHDRAWN)]
    fits.sort(key=lambda t: t.actor != "customer")
    return fits[0].to if fits else None


def _words(state: str) -> str:
    return state.replace("_", " ")


def _handled(t: Transition, child: Entity, state: str) -> bool:
    return any(x.kind == "cascade" and x.entity == child.name and state in (x.states or []) for x in t.effects) or any(
        g.kind == "count_max" and g.entity == child.name and state in (g.states or []) for g in t.guards
    )


def _carry(domain: Domain, parent: Entity, t: Transition) -> None:
    """Add to ``t`` what keeps each live child of the parent within its rule (in place)."""
    plc = parent.lifecycle
    assert plc is not None
    for child in domain.entities:
        if child.lifecycle is None or child is parent:
            continue
        for ref in (r for r in child.references if r.entity == parent.name):
            needed = needed_parent_states(domain, child, ref, plc.field)
            carried: dict[str, list[str]] = {}
            for state, wanted in needed.items():
                under = set().union(*(reachable(plc, s) for s in wanted if s in plc.states))
                if t.to in wanted or not _live(child.lifecycle, state) or not under & set(t.from_states):
                    continue
                if _handled(t, child, state):
                    continue
                target = _withdrawal(child, state, needed, t.to)
                if target is not None:  # else left as it is: refusing instead would stop ordinary cancels
                    carried.setdefault(target, []).append(state)
            for target, states in carried.items():
                t.effects.append(Effect(kind="cascade", entity=child.name, states=states, value=target))
                said = " or ".join(map(_words, states))
                verb = "go back to" if target == child.lifecycle.initial else "become"
                t.description = f"{t.description.rstrip('.')}; its {said} {plural(child.human)} {verb} {_words(target)}"


def carry_children(domain: Domain) -> Domain:
    """A copy of ``domain`` whose customers' actions carry the children a move would leave live."""
    copy = domain.model_copy(deep=True)
    for parent in copy.entities:
        lc = parent.lifecycle
        for t in lc.transitions if lc is not None else []:
            ends = lc is not None and not _live(lc, t.to) and any(w in t.to for w in _CALLED_OFF)
            if t.actor == "customer" and ends:
                _carry(copy, parent, t)
    return copy
