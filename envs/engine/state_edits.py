"""Edits the engine makes to an episode's database outside any tool: a task's initial patch, and the
renaming of generated ids before two states are compared. Neither goes through the sandbox: both
come from the engine or a validated task, never from an agent."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping

from ..errors import SpecError
from ..formats.spec import EnvSpec
from ..formats.task import PatchOp
from .compile import (
    CHANGES_TABLE,
    check_foreign_keys,
    insert_rows,
    quote_ident,
    rebuild_search,
    sql_literal,
    to_sql_value,
)


def apply_patch(conn: sqlite3.Connection, spec: EnvSpec, ops: Iterable[PatchOp]) -> None:
    """Apply a task's ``initial_patch`` in one transaction (raises SpecError naming the op)."""
    conn.execute("BEGIN")
    try:
        patched = []
        for i, op in enumerate(ops):
            _apply_op(conn, spec, op, where=f"initial_patch[{i}]")
            patched.append(op.table)
        check_foreign_keys(conn, where="initial_patch")
        rebuild_search(conn, spec, patched)
        conn.execute(f"DELETE FROM {CHANGES_TABLE}")  # the patched state is the task's start
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _apply_op(conn: sqlite3.Connection, spec: EnvSpec, op: PatchOp, *, where: str) -> None:
    if op.table not in {t.name for t in spec.tables}:
        raise SpecError(f"unknown table '{op.table}'", location=where)
    table = spec.table(op.table)
    known = {c.name for c in table.columns}
    named = [*op.where, *op.set, *(k for r in op.rows for k in r)]
    if bad := sorted(set(named) - known):
        raise SpecError(f"unknown column(s) {bad} of '{op.table}'", location=where)
    if op.op == "insert":
        insert_rows(conn, table, op.rows, where=f"{where}.rows")
        return
    cond = " AND ".join(f"{quote_ident(k)} IS ?" for k in op.where)
    values = [to_sql_value(v) for v in op.where.values()]
    if op.op == "update":
        sets = ", ".join(f"{quote_ident(k)} = ?" for k in op.set)
        sql = f"UPDATE {quote_ident(op.table)} SET {sets} WHERE {cond}"
        values = [to_sql_value(v) for v in op.set.values()] + values
    else:
        sql = f"DELETE FROM {quote_ident(op.table)} WHERE {cond}"
    try:
        n = conn.execute(sql, values).rowcount
    except sqlite3.Error as exc:
        raise SpecError(f"{op.op} failed: {exc}", location=where) from exc
    if n == 0:
        raise SpecError(f"{op.op} matched no row of '{op.table}' where {op.where}", location=where)


def rename_ids(conn: sqlite3.Connection, spec: EnvSpec, renaming: Mapping[str, str]) -> None:
    """Rename generated ids wherever they are a whole text value or a JSON string (scoring only:
    ids are names, and two runs may hand out the same names in another order)."""
    if not renaming:
        return
    # Through a unique stand-in first, so swaps and cycles never collide on a primary key.
    stand_in = {old: f"envfarm:renaming:{i}" for i, old in enumerate(renaming)}
    phases = [stand_in, {stand_in[old]: new for old, new in renaming.items()}]
    conn.execute("BEGIN")
    try:
        conn.execute("PRAGMA defer_foreign_keys = ON")
        conn.execute("PRAGMA ignore_check_constraints = ON")
        for table in spec.tables:
            for column in table.columns:
                if column.type in ("text", "json"):
                    for phase in phases:
                        _rename_column(conn, table.name, column.name, column.type == "json", phase)
        conn.execute("PRAGMA ignore_check_constraints = OFF")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        conn.execute("PRAGMA ignore_check_constraints = OFF")
        raise


def _rename_column(
    conn: sqlite3.Connection, table: str, column: str, is_json: bool, renaming: Mapping[str, str]
) -> None:
    col = quote_ident(column)
    if is_json:  # an id inside JSON is a string: "A1001", quotes included, never part of a longer one
        expr = col
        for old, new in renaming.items():
            expr = f"replace({expr}, {sql_literal(json.dumps(old))}, {sql_literal(json.dumps(new))})"
        conn.execute(f"UPDATE {quote_ident(table)} SET {col} = {expr} WHERE {col} <> {expr}")
        return
    cases = " ".join(f"WHEN {sql_literal(old)} THEN {sql_literal(new)}" for old, new in renaming.items())
    marks = ", ".join(sql_literal(old) for old in renaming)
    conn.execute(f"UPDATE {quote_ident(table)} SET {col} = CASE {col} {cases} END WHERE {col} IN ({marks})")
