"""Amounts the tools set at a fixed value, drawn at random in the seed (measure 70, docs/synthesis.md):
a transcript order charged 3.04 where ordering one costs 15.00, an expedited one 24.90 where
expediting adds 20.00; three confirmation deposits on one study-abroad application that a single
confirmation takes.

Read from the tools' SQL alone, so the measure runs on any catalog; the seed generator keeps the rules
(``synthesis.domains.set_amounts``).

* **Set when made.** A money column that every tool making the row sets to a literal (in the INSERT or
  an UPDATE of the new row right after it: ``"fee" = 15``) and that every other step changes only by
  adding a literal (``"fee" = round("fee" + 20, 2)``) as it sets a flag of the row (``"expedited" =
  1``) or moves its status, holds the literal plus what each step the row passed added: a step that
  sets a flag was passed where the flag is set, one that moves the status where the status says the row
  was moved there (:func:`.passed_rules.states_past`).
* **Posted once.** Rows of a table (of one kind, where a kind column is set to a literal) that only a
  tool moving their parent's status records, at a fixed amount (a literal other than 0: a charge the
  policy states, not a payment of what is owed), a move that cannot repeat (its status is none of its
  from-states), number at most one per parent: one confirmation deposit per application. Their amount
  is measure 62's. (Rows on a parent whose status says it never moved there are not read: a staff
  step the tools do not carry may have recorded them.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec
from .own_row import status_of
from .passed_rules import states_past
from .tool_sql import all_updates, bound_tables, inserts, number, one_reference

_NUMBER = r"-?\d+(?:\.\d+)?"
_SET_NEW = re.compile(rf'^UPDATE "?(\w+)"? SET "?(\w+)"? = ({_NUMBER}) WHERE "?\w+"? = :new\.id$')
_ADD = re.compile(rf'^UPDATE "?(\w+)"? SET "?(\w+)"? = (?:round\()?"?(\w+)"? \+ ({_NUMBER})(?:, 2\))? WHERE ')
_FLAG = re.compile(r'^UPDATE "?(\w+)"? SET "?(\w+)"? = (?:1|TRUE) WHERE ', re.I)
_MOVE = re.compile(r"^UPDATE \"?(\w+)\"? SET \"?status\"? = '(\w+)' WHERE")
_FROM = re.compile(r"^SELECT :rec\.status IN \(([^)]*)\)$")
_LITERAL = re.compile(r"^'(\w+)'$")
_KIND_WORDS = frozenset({"type", "kind", "reason"})
CENT = 0.006


@dataclass(frozen=True)
class Step:
    """A step adding ``amount``, passed where ``flag`` is set or the status is in ``states``."""

    amount: float
    flag: str | None = None
    states: frozenset[str] = frozenset()

    def passed(self, row: Mapping[str, Any], status: str | None) -> bool:
        return bool(row.get(self.flag)) if self.flag else status in self.states


@dataclass(frozen=True)
class Made:
    """``table.column`` is ``start`` plus the ``steps`` a row passed."""

    table: str
    column: str
    start: float
    steps: tuple[Step, ...]

    def expected(self, row: Mapping[str, Any], status: str | None) -> float:
        return round(self.start + sum(s.amount for s in self.steps if s.passed(row, status)), 2)


@dataclass(frozen=True)
class Once:
    """Rows of ``table`` (with ``kind`` = ``value`` where ``kind`` is set) belong to a ``parent`` row
    in ``states``, one each."""

    table: str
    kind: str | None
    value: str | None
    reference: str
    parent: str
    states: frozenset[str]

    def counts(self, row: Mapping[str, Any]) -> bool:
        return self.kind is None or row.get(self.kind) == self.value


def _steps(spec: EnvSpec) -> Iterator[tuple[list[str], set[str]]]:
    """(exec SQL, from-states) of every tool."""
    for tool in spec.tools:
        sql = [(s.kind, (s.sql or "").strip()) for s in tool.steps]
        froms = {v for k, q in sql if k == "require" and (m := _FROM.match(q)) for v in re.findall(r"'(\w+)'", m[1])}
        yield [q for k, q in sql if k == "exec"], froms


def made_amounts(spec: EnvSpec) -> list[Made]:
    """The money columns creates set to a literal and other steps add literals to."""
    money = {(t.name, c.name) for t in spec.tables for c in t.columns if c.type == "real"}
    flags = {(t.name, c.name) for t in spec.tables for c in t.columns if c.type == "boolean"}
    starts: dict[tuple[str, str], set[str]] = {}
    for execs, _ in _steps(spec):
        made: dict[tuple[str, str], str] = {}
        for q in execs:
            for table, values in inserts(q):
                made.update({(table, c): v for c, v in values.items() if (table, c) in money})
            if (m := _SET_NEW.match(q)) and (m[1], m[2]) in made:
                made[m[1], m[2]] = m[3]
        for key, value in made.items():
            starts.setdefault(key, set()).add(value)
    adds: dict[tuple[str, str], list[Step | None]] = {}
    for execs, froms in _steps(spec):
        for q in execs:
            if not (m := _ADD.match(q)) or m[2] != m[3] or (m[1], m[2]) not in starts:
                continue
            flag = next((f[2] for x in execs if (f := _FLAG.match(x)) and (f[1], f[2]) in flags and f[1] == m[1]), None)
            to = next((v[2] for x in execs if (v := _MOVE.match(x)) and v[1] == m[1] and v[2] not in froms), None)
            states = states_past(spec, m[1], to) if to and froms else frozenset()
            adds.setdefault((m[1], m[2]), []).append(
                Step(float(m[4]), flag) if flag else Step(float(m[4]), states=states) if states else None
            )
    out = []
    for key, sqls in all_updates(spec).items():
        if key not in starts or len(starts[key]) != 1 or not re.fullmatch(_NUMBER, start := next(iter(starts[key]))):
            continue
        steps = adds.get(key, [])
        others = [q for q in sqls if not _SET_NEW.match(q.strip()) and not _ADD.match(q.strip())]
        adding = [q for q in sqls if _ADD.match(q.strip())]
        known = tuple(s for s in steps if s is not None)
        if known and not others and len(known) == len(steps) == len(adding):
            out.append(Made(key[0], key[1], float(start), known))
    return out


def _literals(values: Mapping[str, str]) -> dict[str, float]:
    return {c: float(v) for c, v in values.items() if re.fullmatch(_NUMBER, v)}


def posted_once(spec: EnvSpec) -> list[Once]:
    """The tables (or kinds) only a one-time status move of their parent records, at a fixed amount."""
    tables = {t.name: t for t in spec.tables}
    money = {(t.name, c.name) for t in spec.tables for c in t.columns if c.type == "real"}
    found: dict[tuple[str, str | None, str | None], list[tuple[str, str] | None]] = {}
    for tool in spec.tools:
        sql = [(s.kind, (s.sql or "").strip()) for s in tool.steps]
        froms = {v for k, q in sql if k == "require" and (m := _FROM.match(q)) for v in re.findall(r"'(\w+)'", m[1])}
        rec = bound_tables(tool).get("rec")
        moves = [m[2] for k, q in sql if k == "exec" and (m := _MOVE.match(q)) and m[1] == rec]
        for step_kind, q in sql:
            for table, values in inserts(q) if step_kind == "exec" else ():
                if table not in tables:
                    continue
                kinds = [c for c in values if c.lower().split("_")[-1] in _KIND_WORDS]
                literal = _LITERAL.match(values[kinds[0]]) if kinds else None
                if kinds and not literal:
                    continue
                key = (table, kinds[0] if kinds else None, literal[1] if literal else None)
                to = moves[0] if len(moves) == 1 and moves[0] not in froms and froms else None
                fixed = any(v != 0 for c, v in _literals(values).items() if (table, c) in money)
                found.setdefault(key, []).append((rec, to) if rec and to and fixed else None)
    out = []
    for (table, kind_column, kind), posts in found.items():
        if len(set(posts)) != 1 or (post := posts[0]) is None:
            continue
        parent, to = post
        if (reference := one_reference(tables[table], parent)) and (states := states_past(spec, parent, to)):
            out.append(Once(table, kind_column, kind, reference, parent, states))
    return out


def surplus(spec: EnvSpec, once: Once, rows: Mapping[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The rows ``once`` rules out: a second (third …) for its parent, in seed order."""
    parents = {t.name: t for t in spec.tables}[once.parent]
    key = parents.primary_key[0]
    status = {r.get(key): status_of(r, parents) for r in rows.get(once.parent, [])}
    seen: set[Any] = set()
    out = []
    for row in rows.get(once.table, []):
        if not once.counts(row) or (parent := row.get(once.reference)) not in status:
            continue
        if parent in seen:
            out.append(row)
        seen.add(parent)
    return out


@dataclass
class SetAmountCounts:
    """Rows read against the amounts the tools set, and those off them (measure 70)."""

    set_amounts_checked: int = 0
    amounts_off_their_setting: int = 0


def set_amount_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(shape, off) for every row read."""
    tables = {t.name: t for t in spec.tables}
    for made in made_amounts(spec):
        for row in rows.get(made.table, []):
            if (value := number(row.get(made.column))) is not None:
                yield "made", abs(value - made.expected(row, status_of(row, tables[made.table]))) > CENT
    for once in posted_once(spec):
        off = {id(r) for r in surplus(spec, once, rows)}
        for row in rows.get(once.table, []):
            if once.counts(row):
                yield "once", id(row) in off


def amounts_off_their_setting(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> SetAmountCounts:
    """Measure 70 over ``rows`` (table -> rows; the seed by default)."""
    out = SetAmountCounts()
    for _, off in set_amount_findings(spec, spec.seed if rows is None else rows):
        out.set_amounts_checked += 1
        out.amounts_off_their_setting += off
    return out
