"""Validate tool arguments against a tool's JSON Schema, with errors that name the field."""

from __future__ import annotations

import re
from typing import Any

import jsonschema

from .errors import ToolArgumentError

_UNEXPECTED = re.compile(r"\('([^']+)' (?:was|were) unexpected\)")
_VALIDATOR = jsonschema.Draft202012Validator


def make_validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """A validator for ``schema`` that also checks ``format`` (date, email, ...)."""
    return _VALIDATOR(schema, format_checker=_VALIDATOR.FORMAT_CHECKER)


def _field_of(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    extra = ""
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [r for r in list(error.validator_value) if r not in error.instance]  # type: ignore[arg-type]
        extra = missing[0] if missing else ""
    elif error.validator == "additionalProperties" and (m := _UNEXPECTED.search(error.message)):
        extra = m.group(1).split("', '")[0]
    return ".".join(p for p in (path, extra) if p)


def validate_arguments(tool: str, validator: jsonschema.protocols.Validator, arguments: Any) -> None:
    """Raise ToolArgumentError for the most relevant schema violation, naming field and value.

    >>> v = make_validator({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    >>> validate_arguments("t", v, {"n": "x"})
    Traceback (most recent call last):
    ...
    envs.errors.ToolArgumentError: Invalid argument 'n' for tool 't': 'x' is not of type 'integer'
    """
    if not isinstance(arguments, dict):
        raise ToolArgumentError(
            f"Arguments for tool '{tool}' must be a JSON object, got {type(arguments).__name__}", field=""
        )
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is None:
        return
    field = _field_of(error)
    if error.validator == "required":
        raise ToolArgumentError(f"Missing required argument '{field}' for tool '{tool}'", field=field)
    if error.validator == "additionalProperties":
        raise ToolArgumentError(f"Unexpected argument '{field}' for tool '{tool}'", field=field)
    label = f"argument '{field}'" if field else "arguments"
    raise ToolArgumentError(f"Invalid {label} for tool '{tool}': {error.message}", field=field)
