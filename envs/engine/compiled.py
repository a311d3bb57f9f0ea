"""A compiled spec: the template image, tool validators and the caches every episode of it shares.

:class:`envs.engine.Environment` is this plus making episodes (``envs.engine.episode``); tool calls
run in ``envs.engine.tool_calls``.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable
from typing import Any

from ..errors import ResultError
from ..formats.spec import EnvSpec
from ..formats.sqltext import PreparedSQL, prepare
from ..schemas.arguments import DEFAULT_MAX_STRING_CHARS, MAX_STRING_CHARS_CAP, ArgumentValidator
from ..schemas.dialects import Dialect, in_dialect
from ..schemas.tool_schemas import advertised_parameters
from .compile import compile_image
from .finite import non_finite, read_json_text, sqlite_json_with_infinities
from .knowledge_functions import Similarity

#: Default SQLite VM instructions one tool call may use (about 50 ms of work).
DEFAULT_STEP_BUDGET = 5_000_000


class CompiledSpec:
    """A spec compiled once: its template image, tool validators, clock and per-statement caches."""

    def __init__(
        self,
        spec: EnvSpec,
        *,
        step_budget: int = DEFAULT_STEP_BUDGET,
        time_limit: float | None = None,
        max_string_chars: int = DEFAULT_MAX_STRING_CHARS,
    ) -> None:
        self.spec = spec
        self.step_budget = step_budget
        self.time_limit = time_limit  # seconds of SQL per tool call (None: the step budget alone)
        self.table_names = frozenset(t.name for t in spec.tables)
        self.tools = {t.name: t for t in spec.tools}
        #: The tables each actor's tools may read and write (dual control: the agent's see only the
        #: service's tables; the user's read every table and write only the user's own).
        self.dual_control = spec.dual_control  # asked on every call; a scan of tools and tables
        #: The search indexes of document tables, and the tables FTS5 keeps them in, by the table indexed.
        self.search_names = {
            f"{t.search_table}{suffix}".lower(): t.name
            for t in spec.tables
            if t.search_table
            for suffix in ("", "_data", "_idx", "_content", "_docsize", "_config")
        }
        agent_tables = frozenset(t.name for t in spec.tables if t.side == "agent")
        self.reach: dict[str, tuple[frozenset[str], frozenset[str]]] = {
            "agent": (agent_tables, agent_tables),
            "user": (self.table_names, self.table_names - agent_tables),
        }
        #: A tool's own reach: its actor's, plus the other side's tables it names in ``also_writes``.
        self.tool_reach: dict[str, tuple[frozenset[str], frozenset[str], str]] = {}
        for tool in spec.tools:
            readable, writable = self.reach[tool.actor]
            extra = frozenset(tool.also_writes)
            self.tool_reach[tool.name] = (readable | extra, writable | extra, ",".join(sorted(extra)))
        # Every string argument is bounded here, where the spec set no limit or too high a one.
        self.validators = {
            t.name: ArgumentValidator(t.parameters, max_string_chars=max_string_chars) for t in spec.tools
        }
        self.now = spec.clock.strftime("%Y-%m-%d %H:%M:%S")
        self.builtins = {"now": self.now, "today": spec.clock.strftime("%Y-%m-%d")}
        self.json_columns = frozenset(c.name for t in spec.tables for c in t.columns if c.type == "json")
        self.image = compile_image(spec)
        self._prepared: dict[str, PreparedSQL] = {}
        self._writes: dict[str, frozenset[str]] = {}
        self._task_images: dict[str, bytes] = {}
        self._stored_names: frozenset[str] | None = None
        self._advertised: dict[str, dict[str, Any]] = {}
        self._in_dialect: dict[tuple[str, Dialect], dict[str, Any]] = {}
        self._output_schemas: dict[str, dict[str, Any] | None] = {}
        #: The documents under an embedding model, for ``similarity()`` (set by whoever serves the
        #: ``embeddings`` knowledge mode: ``envs.engine.knowledge_functions``).
        self.similarity: Similarity | None = None

    def advertised_parameters(self, tool: str) -> dict[str, Any]:
        """The input schema clients see for ``tool`` (``envs.schemas.tool_schemas``); built once. It is built
        from the schema calls are validated against, so every string's limit is stated."""
        schema = self._advertised.get(tool)
        if schema is None:
            schema = self._advertised[tool] = advertised_parameters(self.validators[tool].schema)
        return schema

    def schema_in(self, tool: str, dialect: Dialect) -> dict[str, Any]:
        """``tool``'s advertised schema written in ``dialect`` (``envs.schemas.dialects``); built once,
        as every listing and new episode shows it."""
        schema = self._in_dialect.get((tool, dialect))
        if schema is None:
            schema = self._in_dialect[(tool, dialect)] = in_dialect(self.advertised_parameters(tool), dialect)
        return schema

    def max_string_chars(self, tool: str) -> int:
        """The longest string any argument of ``tool`` may be (the engine's cap for an unknown tool)."""
        validator = self.validators.get(tool)
        return validator.max_string if validator is not None else MAX_STRING_CHARS_CAP

    def _now_fn(self) -> str:
        return self.now

    def stored_names(self, conn: sqlite3.Connection) -> frozenset[str]:
        """Lower-cased names of every table, view, virtual-table module and pragma function that
        ``conn`` (an unsandboxed episode connection) knows; the same for every episode, so cached."""
        if self._stored_names is None:
            rows = conn.execute(
                "SELECT name FROM sqlite_master UNION SELECT name FROM pragma_module_list "
                "UNION SELECT 'pragma_' || name FROM pragma_pragma_list"
            ).fetchall()
            self._stored_names = frozenset(name.lower() for (name,) in rows)
        return self._stored_names

    def prepared(self, sql: str) -> PreparedSQL:
        """``sql`` with dotted parameters rewritten, cached by text."""
        p = self._prepared.get(sql)
        if p is None:
            p = self._prepared[sql] = prepare(sql)
        return p

    def note_writes(self, sql: str, seen: set[str]) -> frozenset[str]:
        """Tables a statement writes. The authorizer reports them only when SQLite prepares the
        statement, and prepared statements are cached, so remember them by SQL text."""
        if seen:
            self._writes[sql] = frozenset(seen)
        return self._writes.get(sql, frozenset())

    def shape_result(self, rows: list[dict[str, Any]], shape: str, json_columns: Iterable[str]) -> Any:
        """Rows as a tool result: nest JSON columns, then pick the shape."""
        nested = self.json_columns | set(json_columns)
        for row in rows:
            # raised inside the tool's transaction, so a write tool's changes are rolled back with it
            for col, value in row.items():
                if value.__class__ is float and not math.isfinite(value):
                    raise ResultError(f"The result holds {value} at {col}, a number JSON cannot carry")
            for col in nested & row.keys():
                text = row[col]
                if not isinstance(text, str):
                    continue
                try:
                    parsed, suspect = read_json_text(text)
                except (ValueError, RecursionError):  # not JSON, or nested too deep to read: kept as text
                    parsed, suspect = sqlite_json_with_infinities(text), True
                    if parsed is None:
                        continue
                row[col] = parsed
                if suspect and (found := non_finite(parsed, col)) is not None:
                    raise ResultError(f"The result holds {found[1]} at {found[0]}, a number JSON cannot carry")
        if shape == "many":
            return rows
        if shape == "one":
            return rows[0] if rows else None
        return next(iter(rows[0].values())) if rows else None
