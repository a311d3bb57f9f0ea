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
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ToolError
from ..formats.task import PatchOp, Task
from ..schemas.output_schemas import output_schema
from . import state_edits
from .clock import install_clock
from .compile import CHANGES_TABLE, COUNTERS_TABLE, TRIGGER_PREFIX, quote_ident
from .compiled import CompiledSpec
from .functions import install_functions
from .knowledge_functions import EMBEDDINGS_MODE, SimilarityUnavailable, install_knowledge_functions
from .sandbox import Mode, Sandbox, StepBudget, limit
from .text_match import install_text_match
from .tool_calls import FIRST_ID, READ_ONLY_TAG, ToolCalls, all_rows, step_rows

#: Ids looked up per statement while scoring, so the list stays well under SQLite's longest string.
_IDS_PER_LOOKUP = 5_000


class Episode(ToolCalls):
    """One isolated, in-memory state of an environment. Create with :meth:`Environment.episode`."""

    env: Environment

    def __init__(self, env: Environment, image: bytes) -> None:
        self.env = env
        self._conn = conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        limit(conn)
        conn.deserialize(image)
        conn.execute("PRAGMA foreign_keys = ON")
        self._counters: dict[str, int] = dict(conn.execute(f"SELECT prefix, last FROM {COUNTERS_TABLE}").fetchall())
        self._ids_made = sum(last - FIRST_ID + 1 for last in self._counters.values())
        self._id_refusal: str | None = None  # why new_id() refused, for the error of the statement it broke
        self._function_refusal: str | None = None
        self.knowledge = "search"  # the knowledge mode its server serves it in (envs.formats.knowledge_modes)
        conn.create_function("now", 0, env._now_fn, deterministic=True)
        install_clock(conn, env.now)
        install_functions(conn)
        install_text_match(conn)
        conn.create_function("new_id", 1, self._new_id)
        install_knowledge_functions(conn, lambda: self.knowledge, self._similarity)
        self._sandbox = Sandbox(
            env.table_names,
            changes_table=CHANGES_TABLE,
            trigger_prefix=TRIGGER_PREFIX,
            stored=env.stored_names(conn),
            search=env.search_names,
        )
        self._budget = StepBudget(env.step_budget)
        self._timed = True  # the wall-clock limit applies (not while a log is replayed)
        conn.set_authorizer(self._sandbox)
        conn.set_progress_handler(self._budget, StepBudget.GRANULARITY)

    def _similarity(self, query: Any, key: Any) -> float | None:
        similarity = self.env.similarity
        if self.knowledge != EMBEDDINGS_MODE:
            self._function_refusal = (
                f"similarity() ranks documents by meaning only in the '{EMBEDDINGS_MODE}' knowledge mode, "
                f"and this episode is in '{self.knowledge}'"
            )
        elif similarity is None:
            self._function_refusal = "similarity() needs an embedding model, and none serves this environment now"
        if self._function_refusal is not None:
            raise SimilarityUnavailable(self._function_refusal)
        if query is None or key is None or similarity is None:
            return None
        return similarity.score(str(query), str(key))

    # -- the contract ------------------------------------------------------------------------------
    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a read-only SELECT (assertions, checks). Writes are denied by the sandbox."""
        self._sandbox.mode = Mode.READ
        self._sandbox.begin_statement()
        self._budget.start()
        try:
            return step_rows(self._conn.execute(READ_ONLY_TAG + sql, dict(params or {})), "Query")
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
            cursor = self._conn.execute(READ_ONLY_TAG + prepared.text, dict.fromkeys(prepared.params))
            return [d[0] for d in cursor.description or ()]
        except sqlite3.Error as exc:
            raise self._translate(exc, None) from None
        finally:
            self._budget.stop()
            self._sandbox.mode = Mode.ENGINE

    def explain(self, sql: str, *, read_only: bool, actor: str | None = None, tool: str | None = None) -> None:
        """Prepare ``sql`` (spec syntax) without running it, under the sandbox of a read or write
        tool of ``actor`` (None: reaching every table, as checks do), or of the tool named ``tool``
        (its actor's reach and its ``also_writes``); raises the ToolError that running it would
        (unknown column, denied action, a table of the other side ...)."""
        prepared = self.env.prepared(sql)
        self._sandbox.mode = Mode.READ if read_only else Mode.WRITE
        if tool is not None and self.env.dual_control:
            self._sandbox.act_as(self.env.tools[tool].actor, *self.env.tool_reach[tool])
        elif actor is not None and self.env.dual_control:
            self._sandbox.act_as(actor, *self.env.reach[actor])
        self._sandbox.begin_statement()
        try:
            self._conn.execute("EXPLAIN " + self._sandbox.actor_tag + prepared.text, dict.fromkeys(prepared.params))
            self.env.note_writes(prepared.text, self._sandbox.written)
        except sqlite3.Error as exc:
            raise self._translate(exc, None) from None
        finally:
            self._sandbox.mode = Mode.ENGINE
            self._sandbox.act_as_all()

    def serialize(self) -> bytes:
        """The whole database as bytes (same calls from the same image give the same bytes)."""
        return self._conn.serialize()

    def dump(self, table: str) -> list[dict[str, Any]]:
        """Every row of ``table`` as dicts, ordered by primary key."""
        spec = self.env.spec.table(table)
        order = ", ".join(map(quote_ident, spec.primary_key))
        return all_rows(self._conn.execute(f"SELECT * FROM {quote_ident(table)} ORDER BY {order}"))

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
            rows = all_rows(self._conn.execute(sql, key))
            out[key] = rows[0] if rows else None
        return out

    def generated_ids(self) -> dict[str, set[str]]:
        """Ids ``new_id()`` made that name a row now (as a text primary key), by prefix."""
        made = {f"{p}{n}": p for p, last in self._counters.items() for n in range(FIRST_ID, last + 1)}
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


class Environment(CompiledSpec):
    """A compiled spec: the template image, tool validators and per-task caches.

    >>> from envs.catalog import load_env
    >>> env = Environment(load_env("clinic").spec)
    >>> ep = env.episode()
    >>> isinstance(ep.state_hash(), str)
    True
    """

    def output_schema(self, tool: str) -> dict[str, Any] | None:
        """The output schema of ``tool``: only where every result is an object (``envs.schemas.tool_schemas``)."""
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
