"""A tool's advertised input schema: what clients see of the schema its calls are validated against.

A spec's ``parameters`` is the *validating* schema: any JSON Schema 2020-12, which the engine
enforces on every call (``envs.schemas.arguments``). Model APIs accept far less, and each a different
subset (docs/serving.md, "Tool schemas", has the rules and their sources). So what ``tools/list``
shows, the *advertised* schema, is derived from it to be accepted as it is by OpenAI strict
function calling, Anthropic tool use (strict included) and Gemini function declarations (a client
that converts it first, as google-genai's MCP bridge does, asks for a dialect: ``envs.schemas.dialects``):

* every object lists all its properties in ``required`` and has ``"additionalProperties": false``;
  a property the spec leaves optional becomes ``{"anyOf": [<its schema>, {"type": "null"}]}``,
  and the engine takes null there as "not given" (``ArgumentValidator.absent_nulls``), so a model
  in strict mode that must send every property can still leave one out;
* only keywords all three accept are kept: ``type`` (one name), ``description``, ``properties``,
  ``required``, ``additionalProperties``, ``items``, ``enum`` (of strings), ``anyOf``, ``minItems``
  of 0 or 1 and ``format: date-time``; local ``$ref`` are inlined, type arrays become ``anyOf``;
* what is dropped (lengths, patterns, other formats, numeric bounds, ``uniqueItems``, other item
  counts, defaults, non-string enums and constants) is said in the description, in words, and is
  still enforced: the engine validates every call against the full schema.

Output schemas are built in ``envs.schemas.output_schemas``.
"""

from __future__ import annotations

import json
from typing import Any

from .sentences import OPTIONAL_NOTE, STOPS, sentence

#: The ``format`` values every checked API accepts (OpenAI strict, Anthropic strict, Gemini).
COMMON_FORMATS = frozenset({"date-time"})
_MAX_DEPTH = 32  # schema_safety refuses deeper schemas; a guard for unchecked ones

_FORMAT_WORDS = {
    "date": "a date, YYYY-MM-DD",
    "time": "a time, HH:MM:SS",
    "email": "an email address",
    "uri": "a URI",
    "uuid": "a UUID",
    "hostname": "a host name",
    "ipv4": "an IPv4 address",
    "ipv6": "an IPv6 address",
    "duration": "an ISO 8601 duration",
}


def advertised_parameters(parameters: dict[str, Any]) -> dict[str, Any]:
    """The schema ``tools/list`` shows for a tool whose spec has ``parameters``.

    >>> advertised_parameters({"type": "object", "required": ["id"], "properties": {
    ...     "id": {"type": "string", "pattern": "^P[0-9]+$"}, "limit": {"type": "integer", "maximum": 50}}})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'type': 'object',
     'properties': {'id': {'type': 'string', 'description': 'Matching the regular expression ^P[0-9]+$.'},
                    'limit': {'anyOf': [{'type': 'integer'}, {'type': 'null'}],
                              'description': 'At most 50. Optional: null leaves it out.'}},
     'required': ['id', 'limit'], 'additionalProperties': False}
    """
    schema, _ = _Advertiser(parameters).node(parameters, 0)
    if schema.get("type") != "object":  # the spec guarantees an object root; keep the contract anyway
        schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    return schema


class _Advertiser:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def resolve(self, node: Any) -> Any:
        """``node`` with a local ``$ref`` followed; the keywords beside it are kept over the target's."""
        for _ in range(_MAX_DEPTH):
            ref = node.get("$ref") if isinstance(node, dict) else None
            if not isinstance(ref, str) or not ref.startswith("#"):
                return node
            target: Any = self.root
            for part in ref[1:].split("/")[1:]:
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings} if isinstance(target, dict) else siblings
        return node

    def node(self, raw: Any, depth: int) -> tuple[dict[str, Any], bool]:
        """(advertised schema, whether null is a valid value) of one schema node."""
        node = self.resolve(raw)
        if not isinstance(node, dict) or depth > _MAX_DEPTH:
            return _any_value(), True
        node = self.merge_all_of(node)
        notes: list[str] = []
        nullable = False
        branches: list[dict[str, Any]] = []
        union = node.get("anyOf") or node.get("oneOf")
        if isinstance(union, list) and "type" not in node:
            for b in union:
                s, n = self.node(b, depth + 1)
                nullable |= n
                if s.get("type") != "null":
                    branches.extend(s["anyOf"] if set(s) <= {"anyOf", "description"} and "anyOf" in s else [s])
        else:
            for t in _types(node):
                if t == "null":
                    nullable = True
                else:
                    branches.append(self.typed(node, t, notes, depth))
        if "enum" in node and isinstance(node["enum"], list):
            nullable |= None in node["enum"]
        out = branches[0] if len(branches) == 1 else {"anyOf": branches} if branches else {"type": "null"}
        if not branches:
            nullable = True
        if "default" in node:
            notes.append(f"default {json.dumps(node['default'])}")
        text = _described(node.get("description"), notes)
        if text:
            out = {**out, "description": text}
        return out, nullable

    def merge_all_of(self, node: dict[str, Any]) -> dict[str, Any]:
        parts = node.get("allOf")
        if not isinstance(parts, list):
            return node
        merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
        for part in parts:
            part = self.resolve(part)
            if not isinstance(part, dict):
                continue
            for key, value in part.items():
                if key == "properties" and isinstance(value, dict):
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required" and isinstance(value, list):
                    merged["required"] = [*merged.get("required", []), *value]
                else:
                    merged.setdefault(key, value)
        return merged

    def typed(self, node: dict[str, Any], t: str, notes: list[str], depth: int) -> dict[str, Any]:
        """The advertised schema of ``node`` read as type ``t``; what cannot be said goes to ``notes``."""
        out: dict[str, Any] = {"type": t}
        values = node.get("enum") if isinstance(node.get("enum"), list) else None
        if values is None and "const" in node:
            values = [node["const"]]
        if values is not None:
            mine = [v for v in values if _type_of(v) == t or (t == "number" and _type_of(v) == "integer")]
            if t == "string" and mine:
                out["enum"] = mine
            elif mine:
                notes.append("one of " + ", ".join(json.dumps(v) for v in mine))
        if t == "object":
            props: dict[str, Any] = node["properties"] if isinstance(node.get("properties"), dict) else {}
            required: list[Any] = node["required"] if isinstance(node.get("required"), list) else []
            shown: dict[str, Any] = {}
            for name, sub in props.items():
                schema, nullable = self.node(sub, depth + 1)
                if name not in required:
                    shown[name] = _optional(schema, nullable)
                else:
                    shown[name] = _or_null(schema) if nullable else schema
            out.update(properties=shown, required=list(shown), additionalProperties=False)
            _bounds(node, "minProperties", "maxProperties", "properties", notes)
        elif t == "array":
            items = node.get("items")
            out["items"] = _nullable_as_given(*self.node(items, depth + 1)) if items is not None else _any_value()
            low = node.get("minItems")
            if low in (0, 1):
                out["minItems"] = low
                _bounds({"maxItems": node.get("maxItems")}, "minItems", "maxItems", "items", notes)
            else:
                _bounds(node, "minItems", "maxItems", "items", notes)
            if node.get("uniqueItems") is True:
                notes.append("no item repeated")
            if "prefixItems" in node or "contains" in node:
                notes.append("see the tool description for the items")
        elif t == "string":
            fmt = node.get("format")
            if fmt in COMMON_FORMATS:
                out["format"] = fmt
            elif isinstance(fmt, str):
                notes.append(_FORMAT_WORDS.get(fmt, f"format {fmt}"))
            low, high = node.get("minLength"), node.get("maxLength")
            if low == 1 and high is None:
                notes.append("not empty")
            else:
                _bounds(node, "minLength", "maxLength", "characters", notes)
            if isinstance(node.get("pattern"), str):
                notes.append(f"matching the regular expression {node['pattern']}")
        elif t in ("integer", "number"):
            _numeric_bounds(node, notes)
        return out


def _types(node: dict[str, Any]) -> list[str]:
    declared = node.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    if "properties" in node:
        return ["object"]
    if "items" in node:
        return ["array"]
    values = node.get("enum") if isinstance(node.get("enum"), list) else [node["const"]] if "const" in node else []
    if values:
        return list(dict.fromkeys(_type_of(v) for v in values))
    return ["string", "number", "boolean", "null"]  # any value: the scalars a model can always send


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _any_value() -> dict[str, Any]:
    return {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts null, as ``anyOf`` (never a type array: Gemini refuses those)."""
    description = schema.get("description")
    body = {k: v for k, v in schema.items() if k != "description"}
    if set(body) == {"anyOf"}:
        branches = body["anyOf"]
        out: dict[str, Any] = {"anyOf": branches if {"type": "null"} in branches else [*branches, {"type": "null"}]}
    else:
        out = {"anyOf": [body, {"type": "null"}]}
    if description:
        out["description"] = description
    return out


def _nullable_as_given(schema: dict[str, Any], nullable: bool) -> dict[str, Any]:
    return _or_null(schema) if nullable and schema.get("type") != "null" else schema


def _optional(schema: dict[str, Any], nullable: bool) -> dict[str, Any]:
    """An optional property: listed as required, null standing for "not given"."""
    out = _or_null(schema)
    if not nullable:  # null is not a value of its own here: say what it means
        out["description"] = _described(out.get("description"), [], OPTIONAL_NOTE)
    return out


def _described(description: Any, notes: list[str], tail: str = "") -> str:
    """A description with the notes said in words and ``tail`` after it, in sentences."""
    text = description.strip().rstrip(",;:").rstrip() if isinstance(description, str) else ""
    if notes:
        said = "; ".join(notes)
        text = f"{text} {sentence(said)}" if text.endswith(STOPS) else f"{text} ({said})" if text else said
    return " ".join(sentence(part) for part in (text, tail) if part)


def _bounds(node: dict[str, Any], low_key: str, high_key: str, unit: str, notes: list[str]) -> None:
    low, high = node.get(low_key), node.get(high_key)
    low = low if isinstance(low, int) and not isinstance(low, bool) and low > 0 else None
    high = high if isinstance(high, int) and not isinstance(high, bool) else None
    if low is not None and high is not None:
        notes.append(f"{low} to {high} {unit}")
    elif low is not None:
        notes.append(f"at least {low} {unit}")
    elif high is not None:
        notes.append(f"at most {high} {unit}")


def _numeric_bounds(node: dict[str, Any], notes: list[str]) -> None:
    def num(key: str) -> Any:
        v = node.get(key)
        return v if isinstance(v, int | float) and not isinstance(v, bool) else None

    low, high = num("minimum"), num("maximum")
    if low is not None and high is not None:
        notes.append(f"from {low} to {high}")
    elif low is not None:
        notes.append(f"at least {low}")
    elif high is not None:
        notes.append(f"at most {high}")
    if (v := num("exclusiveMinimum")) is not None:
        notes.append(f"greater than {v}")
    if (v := num("exclusiveMaximum")) is not None:
        notes.append(f"less than {v}")
    if (v := num("multipleOf")) is not None:
        notes.append(f"a multiple of {v}")
