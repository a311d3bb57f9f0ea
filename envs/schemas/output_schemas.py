"""A tool's MCP output schema: the shape of every structured result it returns.

It is declared only where the result is always an object: a tool without a return step
(``{"ok": true}``) or whose return step has shape ``one`` and a ``message`` (no row is then an
error, never null). It names the result's columns, all required, with
``"additionalProperties": false``, and gives each one a type (``envs.schemas.select_types`` reads it from
the SELECT and the tables' columns): a table's column keeps its type, ``enum`` and description; a
computed one is typed by what computes it; JSON text the engine nests is described as the JSON it
holds; what cannot be told is any SQL value (``anyOf`` string, number, null) or, nested, any JSON
value. It is exact: MCP clients validate every structured result against it.

A value that may be null is ``{"anyOf": [<schema>, {"type": "null"}]}``, never a type array
(``["string", "null"]``), and no property is left untyped: MCP Inspector's ``--strict`` schema lint
warns on both (rules ``type-union`` and ``untyped-schema``), and single-type dialects such as
Gemini's refuse type arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..formats.spec import ColumnSpec, EnvSpec, ReturnStep, ToolSpec
from .select_types import select_columns
from .sql_values import ANY_JSON, ANY_SQL, UNKNOWN, Value, column_value, or_null

#: ``{"ok": true}``: what a tool without a return step gives.
OK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "const": True}},
    "required": ["ok"],
    "additionalProperties": False,
}


def return_step(tool: ToolSpec) -> ReturnStep | None:
    """The tool's return step, if it has one (always the last step)."""
    last = tool.steps[-1]
    return last if isinstance(last, ReturnStep) else None


def returns_object(tool: ToolSpec) -> bool:
    """Whether every successful call of ``tool`` returns a JSON object."""
    ret = return_step(tool)
    return ret is None or (ret.shape == "one" and ret.message is not None)


def output_schema(
    spec: EnvSpec, tool: ToolSpec, result_columns: Callable[[str], Sequence[str] | None]
) -> dict[str, Any] | None:
    """The output schema of ``tool``, or None where its result is not always an object.

    ``result_columns(sql)`` names the columns the return step's SELECT gives (``Episode.result_columns``),
    or None when they cannot be found; then no schema is declared rather than a wrong one. Those
    names are the truth: a column whose name the SELECT's text does not spell the same way is any
    value rather than a guess.
    """
    ret = return_step(tool)
    if ret is None:
        return OK_SCHEMA
    columns = result_columns(ret.sql) if returns_object(tool) else None
    if columns is None:
        return None
    read = select_columns(ret.sql, spec.tables)
    if read is not None and len(read) != len(columns):
        read = None
    nested = set(ret.json_columns) | {c.name for t in spec.tables for c in t.columns if c.type == "json"}
    properties: dict[str, Any] = {}
    for k, name in enumerate(columns):
        value = UNKNOWN
        if read is not None and read[k][0] in (None, name.lower()):
            value = read[k][1]
        # A repeated name is one key of the row, the last column's value; its place is the first one's.
        properties[name] = result_schema(value, nested=name in nested)
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def result_schema(value: Value, *, nested: bool) -> dict[str, Any]:
    """The schema of a result column holding ``value``; ``nested``: the engine reads its text as JSON
    (a column named in ``json_columns`` or like a JSON column), keeping text that is not JSON."""
    if nested:
        if value.json is not None:  # text a JSON function wrote: always JSON
            return or_null(value.json) if value.nullable else value.json
        if value.schema.get("type") in (None, "string"):  # text, read as JSON where it is JSON
            description = value.schema.get("description")
            schema = {**ANY_JSON, "description": description} if description else ANY_JSON
            return or_null(schema) if value.nullable else schema
    if value.schema == {"type": "null"}:
        return {"type": "null"}
    schema = value.schema or ANY_SQL
    return or_null(schema) if value.nullable else schema


def column_schema(column: ColumnSpec) -> dict[str, Any]:
    """The JSON values a stored column gives (tables are STRICT: the type is exact), JSON text nested.

    >>> column_schema(ColumnSpec(name="note", type="text", nullable=True, description="Why"))
    {'anyOf': [{'type': 'string'}, {'type': 'null'}], 'description': 'Why'}
    """
    return result_schema(column_value(column), nested=column.type == "json")
