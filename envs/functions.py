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
  Nothing else is evaluated: no names, calls or attributes. A power whose result would exceed
  :data:`MAX_POWER_BITS` bits is refused instead of computed.
"""

from __future__ import annotations

import ast
import operator
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from typing import Any

#: Largest integer power computed, in bits of the result (9**9**9 would take minutes and gigabytes).
MAX_POWER_BITS = 100_000
MAX_EXPRESSION_CHARS = 10_000

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class _Refused(Exception):
    """An expression outside the arithmetic subset."""


def _power(base: Any, exponent: Any) -> Any:
    small = not (isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1)
    if not small and exponent * abs(base).bit_length() > MAX_POWER_BITS:
        raise _Refused(f"the power's result would have more than {MAX_POWER_BITS:,} bits")
    return operator.pow(base, exponent)


def _evaluate(node: ast.AST) -> Any:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.Tuple):  # "()": Python's float() then refuses it, with its own message
        return tuple(_evaluate(e) for e in node.elts)
    raise _Refused(f"'{ast.unparse(node)}' is not arithmetic")


@lru_cache(maxsize=1024)
def _arithmetic(expression: str) -> tuple[float | None, str | None]:
    if len(expression) > MAX_EXPRESSION_CHARS:
        return None, f"expression longer than {MAX_EXPRESSION_CHARS:,} characters"
    try:
        # Python's eval() drops leading spaces and tabs before parsing; the messages are the ones it gives.
        tree = ast.parse(expression.lstrip(" \t"), filename="<string>", mode="eval")
        return float(_evaluate(tree)), None
    except (_Refused, SyntaxError, ArithmeticError, TypeError, ValueError, RecursionError, MemoryError) as exc:
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


def install_functions(conn: sqlite3.Connection) -> None:
    """Add the functions above to ``conn`` (deterministic: same arguments, same result)."""
    conn.create_function("round_half_even", 2, round_half_even, deterministic=True)
    conn.create_function("round_half_even", 1, round_half_even, deterministic=True)
    conn.create_function("float_text", 1, float_text, deterministic=True)
    conn.create_function("arithmetic", 1, arithmetic, deterministic=True)
    conn.create_function("arithmetic_error", 1, arithmetic_error, deterministic=True)
