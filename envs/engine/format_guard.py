"""``printf()`` and ``format()`` that give up at once on a repeated character past the length limit.

SQLite (3.40 here) repeats a ``%c`` conversion's character as many times as its precision says, one
append at a time, and keeps looping after the value has passed ``SQLITE_LIMIT_LENGTH`` and been
dropped: ``printf('%.*c', 999999999, 'x')`` spends 6 s of CPU to return NULL, and no progress handler
runs inside one function call, so neither the step budget nor the time limit stops it. (Every other
oversized width or precision fails at its first allocation, at once.) The guard takes both names on a
connection: where a ``%c`` asks for more characters than the limit allows, the result is NULL at once,
as SQLite's own is after its loop; anything else is formatted by SQLite's own ``printf`` on a private
connection, so results are SQLite's.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from typing import Any

#: One conversion: %[flags][width][.precision][length]type; a width or precision of ``*`` takes an argument.
_CONVERSION = re.compile(r"%[-+ 0#,!]*(\*|[0-9]+)?(?:\.(\*|[0-9]*))?(?:ll|l)?(.)", re.DOTALL)
#: The conversions of SQLite's SQL printf(); at any other letter it stops formatting, and so does the scan.
_KNOWN = frozenset("dsgzqQwcouxXfeEGi%n")
#: Conversions that take no argument.
_NO_ARGUMENT = frozenset("%n")
#: Text SQLite reads as that integer (its digits and spaces are ASCII only; Python's int() takes more).
_INTEGER_TEXT = re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+[ \t\n\v\f\r]*")

_local = threading.local()


def _builtin() -> sqlite3.Connection:
    """This thread's private connection, where ``printf`` is still SQLite's."""
    conn: sqlite3.Connection | None = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = sqlite3.connect(":memory:", check_same_thread=False)
    return conn


def _int_arg(value: Any) -> int | None:
    """What SQLite reads for a ``*`` (``sqlite3_value_int64``, then a C ``int``), where that is certain."""
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        value = int(value)
    elif isinstance(value, str):
        if not _INTEGER_TEXT.fullmatch(value):
            return None
        value = int(value)
    elif not isinstance(value, int):
        return None
    clamped: int = max(-(2**63), min(2**63 - 1, value))
    return (clamped + 2**31) % 2**32 - 2**31


def _precision(field: str | None, args: tuple[Any, ...], taken: int) -> tuple[int | None, int]:
    """A width or precision as SQLite's printf reads it (None: not certain), and how many arguments it took."""
    if field == "*":
        value = _int_arg(args[taken]) if taken < len(args) else 0
        if value is not None and value < 0:
            value = -value if value >= -2147483647 else 0
        return value, 1
    return (int(field) % 2**32 & 0x7FFFFFFF if field else 0), 0


def too_long(fmt: str, args: tuple[Any, ...], limit: int) -> bool:
    """Whether formatting ``fmt`` with ``args`` reaches a ``%c`` that repeats its character more than
    ``limit`` times (SQLite's result is then NULL, after a loop as long as the precision)."""
    taken = 0
    for match in _CONVERSION.finditer(fmt):
        kind = match.group(3)
        if kind not in _KNOWN:
            return False
        _, used = _precision(match.group(1), args, taken)
        taken += used
        precision, used = _precision(match.group(2), args, taken)
        taken += used
        if kind == "c" and precision is not None and precision > limit:
            return True
        taken += kind not in _NO_ARGUMENT
    return False


def install_format_guard(conn: sqlite3.Connection, limit: int) -> None:
    """Take ``printf`` and ``format`` on ``conn`` (see the module docstring); ``limit`` is its length limit."""

    def printf(*args: Any) -> Any:
        if not args:
            return None  # as SQLite's own printf() with no argument
        fmt = args[0]
        if isinstance(fmt, str) and too_long(fmt, args[1:], limit):
            return None
        builtin = _builtin()
        builtin.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limit)
        marks = ", ".join("?" * len(args))
        return builtin.execute(f"SELECT printf({marks})", args).fetchone()[0]

    for name in ("printf", "format"):
        conn.create_function(name, -1, printf, deterministic=True)
