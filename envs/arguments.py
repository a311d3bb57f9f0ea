"""Validate tool arguments against a tool's JSON Schema, with errors that name the field.

Two validators per schema: ``fastjsonschema`` compiles the schema to Python code and answers
"valid?" about six times faster than ``jsonschema``, which matters because every tool call is
validated. ``jsonschema`` stays the authority: it is asked whenever the fast path rejects, and
its verdict (and its best-matching error, which names the field) is what the caller sees. So the
fast path may only ever be stricter, never more lenient; formats are checked by ``jsonschema``'s
own format checker in both, and a test compares the two on every catalog schema.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

import fastjsonschema
import jsonschema

from .errors import ToolArgumentError

_UNEXPECTED = re.compile(r"\('([^']+)' (?:was|were) unexpected\)")
_VALIDATOR = jsonschema.Draft202012Validator


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
        fast = self.fast
        if fast is not None:
            try:
                fast(arguments)
                return
            except fastjsonschema.JsonSchemaValueException:
                pass
        error = jsonschema.exceptions.best_match(self.full.iter_errors(arguments))
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
