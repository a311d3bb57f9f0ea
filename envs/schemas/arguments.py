"""Validate tool arguments against a tool's JSON Schema, with errors that name the field.

``jsonschema`` validates, interpreting the schema; nothing is generated from it (a compiled
validator turned property names and numbers from a stranger's spec into Python source). Its
``pattern`` keyword matches with RE2, whose time is linear in the text, and schemas were checked
at load (``schema_safety``): local references only, finite numbers, RE2 patterns.

Arguments are first checked by ``jsonschema_rs`` (Rust, interpreting the same schema) with the
keywords whose meaning could differ (``pattern``, ``format``, ``multipleOf``) answered by the
Python validator's own checks. Arguments it accepts are accepted; only arguments it
refuses go on to ``jsonschema``, which finds the error to report, so a refusal always reads the
same. In pure Python a list of 1,000 ids took 4 ms holding the GIL, which every other tenant's
call waits for; in Rust it takes 15 µs.

Before the schema, a linear walk refuses what no schema should have to think about and what would
crash or stall what comes after: nesting deeper than ``MAX_DEPTH``, an array of more than
``MAX_ARRAY_ITEMS`` items or more than ``MAX_VALUES`` values in all, strings that are not valid
Unicode (a lone surrogate cannot be stored or sent), text longer than any argument of the tool
takes, integers SQLite cannot hold (beyond 64 bits) and non-finite numbers.

Every string has a length limit, whatever the spec says: a string schema without ``maxLength``
gets ``DEFAULT_MAX_STRING_CHARS`` (a setting of the server), and a ``maxLength`` above
``MAX_STRING_CHARS_CAP`` is lowered to it (``bounded_strings``). A spec that forgot the limit on a
free-text field (a hand-over summary, a reason) otherwise let one call log a megabyte, and a client
can make many calls a second. Strings the schema does not describe at all (an object's undeclared
properties) are held to the tool's largest limit by the walk.

``uniqueItems`` is checked in linear time (jsonschema's own check compares unhashable items
pairwise: 6,000 objects took 30 s).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import urllib.parse
from collections.abc import Callable
from typing import Any

import jsonschema
import jsonschema_rs
import referencing

from ..errors import ToolArgumentError, shown_name
from ..formats.schema_safety import compiled_pattern

_UNEXPECTED = re.compile(r"\('([^']+)' (?:was|were) unexpected\)")
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_DEPTH = 32  # levels of arrays and objects in one call's arguments
#: Items of one array, and values in all of one call's arguments. No tool needs more, and every
#: value is work for the schema (pure Python, holding the GIL every other call needs): 6,000
#: objects sent to one list kept every other tenant's calls waiting.
MAX_ARRAY_ITEMS = 1_000
MAX_VALUES = 10_000
#: Characters a string argument may hold where the spec sets no ``maxLength``: free text (a
#: summary, a reason, a note) of a few paragraphs. The server's ``ENVFARM_MAX_STRING_CHARS``.
DEFAULT_MAX_STRING_CHARS = 4_096
#: The most any string argument may hold, whatever its spec or the server's settings say.
MAX_STRING_CHARS_CAP = 65_536
_MAX_ERRORS = 20
MAX_MESSAGE_CHARS = 1_000  # of a validation message, which quotes the value it refuses
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


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    if validator.is_type(instance, "string") and compiled_pattern(pattern).search(instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


_VALIDATOR: Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator, {"uniqueItems": _unique_items, "pattern": _pattern}
)
_NO_RETRIEVAL: referencing.Registry[Any] = referencing.Registry()  # a reference outside the schema is never fetched


class _RE2Pattern:
    """``pattern`` for the Rust validator, matched by the same RE2 pattern as ``_pattern``."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        self.regex = compiled_pattern(value)

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and self.regex.search(instance) is None:
            raise ValueError("does not match the pattern")


class _FormatCheck:
    """``format`` for the Rust validator, by the same checks as the Python validator's."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        self.format = value

    def validate(self, instance: Any) -> None:
        if not _VALIDATOR.FORMAT_CHECKER.conforms(instance, self.format):
            raise ValueError(f"is not a {self.format!r}")


class _MultipleOf:
    """``multipleOf`` for the Rust validator, by the Python validator's float arithmetic (which
    refuses 0.07 as a multiple of 0.01, where Rust accepts it)."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        self.check = _VALIDATOR({"multipleOf": value})

    def validate(self, instance: Any) -> None:
        if not self.check.is_valid(instance):
            raise ValueError("is not a multiple")


def _mentions(schema: Any, keyword: str) -> bool:
    """Whether ``keyword`` is a key anywhere in ``schema`` (a property of that name counts too)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if keyword in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _fast_validator(schema: dict[str, Any]) -> Any:
    """The Rust validator for ``schema``, or None where it cannot take it (the Python one decides)."""
    if _mentions(schema, "patternProperties"):
        # Its patterns pick subschemas, which a keyword of ours cannot answer. Specs are refused it
        # at load (``schema_safety``); this guards a schema that did not pass through there.
        return None
    keywords: dict[str, Any] = {"pattern": _RE2Pattern, "format": _FormatCheck, "multipleOf": _MultipleOf}
    try:
        return jsonschema_rs.Draft202012Validator(schema, validate_formats=False, keywords=keywords, offline=True)
    except Exception:  # any schema it cannot compile is left to jsonschema, which reports
        return None
    except BaseException as exc:  # a panic in Rust arrives as pyo3's PanicException, a BaseException
        if _is_rust_panic(exc):
            return None
        raise


def _is_rust_panic(exc: BaseException) -> bool:
    return type(exc).__name__ == "PanicException"


def _holds_null(value: Any) -> bool:
    """Whether a null appears anywhere in ``value`` (iterative: any depth)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if node is None:
            return True
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        if None in children:
            return True
        stack.extend(c for c in children if isinstance(c, dict | list))
    return False


def _too_long(length: int, limit: int) -> str:
    return f"a text of {length:,} characters; at most {limit:,} are accepted"


def _scalar_problem(value: Any, max_string: int) -> str | None:
    """What no tool could accept in a single value (not an array or object), or None."""
    if isinstance(value, str):
        if len(value) > max_string:
            return _too_long(len(value), max_string)
        if not value.isascii() and _SURROGATE.search(value):
            return "the text is not valid Unicode (it holds a lone surrogate)"
    elif isinstance(value, int) and not isinstance(value, bool):
        if not _INT64[0] <= value <= _INT64[1]:
            return "the integer does not fit in 64 bits"
    elif isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a number JSON can carry"
    return None


def _dotted(path: tuple[Any, ...]) -> str:
    return ".".join(str(key) for key in path)


def structure_problem(
    arguments: Any, max_string: int = MAX_STRING_CHARS_CAP, limit_at: Callable[[tuple[Any, ...]], int] | None = None
) -> tuple[str, str] | None:
    """(field path, problem) of the first value no tool could accept, or None; no string (value or
    key) may be longer than ``max_string`` characters (``limit_at(path)`` names the limit of the field
    a string too long is in, where the schema says). Iterative: a value nested too deep for
    recursion is reported, not crashed on. A field's path is only spelled out for the one reported
    (building it for each of a long list's items cost more than the check)."""
    if not isinstance(arguments, dict | list):
        problem = _scalar_problem(arguments, max_string)
        return None if problem is None else ("", problem)
    stack: list[tuple[Any, tuple[Any, ...]]] = [(arguments, ())]
    values = 0
    while stack:
        container, path = stack.pop()
        if len(path) >= MAX_DEPTH:
            return _dotted(path), f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(container, list) and len(container) > MAX_ARRAY_ITEMS:
            return _dotted(path), f"a list of {len(container):,} items; at most {MAX_ARRAY_ITEMS:,} are accepted"
        values += len(container)
        if values > MAX_VALUES:
            return _dotted(path), f"the arguments hold more than {MAX_VALUES:,} values"
        if isinstance(container, dict):
            for key in container:
                if isinstance(key, str) and len(key) > max_string:
                    return _dotted(path), "a key is " + _too_long(len(key), max_string)
                if isinstance(key, str) and not key.isascii() and _SURROGATE.search(key):
                    return _dotted(path), "a key is not valid Unicode (it holds a lone surrogate)"
            items: Any = container.items()
        elif all(type(child) is str and child.isascii() and len(child) <= max_string for child in container):
            continue  # the usual list of ids, at a fraction of the cost of the loop below
        else:
            items = enumerate(container)
        for key, child in items:
            if isinstance(child, dict | list):
                stack.append((child, (*path, key)))
            elif (problem := _scalar_problem(child, max_string)) is not None:
                if limit_at is not None and isinstance(child, str) and len(child) > max_string:
                    problem = _too_long(len(child), limit_at((*path, key)))
                return _dotted((*path, key)), problem
    return None


# Where a schema holds subschemas that a bound on strings may be added to. ``not``, ``if``,
# ``contains`` and ``propertyNames`` are left alone: a bound inside ``not`` would admit long strings
# instead of refusing them, and in the others it would change which branch or item matches.
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_ONE = ("items", "additionalProperties", "unevaluatedItems", "unevaluatedProperties", "then", "else")


def bounded_strings(
    schema: dict[str, Any], default: int = DEFAULT_MAX_STRING_CHARS, cap: int = MAX_STRING_CHARS_CAP
) -> tuple[dict[str, Any], int]:
    """(a copy of ``schema`` in which every string has a ``maxLength``, the largest one).

    A schema that may be a string and has no ``maxLength`` gets ``default`` (or its ``minLength``,
    if that is more); a ``maxLength`` above ``cap`` becomes ``cap``. Schemas whose strings are fixed
    (``enum``, ``const``) or decided elsewhere (``$ref``, a union's branches) are left to those.

    >>> bounded_strings({"type": "object", "properties": {"s": {"type": "string"}}}, 100)[0]["properties"]
    {'s': {'type': 'string', 'maxLength': 100}}
    """
    default = min(default, cap)
    largest = default

    def bound(node: Any, depth: int) -> Any:
        nonlocal largest
        if not isinstance(node, dict) or depth > MAX_DEPTH:
            return node
        out = dict(node)
        for key in _SUBSCHEMA_MAPS:
            if isinstance(node.get(key), dict):
                out[key] = {name: bound(sub, depth + 1) for name, sub in node[key].items()}
        for key in _SUBSCHEMA_LISTS:
            if isinstance(node.get(key), list):
                out[key] = [bound(sub, depth + 1) for sub in node[key]]
        for key in _SUBSCHEMA_ONE:
            if isinstance(node.get(key), dict):
                out[key] = bound(node[key], depth + 1)
            elif key == "items" and isinstance(node.get(key), list):  # the tuple form of older drafts
                out[key] = [bound(sub, depth + 1) for sub in node[key]]
        if _may_be_free_text(node):
            given, low = _count(node.get("maxLength")), _count(node.get("minLength"))
            limit = min(given, cap) if given is not None else min(max(default, low or 0), cap)
            out["maxLength"] = limit
            largest = max(largest, limit)
        return out

    return bound(schema, 0), largest


def _count(value: Any) -> int | None:
    """``value`` if it is a length a schema can give (a non-negative integer), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _may_be_free_text(node: dict[str, Any]) -> bool:
    """Whether ``node`` admits strings of its own choosing (not fixed by an enum, nor by another schema)."""
    declared = node.get("type")
    if isinstance(declared, str):
        return declared == "string" and "enum" not in node and "const" not in node
    if isinstance(declared, list):
        return "string" in declared and "enum" not in node and "const" not in node
    return not any(k in node for k in ("enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not", "type"))


class ArgumentValidator:
    """A tool's argument schema, with every string's length bounded (``bounded_strings``).

    >>> v = ArgumentValidator({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    >>> v.validate("t", {"n": 1})
    >>> v.validate("t", {"n": "x"})
    Traceback (most recent call last):
    ...
    envs.errors.ToolArgumentError: Invalid argument 'n' for tool 't': 'x' is not of type 'integer'
    """

    def __init__(self, schema: dict[str, Any], *, max_string_chars: int = DEFAULT_MAX_STRING_CHARS) -> None:
        #: The schema calls are validated against: the spec's, with every string bounded.
        self.schema, self.max_string = bounded_strings(schema, max_string_chars)
        self.full = _VALIDATOR(self.schema, format_checker=_VALIDATOR.FORMAT_CHECKER, registry=_NO_RETRIEVAL)
        self._null_ok: dict[int, bool] = {}  # by id() of a subschema of ``schema``, which lives as long

    def absent_nulls(self, arguments: Any) -> Any:
        """``arguments`` without the nulls that stand for an absent optional property.

        Strict function calling (OpenAI's strict mode, the SDKs' strict conversion) makes a model
        send every property of an object, and the schema the farm advertises lets each optional one
        be null for that reason (``envs.schemas.tool_schemas``). A null for a property its object does not
        require, and whose own schema does not accept null, is dropped here, at any depth the
        schema describes (properties, items, local references, the branch of an anyOf/oneOf the
        value fits), so it means exactly what leaving the property out means. A null the schema
        accepts (``"type": ["string", "null"]``) is a value and stays; so does a null for a
        required property, which validation then refuses naming it.

        >>> v = ArgumentValidator({"type": "object", "properties": {"a": {"type": "string"}}})
        >>> v.absent_nulls({"a": None})
        {}
        """
        if not isinstance(arguments, dict) or not _holds_null(arguments):
            return arguments
        return self._without_nulls(arguments, self.schema, 0)

    def _without_nulls(self, value: Any, schema: Any, depth: int) -> Any:
        schema = self._resolved(schema)
        if depth > MAX_DEPTH or not isinstance(schema, dict) or not isinstance(value, dict | list):
            return value
        if isinstance(value, dict):
            props = schema.get("properties")
            props = props if isinstance(props, dict) else {}
            required = schema.get("required")
            required = set(required) if isinstance(required, list) else set()
            out: Any = {}
            for key, item in value.items():
                sub = props.get(key)
                if item is None and sub is not None and key not in required and not self._accepts_null(sub):
                    continue
                out[key] = self._without_nulls(item, sub, depth + 1) if sub is not None else item
        else:
            items = schema.get("items")
            out = [self._without_nulls(item, items, depth + 1) for item in value] if isinstance(items, dict) else value
        for branch in schema.get("allOf") or []:
            out = self._without_nulls(out, branch, depth + 1)
        for key in ("anyOf", "oneOf"):
            for branch in schema.get(key) or []:
                candidate = self._without_nulls(out, branch, depth + 1)
                if candidate is not out and self._fits(candidate, branch):
                    out = candidate
                    break
        return out

    def _resolved(self, schema: Any) -> Any:
        """``schema`` with local references followed (``schema_safety`` refused any other, and cycles)."""
        for _ in range(MAX_DEPTH):
            ref = schema.get("$ref") if isinstance(schema, dict) else None
            if not isinstance(ref, str) or not ref.startswith("#"):
                return schema
            node: Any = self.schema
            for part in ref[1:].split("/")[1:]:
                part = urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")
                node = node.get(part) if isinstance(node, dict) else None
            schema = node
        return schema

    def _accepts_null(self, schema: Any) -> bool:
        key = id(schema)
        if key not in self._null_ok:
            self._null_ok[key] = self._fits(None, schema)
        return self._null_ok[key]

    def _fits(self, value: Any, schema: Any) -> bool:
        try:
            return bool(self.full.evolve(schema=schema).is_valid(value))
        except referencing.exceptions.Unresolvable:
            return False

    def checked(self, tool: str, arguments: Any) -> Any:
        """The arguments a call runs with: checked for what no tool could take first (so a huge
        list is refused before anything walks it), nulls standing for absent properties dropped,
        then validated. Raises ToolArgumentError as ``validate``."""
        self._check_structure(tool, arguments)
        arguments = self.absent_nulls(arguments)
        self._check_schema(tool, arguments)
        return arguments

    def validate(self, tool: str, arguments: Any) -> None:
        """Raise ToolArgumentError for the most relevant schema violation, naming field and value."""
        self._check_structure(tool, arguments)
        self._check_schema(tool, arguments)

    def _check_structure(self, tool: str, arguments: Any) -> None:
        if not isinstance(arguments, dict):
            raise ToolArgumentError(
                f"Arguments for tool '{tool}' must be a JSON object, got {type(arguments).__name__}", field=""
            )
        if (problem := structure_problem(arguments, self.max_string, self._limit_at)) is not None:
            field, what = shown_name(problem[0]), problem[1]
            raise ToolArgumentError(f"Invalid argument '{field}' for tool '{tool}': {what}", field=field)

    def _check_schema(self, tool: str, arguments: Any) -> None:
        if self.accepts_fast(arguments):
            return
        try:
            # The most relevant of the first errors: a list of 6,000 wrong items has 6,000 errors, and
            # building every one would cost more than the call itself.
            error = jsonschema.exceptions.best_match(itertools.islice(self.full.iter_errors(arguments), _MAX_ERRORS))
        except referencing.exceptions.Unresolvable as exc:  # a spec not checked at load (schema_safety)
            raise ToolArgumentError(f"Tool '{tool}' has a schema reference that cannot be resolved: {exc}") from None
        if error is None:
            return
        field = shown_name(_field_of(error))  # an unexpected argument's name is the caller's text
        if error.validator == "required":
            raise ToolArgumentError(f"Missing required argument '{field}' for tool '{tool}'", field=field)
        if error.validator == "additionalProperties":
            raise ToolArgumentError(f"Unexpected argument '{field}' for tool '{tool}'", field=field)
        label = f"argument '{field}'" if field else "arguments"
        message = error.message
        if error.validator == "maxLength" and isinstance(error.instance, str):  # not jsonschema's repr of the text
            message = _too_long(len(error.instance), int(error.validator_value))
        elif len(message) > MAX_MESSAGE_CHARS:  # jsonschema quotes the whole value: a list where text belongs
            cut = len(message) - MAX_MESSAGE_CHARS
            message = (
                f"{message[: MAX_MESSAGE_CHARS // 2]} … ({cut:,} characters cut) … {message[-MAX_MESSAGE_CHARS // 2 :]}"
            )
        raise ToolArgumentError(f"Invalid {label} for tool '{tool}': {message}", field=field)

    def _limit_at(self, path: tuple[Any, ...]) -> int:
        """The length limit of the string at ``path`` as the schema states it (following properties,
        items and local references; the largest of a union's branches), else the tool's largest."""
        node: Any = self.schema
        for key in path:
            node = self._resolved(node)
            if not isinstance(node, dict):
                return self.max_string
            props = node.get("properties")
            if isinstance(key, str) and isinstance(props, dict) and key in props:
                node = props[key]
            elif isinstance(key, int) and isinstance(node.get("items"), dict):
                node = node["items"]
            else:
                return self.max_string
        node = self._resolved(node)
        if not isinstance(node, dict):
            return self.max_string
        limits = [node.get("maxLength")] + [
            b.get("maxLength") for b in [*node.get("anyOf", []), *node.get("oneOf", [])] if isinstance(b, dict)
        ]
        found = [n for n in limits if isinstance(n, int)]
        return max(found) if found else self.max_string

    @functools.cached_property
    def fast(self) -> Any:
        """The Rust validator, built at the tool's first call: building one for every tool of the
        catalog took 45 ms at start-up, for tools most servers never call."""
        return _fast_validator(self.schema)

    def accepts_fast(self, arguments: Any) -> bool:
        """Whether the Rust validator accepts ``arguments`` (False where it cannot tell)."""
        if self.fast is None:
            return False
        try:
            return bool(self.fast.is_valid(arguments))
        except Exception:  # a value it cannot read is left to jsonschema
            return False
        except BaseException as exc:
            if _is_rust_panic(exc):
                return False
            raise


def _field_of(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    extra = ""
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [r for r in list(error.validator_value) if r not in error.instance]  # type: ignore[arg-type]
        extra = missing[0] if missing else ""
    elif error.validator == "additionalProperties" and (m := _UNEXPECTED.search(error.message)):
        extra = m.group(1).split("', '")[0]
    return ".".join(p for p in (path, extra) if p)
