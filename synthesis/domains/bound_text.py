"""Text that only some states of a record have, derived from the domain alone.

A suspension reason belongs to a suspended license, a denial reason to a denied claim, a dispute
reason to a disputed bill: seed rows that fill one on an active license or a pending bill contradict
themselves, and a reviewer sees it first. Two kinds of nullable free text are bound to states:

* **an event's text** (free text, or one of set values) — its name holds the event
  (``suspension_reason``, ``dispute_note``, ``takedown_reason``): filled only in the states that name
  the same event (``suspended``, ``disputed``, ``taken_down``);
* **a reviewer's text** — its name holds a decision-maker's word (``decision_note``,
  ``reviewer_note``, ``inspector_notes``): filled only in states a customer cannot reach on their
  own, i.e. after staff or the system acted (not on a submitted or withdrawn application).

Every other attribute may be filled in any state. ``envs.quality.believable`` counts event texts
outside their states in any catalog (tau2's too), by the same words.
"""

from __future__ import annotations

from typing import Any

from envs.quality.state_words import event_of

from .domain import Domain, Entity, Lifecycle

#: Words naming whoever decides, in a text attribute's name: their note follows a decision.
_REVIEWER_WORDS = frozenset({"decision", "reviewer", "inspector", "adjuster", "examiner", "assessor", "officer"})


def _customer_reachable(lc: Lifecycle) -> set[str]:
    """States reached from the initial one by customer transitions alone."""
    seen, todo = {lc.initial}, [lc.initial]
    while todo:
        state = todo.pop()
        for t in lc.transitions:
            if t.actor == "customer" and state in t.from_states and t.to not in seen:
                seen.add(t.to)
                todo.append(t.to)
    return seen


def bound_states(entity: Entity) -> dict[str, frozenset[str]]:
    """Text attribute -> the states in which it may hold a value (attributes free in every state are
    left out). Only nullable attributes are bound: a required one must hold a value in every state."""
    lc = entity.lifecycle
    if lc is None:
        return {}
    out: dict[str, frozenset[str]] = {}
    for attr in entity.attributes:
        if attr.kind not in ("text", "enum") or not attr.nullable:
            continue
        event = event_of(attr.name)
        if event is not None:
            states = frozenset(s for s in lc.states if event_of(s) == event)
            if states:  # an event no state names (a return reason on a return request) stays free
                out[attr.name] = states
            continue
        if _REVIEWER_WORDS & set(attr.name.split("_")):
            before = _customer_reachable(lc)
            out[attr.name] = frozenset(s for s in lc.states if s not in before)
    return out


def clear_unbound_text(domain: Domain, seed: dict[str, list[dict[str, Any]]]) -> int:
    """Empty each bound text of ``seed``'s rows outside its states; the number of values emptied.
    Run once the statuses are final (after dates have moved statuses that contradicted them)."""
    emptied = 0
    for entity in domain.entities:
        bound = bound_states(entity)
        if not bound or entity.lifecycle is None:
            continue
        field = entity.lifecycle.field
        for row in seed.get(entity.table, []):
            for name, states in bound.items():
                if row.get(name) is not None and row.get(field) not in states:
                    row[name] = None
                    emptied += 1
    return emptied
