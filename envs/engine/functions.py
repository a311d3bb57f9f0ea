"""Pure SQL functions the engine adds to every episode connection, for what SQLite cannot do exactly.

* ``round_half_even(x, digits)`` rounds the exact binary value of ``x`` to ``digits`` decimals,
  ties to even (as IEEE 754 and Python do). SQLite's ``round`` rounds an approximate decimal
  text half away from zero, so ``round(746.405, 2)`` gives 746.41 where the exact value
  (746.40499999…) rounds to 746.4: about 1 in 80 money amounts with three decimals differs.
* ``float_text(x)`` is the shortest text that reads back as the same double (``repr``). SQLite's
  JSON functions keep 15 significant digits, so an unrounded sum such as 0.04999999999999716 would
  come back as 0.05; ``json(float_text(x))`` inside ``json_object`` keeps it exact.
* ``arithmetic(expression)`` evaluates numbers, parentheses, unary ``+``/``-`` and binary
  ``+ - * / // % **`` with Python's semantics (integers exact, ``/`` true division) and returns the
  result as a REAL, or NULL when it fails; ``arithmetic_error(expression)`` returns why it failed
  (the message Python gives: ``division by zero``, ``invalid syntax (<string>, line 1)``), or NULL.
  Nothing else is evaluated: no names, calls or attributes. Integer work is bounded: an expression
  whose integers would grow too large to compute quickly (``9**9**9``) is refused instead
  (``envs.engine.arithmetic``).
* ``search_terms(text)`` turns free text into an FTS5 query that cannot be malformed (every word
  quoted, any of them matching), for tools that search a document table's index.
* For services ported from Python, whose texts and ids are Python's: ``sha256_hex(text)`` (the hex
  digest of the UTF-8 text); ``python_str(value, json_type)``, what Python's ``str()`` shows of a
  value as ``json_each`` gives it (``True``, ``None``, ``1500.0``, ``{'a': [1, 'x']}``), or of JSON
  text with one argument; ``python_json(json_text, indent, ints_as_floats)``, Python's
  ``json.dumps`` of the parsed text (``indent`` 0 or NULL: one line; ``ints_as_floats``: integers
  read as floats, as ``json.loads(..., parse_int=float)``); ``python_format(number, spec)``,
  Python's ``format(number, spec)`` (``'.2f'`` rounds the exact binary value, as Python does);
  ``python_json_error(text)``, why Python's ``json.loads`` refuses the text (``Expecting value: line 1
  column 1 (char 0)``), or NULL when it reads it. Each returns NULL for what it cannot read.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from functools import lru_cache
from typing import Any

from .arithmetic import ArithmeticRefused, evaluate


@lru_cache(maxsize=128)  # a tool asks for the error and then the value: both come from one evaluation
def _arithmetic(expression: str) -> tuple[float | None, str | None]:
    try:
        return evaluate(expression), None
    except (ArithmeticRefused, SyntaxError, ArithmeticError, TypeError, ValueError, RecursionError, MemoryError) as exc:
        return None, str(exc)


def arithmetic(expression: Any) -> float | None:
    return _arithmetic(expression)[0] if isinstance(expression, str) else None


def arithmetic_error(expression: Any) -> str | None:
    if not isinstance(expression, str):
        return None if expression is None else "the expression must be text"
    return _arithmetic(expression)[1]


def round_half_even(value: Any, digits: Any = 0) -> float | None:
    if value is None or isinstance(value, (str, bytes)):
        return None
    return round(float(value), int(digits or 0))


def float_text(value: Any) -> str | None:
    if value is None or isinstance(value, (str, bytes)):
        return None
    return repr(float(value))


#: The most words of a search that count: a pasted page is not a longer query.
MAX_SEARCH_WORDS = 32
_WORD = re.compile(r"\w+")


def search_terms(text: Any) -> str:
    """A free-text search as an FTS5 query that cannot be malformed: each word quoted, any of them
    matching (BM25 ranks documents holding more of them, and rarer ones, first). No words: a query
    that matches nothing, never an error.

    >>> search_terms('annual fee "gold" card?')
    '"annual" OR "fee" OR "gold" OR "card"'
    >>> search_terms("?!")
    '""'
    """
    words = _WORD.findall(text if isinstance(text, str) else "" if text is None else str(text))
    return " OR ".join(f'"{w}"' for w in words[:MAX_SEARCH_WORDS]) or '""'


def sha256_hex(text: Any) -> str | None:
    if text is None:
        return None
    data = text if isinstance(text, bytes) else str(text).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def _loads(text: Any, *, ints_as_floats: bool = False) -> tuple[bool, Any]:
    if not isinstance(text, str):
        return False, None
    try:
        return True, json.loads(text, parse_int=float) if ints_as_floats else json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def python_str(value: Any, json_type: Any = None) -> str | None:
    """``str()`` of a JSON value as Python holds it after ``json.loads``.

    >>> print(python_str('{"a": [1, 2.0, true, null, "x"]}'))
    {'a': [1, 2.0, True, None, 'x']}
    >>> python_str(1500.0, "real"), python_str(1, "true"), python_str("x", "text")
    ('1500.0', 'True', 'x')
    """
    if json_type is None:
        ok, parsed = _loads(value)
        return str(parsed) if ok else None
    if json_type == "null":
        return "None"
    if json_type in ("true", "false"):
        return "True" if json_type == "true" else "False"
    if json_type == "real" and isinstance(value, int | float):
        return repr(float(value))
    if json_type in ("array", "object"):
        ok, parsed = _loads(value)
        return str(parsed) if ok else None
    return None if value is None else str(value)


def python_json(text: Any, indent: Any = None, ints_as_floats: Any = 0) -> str | None:
    """Python's ``json.dumps`` of JSON text, with ``indent`` spaces (0 or NULL: one line).

    >>> print(python_json('{"a":1,"b":[2.50]}', 2, 1))
    {
      "a": 1.0,
      "b": [
        2.5
      ]
    }
    """
    ok, parsed = _loads(text, ints_as_floats=bool(ints_as_floats))
    if not ok:
        return None
    width = int(indent) if isinstance(indent, int | float) and indent else None
    return json.dumps(parsed, indent=min(width, 16) if width else None)


def python_format(value: Any, spec: Any) -> str | None:
    """Python's ``format(value, spec)`` for a number: ``python_format(0.125, '.2f')`` is ``'0.12'``."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not isinstance(spec, str) or len(spec) > 20:
        return None
    try:
        return format(value, spec)
    except ValueError:
        return None


def python_json_error(text: Any) -> str | None:
    """Why Python's ``json.loads`` refuses ``text`` (its ``JSONDecodeError`` message), or NULL when it
    reads it.

    >>> python_json_error('{"a": 1,}')
    'Expecting property name enclosed in double quotes: line 1 column 9 (char 8)'
    >>> python_json_error('[1, 2]') is None
    True
    """
    if not isinstance(text, str):
        return None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return str(exc)
    except (ValueError, RecursionError) as exc:
        return str(exc) or type(exc).__name__
    return None


def install_functions(conn: sqlite3.Connection) -> None:
    """Add the functions above to ``conn`` (deterministic: same arguments, same result)."""
    conn.create_function("round_half_even", 2, round_half_even, deterministic=True)
    conn.create_function("round_half_even", 1, round_half_even, deterministic=True)
    conn.create_function("float_text", 1, float_text, deterministic=True)
    conn.create_function("arithmetic", 1, arithmetic, deterministic=True)
    conn.create_function("arithmetic_error", 1, arithmetic_error, deterministic=True)
    conn.create_function("search_terms", 1, search_terms, deterministic=True)
    conn.create_function("sha256_hex", 1, sha256_hex, deterministic=True)
    conn.create_function("python_str", 1, python_str, deterministic=True)
    conn.create_function("python_str", 2, python_str, deterministic=True)
    conn.create_function("python_json", 1, python_json, deterministic=True)
    conn.create_function("python_json", 2, python_json, deterministic=True)
    conn.create_function("python_json", 3, python_json, deterministic=True)
    conn.create_function("python_format", 2, python_format, deterministic=True)
    conn.create_function("python_json_error", 1, python_json_error, deterministic=True)
