"""The runtime contract: an :class:`Environment` is a compiled spec; an :class:`Episode` is one state.

``Environment(spec)`` compiles the spec to a template SQLite image once. ``env.episode(task)``
deserializes that image (or the task's patched image) into a private in-memory database — no DDL,
no copying of Python objects — and returns an :class:`Episode`.

``Episode.call_tool(name, arguments) -> ToolResult`` is the only way state changes:

* ``arguments`` are validated against the tool's JSON Schema first (:class:`ToolArgumentError`,
  naming the field); null for an optional property the schema does not let be null counts as
  absent (strict function calling makes a model send every property, null for those it leaves out);
* the steps run in one transaction; any failure — a ``require`` that does not hold
  (:class:`StateError`, the step's message), a constraint, a sandbox denial or an exhausted step
  budget (:class:`SandboxError`) — rolls everything back, so a failed call changes nothing;
* read tools run with writes denied by the sandbox, so they cannot change state;
* the clock (``:now``) is fixed by the spec and ``new_id()`` numbers ids per episode, so the same
  calls from the same image give byte-identical state (``serialize()``) and the same
  ``state_hash()``.

Episodes are not thread-safe: serialize calls to one episode (the server does).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import state_edits
from .arguments import DEFAULT_MAX_STRING_CHARS, MAX_STRING_CHARS_CAP, ArgumentValidator
from .clock import install_clock
from .compile import (
    CHANGES_TABLE,
    COUNTERS_TABLE,
    TRIGGER_PREFIX,
    compile_image,
    quote_ident,
    to_sql_value,
)
from .errors import IdLimitReached, ResultError, SandboxError, StateError, ToolArgumentError, ToolError, UnknownTool
from .finite import non_finite, read_json_text, sqlite_json_with_infinities
from .functions import install_functions
from .output_schemas import output_schema
from .sandbox import Mode, Sandbox, StepBudget, limit
from .spec import EnvSpec, Step, ToolSpec
from .sqltext import PreparedSQL, prepare
from .task import PatchOp, Task, ToolCall
from .tool_schemas import advertised_parameters
from .watchdog import WATCHDOG

#: Default SQLite VM instructions one tool call may use (about 50 ms of work).
DEFAULT_STEP_BUDGET = 5_000_000
MAX_STEP_RESULT_BYTES = 20_000_000  # text and blobs one step (or one query) may return
_FIRST_ID = 1001
#: The most ids ``new_id()`` hands out in one episode, all prefixes together. Scoring looks up every
#: id an episode made; an episode that had made 400,000 failed to score ("string or blob too big").
MAX_IDS_PER_EPISODE = 100_000
#: The longest ``new_id()`` prefix, in characters: scoring holds every id made as text.
MAX_ID_PREFIX_CHARS = 64
#: Ids looked up per statement while scoring, so the list stays well under SQLite's longest string.
_IDS_PER_LOOKUP = 5_000
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\}")
# Put before statements run read-only, so a cached statement prepared in write mode is never reused.
_READ_ONLY_TAG = "/* read-only */\n"
# Put before a write tool's statements, so a statement the engine prepared unsandboxed (BEGIN, COMMIT,
# the counters' SELECT, ...) and sqlite3 cached by its text is never reused for spec SQL. Both tags go
# first: SQLite names an unaliased last result column after its text up to the end of the statement.
_WRITE_TAG = "/* write */\n"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of a successful tool call.

    Attributes:
        tool: the tool's name.
        content: the JSON-serializable result (list, object, scalar, or ``{"ok": true}``).
        changes: rows affected per table (empty for read tools).
    """

    tool: str
    content: Any
    changes: Mapping[str, int] = field(default_factory=dict)

    @property
    def wrote(self) -> bool:
        """Whether the call changed any row."""
        return any(self.changes.values())


class _Scope:
    """The names a statement can use: arguments, earlier bindings, built-ins, the current item."""

    def __init__(self, arguments: Mapping[str, Any], builtins: Mapping[str, Any]) -> None:
        self.layers: list[Mapping[str, Any]] = [arguments, builtins, {}]

    def bind(self, name: str, value: Any) -> None:
        self.layers[2][name] = value  # type: ignore[index]

    def with_item(self, item: Any, index: int) -> _Scope:
        child = _Scope.__new__(_Scope)
        child.layers = [*self.layers, {"item": item, "index": index}]
        return child

    def lookup(self, path: str) -> Any:
        root, *rest = path.split(".")
        value: Any = None
        for layer in reversed(self.layers):
            if root in layer:
                value = layer[root]
                break
        for part in rest:
            value = value.get(part) if isinstance(value, dict) else None
        return value

    def format(self, message: str, extra: Mapping[str, Any] | None = None) -> str:
        def repl(match: re.Match[str]) -> str:
            path = match.group(1)
            if extra is not None and path in extra:
                value = extra[path]
            else:
                value = self.lookup(path)
            return "null" if value is None else str(value)

        return _PLACEHOLDER.sub(repl, message)


def _rows(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _step_rows(cursor: sqlite3.Cursor, where: str) -> list[dict[str, Any]]:
    """A step's rows, read in batches and refused past ``MAX_STEP_RESULT_BYTES`` of text and blobs:
    each value is bounded by SQLite's length limit, but a query can return many of them, and the
    rows are held in memory here."""
    names = [d[0] for d in cursor.description or ()]
    out: list[dict[str, Any]] = []
    size = 0
    while batch := cursor.fetchmany(256):
        for row in batch:
            size += sum(len(v) for v in row if isinstance(v, str | bytes))
            out.append(dict(zip(names, row, strict=True)))
        if size > MAX_STEP_RESULT_BYTES:
            raise SandboxError(f"{where} returned more than {MAX_STEP_RESULT_BYTES:,} bytes of text")
    return out


class Episode:
    """One isolated, in-memory state of an environment. Create with :meth:`Environment.episode`."""

    def __init__(self, env: Environment, image: bytes) -> None:
        self.env = env
        self._conn = conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        limit(conn)
        conn.deserialize(image)
        conn.execute("PRAGMA foreign_keys = ON")
        self._counters: dict[str, int] = dict(conn.execute(f"SELECT prefix, last FROM {COUNTERS_TABLE}").fetchall())
        self._ids_made = sum(last - _FIRST_ID + 1 for last in self._counters.values())
        self._id_refusal: str | None = None  # why new_id() refused, for the error of the statement it broke
        conn.create_function("now", 0, env._now_fn, deterministic=True)
        install_clock(conn, env.now)
        install_functions(conn)
        conn.create_function("new_id", 1, self._new_id)
        self._sandbox = Sandbox(
            env.table_names, changes_table=CHANGES_TABLE, trigger_prefix=TRIGGER_PREFIX, stored=env.stored_names(conn)
        )
        self._budget = StepBudget(env.step_budget)
        self._timed = True  # the wall-clock limit applies (not while a log is replayed)
        conn.set_authorizer(self._sandbox)
        conn.set_progress_handler(self._budget, StepBudget.GRANULARITY)

    # -- the contract ------------------------------------------------------------------------------
    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Run tool ``name`` with ``arguments`` in one transaction.

        Raises:
            UnknownTool: no such tool.
            ToolArgumentError: the arguments do not match the tool's schema (names the field).
            StateError: a precondition or constraint failed (the step's message).
            SandboxError: the SQL did something forbidden or exceeded the step budget.
        """
        tool = self.env.tools.get(name)
        if tool is None:
            raise UnknownTool(name, self.env.tools)
        args = self.env.validators[name].checked(name, {} if arguments is None else arguments)
        self._id_refusal = None
        counters, ids_made = dict(self._counters), self._ids_made
        writes = tool.kind == "write"
        if writes:  # a read tool cannot change the database (the sandbox denies it): no transaction needed
            self._conn.execute("BEGIN")
        try:
            self._sandbox.mode = Mode.WRITE if writes else Mode.READ
            limit = self.env.time_limit if self._timed else None
            deadline = time.monotonic() + limit if limit is not None else None
            self._budget.start(deadline)
            with WATCHDOG.guard(self._conn, deadline, self._budget):
                content, changes = self._run(tool, dict(args))
            self._budget.stop()
            self._sandbox.mode = Mode.ENGINE
            if writes:
                self._save_counters(counters)
                self._conn.execute("COMMIT")
            else:  # a read tool's new_id() calls are undone with it
                self._counters, self._ids_made = counters, ids_made
        except BaseException as exc:
            self._budget.stop()
            self._sandbox.mode = Mode.ENGINE
            if self._conn.in_transaction:  # SQLite already rolled back after an interrupt or OR ROLLBACK
                self._conn.execute("ROLLBACK")
            self._counters, self._ids_made = counters, ids_made
            if isinstance(exc, sqlite3.Error):
                raise self._translate(exc, tool) from None
            raise
        return ToolResult(tool=name, content=content, changes=changes)

    def replay(self, calls: Iterable[ToolCall | Mapping[str, Any]], *, timed: bool = True) -> list[ToolResult]:
        """Run calls in order (e.g. gold actions or a logged episode); the first failure raises. Not
        ``timed``: calls accepted once are rebuilt under the step budget alone, which they kept then
        and keep again (it counts steps, not seconds), so a busy machine cannot fail them."""
        out, self._timed = [], timed
        try:
            for call in calls:
                c = call if isinstance(call, ToolCall) else ToolCall.model_validate(call)
                out.append(self.call_tool(c.tool, c.arguments))
        finally:
            self._timed = True
        return out

    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a read-only SELECT (assertions, checks). Writes are denied by the sandbox."""
        self._sandbox.mode = Mode.READ
        self._sandbox.begin_statement()
        self._budget.start()
        try:
            return _step_rows(self._conn.execute(_READ_ONLY_TAG + sql, dict(params or {})), "Query")
        except sqlite3.Error as exc:
            raise self._translate(exc, None) from None
        finally:
            self._budget.stop()
            self._sandbox.mode = Mode.ENGINE

    def result_columns(self, sql: str) -> list[str]:
        """Names of the columns a SELECT (spec syntax) gives, run read-only with every parameter null
        (the names do not depend on the values; at most the first row is computed)."""
        prepared = self.env.prepared(sql)
        self._sandbox.mode = Mode.READ
        self._sandbox.begin_statement()
        self._budget.start()
        try:
            cursor = self._conn.execute(_READ_ONLY_TAG + prepared.text, dict.fromkeys(prepared.params))
            return [d[0] for d in cursor.description or ()]
        except sqlite3.Error as exc:
            raise self._translate(exc, None) from None
        finally:
            self._budget.stop()
            self._sandbox.mode = Mode.ENGINE

    def explain(self, sql: str, *, read_only: bool) -> None:
        """Prepare ``sql`` (spec syntax) without running it, under the sandbox of a read or write
        tool; raises the ToolError that running it would (unknown column, denied action, ...)."""
        prepared = self.env.prepared(sql)
        self._sandbox.mode = Mode.READ if read_only else Mode.WRITE
        self._sandbox.begin_statement()
        try:
            self._conn.execute("EXPLAIN " + prepared.text, dict.fromkeys(prepared.params))
            self.env.note_writes(prepared.text, self._sandbox.written)
        except sqlite3.Error as exc:
            raise self._translate(exc, None) from None
        finally:
            self._sandbox.mode = Mode.ENGINE

    def serialize(self) -> bytes:
        """The whole database as bytes (same calls from the same image give the same bytes)."""
        return self._conn.serialize()

    def dump(self, table: str) -> list[dict[str, Any]]:
        """Every row of ``table`` as dicts, ordered by primary key."""
        spec = self.env.spec.table(table)
        order = ", ".join(map(quote_ident, spec.primary_key))
        return _rows(self._conn.execute(f"SELECT * FROM {quote_ident(table)} ORDER BY {order}"))

    @property
    def written_tables(self) -> set[str]:
        """Tables in which some row was inserted, updated or deleted since the episode started."""
        return {t for (t,) in self._conn.execute(f"SELECT DISTINCT tbl FROM {CHANGES_TABLE}")}

    def changed_keys(self) -> dict[str, set[tuple[Any, ...]]]:
        """Primary keys of every row inserted, updated or deleted since the episode started."""
        out: dict[str, set[tuple[Any, ...]]] = {}
        for table, key in self._conn.execute(f"SELECT tbl, key FROM {CHANGES_TABLE}"):
            out.setdefault(table, set()).add(tuple(json.loads(key)))
        return out

    def rows_by_key(self, table: str, keys: Iterable[tuple[Any, ...]]) -> dict[tuple[Any, ...], dict[str, Any] | None]:
        """The current row for each primary key (None where no such row exists)."""
        spec = self.env.spec.table(table)
        cond = " AND ".join(f"{quote_ident(c)} IS ?" for c in spec.primary_key)
        sql = f"SELECT * FROM {quote_ident(table)} WHERE {cond}"
        out: dict[tuple[Any, ...], dict[str, Any] | None] = {}
        for key in keys:
            rows = _rows(self._conn.execute(sql, key))
            out[key] = rows[0] if rows else None
        return out

    def generated_ids(self) -> dict[str, set[str]]:
        """Ids ``new_id()`` made that name a row now (as a text primary key), by prefix."""
        made = {f"{p}{n}": p for p, last in self._counters.items() for n in range(_FIRST_ID, last + 1)}
        out: dict[str, set[str]] = {}
        if not made:
            return out
        listed = list(made)
        # One JSON parameter per batch (SQLite caps the number of parameters, and the length of a string).
        batches = [json.dumps(listed[i : i + _IDS_PER_LOOKUP]) for i in range(0, len(listed), _IDS_PER_LOOKUP)]
        for table in self.env.spec.tables:
            key = table.column(table.primary_key[0]) if len(table.primary_key) == 1 else None
            if key is not None and key.type == "text":
                pk = quote_ident(key.name)
                sql = f"SELECT {pk} FROM {quote_ident(table.name)} WHERE {pk} IN (SELECT value FROM json_each(?))"
                for names in batches:
                    for (value,) in self._conn.execute(sql, (names,)):
                        out.setdefault(made[value], set()).add(value)
        return out

    def rename_ids(self, renaming: Mapping[str, str]) -> None:
        """Rename generated ids wherever they are a whole text value or a JSON string (scoring only:
        ids are names, and two runs may hand out the same names in another order)."""
        state_edits.rename_ids(self._conn, self.env.spec, renaming)

    def state_hash(self) -> str:
        """SHA-256 over every table's rows in primary-key order and the id counters."""
        h = hashlib.sha256()
        for name in sorted(self.env.table_names):
            order = ", ".join(map(quote_ident, self.env.spec.table(name).primary_key))
            rows = self._conn.execute(f"SELECT * FROM {quote_ident(name)} ORDER BY {order}").fetchall()
            # repr of str / int / float / None / bytes tuples is exact and stable, and far cheaper than JSON
            h.update(f"\x00{name}\x00{rows!r}".encode())
        h.update(repr(sorted(self._counters.items())).encode())
        return h.hexdigest()

    def close(self) -> None:
        """Free the in-memory database."""
        self._conn.close()

    def apply_patch(self, ops: Iterable[PatchOp]) -> None:
        """Apply a task's ``initial_patch`` (engine use; raises SpecError naming the op)."""
        state_edits.apply_patch(self._conn, self.env.spec, ops)

    # -- internals ---------------------------------------------------------------------------------
    def _new_id(self, prefix: str) -> str:
        # An exception raised here reaches the caller as SQLite's "user-defined function raised
        # exception"; _translate gives the reason instead.
        if self._ids_made >= MAX_IDS_PER_EPISODE:
            self._id_refusal = f"this episode has created the most records it may: {MAX_IDS_PER_EPISODE:,}"
            raise IdLimitReached(self._id_refusal)
        if len(str(prefix)) > MAX_ID_PREFIX_CHARS:
            self._id_refusal = f"a new_id() prefix may be at most {MAX_ID_PREFIX_CHARS} characters"
            raise IdLimitReached(self._id_refusal)
        n = self._counters.get(prefix, _FIRST_ID - 1) + 1
        self._counters[prefix] = n
        self._ids_made += 1
        return f"{prefix}{n}"

    def _save_counters(self, before: Mapping[str, int]) -> None:
        for prefix, last in self._counters.items():
            if before.get(prefix) != last:
                self._conn.execute(
                    f"INSERT INTO {COUNTERS_TABLE} VALUES (?, ?) "
                    "ON CONFLICT(prefix) DO UPDATE SET last = excluded.last",
                    (prefix, last),
                )

    def _params(self, prepared: PreparedSQL, scope: _Scope) -> dict[str, Any]:
        return {name: to_sql_value(scope.lookup(path)) for name, path in prepared.params.items()}

    def _run(self, tool: ToolSpec, args: dict[str, Any]) -> tuple[Any, dict[str, int]]:
        scope = _Scope(args, self.env.builtins)
        changes: Counter[str] = Counter()
        for step in tool.steps:
            prepared = self.env.prepared(step.sql)
            if step.for_each is None:
                result = self._step(step, prepared, scope, changes, read_only=tool.kind == "read")
                if step.kind == "return":
                    return result, dict(changes)
                continue
            for index, item in enumerate(args.get(step.for_each) or []):
                self._step(step, prepared, scope.with_item(item, index), changes, read_only=tool.kind == "read")
        return {"ok": True}, dict(changes)

    def _step(self, step: Step, prepared: PreparedSQL, scope: _Scope, changes: Counter[str], *, read_only: bool) -> Any:
        text = (_READ_ONLY_TAG if read_only else _WRITE_TAG) + prepared.text
        self._sandbox.begin_statement()
        cursor = self._conn.execute(text, self._params(prepared, scope))
        if step.kind == "exec":
            tables = self.env.note_writes(prepared.text, self._sandbox.written)
            count = cursor.rowcount
            if count < 0:  # sqlite3 gives -1 for DML it does not recognize, e.g. "WITH ... UPDATE"
                count = self._conn.execute("SELECT changes()").fetchone()[0]
            if count > 0:
                for t in tables:
                    changes[t] += count
            if count < step.min_changes:
                raise StateError(scope.format(step.message or f"Expected at least {step.min_changes} change(s)"))
            return None
        rows = _step_rows(cursor, "A step")
        if step.kind == "query":
            if step.expect == "one" and not rows:
                raise StateError(scope.format(step.message or "No matching record found"))
            scope.bind(step.bind, rows if step.expect == "many" else (rows[0] if rows else None))
        elif step.kind == "require":
            ok = not rows if step.mode == "empty" else bool(rows) and bool(next(iter(rows[0].values())))
            if not ok:
                raise StateError(scope.format(step.message, rows[0] if rows else None))
        else:
            if not rows and step.message is not None:  # a return of shape 'one' that promises an object
                raise StateError(scope.format(step.message))
            return self.env.shape_result(rows, step.shape, step.json_columns)
        return None

    def _translate(self, exc: sqlite3.Error, tool: ToolSpec | None) -> ToolError:
        where = f"Tool '{tool.name}'" if tool else "Query"
        text = str(exc)
        refusal, self._id_refusal = self._id_refusal, None
        if refusal is not None:
            return IdLimitReached(f"{where} stopped: {refusal}")
        if self._sandbox.denial:
            return SandboxError(f"{where} was stopped by the sandbox: {self._sandbox.denial}")
        if text == "interrupted" and self._budget.spilled:
            return SandboxError(f"{where} was stopped for its temporary files {WATCHDOG.spill_limits()}")
        if text == "interrupted" and self._budget.timed_out:
            return SandboxError(f"{where} exceeded its time limit of {self.env.time_limit:g} s")
        if text == "interrupted":
            return SandboxError(f"{where} exceeded its step budget of {self.env.step_budget:,} SQLite steps")
        if isinstance(exc, sqlite3.IntegrityError):
            return StateError(f"{where} would break a rule of the data: {text}")
        if "cannot store" in text or "datatype mismatch" in text:
            return ToolArgumentError(f"{where}: a value has the wrong type ({text})")
        if "may not be modified" in text or "not authorized" in text:
            return SandboxError(f"{where} was stopped by the sandbox: {text}")
        return ToolError(f"{where} failed: {text}")


class Environment:
    """A compiled spec: the template image, tool validators and per-task caches.

    >>> from envs.catalog import load_env
    >>> env = Environment(load_env("clinic").spec)
    >>> ep = env.episode()
    >>> isinstance(ep.state_hash(), str)
    True
    """

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
        self._output_schemas: dict[str, dict[str, Any] | None] = {}

    def advertised_parameters(self, tool: str) -> dict[str, Any]:
        """The input schema clients see for ``tool`` (``envs.tool_schemas``); built once. It is built
        from the schema calls are validated against, so every string's limit is stated."""
        schema = self._advertised.get(tool)
        if schema is None:
            schema = self._advertised[tool] = advertised_parameters(self.validators[tool].schema)
        return schema

    def max_string_chars(self, tool: str) -> int:
        """The longest string any argument of ``tool`` may be (the engine's cap for an unknown tool)."""
        validator = self.validators.get(tool)
        return validator.max_string if validator is not None else MAX_STRING_CHARS_CAP

    def output_schema(self, tool: str) -> dict[str, Any] | None:
        """The output schema of ``tool``: only where every result is an object (``envs.tool_schemas``)."""
        if tool not in self._output_schemas:
            self._output_schemas[tool] = output_schema(self.spec, self.tools[tool], self._result_columns)
        return self._output_schemas[tool]

    def _result_columns(self, sql: str) -> list[str] | None:
        ep = self.episode()
        try:
            return ep.result_columns(sql)
        except ToolError:  # cannot run with null arguments: no schema rather than a wrong one
            return None
        finally:
            ep.close()

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

    def episode(self, task: Task | None = None) -> Episode:
        """A fresh episode: the seed state, or the task's initial state."""
        return Episode(self, self.image if task is None else self.task_image(task))

    def restore(self, image: bytes) -> Episode:
        """An episode from a snapshot taken with :meth:`Episode.serialize`."""
        return Episode(self, image)

    def task_image(self, task: Task) -> bytes:
        """The task's initial state (seed + ``initial_patch``), built once and cached."""
        image = self._task_images.get(task.id)
        if image is None:
            if not task.initial_patch:
                image = self.image
            else:
                ep = Episode(self, self.image)
                try:
                    ep.apply_patch(task.initial_patch)
                    image = ep.serialize()
                finally:
                    ep.close()
            self._task_images[task.id] = image
        return image

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
