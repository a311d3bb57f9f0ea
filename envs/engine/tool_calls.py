"""A tool call: its arguments validated, its steps run in one transaction under the sandbox, its
failure translated to the typed error that names why, and nothing of it kept when it fails.

:class:`ToolCalls` is the half of :class:`envs.engine.Episode` that dispatches calls; the episode's
state life cycle (opening, reading, hashing, snapshots) is in ``envs.engine.episode``.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import EnvFarmError, IdLimitReached, SandboxError, StateError, ToolArgumentError, ToolError, UnknownTool
from ..formats.spec import MAX_CALL_DEPTH, Step, ToolSpec
from ..formats.sqltext import PreparedSQL
from ..formats.task import ToolCall
from .compile import COUNTERS_TABLE, to_sql_value
from .compiled import CompiledSpec
from .knowledge_functions import prepare_queries
from .sandbox import Mode, Sandbox, StepBudget
from .watchdog import WATCHDOG

MAX_STEP_RESULT_BYTES = 20_000_000  # text and blobs one step (or one query) may return
FIRST_ID = 1001
#: The most ids ``new_id()`` hands out in one episode, all prefixes together. Scoring looks up every
#: id an episode made; an episode that had made 400,000 failed to score ("string or blob too big").
MAX_IDS_PER_EPISODE = 100_000
#: The longest ``new_id()`` prefix, in characters: scoring holds every id made as text.
MAX_ID_PREFIX_CHARS = 64
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\}")
# Put before statements run read-only, so a cached statement prepared in write mode is never reused.
READ_ONLY_TAG = "/* read-only */\n"
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


def all_rows(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def step_rows(cursor: sqlite3.Cursor, where: str) -> list[dict[str, Any]]:
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


class ToolCalls:
    """Tool dispatch for an episode: :meth:`call_tool` and :meth:`replay`, and ``new_id()``."""

    env: CompiledSpec
    _conn: sqlite3.Connection
    _sandbox: Sandbox
    _budget: StepBudget
    _counters: dict[str, int]
    _ids_made: int
    _id_refusal: str | None  # why new_id() refused, for the error of the statement it broke
    _function_refusal: str | None  # why another SQL function refused (similarity() out of its mode)
    knowledge: str  # the episode's knowledge mode, for knowledge_mode() and similarity()
    _timed: bool  # the wall-clock limit applies (not while a log is replayed)

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *, actor: str = "agent") -> ToolResult:
        """Run tool ``name`` with ``arguments`` in one transaction, called by ``actor``: the agent, or in
        a dual-control environment the user, who each see only their own tools.

        Raises:
            UnknownTool: no such tool.
            ToolArgumentError: the arguments do not match the tool's schema (names the field).
            StateError: a precondition or constraint failed (the step's message).
            SandboxError: the SQL did something forbidden or exceeded the step budget.
        """
        tool = self.env.tools.get(name)
        if tool is None or tool.actor != actor or not tool.listed:
            raise UnknownTool(name, [t for t, spec in self.env.tools.items() if spec.actor == actor and spec.listed])
        args = self.env.validators[name].checked(name, {} if arguments is None else arguments)
        self._id_refusal = self._function_refusal = None
        try:  # a model's time is not the SQL's: queries are embedded before the time limit starts
            prepare_queries(self.env.similarity, self.knowledge, tool, args)
        except EnvFarmError as exc:
            raise ToolError(f"Tool '{name}' could not rank the documents: {exc}") from exc
        counters, ids_made = dict(self._counters), self._ids_made
        writes = tool.kind == "write"
        if writes:  # a read tool cannot change the database (the sandbox denies it): no transaction needed
            self._conn.execute("BEGIN")
        try:
            self._sandbox.mode = Mode.WRITE if writes else Mode.READ
            if self.env.dual_control:
                self._sandbox.act_as(actor, *self.env.tool_reach[name])
            limit = self.env.time_limit if self._timed else None
            deadline = time.monotonic() + limit if limit is not None else None
            self._budget.start(deadline)
            changes: Counter[str] = Counter()
            with WATCHDOG.guard(self._conn, deadline, self._budget):
                content = self._run(tool, dict(args), changes, read_only=not writes, depth=0)
            self._budget.stop()
            self._sandbox.mode = Mode.ENGINE
            self._sandbox.act_as_all()
            if writes:
                self._save_counters(counters)
                self._conn.execute("COMMIT")
            else:  # a read tool's new_id() calls are undone with it
                self._counters, self._ids_made = counters, ids_made
        except BaseException as exc:
            self._budget.stop()
            self._sandbox.mode = Mode.ENGINE
            self._sandbox.act_as_all()
            if self._conn.in_transaction:  # SQLite already rolled back after an interrupt or OR ROLLBACK
                self._conn.execute("ROLLBACK")
            self._counters, self._ids_made = counters, ids_made
            if isinstance(exc, sqlite3.Error):
                raise self._translate(exc, tool) from None
            raise
        return ToolResult(tool=name, content=content, changes=dict(changes))

    def replay(self, calls: Iterable[ToolCall | Mapping[str, Any]], *, timed: bool = True) -> list[ToolResult]:
        """Run calls in order (e.g. gold actions or a logged episode); the first failure raises. Not
        ``timed``: calls accepted once are rebuilt under the step budget alone, which they kept then
        and keep again (it counts steps, not seconds), so a busy machine cannot fail them."""
        out, self._timed = [], timed
        try:
            for call in calls:
                c = call if isinstance(call, ToolCall) else ToolCall.model_validate(call)
                out.append(self.call_tool(c.tool, c.arguments, actor=c.actor))
        finally:
            self._timed = True
        return out

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
        n = self._counters.get(prefix, FIRST_ID - 1) + 1
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

    def _run(self, tool: ToolSpec, args: dict[str, Any], changes: Counter[str], *, read_only: bool, depth: int) -> Any:
        """Run ``tool``'s steps; its result. ``read_only``: the call that started it is a read tool's."""
        scope = _Scope(args, self.env.builtins)
        for step in tool.steps:
            prepared = self.env.prepared(step.sql)
            if step.kind == "call":
                scope.bind(step.bind, self._call(tool, prepared, scope, changes, read_only=read_only, depth=depth))
                continue
            if step.for_each is None:
                result = self._step(step, prepared, scope, changes, read_only=read_only)
                if step.kind == "return":
                    return result
                continue
            for index, item in enumerate(args.get(step.for_each) or []):
                self._step(step, prepared, scope.with_item(item, index), changes, read_only=read_only)
        return {"ok": True}

    def _call(
        self,
        caller: ToolSpec,
        prepared: PreparedSQL,
        scope: _Scope,
        changes: Counter[str],
        *,
        read_only: bool,
        depth: int,
    ) -> Any:
        """A ``call`` step: the tool its row names, run with the row's arguments; None when no row."""
        text = (READ_ONLY_TAG if read_only else _WRITE_TAG) + self._sandbox.actor_tag + prepared.text
        self._sandbox.begin_statement()
        rows = step_rows(self._conn.execute(text, self._params(prepared, scope)), "A step")
        if not rows:
            return None
        row = rows[0]
        if "tool" not in row or "arguments" not in row:
            raise StateError(f"Tool '{caller.name}': a call step's row must have the columns 'tool' and 'arguments'")
        name, raw = row["tool"], row["arguments"]
        callee = self.env.tools.get(name) if isinstance(name, str) else None
        if callee is None or callee.actor != caller.actor:
            raise UnknownTool(str(name), [t for t, spec in self.env.tools.items() if spec.actor == caller.actor])
        if callee.kind == "write" and read_only:
            raise SandboxError(f"Tool '{caller.name}' is a read tool and cannot call the write tool '{name}'")
        if depth + 1 >= MAX_CALL_DEPTH:
            raise SandboxError(f"Tool '{caller.name}': calls nest deeper than {MAX_CALL_DEPTH} tools")
        try:
            arguments = {} if raw is None else json.loads(raw) if isinstance(raw, str) else raw
        except ValueError as exc:
            raise ToolArgumentError(f"Arguments for tool '{name}' are not JSON: {exc}", field="") from None
        args = self.env.validators[name].checked(name, arguments)
        return self._run(callee, dict(args), changes, read_only=read_only, depth=depth + 1)

    def _step(self, step: Step, prepared: PreparedSQL, scope: _Scope, changes: Counter[str], *, read_only: bool) -> Any:
        text = (READ_ONLY_TAG if read_only else _WRITE_TAG) + self._sandbox.actor_tag + prepared.text
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
        rows = step_rows(cursor, "A step")
        if step.kind == "query":
            if step.expect == "one" and not rows:
                raise StateError(scope.format(step.message or "No matching record found"))
            scope.bind(step.bind, rows if step.expect == "many" else (rows[0] if rows else None))
        elif step.kind == "require":
            ok = not rows if step.mode == "empty" else bool(rows) and bool(next(iter(rows[0].values())))
            if not ok:
                raise StateError(scope.format(step.message, rows[0] if rows else None))
        elif step.kind == "return":
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
        refusal, self._function_refusal = self._function_refusal, None
        if refusal is not None:
            return ToolError(f"{where} failed: {refusal}")
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
