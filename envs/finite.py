"""Where a value holds a number JSON cannot carry (NaN, Infinity), so that no tool result holds one.

SQLite computes ``1e999`` and ``1e308 * 10`` as infinity, and a JSON column may hold ``1e999``. JSON
has no such numbers: one transport would write ``null``, another ``"Infinity"``, a third fail. The
engine refuses such a result instead (docs/serving.md), the same on every transport.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any


def non_finite(value: Any, name: str = "") -> tuple[str, float] | None:
    """(path, number) of the first non-finite float in ``value``, or None. The path starts at ``name``
    (``total``, ``items[3].price``). Iterative: a deeply nested JSON column cannot exhaust the stack."""
    stack: list[tuple[Any, str]] = [(value, name)]
    while stack:
        node, path = stack.pop()
        if node.__class__ is float:
            if not math.isfinite(node):
                return path, node
        elif isinstance(node, dict):
            stack.extend((child, f"{path}.{key}" if path else str(key)) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(node))
    return None


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
