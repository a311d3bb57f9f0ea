"""Value sources of the domain format, turned into SQL expressions of the generated tools.

Spec literals become SQL literals (they come from the domain, never from an agent); every value an
agent supplies arrives as a bound parameter (``:name``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envs.compile import quote_ident, sql_literal

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


def expr(source: Any, *, where: str) -> str:
    """SQL for a value source: field:x, via:ref.x, param:x, now, self, or a literal."""
    if isinstance(source, str):
        if source.startswith("field:"):
            return f":rec.{source[6:]}"
        if source.startswith("via:"):
            ref, _, col = source[4:].partition(".")
            if not col:
                return f":rec.{ref}_id"
            return f":{binding(ref)}.{col}"
        if source.startswith("param:"):
            return f":{source[6:]}"
        if source == "now":
            return ":now"
        if source == "today":
            return ":today"
        if source == "self":
            return ":self_id"
    if isinstance(source, str | int | float | bool) or source is None:
        return literal(source)
    raise DomainError(f"{where}: cannot use {source!r} as a value")


def target(source: str, entity: Entity, *, where: str) -> tuple[str, str, str]:
    """(table, column, WHERE clause) that a ``field:`` or ``via:`` effect target updates."""
    if source.startswith("field:"):
        return entity.table, source[6:], f"{quote_ident(pk(entity))} = :self_id"
    if source.startswith("via:"):
        ref, _, col = source[4:].partition(".")
        reference = entity.reference(ref)
        if reference is None or not col:
            raise DomainError(f"{where}: '{source}' must be via:<reference>.<column> of '{entity.name}'")
        return "", col, ref  # resolved by the caller, which knows the referenced entity
    raise DomainError(f"{where}: effect target '{source}' must start with field: or via:")


def via_refs(sources: list[Any]) -> list[str]:
    """Reference names that value sources read through (``via:ref.col``)."""
    out: list[str] = []
    for s in sources:
        if isinstance(s, str) and s.startswith("via:") and "." in s:
            ref = s[4:].split(".", 1)[0]
            if ref not in out:
                out.append(ref)
    return out
