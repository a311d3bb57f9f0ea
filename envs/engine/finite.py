"""Finding numbers JSON cannot carry (NaN, infinities), so that no tool result holds one.

SQLite computes ``1e999`` and ``1e308 * 10`` as infinity, and a JSON column may hold ``1e999``. JSON
has no such numbers: one transport would write ``null``, another ``"Infinity"``, a third fail. The
engine refuses such a result instead (docs/serving.md), the same on every transport. The checks cost
next to nothing on results without one: JSON text is read with hooks Python calls only for float
literals, and a value is walked only when its text held such a number.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any


def non_finite(value: Any, name: str = "") -> tuple[str, float] | None:
    """(path, number) of the first non-finite float in ``value``, or None. The path starts at ``name``
    (``total``, ``items[3].price``). Iterative: a deeply nested JSON column cannot exhaust the stack.
    Every tool result goes through it, so a path is only spelled out for the number found."""
    if value.__class__ is float:
        return None if math.isfinite(value) else (name, value)
    if value.__class__ is not dict and value.__class__ is not list:
        return None
    isfinite = math.isfinite
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        for key, child in node.items() if node.__class__ is dict else enumerate(node):
            kind = child.__class__
            if kind is float:
                if not isfinite(child):
                    return _spelled(name, (*path, key)), child
            elif kind is dict or kind is list:
                stack.append((child, (*path, key)))
    return None


class _NonFiniteNumber(Exception):  # not a ValueError: "not JSON" is handled apart
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999, or 400 digits before the point
        raise _NonFiniteNumber
    return value


def _refuse_constant(name: str) -> float:  # NaN, Infinity, -Infinity
    raise _NonFiniteNumber


# Python calls the hooks only for float literals and those constants: reading costs the same as json.loads
_FINITE_DECODER = json.JSONDecoder(parse_float=_finite_float, parse_constant=_refuse_constant)


def read_json_text(text: str) -> tuple[Any, bool]:
    """JSON ``text`` as a value, and whether it holds a number that reads as NaN or an infinity.

    Raises:
        ValueError: not JSON. RecursionError: nested too deep to read.
    """
    try:
        return _FINITE_DECODER.decode(text), False
    except _NonFiniteNumber:
        return json.loads(text), True


def _spelled(name: str, path: tuple[Any, ...]) -> str:
    out = name
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


# SQLite before 3.45 writes an infinite REAL inside the JSON it builds (json_array, json_object) as a
# bare ``Inf``, which no JSON parser reads; it follows ``[``, ``:`` or ``,`` and precedes ``,``, ``]``
# or ``}`` (SQLite writes JSON without spaces).
_SQLITE_INF = re.compile(r"(?<=[\[:,])(-?)Inf(?=[,\]}])")


def sqlite_json_with_infinities(text: str) -> Any | None:
    """``text`` read as JSON with SQLite's ``Inf`` tokens as infinities, so that the result check finds
    them; None when it does not read that way either (it is then kept as text). Only called on text
    ``json.loads`` refused, so valid JSON never goes through the substitution."""
    if "Inf" not in text:
        return None
    try:
        return json.loads(_SQLITE_INF.sub(r"\g<1>1e999", text))
    except (ValueError, RecursionError):
        return None
