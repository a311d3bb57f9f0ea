"""Validate tool arguments against a tool's JSON Schema, with errors that name the field.

Two validators per schema: ``fastjsonschema`` compiles the schema to Python code and answers
"valid?" about six times faster than ``jsonschema``, which matters because every tool call is
validated. ``jsonschema`` stays the authority: it is asked whenever the fast path rejects, and
its verdict (and its best-matching error, which names the field) is what the caller sees. So the
fast path may only ever be stricter, never more lenient; formats are checked by ``jsonschema``'s
own format checker in both, and a test compares the two on every catalog schema.

Before either, a linear walk refuses what no schema should have to think about and what would
crash or stall what comes after: nesting deeper than ``MAX_DEPTH``, strings that are not valid
Unicode (a lone surrogate cannot be stored or sent), integers SQLite cannot hold (beyond 64 bits)
and non-finite numbers. ``uniqueItems`` is checked in linear time (jsonschema's own check compares
unhashable items pairwise: 6,000 objects took 30 s).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections.abc import Callable
from typing import Any

import fastjsonschema
import jsonschema

from .errors import ToolArgumentError

_UNEXPECTED = re.compile(r"\('([^']+)' (?:was|were) unexpected\)")
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_DEPTH = 32  # levels of arrays and objects in one call's arguments
_MAX_ERRORS = 20
_INT64 = (-(2**63), 2**63 - 1)


def _canonical(value: Any) -> Any:
    """A hashable form in which two values are equal exactly when JSON Schema says they are
    (``1`` equals ``1.0``; ``true`` is not ``1``; object key order does not matter)."""
    if isinstance(value, bool) or value is None:
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("a", tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("o", frozenset((k, _canonical(v)) for k, v in value.items()))
    return ("?", repr(value))


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Any:
    if unique and validator.is_type(instance, "array"):
        seen: set[Any] = set()
        for i, item in enumerate(instance):
            key = _canonical(item)
            if key in seen:
                yield jsonschema.ValidationError(f"item {i} repeats an earlier item; the items must be unique")
                return
            seen.add(key)


_VALIDATOR: Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator, {"uniqueItems": _unique_items}
)


def structure_problem(arguments: Any) -> tuple[str, str] | None:
    """(field path, problem) of the first value no tool could accept, or None. Iterative: a value
    nested too deep for recursion is reported, not crashed on."""
    stack: list[tuple[Any, str, int]] = [(arguments, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                return path, f"nested deeper than {MAX_DEPTH} levels"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, child in items:
                if isinstance(key, str) and _SURROGATE.search(key):
                    return path, "a key is not valid Unicode (it holds a lone surrogate)"
                stack.append((child, f"{path}.{key}" if path else str(key), depth + 1))
        elif isinstance(value, str):
            if _SURROGATE.search(value):
                return path, "the text is not valid Unicode (it holds a lone surrogate)"
        elif isinstance(value, int) and not isinstance(value, bool):
            if not _INT64[0] <= value <= _INT64[1]:
                return path, "the integer does not fit in 64 bits"
        elif isinstance(value, float) and not math.isfinite(value):
            return path, f"{value} is not a number JSON can carry"
    return None


def _format_check(name: str) -> Callable[[Any], bool]:
    return lambda value: _VALIDATOR.FORMAT_CHECKER.conforms(value, name)


_FORMATS = {name: _format_check(name) for name in _VALIDATOR.FORMAT_CHECKER.checkers}


@functools.lru_cache(maxsize=2048)
def _compile_fast(schema_json: str) -> Callable[[Any], Any] | None:
    """The compiled check for a schema, shared by every environment instance with the same schema
    (synthesis builds the same spec many times; compiling costs ~1 ms a schema)."""
    try:
        # use_default=False: the fast path must never write defaults into the caller's arguments.
        return fastjsonschema.compile(
            json.loads(schema_json), formats=_FORMATS, use_default=False, detailed_exceptions=False
        )
    except fastjsonschema.JsonSchemaDefinitionException:  # a keyword it lacks: jsonschema alone decides
        return None


class ArgumentValidator:
    """A tool's argument schema; the fast check is compiled on first use.

    >>> v = ArgumentValidator({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    >>> v.validate("t", {"n": 1})
    >>> v.validate("t", {"n": "x"})
    Traceback (most recent call last):
    ...
    envs.errors.ToolArgumentError: Invalid argument 'n' for tool 't': 'x' is not of type 'integer'
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.full = _VALIDATOR(schema, format_checker=_VALIDATOR.FORMAT_CHECKER)
        self._fast: Callable[[Any], Any] | None = None
        self._compiled = False

    @property
    def fast(self) -> Callable[[Any], Any] | None:
        if not self._compiled:
            self._fast = _compile_fast(json.dumps(self.schema, sort_keys=True))
            self._compiled = True
        return self._fast

    def validate(self, tool: str, arguments: Any) -> None:
        """Raise ToolArgumentError for the most relevant schema violation, naming field and value."""
        if not isinstance(arguments, dict):
            raise ToolArgumentError(
                f"Arguments for tool '{tool}' must be a JSON object, got {type(arguments).__name__}", field=""
            )
        if (problem := structure_problem(arguments)) is not None:
            field, what = problem
            raise ToolArgumentError(f"Invalid argument '{field}' for tool '{tool}': {what}", field=field)
        fast = self.fast
        if fast is not None:
            try:
                fast(arguments)
                return
            except fastjsonschema.JsonSchemaValueException:
                pass
        # The most relevant of the first errors: a list of 6,000 wrong items has 6,000 errors, and
        # building every one would cost more than the call itself.
        error = jsonschema.exceptions.best_match(itertools.islice(self.full.iter_errors(arguments), _MAX_ERRORS))
        if error is None:
            return
        field = _field_of(error)
        if error.validator == "required":
            raise ToolArgumentError(f"Missing required argument '{field}' for tool '{tool}'", field=field)
        if error.validator == "additionalProperties":
            raise ToolArgumentError(f"Unexpected argument '{field}' for tool '{tool}'", field=field)
        label = f"argument '{field}'" if field else "arguments"
        raise ToolArgumentError(f"Invalid {label} for tool '{tool}': {error.message}", field=field)


def _field_of(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    extra = ""
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [r for r in list(error.validator_value) if r not in error.instance]  # type: ignore[arg-type]
        extra = missing[0] if missing else ""
    elif error.validator == "additionalProperties" and (m := _UNEXPECTED.search(error.message)):
        extra = m.group(1).split("', '")[0]
    return ".".join(p for p in (path, extra) if p)
