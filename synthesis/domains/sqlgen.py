"""Value sources of the domain format, turned into SQL expressions of the generated tools.

Spec literals become SQL literals (they come from the domain, never from an agent); every value an
agent supplies arrives as a bound parameter (``:name``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from envs.engine.compile import quote_ident, sql_literal

from .domain import Entity


class DomainError(ValueError):
    """A domain description cannot be turned into an environment (names the place)."""


literal: Callable[[object], str] = sql_literal


def pk(entity: Entity) -> str:
    """The primary-key column of an entity's table."""
    return f"{entity.name}_id"


def binding(ref: str) -> str:
    """The query binding that holds a referenced record."""
    return f"ref_{ref}"


@dataclass(frozen=True)
class Scope:
    """What value sources refer to inside one generated tool.

    In a transition the acted-on record is bound as ``rec`` and its id is an argument; in a create,
    the new record's id is ``:new.id``, ``field:x`` is the argument ``x`` when the user supplies it
    (else the new row's column), and bare ``via:ref`` is the reference argument.
    """

    self_ref: str
    in_create: bool = False
    table: str = ""
    key: str = ""
    inputs: frozenset[str] = frozenset()


def expr(source: Any, *, where: str, scope: Scope | None = None) -> str:
    """SQL for a value source: field:x, via:ref[.x], param:x, now, today, self, or a literal."""
    scope = scope or Scope(self_ref=":self_id")
    if isinstance(source, str):
        if source.startswith("field:"):
            col = source[6:]
            if not scope.in_create:
                return f":rec.{col}"
            if col in scope.inputs:
                return f":{col}"
            return f"(SELECT {quote_ident(col)} FROM {quote_ident(scope.table)} WHERE {scope.key} = {scope.self_ref})"
        if source.startswith("via:"):
            ref, _, col = source[4:].partition(".")
            if not col:
                return f":{ref}_id" if scope.in_create else f":rec.{ref}_id"
            return f":{binding(ref)}.{col}"
        if source.startswith("param:"):
            return f":{source[6:]}"
        if source == "now":
            return ":now"
        if source == "today":
            return ":today"
        if source == "self":
            return scope.self_ref
    if isinstance(source, str | int | float | bool) or source is None:
        return literal(source)
    raise DomainError(f"{where}: cannot use {source!r} as a value")


def via_refs(sources: list[Any]) -> list[str]:
    """Reference names that value sources read through (``via:ref.col``)."""
    out: list[str] = []
    for s in sources:
        if isinstance(s, str) and s.startswith("via:") and "." in s:
            ref = s[4:].split(".", 1)[0]
            if ref not in out:
                out.append(ref)
    return out
