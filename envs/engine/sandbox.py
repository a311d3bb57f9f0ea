"""The SQLite authorizer and step budget that make a hostile spec harmless.

Spec SQL may read and write only the environment's own tables and call pure functions. The engine
itself switches to ``Mode.ENGINE`` for its own bookkeeping (transactions, id counters).

Why UPDATE on ``sqlite_master`` is allowed: table-valued JSON functions (``json_each``) make the
authorizer see READ/UPDATE on it while their virtual table is built, and denying those breaks them.
SQLite itself refuses writes to ``sqlite_master`` while ``writable_schema`` is off, and PRAGMA is
denied, so nothing can turn it on.
"""

from __future__ import annotations

import enum
import sqlite3
import time
from collections.abc import Mapping

from .format_guard import install_format_guard

_SCHEMA_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"})
#: Functions that read the outside world, are impure, or load code.
#: Table-valued functions that are pure (other eponymous virtual tables, e.g. pragma_*, stay denied).
_PURE_TABLE_FUNCTIONS = frozenset({"json_each", "json_tree"})
_DENIED_FUNCTIONS = frozenset({"load_extension", "random", "randomblob", "fts3_tokenizer", "readfile", "writefile"})
_WRITES = {sqlite3.SQLITE_INSERT: "INSERT", sqlite3.SQLITE_UPDATE: "UPDATE", sqlite3.SQLITE_DELETE: "DELETE"}
_ALWAYS_OK = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE})
# Authorizer action codes share their numbers with result codes (SQLITE_CREATE_TRIGGER == SQLITE_NOMEM),
# so name them from the action constants only.
_NAMES = {
    getattr(sqlite3, f"SQLITE_{n}"): n.replace("_", " ")
    for n in [
        "CREATE_INDEX",
        "CREATE_TABLE",
        "CREATE_TEMP_INDEX",
        "CREATE_TEMP_TABLE",
        "CREATE_TEMP_TRIGGER",
        "CREATE_TEMP_VIEW",
        "CREATE_TRIGGER",
        "CREATE_VIEW",
        "DROP_INDEX",
        "DROP_TABLE",
        "DROP_TEMP_INDEX",
        "DROP_TEMP_TABLE",
        "DROP_TEMP_TRIGGER",
        "DROP_TEMP_VIEW",
        "DROP_TRIGGER",
        "DROP_VIEW",
    ]
    if hasattr(sqlite3, f"SQLITE_{n}")
}
_ACTION_NAMES = {
    sqlite3.SQLITE_PRAGMA: "PRAGMA",
    sqlite3.SQLITE_ATTACH: "ATTACH",
    sqlite3.SQLITE_DETACH: "DETACH",
    sqlite3.SQLITE_TRANSACTION: "transaction control",
    sqlite3.SQLITE_SAVEPOINT: "SAVEPOINT",
    sqlite3.SQLITE_ALTER_TABLE: "ALTER TABLE",
    sqlite3.SQLITE_ANALYZE: "ANALYZE",
    sqlite3.SQLITE_REINDEX: "REINDEX",
    sqlite3.SQLITE_CREATE_VTABLE: "CREATE VIRTUAL TABLE",
    sqlite3.SQLITE_DROP_VTABLE: "DROP VIRTUAL TABLE",
}


_OTHER = {"agent": "user", "user": "agent"}


class Mode(enum.Enum):
    """Who is running SQL right now."""

    ENGINE = "engine"  # the engine's own statements: anything goes
    WRITE = "write"  # a write tool's steps
    READ = "read"  # a read tool's steps, assertions, checks: no writes at all


class Sandbox:
    """An SQLite authorizer callable, with the reason for the last denial.

    Attributes:
        mode: what the statements being prepared are allowed to do.
        denial: a readable reason for the most recent denial ("" if none).
        written: tables targeted by INSERT/UPDATE/DELETE since the last ``begin_statement``.
    """

    def __init__(
        self,
        tables: frozenset[str],
        *,
        changes_table: str,
        trigger_prefix: str,
        stored: frozenset[str] = frozenset(),
        search: Mapping[str, str] | None = None,
    ) -> None:
        self.tables = tables
        #: The search indexes of document tables (``TableSpec.full_text``): each FTS5 table and the
        #: tables it keeps its index in, lower-cased, by the document table they index. Reading one is
        #: reading that table; no tool changes a document table.
        self.search: Mapping[str, str] = search or {}
        self.documents = frozenset(self.search.values())
        #: Lower-cased names of every table, view and table-valued function of the database. SQLite
        #: reports a table read without naming a column (``count(*) FROM x``) with no database name,
        #: the same way for a stored table and a common table expression; only the name tells them apart.
        self.stored = stored
        self._changes_table = changes_table
        self._trigger_prefix = trigger_prefix
        self.mode = Mode.ENGINE
        self.denial = ""
        self.written: set[str] = set()
        #: While a tool of one actor runs (dual control), the tables it may read and write, and whose
        #: the others are; None: every table.
        self.readable: frozenset[str] | None = None
        self.writable: frozenset[str] | None = None
        self.actor = ""
        self.extra = ""

    def act_as(self, actor: str, readable: frozenset[str], writable: frozenset[str], extra: str = "") -> None:
        """Limit the tables the next statements reach to ``actor``'s (:meth:`act_as_all` ends it);
        ``extra`` names the other side's tables a tool may also write (``ToolSpec.also_writes``)."""
        self.actor, self.readable, self.writable, self.extra = actor, readable, writable, extra

    def act_as_all(self) -> None:
        self.actor, self.readable, self.writable, self.extra = "", None, None, ""

    @property
    def actor_tag(self) -> str:
        """Put before an actor's statements, so one prepared (and authorized) for the other actor's
        reach, or for every table, is never reused from sqlite3's statement cache."""
        if not self.actor:
            return ""
        return f"/* {self.actor} + {self.extra} */\n" if self.extra else f"/* {self.actor} */\n"

    def begin_statement(self) -> None:
        """Forget what the previous statement did."""
        self.denial = ""
        self.written.clear()

    def _deny(self, reason: str) -> int:
        self.denial = reason
        return sqlite3.SQLITE_DENY

    def __call__(self, action: int, arg1: str | None, arg2: str | None, db: str | None, source: str | None) -> int:
        if self.mode is Mode.ENGINE or action in _ALWAYS_OK:
            return sqlite3.SQLITE_OK
        if db not in (None, "main"):
            return self._deny(f"access to database '{db}' is not allowed")
        if action == sqlite3.SQLITE_READ:
            name = (arg1 or "").lower()  # SQL names are case-insensitive: "FROM Orders" reads orders
            if name in self.tables and self.readable is not None and name not in self.readable:
                return self._deny(
                    f"table '{arg1}' is the {_OTHER[self.actor]}'s, which the {self.actor}'s tools cannot read"
                )
            if name in self.search:
                indexed = self.search[name]
                if self.readable is not None and indexed not in self.readable:
                    return self._deny(
                        f"table '{indexed}' is the {_OTHER[self.actor]}'s, which the {self.actor}'s tools cannot read"
                    )
                return sqlite3.SQLITE_OK
            if name in self.tables or name in _SCHEMA_TABLES or name in _PURE_TABLE_FUNCTIONS:
                return sqlite3.SQLITE_OK
            if db is None and name not in self.stored:
                return sqlite3.SQLITE_OK  # a common table expression, e.g. WITH RECURSIVE c ... count(*) FROM c
            return self._deny(f"reading table '{arg1}' is not allowed")
        if action == sqlite3.SQLITE_FUNCTION:
            name = (arg2 or "").lower()
            if name in _DENIED_FUNCTIONS:
                return self._deny(f"function {name}() is not allowed")
            return sqlite3.SQLITE_OK
        if action in _WRITES:
            if arg1 in _SCHEMA_TABLES and action == sqlite3.SQLITE_UPDATE:
                return sqlite3.SQLITE_OK  # see module docstring; SQLite guards the schema itself
            if self.mode is Mode.READ:
                return self._deny(f"{_WRITES[action]} on '{arg1}' is not allowed in a read-only tool")
            if arg1 == self._changes_table and (source or "").startswith(self._trigger_prefix):
                return sqlite3.SQLITE_OK  # the engine's change-tracking triggers
            if arg1 in self.documents:
                return self._deny(f"{_WRITES[action]} on '{arg1}': a document collection, which no tool changes")
            if arg1 in self.tables and self.writable is not None and arg1 not in self.writable:
                return self._deny(
                    f"{_WRITES[action]} on '{arg1}': the {self.actor}'s tools change only the {self.actor}'s tables"
                )
            if arg1 in self.tables:
                self.written.add(arg1)
                return sqlite3.SQLITE_OK
            return self._deny(f"{_WRITES[action]} on table '{arg1}' is not allowed")
        if action == sqlite3.SQLITE_PRAGMA and arg1 == "data_version" and arg2 is None and self.search:
            return sqlite3.SQLITE_OK  # FTS5 asks it before a search: a counter, read-only
        what = _ACTION_NAMES.get(action) or _NAMES.get(action, str(action)).replace("_", " ")
        return self._deny(f"{what} is not allowed")


#: SQLite's limits on every connection that runs a spec's SQL, so that no single value, statement
#: or expression can grow without bound however the SQL is written: printf('%.*c', 999999999, 'x')
#: (at once, through the format guard), zeroblob(), replace() and group_concat() stop at ``LENGTH``
#: ("string or blob too big") instead of allocating gigabytes; a LIKE/GLOB pattern is short; nothing
#: can be attached.
LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: 2_000_000,  # bytes of one string or blob (a request body is at most 1 MB)
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 100_000,  # bytes of one statement
    sqlite3.SQLITE_LIMIT_COLUMN: 200,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 200,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 50,
    sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 100,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1_000,
    sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 50,
    sqlite3.SQLITE_LIMIT_WORKER_THREADS: 0,
}


def limit(conn: sqlite3.Connection) -> None:
    """Apply ``LIMITS`` to a connection, and make its ``printf``/``format`` give up at once on a value past
    the length limit (SQLite's own would first spend seconds writing it out: ``envs.engine.format_guard``)."""
    for category, value in LIMITS.items():
        conn.setlimit(category, value)
    install_format_guard(conn, LIMITS[sqlite3.SQLITE_LIMIT_LENGTH])


class StepBudget:
    """A progress handler that stops a statement after ``limit`` virtual-machine steps, or once the
    clock passes ``deadline`` (a wall-clock limit per call: a slow call ends in an error instead of
    holding its episode, and its worker, for as long as it likes)."""

    #: SQLite VM instructions between two calls of the handler.
    GRANULARITY = 10_000

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.active = False  # the engine's own statements (dumps, hashing) are not budgeted
        self.deadline: float | None = None
        self.timed_out = False
        self.spilled = False

    def start(self, deadline: float | None = None) -> None:
        """Start counting a new tool call or query (until ``deadline`` on ``time.monotonic()``)."""
        self.used = 0
        self.active = True
        self.deadline = deadline
        self.timed_out = self.spilled = False

    @property
    def tripped(self) -> bool:
        """Whether the last statement was stopped by the budget, the clock or its temporary files."""
        return self.timed_out or self.spilled or self.used > self.limit

    def stop(self) -> None:
        """Stop counting (back to engine work)."""
        self.active = False

    def expire(self) -> None:
        """The deadline passed while one step ran (``envs.engine.watchdog``): the statement is interrupted
        for the clock, as if this handler had seen it."""
        self.timed_out = True

    def spill(self) -> None:
        """The statement wrote more temporary files than allowed (``envs.engine.watchdog``)."""
        self.spilled = True

    def __call__(self) -> int:
        if not self.active:
            return 0
        self.used += self.GRANULARITY
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.timed_out = True
            return 1
        return 1 if self.used > self.limit else 0
