"""What SQLite's functions return, typed from their arguments (``envs.schemas.select_types``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from .sql_tree import Group, Node, Tok, is_word, split_list
from .sql_values import ANY_JSON, STRING, UNKNOWN, Value, embedded, union

#: Aggregate functions: a query calling one without GROUP BY gives exactly one row.
AGGREGATES = frozenset(
    {
        "count",
        "sum",
        "total",
        "avg",
        "min",
        "max",
        "group_concat",
        "string_agg",
        "json_group_array",
        "json_group_object",
    }
)
_TEXT_FUNCTIONS = frozenset(
    {"lower", "upper", "trim", "ltrim", "rtrim", "replace", "substr", "substring", "printf", "format", "hex", "char"}
)
_NEVER_NULL_TEXT = frozenset({"typeof", "quote", "concat", "concat_ws"})
_MAYBE_NULL_TEXT = frozenset({"date", "time", "datetime", "strftime", "timediff", "group_concat", "string_agg"})


def call(fn: str, group: Group, typed: Callable[[Sequence[Node]], Value]) -> Value:
    """What ``fn(...)`` gives, ``group`` holding its arguments and ``typed`` typing an expression.

    >>> from envs.schemas.sql_tree import parse
    >>> call("json_group_array", parse("x"), lambda nodes: Value({"type": "integer"}, False)).json
    {'type': 'array', 'items': {'type': 'integer'}}
    """
    nodes = list(group)
    if nodes and is_word(nodes[0], "distinct"):
        nodes = nodes[1:]
    if fn == "cast":
        target = next((k for k, n in enumerate(nodes) if is_word(n, "as")), None)
        if target is None or target + 1 >= len(nodes) or not isinstance(nodes[target + 1], Tok):
            return UNKNOWN
        inner, kind = typed(nodes[:target]), nodes[target + 1].text.lower()  # type: ignore[union-attr]
        names = {"int": "integer", "real": "number", "floa": "number", "doub": "number", "text": "string"}
        found = next((t for k, t in names.items() if k in kind), None) or ("string" if "char" in kind else None)
        return Value({"type": found} if found else {}, inner.nullable)
    if fn == "count":
        return Value({"type": "integer"}, False)
    args = [typed(p) for p in split_list(nodes)] if nodes else []
    maybe_null = any(a.nullable for a in args)
    if fn == "json_group_array":
        items = embedded(args[0]) if len(args) == 1 else None
        return Value(dict(STRING), False, json={"type": "array", **({"items": items} if items else {})})
    if fn == "json_array":
        return Value(dict(STRING), False, json={"type": "array"})
    if fn == "json_object":
        return Value(dict(STRING), False, json=_object(nodes, args))
    if fn == "json_group_object":
        return Value(dict(STRING), False, json={"type": "object"})
    if fn == "json" and len(args) == 1:
        return Value(dict(STRING), args[0].nullable, json=_json_of(args[0]))
    if fn in ("coalesce", "ifnull") and args:
        return replace(union(args), nullable=all(a.nullable for a in args))
    if fn in ("min", "max") and len(args) == 1:
        return replace(args[0], nullable=True)  # aggregate: null over no row
    if fn in ("min", "max") and args:
        return union(args)
    if fn == "nullif" and args:
        return replace(args[0], nullable=True)
    if fn == "iif" and len(args) == 3:
        return union(args[1:])
    if fn in ("likely", "unlikely", "likelihood") and args:
        return args[0]
    if fn in ("sum", "avg"):
        whole = fn == "sum" and bool(args) and args[0].schema.get("type") == "integer"
        return Value({"type": "integer" if whole else "number"}, True)
    if fn == "total":
        return Value({"type": "number"}, False)
    if fn in ("round", "julianday"):
        return Value({"type": "number"}, maybe_null or fn == "julianday")
    if fn == "abs" and args:
        return Value({"type": "integer" if args[0].schema.get("type") == "integer" else "number"}, maybe_null)
    if fn in ("length", "octet_length", "instr", "unicode", "sign", "unixepoch", "random"):
        return Value({"type": "integer"}, maybe_null or fn == "unixepoch")
    if fn in _NEVER_NULL_TEXT:
        return Value(dict(STRING), False)
    if fn in _MAYBE_NULL_TEXT:
        return Value(dict(STRING), True)
    if fn in _TEXT_FUNCTIONS:
        return Value(dict(STRING), maybe_null)
    return UNKNOWN


def _object(nodes: Sequence[Node], args: Sequence[Value]) -> dict[str, Any]:
    """The JSON ``json_object(k1, v1, ...)`` builds: every key, each value as nested."""
    keys = split_list(nodes)[0::2] if nodes else []
    if len(args) % 2 or not all(len(k) == 1 and isinstance(k[0], Tok) and k[0].kind == "str" for k in keys):
        return {"type": "object"}
    properties = {k[0].text: embedded(v) for k, v in zip(keys, args[1::2], strict=True)}  # type: ignore[union-attr]
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _json_of(value: Value) -> dict[str, Any]:
    """The JSON ``json(value)`` holds (its null aside)."""
    if value.json is not None:
        return value.json
    if value.literals is not None and set(value.literals) <= {"true", "false"}:
        return {"type": "boolean"}
    if value.schema.get("type") in ("integer", "number"):
        return {"type": value.schema["type"]}
    return ANY_JSON
