"""Compile a spec into a template SQLite image: DDL once, seed rows once, then ``serialize()``.

Episodes never run DDL: they ``deserialize`` the image this module builds (DESIGN.md, "Episodes").
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from typing import Any

from ..errors import SchemaMismatch, SpecError
from ..formats.spec import ColumnSpec, EnvSpec, TableSpec
from .sandbox import StepBudget, limit
from .watchdog import WATCHDOG

#: Internal table holding per-prefix id counters, so ids are part of the state and replay exactly.
COUNTERS_TABLE = "_envfarm_counters"
#: Internal table where triggers record the primary key of every inserted, updated or deleted row,
#: so scoring compares only changed rows, and the change set travels with snapshots.
CHANGES_TABLE = "_envfarm_changes"
TRIGGER_PREFIX = "_envfarm_track_"
_SQL_TYPES = {
    "text": "TEXT",
    "integer": "INTEGER",
    "real": "REAL",
    "boolean": "INTEGER",
    "json": "TEXT",
    "date": "TEXT",
    "datetime": "TEXT",
}


def quote_ident(name: str) -> str:
    """Quote an identifier for SQLite (names are validated identifiers; this is belt and braces)."""
    return '"' + name.replace('"', '""') + '"'


def sql_literal(value: object) -> str:
    """A value from a spec (never from an agent) as an SQL literal; lists and dicts as JSON text."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dict | list):
        value = json.dumps(value, sort_keys=True)
    return "'" + str(value).replace("'", "''") + "'"


def _column_checks(col: ColumnSpec) -> list[str]:
    name = quote_ident(col.name)
    checks = {
        "boolean": [f"{name} IN (0, 1)"],
        "json": [f"({name} IS NULL OR json_valid({name}))"],  # json_valid(NULL) is 0 before SQLite 3.45
        "date": [f"{name} IS date({name})"],
        "datetime": [f"{name} IS datetime({name})"],
    }.get(col.type, [])
    if col.enum:
        checks.append(f"{name} IN ({', '.join(sql_literal(v) for v in col.enum)})")
    if col.check:
        checks.append(col.check)
    return checks


def table_ddl(table: TableSpec) -> str:
    """The ``CREATE TABLE ... STRICT`` statement for one table."""
    lines: list[str] = []
    for col in table.columns:
        parts = [quote_ident(col.name), _SQL_TYPES[col.type]]
        if not col.nullable:
            parts.append("NOT NULL")
        if col.unique:
            parts.append("UNIQUE")
        if col.default is not None:
            parts.append(f"DEFAULT {sql_literal(col.default)}")
        parts.extend(f"CHECK ({c})" for c in _column_checks(col))
        lines.append(" ".join(parts))
    lines.append(f"PRIMARY KEY ({', '.join(map(quote_ident, table.primary_key))})")
    lines.extend(f"UNIQUE ({', '.join(map(quote_ident, cols))})" for cols in table.unique)
    for fk in table.foreign_keys:
        lines.append(
            f"FOREIGN KEY ({', '.join(map(quote_ident, fk.columns))}) REFERENCES {quote_ident(fk.table)} "
            f"({', '.join(map(quote_ident, fk.references))}) ON DELETE {fk.on_delete.upper()}"
        )
    lines.extend(f"CHECK ({c})" for c in table.checks)
    body = ",\n  ".join(lines)
    return f"CREATE TABLE {quote_ident(table.name)} (\n  {body}\n) STRICT"


def tracking_triggers(table: TableSpec) -> list[str]:
    """Triggers that record changed primary keys (as a JSON array) in CHANGES_TABLE."""
    t = quote_ident(table.name)
    name = table.name.replace("'", "''")

    def key(alias: str) -> str:
        return "json_array(" + ", ".join(f"{alias}.{quote_ident(c)}" for c in table.primary_key) + ")"

    record = f"INSERT OR IGNORE INTO {CHANGES_TABLE} (tbl, key) VALUES ('{name}', {{}});"
    return [
        f"CREATE TRIGGER {TRIGGER_PREFIX}ins_{table.name} AFTER INSERT ON {t} BEGIN {record.format(key('NEW'))} END",
        f"CREATE TRIGGER {TRIGGER_PREFIX}del_{table.name} AFTER DELETE ON {t} BEGIN {record.format(key('OLD'))} END",
        f"CREATE TRIGGER {TRIGGER_PREFIX}upd_{table.name} AFTER UPDATE ON {t} BEGIN "
        f"{record.format(key('OLD'))} {record.format(key('NEW'))} END",
    ]


def to_sql_value(value: Any) -> Any:
    """A Python value as SQLite stores it: lists and dicts as canonical JSON text, bools as 0/1."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return value


def insert_rows(conn: sqlite3.Connection, table: TableSpec, rows: Iterable[dict[str, Any]], *, where: str) -> None:
    """Insert rows into ``table``; errors name ``where`` (a file/JSON location) and the row index."""
    for index, row in enumerate(rows):
        cols = list(row)
        sql = (
            f"INSERT INTO {quote_ident(table.name)} ({', '.join(map(quote_ident, cols))}) "
            f"VALUES ({', '.join('?' for _ in cols)})"
        )
        try:
            conn.execute(sql, [to_sql_value(row[c]) for c in cols])
        except sqlite3.Error as exc:
            raise SpecError(f"row cannot be inserted: {exc}", location=f"{where}[{index}]") from exc


def check_foreign_keys(conn: sqlite3.Connection, *, where: str) -> None:
    """Raise SpecError naming the first row that violates a foreign key."""
    bad = conn.execute("PRAGMA foreign_key_check").fetchone()
    if bad is not None:
        table, rowid, parent, _ = bad
        key = conn.execute(f"SELECT * FROM {quote_ident(table)} WHERE rowid = ?", (rowid,)).fetchone()
        raise SpecError(f"a row of '{table}' references a missing '{parent}' row: {key}", location=where)


def verify_schema(conn: sqlite3.Connection, spec: EnvSpec) -> None:
    """Check that every table SQLite built is the spec's: its columns, hidden ones included, exactly
    the spec's in order, its primary key the spec's, and STRICT.

    A spec's CHECK and DEFAULT texts are spliced into ``CREATE TABLE``, so a text that closes its
    parenthesis can declare more: a generated column (hidden from ``PRAGMA table_info``, and from
    ``envs check``), or a comment that cuts the rest of the statement off. Whatever the text did,
    the table it left is checked here.

    Raises:
        SchemaMismatch: naming the table and the column that differs.
    """
    strict = {name: flag for _, name, _, _, _, flag in conn.execute("PRAGMA main.table_list")}
    for i, table in enumerate(spec.tables):
        where = f"tables[{i}]"
        built = conn.execute(f"PRAGMA main.table_xinfo({sql_literal(table.name)})").fetchall()
        names = [row[1] for row in built]
        declared = [c.name for c in table.columns]
        hidden = [row[1] for row in built if row[6]]
        extra = hidden or [n for n in names if n not in declared]
        if extra:
            raise SchemaMismatch(
                f"table '{table.name}' was built with column '{extra[0]}', which the spec does not declare "
                "(a CHECK or DEFAULT must be one expression, not more table definition)",
                table=table.name,
                column=extra[0],
                location=where,
            )
        if names != declared:
            missing = next((n for n in declared if n not in names), None)
            raise SchemaMismatch(
                f"table '{table.name}' was built with columns {names}, not the spec's {declared} "
                "(a CHECK or DEFAULT must be one expression, not more table definition)",
                table=table.name,
                column=missing,
                location=where,
            )
        key = [row[1] for row in sorted((r for r in built if r[5]), key=lambda r: r[5])]
        if key != list(table.primary_key) or not strict.get(table.name):
            raise SchemaMismatch(
                f"table '{table.name}' was not built with the spec's primary key {list(table.primary_key)} "
                "as a STRICT table (a CHECK or DEFAULT must be one expression, not more table definition)",
                table=table.name,
                location=where,
            )


BUILD_STEPS = 200_000_000  # SQLite steps to build one environment's seed database
BUILD_SECONDS = 60.0


def compile_image(spec: EnvSpec) -> bytes:
    """Build the template database for ``spec`` and return it serialized.

    Raises:
        SpecError: a DDL statement or seed row is rejected by SQLite; the message names which.
    """
    conn = sqlite3.connect(":memory:", isolation_level=None)
    limit(conn)
    # A spec's CHECKs, DEFAULTs and triggers run on every seed row: bounded like a tool call.
    budget = StepBudget(BUILD_STEPS)
    deadline = time.monotonic() + BUILD_SECONDS
    budget.start(deadline)
    conn.set_progress_handler(budget, StepBudget.GRANULARITY)
    try:
        with WATCHDOG.guard(conn, deadline, budget):
            return _build(conn, spec)
    except SpecError as exc:
        if budget.tripped:
            raise SpecError(
                f"building the seed database took more than {BUILD_STEPS:,} SQLite steps or {BUILD_SECONDS:g} s "
                f"(a CHECK, DEFAULT or seed row too costly): {exc}"
            ) from None
        raise
    finally:
        conn.close()


def _build(conn: sqlite3.Connection, spec: EnvSpec) -> bytes:
    conn.execute("PRAGMA foreign_keys = OFF")  # seed rows may arrive in any table order
    conn.execute("BEGIN")
    for i, table in enumerate(spec.tables):
        try:
            conn.execute(table_ddl(table))
        except sqlite3.Error as exc:
            raise SpecError(f"table '{table.name}' cannot be created: {exc}", location=f"tables[{i}]") from exc
    verify_schema(conn, spec)
    conn.execute(f"CREATE TABLE {COUNTERS_TABLE} (prefix TEXT PRIMARY KEY, last INTEGER NOT NULL) STRICT")
    for name, rows in spec.seed.items():
        insert_rows(conn, spec.table(name), rows, where=f"seed.{name}")
    check_foreign_keys(conn, where="seed")
    conn.execute(
        f"CREATE TABLE {CHANGES_TABLE} (tbl TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (tbl, key)) "
        "WITHOUT ROWID, STRICT"
    )
    for table in spec.tables:
        for trigger in tracking_triggers(table):
            conn.execute(trigger)
    for i, table in enumerate(spec.tables):
        if table.search_table:
            try:
                conn.execute(search_table_ddl(table))
            except sqlite3.Error as exc:
                raise SpecError(
                    f"the search index of '{table.name}' cannot be built: {exc}", location=f"tables[{i}]"
                ) from exc
    rebuild_search(conn, spec)
    conn.execute("COMMIT")
    return conn.serialize()


def search_table_ddl(table: TableSpec) -> str:
    """The FTS5 index of a document table's ``full_text`` columns, over the table's own rows (external
    content: the text is stored once), with Porter stemming on Unicode words."""
    assert table.search_table is not None
    columns = ", ".join(quote_ident(c) for c in table.full_text)
    return (
        f"CREATE VIRTUAL TABLE {quote_ident(table.search_table)} USING fts5({columns}, "
        f"content={sql_literal(table.name)}, content_rowid='rowid', tokenize='porter unicode61')"
    )


def rebuild_search(conn: sqlite3.Connection, spec: EnvSpec, tables: Iterable[str] | None = None) -> None:
    """Index the document tables' rows again (all, or those of ``tables``): after the seed is loaded and
    after a task's patch changed one. No tool changes a document table, so nothing else needs it."""
    for table in spec.tables:
        if table.search_table and (tables is None or table.name in tables):
            name = quote_ident(table.search_table)
            conn.execute(f"INSERT INTO {name}({name}) VALUES ('rebuild')")
