"""The fast schema check answers "certainly valid" only where jsonschema's metaschema agrees."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonschema
import pytest

from envs.formats.metaschema import certainly_valid, check_schema

from ..catalog_tools import tool_schemas_with_gold_arguments

# Values for a keyword: some valid for some keywords, most invalid for most.
_ODD: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    2.0,
    "",
    "strin",
    "string",
    "(",
    "^[a-z]+$",
    [],
    ["a", "a"],
    ["string", "null"],
    ["a", 1],
    {},
    {"type": "strin"},
    {"x": {"type": 1}},
]
_KEYWORDS = [
    "type",
    "properties",
    "additionalProperties",
    "items",
    "required",
    "enum",
    "format",
    "pattern",
    "minimum",
    "maxLength",
    "minItems",
    "uniqueItems",
    "description",
    "anyOf",
    "not",
    "multipleOf",  # outside the fast vocabulary: always jsonschema's call
    "$ref",
]


def _jsonschema_accepts(schema: Any) -> bool:
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


def _mutations(schema: dict[str, Any], rng: random.Random) -> list[Any]:
    """The schema with one keyword (at the root or in one property) set to an odd value."""
    out: list[Any] = []
    targets: list[tuple[str | None, dict[str, Any]]] = [(None, schema)]
    targets += [(name, prop) for name, prop in schema.get("properties", {}).items() if isinstance(prop, dict)]
    for name, _ in rng.sample(targets, min(3, len(targets))):
        for keyword in rng.sample(_KEYWORDS, 6):
            for value in rng.sample(_ODD, 4):
                mutated = copy.deepcopy(schema)
                node = mutated if name is None else mutated["properties"][name]
                node[keyword] = value
                out.append(mutated)
    return out


def test_every_catalog_schema_takes_the_fast_path() -> None:
    tools = tool_schemas_with_gold_arguments()
    assert len(tools) > 300
    for label, schema, _ in tools:
        assert certainly_valid(schema), f"{label}: the fast check sends a catalog schema to jsonschema"
        assert _jsonschema_accepts(schema), label


def test_fast_check_never_accepts_what_the_metaschema_rejects() -> None:
    rng = random.Random(11)
    checked = rejected = fast_rejected = 0
    for _, schema, _ in tool_schemas_with_gold_arguments()[::4]:
        for mutated in _mutations(schema, rng):
            full = _jsonschema_accepts(mutated)
            fast = certainly_valid(mutated)
            assert not (fast and not full), f"fast check accepted an invalid schema: {mutated}"
            rejected += not full
            fast_rejected += not fast
            checked += 1
            # check_schema's verdict is jsonschema's, whichever path answered
            if full:
                check_schema(mutated)
            else:
                with pytest.raises(jsonschema.SchemaError):
                    check_schema(mutated)
    assert checked > 3000 and rejected > 1000
    assert fast_rejected >= rejected


def test_edge_values_follow_the_metaschema() -> None:
    assert certainly_valid({"type": ["string", "null"]})
    assert not certainly_valid({"type": []}) and not _jsonschema_accepts({"type": []})
    assert not certainly_valid({"type": ["string", "string"]}) and not _jsonschema_accepts({"type": ["string"] * 2})
    assert not certainly_valid({"minLength": True}) and not _jsonschema_accepts({"minLength": True})
    assert not certainly_valid({"pattern": "("}) and not _jsonschema_accepts({"pattern": "("})
    assert not certainly_valid({"items": [{"type": "string"}]}) and not _jsonschema_accepts({"items": [{}]})
    # Valid, but left to jsonschema: 2.0 is an integer to the metaschema; $ref needs resolution.
    assert not certainly_valid({"minLength": 2.0}) and _jsonschema_accepts({"minLength": 2.0})
    check_schema({"minLength": 2.0})
    assert not certainly_valid({"$ref": "#/$defs/x", "$defs": {"x": {}}})
