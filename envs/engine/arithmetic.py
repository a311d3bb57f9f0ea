"""Python's arithmetic on a text expression, without ``eval``, with bounded time and memory.

An expression holds numbers, parentheses, unary ``+``/``-`` and binary ``+ - * / // % **``, and its
value is the one Python gives (integers exact, ``/`` true division, ``**`` on integers exact). The text
is parsed by Python's own parser (``ast.parse``), so every syntax error is Python's
(``invalid syntax (<string>, line 1)``, ``too many nested parentheses``), and so is the deepest
nesting it builds: about 2,990 chained operators on Python 3.11, from any caller (``maximum
recursion depth exceeded during ast construction``; ``eval`` stops at the same depth, "during
compilation"). The tree is then evaluated with an explicit stack, so a long chain
(``1 + 1 + … + 1``) costs no Python recursion.

Integers are exact, so ``9 ** 9 ** 9`` would take minutes and hundreds of megabytes, and a product
of a hundred 80,000-bit powers (1,800 characters) took 40 s here. Before each integer operation its cost is estimated in
operations on CPython's 30-bit digits, as the schoolbook methods would spend them, an upper bound of
what CPython spends (``a * b``: the product of the operands' digit counts; ``a // b`` and ``a % b``:
the divisor's digits times the quotient's; ``a ** n``: the square of the result's digit count;
``+``, ``-`` and ``/``: the digit counts), and an expression whose estimates add up to more than
:data:`WORK_LIMIT` is refused before the operation that would pass it runs. The limit admits any
power up to about 300,000 bits (``10 ** 30000 // 10 ** 29999`` spends a fifth of it), and long
division, the costliest per estimated operation (0.8 ns here), bounds an expression to about 0.1 s.
"""

from __future__ import annotations

import ast
import math
import operator
import threading
from collections.abc import Callable
from typing import Any

#: Longest expression evaluated, in characters: the longest text a tool argument may hold at all
#: (``envs.schemas.arguments.MAX_STRING_CHARS_CAP``). A tool's own limit is usually far lower (4,096 by default).
MAX_EXPRESSION_CHARS = 65_536
#: Estimated operations on 30-bit digits that one expression may spend on integers.
WORK_LIMIT = 100_000_000
_DIGIT_BITS = 30
#: Texts up to this length nest at most this deep, which any caller's stack has room for.
_SHALLOW_CHARS = 256

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


class ArithmeticRefused(ValueError):
    """An expression outside the arithmetic subset, or too costly to compute; the message says which."""


def _digits(value: Any) -> int:
    """The size of an operand in 30-bit digits (a float, or anything that is not an integer, is one)."""
    if isinstance(value, int):
        return value.bit_length() // _DIGIT_BITS + 1
    if isinstance(value, tuple):
        return len(value) + 1
    return 1


def _power_bits(base: Any, exponent: Any) -> float:
    """An upper estimate of the bits of ``base ** exponent``; 0 when it is not an exact integer power
    that grows (a float, a negative exponent, a base of -1, 0 or 1)."""
    if not (isinstance(base, int) and isinstance(exponent, int)) or exponent <= 0 or abs(base) <= 1:
        return 0.0
    return exponent * math.log2(abs(base)) + 1


_TOO_LARGE = f"the numbers grow too large to compute (more than {WORK_LIMIT:,} digit operations)"


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit

    def spend(self, cost: float, what: str) -> None:
        if cost > self.left:
            raise ArithmeticRefused(what)
        self.left -= int(cost)


def _binary(op: ast.operator, left: Any, right: Any, budget: _Budget) -> Any:
    if isinstance(op, ast.Pow):
        bits = _power_bits(left, right)
        if bits:
            cost = (bits / _DIGIT_BITS + 1) ** 2
            alone = f"the power's result would have about {bits:,.0f} bits, too many to compute"
            budget.spend(cost, alone if cost > WORK_LIMIT else _TOO_LARGE)
    elif isinstance(op, ast.Add | ast.Sub):
        budget.spend(_digits(left) + _digits(right), _TOO_LARGE)
    elif isinstance(op, ast.Mult) and isinstance(left, tuple) != isinstance(right, tuple):
        # a tuple repeated: () * 3 is (), as Python gives it; (1,) * 10**9 would fill the memory
        times = right if isinstance(left, tuple) else left
        length = len(left if isinstance(left, tuple) else right)
        budget.spend(length * max(0, times) if isinstance(times, int) else 1, _TOO_LARGE)
    elif isinstance(op, ast.Div):  # true division keeps about 55 bits of the quotient: linear
        budget.spend(_digits(left) + _digits(right), _TOO_LARGE)
    elif isinstance(op, ast.FloorDiv | ast.Mod):  # schoolbook long division: divisor by quotient digits
        budget.spend(_digits(right) * max(1, _digits(left) - _digits(right) + 1), _TOO_LARGE)
    else:
        budget.spend(_digits(left) * _digits(right), _TOO_LARGE)
    return _BINARY[type(op)](left, right)


def _not_arithmetic(source: str, node: ast.AST) -> ArithmeticRefused:
    text = ast.get_source_segment(source, node) or type(node).__name__
    if len(text) > 80:
        text = text[:77] + "..."
    return ArithmeticRefused(f"'{text}' is not arithmetic")


def _evaluate(source: str, tree: ast.Expression, budget: _Budget) -> Any:
    """Post-order over the tree with an explicit stack: the left operand first, as Python does."""
    values: list[Any] = []
    pending: list[tuple[ast.AST, bool]] = [(tree.body, False)]
    while pending:
        node, operands_done = pending.pop()
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            values.append(node.value)
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            if operands_done:
                right = values.pop()
                values.append(_binary(node.op, values.pop(), right, budget))
            else:
                pending += [(node, True), (node.right, False), (node.left, False)]
        elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            if operands_done:
                operand = values.pop()
                budget.spend(_digits(operand), _TOO_LARGE)
                values.append(_UNARY[type(node.op)](operand))
            else:
                pending += [(node, True), (node.operand, False)]
        elif isinstance(node, ast.Tuple):  # "()": Python's float() then refuses it, with its own message
            if operands_done:
                count = len(node.elts)
                items = tuple(values[len(values) - count :])
                del values[len(values) - count :]
                values.append(items)
            else:
                pending += [(node, True), *((e, False) for e in reversed(node.elts))]
        else:
            raise _not_arithmetic(source, node)
    return values.pop()


def _parse(source: str) -> ast.Expression:
    """Python's parse of ``source``. How deep a tree Python builds depends on how deep the caller's
    stack already is, so a text long enough to nest deeply is parsed on a fresh thread: the same
    expression gets the same answer from any caller (a REST call, an MCP session, a test)."""
    if len(source) <= _SHALLOW_CHARS:
        return ast.parse(source, filename="<string>", mode="eval")
    outcome: list[ast.Expression | BaseException] = []

    def parse() -> None:
        try:
            outcome.append(ast.parse(source, filename="<string>", mode="eval"))
        except BaseException as exc:  # handed to the caller's thread as it is
            outcome.append(exc)

    thread = threading.Thread(target=parse, name="envfarm-arithmetic-parse", daemon=True)
    thread.start()
    thread.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def evaluate(expression: str) -> float:
    """The value of ``expression`` as a float, as Python's ``float(eval(expression))`` would give it.

    Raises what Python raises (``SyntaxError``, ``ZeroDivisionError``, ``OverflowError``,
    ``TypeError``, ``RecursionError``, ...) with Python's message, or :class:`ArithmeticRefused`.
    """
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ArithmeticRefused(f"expression longer than {MAX_EXPRESSION_CHARS:,} characters")
    # Python's eval() drops leading spaces and tabs before compiling; the messages are the ones it gives.
    source = expression.lstrip(" \t")
    tree = _parse(source)
    return float(_evaluate(source, tree, _Budget(WORK_LIMIT)))
