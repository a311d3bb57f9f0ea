"""Confirmations: actions the customer must agree to, knowing what they do, before the agent acts.

A transition with ``confirm: true`` (a cancellation that keeps a fee, a refund to a card) gets a
required boolean ``confirm`` argument. After every rule held, a call with ``confirm=false`` changes
nothing and fails with what the action would do, with the values of this record: the status it
takes, each amount moved (a conditional fee as the amount it comes to now, 0 when it does not
apply), each record inserted. The agent tells the customer, and calls again with ``confirm=true``
once they agree. Gold calls carry ``confirm=true`` (the customer in a task agrees when asked);
the admission gate checks that ``false`` changes nothing.
"""

from __future__ import annotations

from typing import Any

from envs.quality.written_dates import names_date_to_come

from ..domains.domain import Domain, Effect, Entity, Transition
from ..domains.sqlgen import Scope, expr, pk
from .guards import guard_step
from .toolkit import a_

CONFIRM = "confirm"
NOT_YET = "Nothing was done yet"


def confirm_schema() -> dict[str, Any]:
    return {
        "type": "boolean",
        "description": "true only once the customer has explicitly agreed to what this does; with false "
        "nothing changes and the error says what it would do",
    }


def _shown(sql: str) -> str:
    return "{" + sql[1:] + "}" if sql.startswith(":") else sql.strip("'")


def _words(name: str) -> str:
    return name.replace("_", " ")


def _target(domain: Domain, e: Entity, target: str) -> str:
    if target.startswith("field:"):
        return f"its {_words(target[6:])}"
    ref_name, _, col = target[4:].partition(".")
    return f"the {_words(col)} of its {_words(ref_name)}"


def _effect(domain: Domain, e: Entity, x: Effect, amount: str | None, scope: Scope) -> str | None:
    """One effect in plain words; ``amount`` is the placeholder of a conditional amount's value now."""
    where = f"{e.name} confirmation"
    if x.kind in ("add", "subtract") and x.target:
        shown = amount or _shown(expr(x.amount, where=where, scope=scope))
        verb = "is added to" if x.kind == "add" else "is taken from"
        return f"{shown} {verb} {_target(domain, e, x.target)}"
    if x.kind == "set" and x.target:
        return f"{_target(domain, e, x.target)} becomes {_shown(expr(x.value, where=where, scope=scope))}"
    if x.kind == "add_days" and x.target:
        later = f"{_target(domain, e, x.target)} moves {_shown(expr(x.amount, where=where, scope=scope))} days later"
        target = x.target.partition(".")[2] if x.target.startswith("via:") else x.target.removeprefix("field:")
        return f"{later}, counted from today if it has passed" if names_date_to_come(target) else later
    if x.kind == "insert" and x.entity:
        other = domain.entity(x.entity)
        details = []
        for key, source in x.values.items():
            attr = other.attribute(key)
            ref = other.reference(key)
            if attr is not None and attr.kind == "money":
                details.append(f"of {_shown(expr(source, where=where, scope=scope))}")
            elif ref is not None and ref.role == "uses" and isinstance(source, str) and source.startswith("via:"):
                details.append(f"to {_words(ref.ref_name)} {_shown(expr(source, where=where, scope=scope))}")
        return " ".join([f"{a_(other.human)} is recorded", *details])
    if x.kind == "cascade" and x.entity:
        child = domain.entity(x.entity)
        states = " or ".join(map(_words, x.states or []))
        return f"its {_words(child.table)} that are {states} become {_words(str(x.value))}"
    return None


def confirm_steps(domain: Domain, e: Entity, t: Transition, scope: Scope) -> list[dict[str, Any]]:
    """The steps that stop a call without ``confirm=true``, saying what it would do (after the rules)."""
    assert e.lifecycle is not None
    columns = []
    parts = [] if t.to in t.from_states and len(t.from_states) == 1 else [f"it becomes {_words(t.to)}"]
    for i, x in enumerate(t.effects):
        amount = None
        if x.when is not None and x.kind in ("add", "subtract"):
            only_if = guard_step(domain, e, x.when, f"{e.name} confirmation", pk(e), scope)["sql"]
            value = expr(x.amount, where=f"{e.name} confirmation", scope=scope)
            columns.append(f"CASE WHEN ({only_if.removeprefix('SELECT ')}) THEN {value} ELSE 0 END AS amount{i}")
            amount = f"{{would.amount{i}}}"
        text = _effect(domain, e, x, amount, scope)
        if text:
            parts.append(text)
    steps: list[dict[str, Any]] = []
    if columns:
        steps.append({"kind": "query", "bind": "would", "sql": f"SELECT {', '.join(columns)}"})
    what = "; ".join(parts) or "the change is made"
    steps.append(
        {
            "kind": "require",
            "sql": f"SELECT :{CONFIRM} IS 1",
            "message": f"{NOT_YET}. If the customer confirms, for {e.human} {{{pk(e)}}}: {what}. Tell them, "
            f"and call again with {CONFIRM}=true once they explicitly agree",
        }
    )
    return steps


def confirmed(tool_parameters: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """A gold call's arguments: the customer in a task agrees when asked, so ``confirm`` is true."""
    if CONFIRM in tool_parameters.get("properties", {}) and CONFIRM not in arguments:
        return {**arguments, CONFIRM: True}
    return arguments
