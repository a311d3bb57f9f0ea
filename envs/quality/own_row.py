"""A record's status against its own row (measure 59, docs/synthesis.md): a layaway paid off with
its whole price still owed, an account `active` with a disconnect date while the pending one has
none, a quote carrying the deposit its signing takes, available credit that is not the limit less the
balance.

Columns are read by their names and the tools' SQL alone, so the measure runs on any catalog; the seed
generator keeps the rules (``synthesis.domains.own_row``). A status that says an event happened with
its event still ahead (``checked_in`` for a sitting four days off) is measure 10's
(:data:`.seed.AFTER_EVENT`).

* **Paid is not owed.** A row in a paid status (:data:`PAID`) keeps no balance (a ``real`` column
  named balance, remaining or outstanding above 0) and has paid something where it has an amount
  paid (``amount_paid`` 0.00 beside a positive total or price). A row that ran its course
  (:data:`RAN_COURSE`: completed, finished) keeps no count of what is still to come (an ``integer``
  named left or remaining: a payment arrangement completed with five ``installments_left``).
* **A date named for a status.** A nullable date column whose name starts with a word that begins a
  status value (``disconnect_date`` and ``disconnect_pending``, ``cancelled_on`` and ``cancelled``),
  and that no create sets, is set on the rows in that status and on none in a status before it.
* **An amount a step adds.** A column only tools that move the row out of their from-states add a
  constant to (``deposit_paid`` + 500 by signing, ``quoted`` -> ``contracted``), and that no create
  sets, is 0 on rows still in those from-states.
* **What is left of a limit.** An ``available`` column beside one ``limit`` and one ``balance``
  column is the limit less the balance (never below 0).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .seed import status_columns
from .text import word_set

#: Statuses of a record paid in full.
PAID = word_set("paid paid_off paid_in_full fully_paid settled")
LEFT_WORDS = word_set("balance remaining outstanding")
#: Statuses of a record that ran its course: nothing of it is still to come.
RAN_COURSE = word_set("completed finished fulfilled exhausted")
#: Words of a count of what is still to come (``installments_left``, ``sessions_remaining``).
COUNT_LEFT = word_set("left remaining")
TOTAL_WORDS = word_set("total price cost")
# words of a date column's name that say nothing of which event it is
_DATE_WORDS = word_set("date on at day time")
_ADD = re.compile(r'UPDATE "?(\w+)"? SET "?(\w+)"? = round\("?\2"? \+ (\d+(?:\.\d+)?), 2\)')
_MOVE = re.compile(r"UPDATE \"?(\w+)\"? SET \"?status\"? = '(\w+)'")
_FROM = re.compile(r":rec\.status IN \(([^)]*)\)")
INSERT = re.compile(r'INSERT INTO "?(\w+)"? \(([^)]*)\) VALUES \((.*)\)', re.S)


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def numeric_columns(table: TableSpec, words: AbstractSet[str], avoid: AbstractSet[str] = frozenset()) -> list[str]:
    """The table's number columns named with one of ``words`` and none of ``avoid``."""
    return [
        c.name
        for c in table.columns
        if c.type in ("real", "integer") and _words(c.name) & words and not _words(c.name) & avoid
    ]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def status_of(row: Mapping[str, Any], table: TableSpec) -> str | None:
    statuses = status_columns(table)
    value = row.get(statuses[0].name) if statuses else None
    return value if isinstance(value, str) else None


# -- paid is not owed -------------------------------------------------------------------------------
def paid_yet_owing(table: TableSpec, row: Mapping[str, Any]) -> bool | None:
    """Whether a paid ``row`` keeps a balance or paid nothing; None when it is no paid row to read."""
    if status_of(row, table) not in PAID:
        return None
    left = [_number(row.get(c)) for c in numeric_columns(table, LEFT_WORDS, word_set("available"))]
    paid = [_number(row.get(c)) for c in numeric_columns(table, {"paid"}) if "amount" in _words(c)]
    totals = [_number(row.get(c)) for c in numeric_columns(table, TOTAL_WORDS, {"paid"})]
    if not left and not (paid and totals):
        return None
    owing = any(v is not None and v > 0.005 for v in left)
    nothing = bool(paid) and all(v == 0 for v in paid) and any(v is not None and v > 0 for v in totals)
    return owing or nothing


def counts_left(table: TableSpec) -> list[str]:
    """The table's counts of what is still to come (:data:`COUNT_LEFT`)."""
    return [c.name for c in table.columns if c.type == "integer" and _words(c.name) & COUNT_LEFT]


def left_after_course(table: TableSpec, row: Mapping[str, Any]) -> bool | None:
    """Whether a row that ran its course still counts something to come; None where it is not read."""
    columns = counts_left(table)
    if status_of(row, table) not in RAN_COURSE or not columns:
        return None
    return any((v := _number(row.get(c))) is not None and v > 0 for c in columns)


# -- a date named for a status --------------------------------------------------------------------
@dataclass(frozen=True)
class StatusDate:
    """A date column named for a status: the status values it names and those a record holds before
    them (the status column's values in lifecycle order)."""

    column: str
    named: frozenset[str]
    earlier: frozenset[str]

    def disagrees(self, date: Any, status: str | None) -> bool | None:
        """Missing in a status it names, or set in one before it; None where it is not read."""
        if status in self.named:
            return date is None
        if status in self.earlier:
            return date is not None
        return None


def status_dates(table: TableSpec, created: AbstractSet[tuple[str, str]] = frozenset()) -> list[StatusDate]:
    """The table's nullable date columns named for a status (``disconnect_date`` of
    ``disconnect_pending``, ``hearing_date`` of ``hearing_scheduled``, ``cancelled_on``); ``created``
    holds the (table, column) pairs a create sets (:func:`created_columns`): such a date is the day
    the record was made (a hearing date a new appeal gets as today), no status's own."""
    statuses = status_columns(table)
    values = [v for v in (statuses[0].enum or []) if isinstance(v, str)] if statuses else []
    out = []
    for col in table.columns:
        words = [w for w in col.name.lower().split("_") if w not in _DATE_WORDS]
        # a date every row has (``requested_on``, ``expires_on``) is no status's own
        if col.type not in ("date", "datetime") or not col.nullable or len(words) != 1 or len(words[0]) < 5:
            continue
        if (table.name, col.name) in created:
            continue
        stem = words[0][:6]
        named = [i for i, v in enumerate(values) if v.lower().startswith(stem)]
        if named and len(named) < len(values):
            out.append(StatusDate(col.name, frozenset(values[i] for i in named), frozenset(values[: named[0]])))
    return out


# -- an amount a step adds ------------------------------------------------------------------------
def _listed(text: str) -> list[str]:
    return re.findall(r"'(\w+)'", text)


def top_level_items(values: str) -> list[str]:
    """The comma-separated items of a VALUES list, commas inside calls kept."""
    items, depth, current = [], 0, ""
    for ch in values:
        if ch == "," and depth == 0:
            items.append(current)
            current = ""
            continue
        depth += (ch == "(") - (ch == ")")
        current += ch
    return [*items, current]


def created_columns(spec: EnvSpec) -> set[tuple[str, str]]:
    """The (table, column) pairs an INSERT of a tool sets to something other than 0 or NULL."""
    out: set[tuple[str, str]] = set()
    for tool in spec.tools:
        for step in tool.steps:
            for m in INSERT.finditer(step.sql or ""):
                for column, value in zip(m[2].split(","), top_level_items(m[3]), strict=False):
                    if value.strip() not in ("0", "0.0", "NULL"):
                        out.add((m[1], column.strip().strip('"')))
    return out


def step_amounts(spec: EnvSpec) -> dict[tuple[str, str], set[str]]:
    """(table, column) -> the statuses a row is in before the step that adds to the column: a column
    only tools moving the row out of their from-states add a constant to, and no create sets."""
    before: dict[tuple[str, str], set[str]] = {}
    free: set[tuple[str, str]] = set()
    for tool in spec.tools:
        sql = [s.sql for s in tool.steps if s.sql]
        adds = [(m[1], m[2]) for q in sql for m in _ADD.finditer(q)]
        moves = {m[1] for q in sql for m in _MOVE.finditer(q)}
        states = {s for q in sql for m in _FROM.finditer(q) for s in _listed(m[1])}
        for key in adds:
            if key[0] in moves and states:
                before.setdefault(key, set()).update(states)
            else:
                free.add(key)  # a payment any time: no step
    free |= created_columns(spec)  # a create that sets it: no step
    return {k: v for k, v in before.items() if k not in free}


# -- what is left of a limit ----------------------------------------------------------------------
def limit_columns(table: TableSpec) -> tuple[str, str, str] | None:
    """(available, limit, balance) columns of a row that keeps what is left of a limit, if one each."""
    found = [
        numeric_columns(table, {"available"}),
        numeric_columns(table, {"limit"}, {"available"}),
        numeric_columns(table, {"balance"}, {"available"}),
    ]
    if any(len(f) != 1 for f in found):
        return None
    return found[0][0], found[1][0], found[2][0]


def left_of_limit(limit: float, balance: float) -> float:
    return round(max(limit - balance, 0.0), 2)


# -- the measure ----------------------------------------------------------------------------------
@dataclass
class OwnRowCounts:
    """Rows whose status or derived column can be read against their own row, and those that disagree."""

    own_row_states_checked: int = 0
    states_against_own_row: int = 0


def own_row_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(shape, disagrees) for every row value read."""
    steps, created = step_amounts(spec), created_columns(spec)
    for table in spec.tables:
        dates = status_dates(table, created)
        limits = limit_columns(table)
        stepped = {col: states for (name, col), states in steps.items() if name == table.name}
        for row in rows.get(table.name, []):
            status = status_of(row, table)
            if (owing := paid_yet_owing(table, row)) is not None:
                yield "paid", owing
            if (left := left_after_course(table, row)) is not None:
                yield "course", left
            for named in dates:
                if (against := named.disagrees(row.get(named.column), status)) is not None:
                    yield "named date", against
            for col, states in stepped.items():
                if status in states and (value := _number(row.get(col))) is not None:
                    yield "step", value > 0
            if limits is not None:
                available, limit, balance = (_number(row.get(c)) for c in limits)
                if available is not None and limit is not None and balance is not None:
                    yield "limit", abs(available - left_of_limit(limit, balance)) > 0.01


def states_against_own_row(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> OwnRowCounts:
    """Measure 59 over ``rows`` (table -> rows; the seed by default)."""
    out = OwnRowCounts()
    for _, disagrees in own_row_findings(spec, spec.seed if rows is None else rows):
        out.own_row_states_checked += 1
        out.states_against_own_row += disagrees
    return out
