"""What an SQL expression gives, as JSON Schema: the values of ``envs.schemas.select_types``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..formats.spec import ColumnSpec

_JSON_TYPES = {"text": "string", "date": "string", "datetime": "string", "integer": "integer", "real": "number"}


@dataclass(frozen=True)
class Value:
    """What one SQL expression gives.

    Attributes:
        schema: the JSON schema of its non-null values; ``{}`` when unknown (any SQL value).
        nullable: whether it may be NULL.
        json: for a JSON function's result, the schema of the JSON its text holds (null aside).
        subtype: whether it still carries SQLite's JSON subtype, so that another JSON function nests
            it as JSON rather than as a string: lost through a derived table or CTE, kept through a
            scalar subquery by SQLite 3.40 but not promised (None: either).
        literals: the string literals it can only be, if so (``CASE ... THEN 'true' ELSE 'false'``).
    """

    schema: dict[str, Any]
    nullable: bool = True
    json: dict[str, Any] | None = None
    subtype: bool | None = True  # whether a JSON function nests it as JSON (None: as text or JSON)
    literals: tuple[str, ...] | None = field(default=None, compare=False)


UNKNOWN = Value({})
NULL = Value({"type": "null"})
BOOL = {"type": "integer", "enum": [0, 1]}
STRING = {"type": "string"}
#: Any SQL value (SQLite has no other kind a result can carry).
ANY_SQL: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "number"}]}
#: Any JSON value (what a JSON column may hold once nested).
ANY_JSON: dict[str, Any] = {"anyOf": [{"type": t} for t in ("object", "array", "string", "number", "boolean", "null")]}


def column_value(column: ColumnSpec) -> Value:
    """A stored column (tables are STRICT: the type is exact; booleans are 0 / 1, JSON is text)."""
    schema: dict[str, Any]
    if column.type == "boolean":
        schema = dict(BOOL)
    elif column.type == "json":
        schema = {"type": "string"}
    else:
        schema = {"type": _JSON_TYPES[column.type]}
        if column.enum is not None:
            schema["enum"] = list(column.enum)
    if column.description:
        schema["description"] = column.description
    return Value(schema, column.nullable)


def union(values: Sequence[Value]) -> Value:
    """A value that is one of ``values``."""
    nullable = any(v.nullable for v in values)
    typed = [v for v in values if v.schema != NULL.schema]
    if not typed:
        return NULL
    first = typed[0]
    literals = None
    if all(v.literals is not None for v in typed):
        literals = tuple(dict.fromkeys(x for v in typed for x in v.literals or ()))
    if all(v.schema == first.schema and v.json == first.json and v.subtype == first.subtype for v in typed):
        return replace(first, nullable=nullable, literals=literals)
    types = {v.schema.get("type") for v in typed}
    if types <= {"integer", "number"}:
        return Value({"type": "integer" if types == {"integer"} else "number"}, nullable)
    if len(types) == 1 and None not in types and not any(v.json for v in typed):
        return Value({"type": types.pop()}, nullable, literals=literals)
    return Value({}, nullable)


def embedded(value: Value) -> dict[str, Any]:
    """The JSON schema of ``value`` as a JSON function nests it."""
    if value.schema == NULL.schema:
        return {"type": "null"}
    if value.json is not None and value.subtype is not False:
        schema = value.json
        if value.subtype is None:
            schema = {"anyOf": [*_branches(schema), dict(STRING)]}
    else:
        schema = value.schema or ANY_SQL
    return or_null(schema) if value.nullable else schema


def or_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts null, as ``anyOf`` (never a type array), its description kept
    beside the branches."""
    description = schema.get("description")
    body = {k: v for k, v in schema.items() if k != "description"}
    if body.get("type") == "null":
        return schema
    branches = [*(b for b in _branches(body) if b != {"type": "null"}), {"type": "null"}]
    out: dict[str, Any] = {"anyOf": branches}
    if description:
        out["description"] = description
    return out


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return list(schema["anyOf"]) if set(schema) == {"anyOf"} else [schema]
