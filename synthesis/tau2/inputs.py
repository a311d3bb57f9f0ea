"""Reading a tau2 domain folder's files so that any malformed input is refused with one line naming
the file and the field, before anything is converted or written.

A folder may come from anyone (a tau2 fork, a hand-edited copy), so nothing in it is trusted: the
JSON is read without recursion limits being reached, non-finite numbers and integers beyond 64 bits
are refused where they stand (JSON cannot carry the former and SQLite cannot store the latter), and
each file's shape is checked against a JSON Schema of exactly the fields the importer reads. The
schemas check types only; values a table refuses (an unknown status) are reported by the
environment's own seed check, which names the table, row and column.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
from jsonschema.exceptions import best_match

from envs.errors import EnvFarmError

from .airline_data import CABINS, FLIGHT_STATUSES

MAX_DEPTH = 64  # tau2's files nest 6 levels at most; deeper is a hostile or broken file
_INT64 = (-(2**63), 2**63 - 1)
_SHOWN = 80  # characters of a value shown in an error


class Tau2ImportError(EnvFarmError):
    """The folder is not a tau2 domain this importer knows, or one of its files is malformed. The
    message is one line naming the file and, inside it, the field."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))  # one line, whatever a value or an OS error held


def field_path(parts: Any) -> str:
    """``("users", "u1", "orders", 0)`` as ``users.u1.orders[0]``; the root as ``(root)``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _problem(value: Any) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number"
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
        return "the integer does not fit in 64 bits"
    return None


def check_values(data: Any, source: Path) -> None:
    """Refuse nesting deeper than MAX_DEPTH, non-finite numbers and integers beyond 64 bits, naming the
    field. Iterative, so no input can exhaust the stack."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:
            shown = field_path(path[:8]) + ("…" if len(path) > 8 else "")  # where it starts going deep
            raise Tau2ImportError(f"{source}: {shown}: nested deeper than {MAX_DEPTH} levels")
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in children:
            if isinstance(child, dict | list):
                stack.append((child, (*path, key)))
            elif (problem := _problem(child)) is not None:
                raise Tau2ImportError(f"{source}: {field_path((*path, key))}: {problem}")
    if (problem := _problem(data)) is not None:
        raise Tau2ImportError(f"{source}: {problem}")


def read_text(path: Path) -> str:
    """A file's text, strictly UTF-8."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise Tau2ImportError(
            f"{path} is missing: a tau2 domain folder holds db.json, tasks.json and policy.md"
        ) from None
    except OSError as exc:
        raise Tau2ImportError(f"{path} does not read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise Tau2ImportError(
            f"{path}: line {line}: not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start})"
        ) from None


_BRACKET_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _too_deep_at(text: str) -> str:
    """Where ``text`` first opens more than MAX_DEPTH brackets, as ``line L, column C``: JSON nested too
    deep for the parser to say where. Scanned only after the parser gave up."""
    depth = 0
    for match in _BRACKET_OR_STRING.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                at = match.start()
                line_start = text.rfind("\n", 0, at) + 1
                return f"line {text.count(chr(10), 0, at) + 1}, column {at - line_start + 1}"
        elif token in ("]", "}"):
            depth -= 1
    return "(root)"


def read_json(path: Path, schema: Mapping[str, Any] | None = None) -> Any:
    """A JSON file's value, its values checked (``check_values``) and, given a schema, its shape."""
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Tau2ImportError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise Tau2ImportError(f"{path}: {_too_deep_at(text)}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer literal of more digits than Python converts
        raise Tau2ImportError(f"{path}: invalid JSON ({exc})") from None
    check_values(data, path)
    if schema is not None:
        check_shape(data, schema, path)
    return data


_JSON_TYPES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}


def _kind(value: Any) -> str:
    if isinstance(value, bool | dict | list | str) or value is None:
        return _JSON_TYPES[type(value)]
    return "a number"


def check_shape(data: Any, schema: Mapping[str, Any], source: Path) -> None:
    """Refuse data that does not match ``schema``, naming the field. The Rust validator answers for
    valid data (a 3 MB db.json in milliseconds); only invalid data goes to ``jsonschema`` for the error."""
    if jsonschema_rs.validator_for(dict(schema)).is_valid(data):
        return
    error = best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is None:  # the two validators disagree: report it rather than accept
        raise Tau2ImportError(f"{source}: does not have the shape a tau2 file has")
    path = list(error.absolute_path)
    if error.validator == "required":
        missing = next((k for k in error.validator_value if k not in error.instance), "?")
        raise Tau2ImportError(f"{source}: {field_path([*path, missing])}: missing")
    if error.validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        expected = " or ".join(str(w) for w in wanted)
        raise Tau2ImportError(f"{source}: {field_path(path)}: expected {expected}, got {_kind(error.instance)}")
    if error.validator == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        raise Tau2ImportError(f"{source}: {field_path(path)}: {_shown(error.instance)} is not one of {allowed}")
    raise Tau2ImportError(f"{source}: {field_path(path)}: {_shown(error.instance)} does not fit ({error.validator})")


# -- schemas of the fields the importer reads ------------------------------------------------------

_STRING = {"type": "string"}
_OPTIONAL_STRING = {"type": ["string", "null"]}
_NUMBER = {"type": "number"}
_OPTIONAL_NUMBER = {"type": ["number", "null"]}
_INTEGER = {"type": "integer"}
_OBJECT = {"type": "object"}
_STRINGS = {"type": "array", "items": _STRING}


def _record(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": {**required, **(optional or {})}}


def _keyed(record: dict[str, Any]) -> dict[str, Any]:
    """tau2's ``{id: record}`` tables."""
    return {"type": "object", "additionalProperties": record}


def _list(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": item}


def _one_of(*values: str | None) -> dict[str, Any]:
    """The values a column's enum allows (the tables' CHECK constraints), refused here by field."""
    return {"enum": list(values)}


_NAME = _record({"first_name": _STRING, "last_name": _STRING})
_METHOD_EXTRA = {"brand": _OPTIONAL_STRING, "last_four": _OPTIONAL_STRING}

RETAIL_DB = _record(
    {
        "products": _keyed(
            _record(
                {
                    "name": _STRING,
                    "variants": _keyed(
                        _record({"options": _OBJECT, "available": {"type": "boolean"}, "price": _NUMBER})
                    ),
                }
            )
        ),
        "users": _keyed(
            _record(
                {
                    "name": _NAME,
                    "address": _OBJECT,
                    "email": _STRING,
                    "payment_methods": _keyed(
                        _record(
                            {"source": _one_of("credit_card", "paypal", "gift_card")},
                            {**_METHOD_EXTRA, "balance": _OPTIONAL_NUMBER},
                        )
                    ),
                    "orders": _STRINGS,
                }
            )
        ),
        "orders": _keyed(
            _record(
                {
                    "user_id": _STRING,
                    "address": _OBJECT,
                    "status": _STRING,
                    "items": _list(
                        _record(
                            {
                                "name": _STRING,
                                "product_id": _STRING,
                                "item_id": _STRING,
                                "price": _NUMBER,
                                "options": _OBJECT,
                            }
                        )
                    ),
                    "fulfillments": _list(_record({"tracking_id": _list({}), "item_ids": _STRINGS})),
                    "payment_history": _list(
                        _record(
                            {
                                "transaction_type": _one_of("payment", "refund"),
                                "amount": _NUMBER,
                                "payment_method_id": _STRING,
                            }
                        )
                    ),
                },
                {
                    "cancel_reason": _OPTIONAL_STRING,
                    "exchange_payment_method_id": _OPTIONAL_STRING,
                    "return_payment_method_id": _OPTIONAL_STRING,
                    "exchange_price_difference": _OPTIONAL_NUMBER,
                    **{
                        k: {"type": ["array", "null"]} for k in ("exchange_items", "exchange_new_items", "return_items")
                    },
                },
            )
        ),
    }
)

_PASSENGER = _record({"first_name": _STRING, "last_name": _STRING, "dob": _STRING})
_TIMES = (
    "estimated_departure_time_est",
    "estimated_arrival_time_est",
    "actual_departure_time_est",
    "actual_arrival_time_est",
)

AIRLINE_DB = _record(
    {
        "flights": _keyed(
            _record(
                {
                    "origin": _STRING,
                    "destination": _STRING,
                    "scheduled_departure_time_est": _STRING,
                    "scheduled_arrival_time_est": _STRING,
                    "dates": _keyed(
                        _record(
                            {"status": _one_of(*FLIGHT_STATUSES)},
                            {
                                "available_seats": {"type": ["object", "null"], "additionalProperties": _INTEGER},
                                "prices": {"type": ["object", "null"], "additionalProperties": _NUMBER},
                                **{name: _OPTIONAL_STRING for name in _TIMES},
                            },
                        )
                    ),
                }
            )
        ),
        "users": _keyed(
            _record(
                {
                    "name": _NAME,
                    "address": _OBJECT,
                    "email": _STRING,
                    "dob": _STRING,
                    "saved_passengers": _list(_PASSENGER),
                    "membership": _one_of("gold", "silver", "regular"),
                    "payment_methods": _keyed(
                        _record(
                            {"source": _one_of("credit_card", "gift_card", "certificate")},
                            {**_METHOD_EXTRA, "amount": _OPTIONAL_NUMBER},
                        )
                    ),
                    "reservations": _STRINGS,
                }
            )
        ),
        "reservations": _keyed(
            _record(
                {
                    **{k: _STRING for k in ("user_id", "origin", "destination", "created_at")},
                    "flight_type": _one_of("round_trip", "one_way"),
                    "cabin": _one_of(*CABINS),
                    "total_baggages": _INTEGER,
                    "nonfree_baggages": _INTEGER,
                    "insurance": _one_of("yes", "no"),
                    "flights": _list(
                        _record(
                            {
                                "flight_number": _STRING,
                                "origin": _STRING,
                                "destination": _STRING,
                                "date": _STRING,
                                "price": _INTEGER,
                            }
                        )
                    ),
                    "passengers": _list(_PASSENGER),
                    "payment_history": _list(_record({"payment_id": _STRING, "amount": _INTEGER})),
                },
                {"status": _one_of("cancelled", None)},
            )
        ),
    }
)

_INSTRUCTIONS = _record(
    {},
    {k: _OPTIONAL_STRING for k in ("reason_for_call", "task_instructions", "known_info", "unknown_info")},
)
_ACTION = _record({"name": _STRING}, {"arguments": {"type": ["object", "null"]}})

TASKS = _list(
    _record(
        {"id": {"type": ["string", "integer"]}},
        {
            "user_scenario": {
                "type": ["object", "null"],
                "properties": {
                    "persona": _OPTIONAL_STRING,
                    "instructions": {"anyOf": [_INSTRUCTIONS, _OPTIONAL_STRING]},
                },
            },
            "evaluation_criteria": {
                "type": ["object", "null"],
                "properties": {
                    "actions": {"type": ["array", "null"], "items": _ACTION},
                    "communicate_info": {"type": ["array", "null"], "items": {"type": ["string", "number"]}},
                    "reward_basis": {"type": ["array", "null"], "items": _STRING},
                },
            },
        },
    )
)

SPLITS = {"type": "object", "additionalProperties": _list({"type": ["string", "integer"]})}
