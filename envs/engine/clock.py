"""The environment's clock, the only time spec SQL can read.

SQLite's date functions read the wall clock for the time value ``'now'`` (or none at all), and
the machine's time zone for the ``localtime`` / ``utc`` modifiers. Spec text naming ``'now'`` is
refused at load (``sqltext.nondeterminism``), but SQL can build the word (``'no' || 'w'``). So on
every episode connection ``date``, ``time``, ``datetime``, ``julianday``, ``unixepoch`` and
``strftime`` are replaced by functions that put the environment's clock where the wall clock would
be read, drop the time-zone modifiers (the clock has no zone), and let SQLite's own function do the
rest on a connection of their own: the same calls give the same bytes on any machine, any day.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Any

#: Date function -> the position of its time value (strftime's first argument is the format).
_TIME_VALUE_AT = {"date": 0, "time": 0, "datetime": 0, "julianday": 0, "unixepoch": 0, "strftime": 1}
_ZONE_MODIFIERS = frozenset({"localtime", "utc"})
_helpers = threading.local()


def _builtin() -> sqlite3.Connection:
    """A plain connection per thread, whose date functions are SQLite's own."""
    conn: sqlite3.Connection | None = getattr(_helpers, "conn", None)
    if conn is None:
        conn = _helpers.conn = sqlite3.connect(":memory:")
    return conn


def _on_clock(name: str, at: int, now: str) -> Callable[..., Any]:
    def fn(*args: Any) -> Any:
        values = list(args)
        if len(values) <= at:  # no time value: SQLite would read the wall clock
            values.append(now)
        elif isinstance(values[at], str) and values[at].strip().lower() == "now":
            values[at] = now
        values = values[: at + 1] + [
            v for v in values[at + 1 :] if not (isinstance(v, str) and v.strip().lower() in _ZONE_MODIFIERS)
        ]
        marks = ", ".join("?" * len(values))
        return _builtin().execute(f"SELECT {name}({marks})", values).fetchone()[0]

    return fn


def install_clock(conn: sqlite3.Connection, now: str) -> None:
    """Make ``now`` (``YYYY-MM-DD HH:MM:SS``) the time every date function on ``conn`` reads."""
    for name, at in _TIME_VALUE_AT.items():
        conn.create_function(name, -1, _on_clock(name, at, now), deterministic=True)
