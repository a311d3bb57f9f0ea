"""Writes that set a field to the value the record already holds.

An escalation to priority "emergency" of a ticket whose priority is "emergency" already, a status set
to the status the record has: a person would not ask for it, and the agent that does nothing passes.

A write call *names a field* when one of its tool's ``UPDATE`` steps gives the column one of the
call's parameters, bare or cast (``SET priority = :priority``, ``SET total = CAST(:total AS
INTEGER)``), or a fixed value (``SET priority = 'emergency'``: what the action is, said by its name)
to a column other than the status (a transition's move: rescheduling keeps a visit scheduled and
moves its date, renewing keeps a plan active and moves its end; the tool's from-states decide it),
on rows its ``WHERE`` names by primary key from an argument (``WHERE ticket_id = :ticket_id``,
``WHERE item_id IN (SELECT value FROM json_each(:item_ids))``). Values the tool works out from the
row (a balance it adds to, a date it moves, a JSON object it builds from several arguments) and rows
it reaches through another column (a ticket's visits) are not read. Such a field is *unchanged* when,
on a row the call names, the value before the call is the one the call gives (numbers by value, text
exactly, JSON by its parsed value) and the call leaves it so. Compared with the row just before the
call, not the seed: a value an earlier write of the task set and a later one sets again is measure 15.

The quality report reads the gold actions' replay with it (measure 38); the task generator asks it of
every write it tries and keeps such writes out. Rules: docs/synthesis.md ("Quality report").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, ExecStep, ToolSpec
from .seed import status_columns

Row = dict[str, Any]
#: The row of ``table`` with primary key ``key`` (one value), None when there is none.
Lookup = Callable[[str, tuple[Any, ...]], Row | None]

_UPDATE = re.compile(r'^\s*UPDATE\s+"?(\w+)"?\s+SET\s+(.+?)\s+WHERE\s+(.+)$', re.IGNORECASE | re.DOTALL)
_ASSIGNMENT = re.compile(r'^\s*"?(\w+)"?\s*=\s*(.+?)\s*$', re.DOTALL)
_PARAMETER = re.compile(r"^(?:CAST\s*\(\s*)?:(\w+)(?:\s+AS\s+\w+\s*\))?$", re.IGNORECASE)
_TEXT = re.compile(r"^'((?:[^']|'')*)'$")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_FLAGS = {"true": 1, "false": 0}


@dataclass(frozen=True)
class NamedField:
    """A column an UPDATE of a tool sets, on the rows a key parameter names: to a parameter of the call,
    or (``parameter`` None) to the fixed ``value``."""

    table: str
    column: str
    parameter: str | None
    key_parameter: str
    value: Any = None


def _fixed(expression: str) -> tuple[bool, Any]:
    """Whether ``expression`` is a literal other than NULL, and its value."""
    text = _TEXT.match(expression)
    if text:
        return True, text.group(1).replace("''", "'")
    if _NUMBER.match(expression):
        return True, float(expression) if "." in expression else int(expression)
    if expression.lower() in _FLAGS:
        return True, _FLAGS[expression.lower()]
    return False, None


def _top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _key_parameter(where: str, key: str, parameters: Mapping[str, Any]) -> str | None:
    """The parameter ``where`` names the rows by: ``key = :p`` or ``key IN (SELECT value FROM json_each(:p))``."""
    col = rf'(?<![\w.])"?{re.escape(key)}"?'
    one = rf"{col}\s*=\s*:(\w+)\b(?!\.)"
    listed = rf"{col}\s+IN\s*\(\s*SELECT\s+value\s+FROM\s+json_each\(\s*:(\w+)\s*\)"
    for pattern in (one, listed):
        found = re.search(pattern, where, re.IGNORECASE)
        if found and found.group(1) in parameters:
            return found.group(1)
    return None


def named_fields(tool: ToolSpec, spec: EnvSpec) -> list[NamedField]:
    """The columns ``tool``'s UPDATE steps set to one of its parameters or to a fixed value, on rows a
    parameter names by primary key."""
    parameters = tool.parameters.get("properties", {})
    keys = {t.name: t.primary_key for t in spec.tables}
    statuses = {t.name: {c.name for c in status_columns(t)} for t in spec.tables}
    out = []
    for step in tool.steps:
        if not isinstance(step, ExecStep) or step.for_each is not None:
            continue
        found = _UPDATE.match(step.sql)
        if found is None or len(keys.get(found.group(1), ())) != 1:
            continue
        table, sets, where = found.groups()
        key = keys[table][0]
        key_parameter = _key_parameter(where, key, parameters)
        if key_parameter is None:
            continue
        for assignment in _top_level_split(sets):
            pair = _ASSIGNMENT.match(assignment)
            if pair is None or pair.group(1) == key:
                continue
            column, expression = pair.groups()
            parameter = _PARAMETER.match(expression)
            fixed, value = _fixed(expression)
            if parameter and parameter.group(1) in parameters:
                out.append(NamedField(table, column, parameter.group(1), key_parameter))
            elif fixed and column not in statuses[table]:
                out.append(NamedField(table, column, None, key_parameter, value))
    return out


class UnchangedFields:
    """Finds, for a write call, the fields its arguments set to the value they already held."""

    def __init__(self, spec: EnvSpec) -> None:
        self._fields = {t.name: named_fields(t, spec) for t in spec.tools if t.kind == "write"}

    def find(self, tool: str, arguments: Mapping[str, Any], before: Lookup, after: Lookup) -> list[str]:
        """Each field of a row the call names that the call sets to the value it held before the
        call (and still holds after), as "table key: column is already value"."""
        out = []
        for f in self._fields.get(tool, []):
            value = f.value if f.parameter is None else arguments.get(f.parameter)
            if value is None:
                continue
            named = arguments.get(f.key_parameter)
            for key in named if isinstance(named, list) else [named]:
                if isinstance(key, dict | list) or key is None:
                    continue
                old, new = before(f.table, (key,)), after(f.table, (key,))
                if old is None or new is None or f.column not in old:
                    continue
                if _same(new.get(f.column), old[f.column]) and _same(old[f.column], value):
                    out.append(f"{f.table} {key}: {f.column} is already {value!r}")
        return out


def _same(held: Any, given: Any) -> bool:
    """Whether a column value is the argument's value: numbers (and flags) by value, numeric text
    against a number by its value, JSON text by its parsed value, other text exactly."""
    held, given = _plain(held), _plain(given)
    if isinstance(held, int | float) and isinstance(given, str):
        held, given = given, held
    if isinstance(held, str) and isinstance(given, int | float):
        held = _number(held)
    if isinstance(held, int | float) and isinstance(given, int | float):
        return float(held) == float(given)
    return bool(held == given)


def _plain(value: Any) -> Any:
    """Flags as numbers, JSON text parsed."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text
