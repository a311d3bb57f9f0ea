"""Paying the whole of something asks that something is left to pay: paying a bill's amount due from
credit, when an earlier payment already brought it to 0, would record a second payment of nothing and
call the bill paid again.

A transition *pays the whole* of a money attribute when it is a payment (its name says so), records a
row for that attribute's value (a payment of ``field:amount_due``), sets it to 0, and the attribute
is owed (a due amount or balance: a deposit refunded by a cancel is no payment, and a cancel with no
deposit is still a cancel). Such a transition gets a ``min`` guard that the
attribute is above 0, which the tool always checks.
"""

from __future__ import annotations

from .domain import Domain, Entity, Guard, Transition
from .sqlgen import pk

#: Words of a money attribute that is owed, not held.
_OWED = ("due", "balance", "remaining", "owed", "outstanding", "principal")
#: The least amount left that a payment of the whole settles (one cent).
LEAST = 0.01


def paid_whole(e: Entity, t: Transition) -> list[str]:
    """The money attributes ``t`` records a row of and sets to 0."""
    zeroed = {
        str(x.target).removeprefix("field:")
        for x in t.effects
        if x.kind == "set" and x.when is None and str(x.target).startswith("field:") and x.value == 0
    }
    recorded = {str(v).removeprefix("field:") for x in t.effects if x.kind == "insert" for v in x.values.values()}
    if "pay" not in t.name:
        return []
    money = {a.name for a in e.attributes if a.kind == "money" and any(w in a.name for w in _OWED)}
    return sorted(zeroed & recorded & money)


def ask_something_left(domain: Domain) -> Domain:
    """A copy of ``domain`` whose payments of a whole refuse when nothing is left of it."""
    copy = domain.model_copy(deep=True)
    for e in copy.entities:
        for t in e.lifecycle.transitions if e.lifecycle else []:
            for name in paid_whole(e, t):
                field = f"field:{name}"
                if any(g.kind == "min" and g.field == field for g in t.guards):
                    continue
                what = name.replace("_", " ")
                t.guards.append(
                    Guard(
                        kind="min",
                        field=field,
                        amount=LEAST,
                        enforced_by="tool",
                        message=f"{e.human.capitalize()} {{{pk(e)}}} has no {what} left: it is {{rec.{name}}}",
                    )
                )
    return copy
