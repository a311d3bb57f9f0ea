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
"""

from __future__ import annotations

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


def install_functions(conn: sqlite3.Connection) -> None:
    """Add the functions above to ``conn`` (deterministic: same arguments, same result)."""
    conn.create_function("round_half_even", 2, round_half_even, deterministic=True)
    conn.create_function("round_half_even", 1, round_half_even, deterministic=True)
    conn.create_function("float_text", 1, float_text, deterministic=True)
    conn.create_function("arithmetic", 1, arithmetic, deterministic=True)
    conn.create_function("arithmetic_error", 1, arithmetic_error, deterministic=True)
    conn.create_function("search_terms", 1, search_terms, deterministic=True)
