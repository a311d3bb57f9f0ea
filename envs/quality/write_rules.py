"""Rows carrying a write the policy forbids (measure 82, docs/synthesis.md): a pickup transcript order
marked expedited where only mailed and electronic orders may be, an emissions test still booked for
a vehicle already marked emissions ok where booking one then is refused, an offer still waiting on a
load that is no longer posted.

Read from the tools' SQL and the policy's rules alone, enforced by the tool or by the policy only, so
the measure runs on any catalog; the seed generator keeps them (``synthesis.domains.write_rules``).

A row whose state only a write can have made carries that write, and so met the write's rules on
values that have not moved since:

* **A mark only one tool sets.** A tool that sets a yes/no column of its own row to a literal
  (``expedited`` = 1) that every create inserts the other way, and no other tool sets so, leaves
  that mark: every row holding it met the tool's rules on its own row's values (``not when the
  transcript order's delivery method is pickup``).
* **A status one tool moves rows into.** A tool moving a row into a status says the rows in it (or
  in a later one no tool reaches from a status before it: ``passed_rules.states_past``) met its rules
  on their own values.
* **A row still as made.** A row in the status a create inserts it in, which no tool moves a row
  into, is as it was made: the records it references still meet the create's rules on them (``the
  vehicle must not be marked emissions ok``, ``the load must be posted``).

A rule reads a value that has not moved since only where no tool moves the column (an edit to what
the user gives is a correction, no step of the process); dates and amounts against a value the
caller gives say nothing of now and are not read (measure 67 reads literal bounds).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec, ToolSpec
from .event_children import names_table, snake
from .passed_rules import _moved_from
from .seed import status_columns
from .text import column_words
from .tool_sql import bound_tables, inserts, one_reference, set_state, status_moves

_MARK = re.compile(r'^UPDATE "?(\w+)"? SET "?(\w+)"? = (0|1|TRUE|FALSE) WHERE "?(\w+)"? = :(\w+)$', re.I)
_NOT_WHEN = re.compile(r"^not when the (.+?)(?:'s (.+))? is (.+)$")
_ONE_OF = re.compile(r"^the (.+?)(?:'s (.+?))? must be one of (.+)$")
_FLAG = re.compile(r"^the (.+?)(?:'s (.+?))? must (not )?(be marked|be|have) (.+)$")


@dataclass(frozen=True)
class Condition:
    """``column`` of ``table`` holds one of ``values`` (or none of them, when ``negated``)."""

    table: str
    column: str
    values: frozenset[Any]
    negated: bool
    rule: str

    def holds(self, value: Any) -> bool:
        value = int(value) if isinstance(value, bool) else value
        return (value in self.values) != self.negated


@dataclass(frozen=True)
class WriteRule:
    """Rows of ``table`` carrying ``mark`` (a column and the value it holds) meet ``condition`` on the
    row itself or, through ``via``, on the row it references."""

    table: str
    mark: tuple[str, frozenset[Any]]
    condition: Condition
    via: str | None
    tool: str


def _column(table: TableSpec, field: str | None) -> str | None:
    """The column ``field`` ("delivery method", "renewal date") names; the status when None."""
    if field is None:
        statuses = status_columns(table)
        return statuses[0].name if statuses else None
    words = field.strip().lower()
    found = [c.name for c in table.columns if column_words(c.name) == words or c.name.replace("_", " ") == words]
    return found[0] if found else None


def _condition(text: str, table: TableSpec) -> Condition | None:
    """The rule ``text`` as a condition on a value of ``table``'s rows, where it names one of them."""
    text = text.strip()
    columns = {c.name: c for c in table.columns}
    if (m := _NOT_WHEN.match(text)) or (m := _ONE_OF.match(text)):
        negated = m.re is _NOT_WHEN
        if not names_table(m[1], table.name) or (column := _column(table, m[2])) is None:
            return None
        values = {snake(v) for v in (re.split(r", | or ", m[3]) if not negated else [m[3]])}
        if not values <= set(columns[column].enum or ()):
            return None
        return Condition(table.name, column, frozenset(values), negated, text)
    if (m := _FLAG.match(text)) and names_table(m[1], table.name):
        negated = bool(m[3])
        rest = snake(m[5])
        if m[2] is None and m[4] == "be" and columns.get(f"is_{rest}") is None:
            column = _column(table, None)  # "the load must be posted": a status
            if column and rest in (columns[column].enum or ()):
                return Condition(table.name, column, frozenset({rest}), negated, text)
            return None
        if m[2] is not None:
            return None
        prefix = {"be marked": "", "be": "is_", "have": "has_"}[m[4]]
        column = f"{prefix}{rest}"
        if column in columns and columns[column].type == "boolean":
            return Condition(table.name, column, frozenset({1}), negated, text)
    return None


def _creates(tool: ToolSpec, tables: Mapping[str, TableSpec]) -> list[tuple[str, str]]:
    """(table, status) of the rows a create inserts with a literal status."""
    out = []
    for step in tool.steps:
        for table, values in inserts(step.sql or "") if step.kind == "exec" else ():
            statuses = status_columns(tables[table]) if table in tables else []
            literal = values.get(statuses[0].name, "") if statuses else ""
            if table != "escalations" and re.fullmatch(r"'\w+'", literal):
                out.append((table, literal.strip("'")))
    return out


def _moved_into(spec: EnvSpec) -> set[tuple[str, str]]:
    """(table, status) every tool moving a row into that status."""
    return {(m.table, m.state) for t in spec.tools for m in status_moves(t)}


def _marks(spec: EnvSpec, tables: Mapping[str, TableSpec]) -> dict[tuple[str, str, int], list[str]]:
    """(table, column, value) -> the tools that set a yes/no column of their own row to that literal."""
    out: dict[tuple[str, str, int], list[str]] = {}
    for tool in spec.tools:
        for step in tool.steps:
            if step.kind == "exec" and (m := _MARK.match((step.sql or "").strip())) and m[1] in tables:
                value = int(m[3].upper() in ("1", "TRUE"))
                out.setdefault((m[1], m[2], value), []).append(tool.name)
    return out


def write_rules(spec: EnvSpec) -> list[WriteRule]:
    """The rules rows carrying a write met, on values no tool moves."""
    tables = {t.name: t for t in spec.tables}
    moved = _moved_from(spec)
    rules_of: dict[str, list[str]] = {}
    for rule in spec.rules:
        rules_of.setdefault(rule.tool, []).append(rule.text)
    into = _moved_into(spec)
    made = [m for t in spec.tools for m in _creates(t, tables)]
    made_with = {
        (table, column): values.get(column, "")
        for t in spec.tools
        for s in t.steps
        if s.kind == "exec"
        for table, values in inserts(s.sql or "")
        for column in values
    }
    marks = _marks(spec, tables)
    # a status rows are made in, or the first the column lists, says no move happened
    born = {
        t: {str(c.enum[0]), *(s for n, s in made if n == t)}
        for t in tables
        for c in status_columns(tables[t])[:1]
        if c.enum
    }
    out: list[WriteRule] = []
    for tool in spec.tools:
        binds = bound_tables(tool)
        own = binds.get("rec")
        texts = rules_of.get(tool.name, [])
        for table, status in _creates(tool, tables) if own is None else []:
            if (table, status) in into:
                continue
            column = status_columns(tables[table])[0].name
            for parent in binds.values():
                via = one_reference(tables[table], parent) if parent != table else None
                for text in texts:
                    if via and (c := _condition(text, tables[parent])) and (parent, c.column) not in moved:
                        out.append(WriteRule(table, (column, frozenset({status})), c, via, tool.name))
        if own is None or own not in tables:
            continue
        carried: list[tuple[str, frozenset[Any]]] = []
        for step in tool.steps:
            sql = (step.sql or "").strip()
            if step.kind != "exec":
                continue
            if (into_state := set_state(sql)) and into_state.column == "status" and into_state.table == own:
                if into_state.state not in born.get(own, ()):
                    carried.append((status_columns(tables[own])[0].name, frozenset({into_state.state})))
            elif (m := _MARK.match(sql)) and m[1] == own:
                value = int(m[3].upper() in ("1", "TRUE"))
                inserted = made_with.get((own, m[2]), "").upper()
                if marks[own, m[2], value] == [tool.name] and inserted in (("0", "FALSE") if value else ("1", "TRUE")):
                    carried.append((m[2], frozenset({value})))
        for mark in carried:
            for text in texts:
                c = _condition(text, tables[own])
                if c and c.column != mark[0] and (own, c.column) not in moved:
                    out.append(WriteRule(own, mark, c, None, tool.name))
    return out


def _carries(rule: WriteRule, row: Mapping[str, Any]) -> bool:
    column, values = rule.mark
    value = row.get(column)
    value = int(value) if isinstance(value, bool) else value
    return value in values


def broken_write_rules(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[WriteRule, dict[str, Any], dict[str, Any], bool]]:
    """(rule, row carrying its write, the row the rule reads, whether the rule is broken) for every
    row read."""
    tables = {t.name: t for t in spec.tables}
    for rule in write_rules(spec):
        parent = tables[rule.condition.table]
        key = parent.primary_key[0] if parent.primary_key else None
        by_key = {r.get(key): r for r in rows.get(parent.name, [])} if rule.via and key else {}
        for row in rows.get(rule.table, []):
            if not _carries(rule, row):
                continue
            read = by_key.get(row.get(rule.via)) if rule.via else row
            if read is None or read.get(rule.condition.column) is None:
                continue
            yield rule, row, read, not rule.condition.holds(read[rule.condition.column])


@dataclass
class WriteRuleCounts:
    """Rows read against the rules of the write they carry, and those that break one (measure 82)."""

    written_rows_checked: int = 0
    rows_against_their_writes: int = 0


def rows_against_their_writes(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> WriteRuleCounts:
    """Measure 82 over ``rows`` (table -> rows; the seed by default)."""
    out = WriteRuleCounts()
    for *_, broken in broken_write_rules(spec, spec.seed if rows is None else rows):
        out.written_rows_checked += 1
        out.rows_against_their_writes += broken
    return out
