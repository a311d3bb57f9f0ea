"""What a τ³ banking_knowledge tool is, for the modules that define them: a parameter (``Param``), a
discoverable tool (``Discoverable``: what the agent unlocks or hands to the customer), the spec of a
listed tool (``tool``) and the steps every tool is built of (``check`` for the refusal, ``answer``).

Kept apart from the tools themselves so that the agent's tools, the customer's and the discoverable
ones (``banking_discoverable``) all build on it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .banking_data import RECORD_TABLES

#: JSON Schema types of tau2's type words; an "integer" takes any number, as tau2 converts it itself
_TYPES = {"string": "string", "number": "number", "boolean": "boolean", "integer": "number"}


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # tau2's type word: string, number, boolean
    description: str
    required: bool = True


@dataclass(frozen=True)
class Discoverable:
    """A tool the agent unlocks (or hands to the customer): its tau2 name, what it does, its parameters,
    whether tau2 counts it as changing state, and its steps."""

    name: str
    description: str
    params: tuple[Param, ...]
    writes: bool
    steps: list[dict[str, Any]] = field(default_factory=list)

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {p.name: {"type": _TYPES[p.type], "description": p.description} for p in self.params},
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }


def info_text(name: str, description: str, params: list[tuple[str, str, bool, str]]) -> str:
    """tau2's ``format_discoverable_tool_for_agent``: the tool's name, description and parameters."""
    lines = [f"  - {p}: {t}{' (required)' if req else ' (optional)'} - {d}" for p, t, req, d in params]
    return f"Tool: {name}\nDescription: {description}\nParameters:\n" + ("\n".join(lines) or "  (no parameters)")


def tool(
    name: str, description: str, kind: str, params: list[Param], steps: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "kind": kind,
        "parameters": {
            "type": "object",
            "properties": {p.name: {"type": _TYPES[p.type], "description": p.description} for p in params},
            "required": [p.name for p in params if p.required],
            "additionalProperties": False,
        },
        "steps": steps,
        **extra,
    }


def answer(text: str) -> dict[str, Any]:
    return {"kind": "return", "shape": "value", "sql": f"SELECT {text}"}


def check(err: str, **values: str) -> dict[str, Any]:
    cols = "".join(f", {v} AS {k}" for k, v in values.items())
    return {"kind": "query", "bind": "chk", "sql": f"SELECT {err} AS err{cols}"}


OK = ":chk.err IS NULL"


def tables_written(d: Discoverable) -> list[str]:
    """The record tables a discoverable tool's steps insert into or update, once per step that does."""
    found = []
    for step in d.steps:
        if step["kind"] == "exec":
            sql = step["sql"]
            found += [t for t in RECORD_TABLES if f"INTO {t} " in sql or f"UPDATE {t} " in sql]
    return found
