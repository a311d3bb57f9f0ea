"""Is a tool's ``parameters`` a valid JSON Schema (draft 2020-12)?

``jsonschema``'s ``check_schema`` answers by validating against the 2020-12 metaschema, whose
``$dynamicRef`` resolution costs about 1.2 ms a schema: most of the time it takes to load a
catalog of a hundred environments (3,400 tool schemas). Tool schemas use a small vocabulary —
types, properties, required, enum, bounds, pattern, format — so a direct structural check of
that vocabulary answers "valid" in microseconds. It is only ever asked whether a schema is
*certainly* valid: a keyword outside the vocabulary, or any doubt, sends the schema to
``jsonschema``, which alone rejects and writes the error. A test compares the two on every
catalog schema and on mutated ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import jsonschema

_SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    """A nonNegativeInteger of the metaschema (floats like 1.0 also are, but are left to jsonschema)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_type(value: Any) -> bool:
    if isinstance(value, str):
        return value in _SIMPLE_TYPES
    return (
        isinstance(value, list)
        and len(value) > 0
        and all(isinstance(v, str) and v in _SIMPLE_TYPES for v in value)
        and len(set(value)) == len(value)
    )


def _is_string_set(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)


def _is_regex(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        re.compile(value)  # what jsonschema's "regex" format checks
    except re.error:
        return False
    return True


def _is_schema_map(value: Any) -> bool:
    return isinstance(value, dict) and all(certainly_valid(v) for v in value.values())


def _is_schema_list(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(certainly_valid(v) for v in value)


# Each keyword's check is at least as strict as the 2020-12 metaschema's rule for it.
_KEYWORDS: dict[str, Callable[[Any], bool]] = {
    "type": _is_type,
    "properties": _is_schema_map,
    "additionalProperties": lambda v: certainly_valid(v),
    "items": lambda v: certainly_valid(v),
    "not": lambda v: certainly_valid(v),
    "anyOf": _is_schema_list,
    "oneOf": _is_schema_list,
    "allOf": _is_schema_list,
    "required": _is_string_set,
    "enum": lambda v: isinstance(v, list),
    "const": lambda v: True,
    "default": lambda v: True,
    "examples": lambda v: isinstance(v, list),
    "title": lambda v: isinstance(v, str),
    "description": lambda v: isinstance(v, str),
    "format": lambda v: isinstance(v, str),
    "pattern": _is_regex,
    "minimum": _is_number,
    "maximum": _is_number,
    "exclusiveMinimum": _is_number,
    "exclusiveMaximum": _is_number,
    "minLength": _is_count,
    "maxLength": _is_count,
    "minItems": _is_count,
    "maxItems": _is_count,
    "minProperties": _is_count,
    "maxProperties": _is_count,
    "uniqueItems": lambda v: isinstance(v, bool),
    "deprecated": lambda v: isinstance(v, bool),
    "readOnly": lambda v: isinstance(v, bool),
    "writeOnly": lambda v: isinstance(v, bool),
}


def certainly_valid(schema: Any) -> bool:
    """True only if ``schema`` is certainly a valid 2020-12 schema; False means "ask jsonschema"."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        check = _KEYWORDS.get(key)
        if check is None or not check(value):
            return False
    return True


def check_schema(schema: Any) -> None:
    """Raise ``jsonschema.SchemaError`` (the metaschema's own error) if ``schema`` is not valid."""
    if not certainly_valid(schema):
        jsonschema.Draft202012Validator.check_schema(schema)
