"""Records an event makes, before the event (measure 76, docs/synthesis.md): an e-prescription
``pending`` on a video visit still ahead, or on today's visit not yet held; equipment rented to a
campsite reservation whose guests have not arrived; a review of a stay still to come.

Read from the tools' SQL, the policy's rules and status words alone, so the measure runs on any
catalog; the seed generator keeps the rule (``synthesis.domains.event_children``).

A tool acting on a child row (its ``rec``) or making one (an INSERT under a parent it binds) that
requires the parent in a state the event leaves behind (:data:`seed.AFTER_EVENT`: completed, checked
in, installed, scored) — by a ``require`` on the parent's status, or by a rule of the policy ("the
consultation must be completed") where the check is the policy's alone — says such a child follows
its parent's event: a prescription is written at or after the visit, a rental is handed over once
the guests have checked in. So the child rows that tool acts on (the states its own-row check
allows; every row for a create) sit under a parent whose event has happened: the parent's status is
one the event leaves behind and its event date (:func:`seed.event_column`) is not after the clock.

A table that tools fill under a parent in any state may still hold one kind of row (a literal an
INSERT writes to an enum column) that only tools requiring the parent past its event make: a
score-report fee among an exam registration's payments, posted by adding a score recipient to a
scored registration. Those rows are read the same way, on their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec, ToolSpec
from .seed import event_column, status_columns, status_phase
from .text import word_set
from .tool_sql import bound_tables, inserts, one_reference, required_states, status_moves

#: States of a row awaiting a decision or an act (a prescription to send, extra work to approve), as
#: against a part of its parent at rest (an order line packed, an item listed), which exists from the
#: parent's making whatever a tool later does with it.
AWAITING = word_set("pending pending_approval awaiting requested proposed submitted open new")
#: States of a parent whose event was called off: it never came, whatever the order of the states.
CALLED_OFF = word_set("cancelled canceled withdrawn voided void rejected declined")

_PARENT_STATUS = re.compile(r"^SELECT :(\w+)\.status (?:IS|=) '(\w+)'$|^SELECT :(\w+)\.status IN \(([^)]*)\)$")
_INSERT = re.compile(r'^INSERT INTO "?(\w+)"?')
_LITERAL = re.compile(r"^'(\w+)'$")
#: A rule on a record's status, as the policy words it: "the stay booking must be completed", "the
#: appointment's status must be one of checked in, completed".
_RULE = re.compile(r"^the (.+?)(?:'s status must be one of (.+)| must be (.+))$")


@dataclass(frozen=True)
class EventChild:
    """Rows of ``child`` in ``states`` (any, when None) follow the event of their ``parent`` row
    (by ``column``), which the tool ``tool`` requires in ``after``."""

    child: str
    column: str
    parent: str
    after: frozenset[str]
    states: frozenset[str] | None
    tool: str
    #: (column, value): only the rows of that kind (a score-report fee among a registration's payments),
    #: where the tools making that kind, and no others, require the parent past its event
    kind: tuple[str, str] | None = None


def snake(value: str) -> str:
    return value.strip().lower().replace(" ", "_").replace("-", "_")


def names_table(phrase: str, table: str) -> bool:
    """Whether ``phrase`` ("stay booking", "booking") names the rows of ``table`` (``stay_bookings``)."""
    words = {w.removesuffix("s") for w in table.split("_")}
    return bool(phrase) and {w.removesuffix("s") for w in snake(phrase).split("_")} <= words


def _child_table(tool: ToolSpec, binds: dict[str, str]) -> tuple[str, bool] | None:
    """(the table of the row the tool acts on or makes, whether it makes it)."""
    if "rec" in binds:
        return binds["rec"], False
    made = {m[1] for s in tool.steps if s.kind == "exec" and (m := _INSERT.match((s.sql or "").strip()))}
    made.discard("escalations")
    return (made.pop(), True) if len(made) == 1 else None


def _required(tool: ToolSpec, spec: EnvSpec, binds: dict[str, str], parents: list[str]) -> dict[str, set[str]]:
    """Parent table -> the statuses the tool requires it in (by its SQL or by a rule of the policy)."""
    tables = {t.name: t for t in spec.tables}
    out: dict[str, set[str]] = {}
    for step in tool.steps:
        if step.kind == "require" and (m := _PARENT_STATUS.match((step.sql or "").strip())):
            table = binds.get(m[1] or m[3])
            if table in parents:
                out.setdefault(table, set()).update([m[2]] if m[2] else re.findall(r"'(\w+)'", m[4]))
    for rule in spec.rules:
        if rule.tool != tool.name or not (m := _RULE.match(rule.text.strip())):
            continue
        values = [snake(v) for v in (m[2].split(", ") if m[2] else [m[3]])]
        for table in parents:
            enum = {snake(v) for c in status_columns(tables[table]) for v in c.enum or ()}
            if names_table(m[1], table) and values and set(values) <= enum:
                out.setdefault(table, set()).update(values)
    return out


def event_children(spec: EnvSpec) -> list[EventChild]:
    """The child rows tools say follow their parent's event."""
    tables = {t.name: t for t in spec.tables}
    out = []
    makers: dict[str, set[str]] = {}  # child table -> the tools that insert its rows
    for tool in spec.tools:
        for step in tool.steps:
            if step.kind == "exec" and (m := _INSERT.match((step.sql or "").strip())):
                makers.setdefault(m[1], set()).add(tool.name)
    for tool in spec.tools:
        binds = bound_tables(tool)
        found = _child_table(tool, binds)
        if found is None or found[0] not in tables:
            continue
        child, makes = found
        refs = {fk.table: col for fk in tables[child].foreign_keys if (col := one_reference(tables[child], fk.table))}
        parents = [p for p in refs if p != child and p in tables]
        own: frozenset[str] | None = None
        for step in tool.steps:
            if step.kind == "require" and (required := required_states(step.sql or "")) and required[0] == "status":
                own = required[1]
        if not makes and (own is None or not own <= AWAITING):
            continue  # a row at rest, or in any state, says nothing of when it was made
        for parent, after in _required(tool, spec, binds, parents).items():
            if after and all(status_phase(v) == "after" for v in after):
                out.append(EventChild(child, refs[parent], parent, frozenset(after), None if makes else own, tool.name))
    # a row some tool makes under a parent in any state may predate the event, whatever the others require
    waiting = {c: {r.tool for r in out if r.child == c and r.states is None} for c in makers}
    whole = [r for r in out if r.states is not None or makers[r.child] <= waiting[r.child]]
    covered = {r.child for r in whole if r.states is None}
    return whole + [r for r in _kind_children(spec) if r.child not in covered]


def _past_event(states: set[str]) -> bool:
    return bool(states) and all(status_phase(v) == "after" for v in states)


def _kind_children(spec: EnvSpec) -> list[EventChild]:
    """Rows of one kind that only tools requiring the parent past its event make: a registration's
    score-report fee, posted by adding a score recipient to a scored registration, among payments
    that registering and cancelling post too."""
    tables = {t.name: t for t in spec.tables}
    made: dict[tuple[str, str, str], list[tuple[str, str, set[str]]]] = {}  # kind -> (tool, parent, after)
    for tool in spec.tools:
        binds = bound_tables(tool)
        # the state the tool leaves a parent in, where it moves it (reporting missing items credits the order)
        leaves = {m.table: m.state for m in status_moves(tool)}
        for step in tool.steps:
            if step.kind != "exec":
                continue
            for child, values in inserts(step.sql or ""):
                table = tables.get(child)
                if table is None:
                    continue
                statuses = {c.name for c in status_columns(table)}
                refs = {fk.table: col for fk in table.foreign_keys if (col := one_reference(table, fk.table))}
                parents = [p for p in refs if p != child and p in tables]
                required = _required(tool, spec, binds, parents)
                for column in table.columns:
                    value = values.get(column.name, "")
                    if column.enum and column.name not in statuses and (m := _LITERAL.match(value)):
                        found = [(p, {leaves[p]} if p in leaves else a) for p, a in required.items() if _past_event(a)]
                        made.setdefault((child, column.name, m[1]), []).append(
                            (tool.name, *found[0]) if len(found) == 1 else (tool.name, "", set())
                        )
    out = []
    for (child, kind, value), makers in made.items():
        held_by = {parent for _, parent, _ in makers}
        if len(held_by) == 1 and (parent := held_by.pop()):
            column_of = one_reference(tables[child], parent)
            after = frozenset(v for _, _, a in makers for v in a)
            tools = ", ".join(sorted({t for t, _, _ in makers}))
            if column_of is not None:
                out.append(EventChild(child, column_of, parent, after, None, tools, (kind, value)))
    return out


def event_ahead(
    spec: EnvSpec, table: TableSpec, row: Mapping[str, Any], rows: Mapping[str, list[dict[str, Any]]]
) -> bool:
    """Whether ``row``'s event date (its own or its parent's) is after the clock."""
    found = event_column(spec, table)
    if found is None:
        return False
    fk, column = found
    holder: Mapping[str, Any] | None = row
    if fk is not None:
        key = fk.references[0]
        holder = next((r for r in rows.get(fk.table, []) if r.get(key) == row.get(fk.columns[0])), None)
    value = holder.get(column.name) if holder is not None else None
    if not isinstance(value, str) or len(value) < 10:
        return False
    clock = spec.clock
    if len(value) == 10 or column.type == "date":
        return value[:10] > clock.strftime("%Y-%m-%d")
    return value[:19].replace("T", " ") > clock.strftime("%Y-%m-%d %H:%M:%S")


def happened(
    spec: EnvSpec, rule: EventChild, table: TableSpec, row: Mapping[str, Any], rows: Mapping[str, list[dict[str, Any]]]
) -> bool:
    """Whether the event of parent ``row`` has happened: its status one the tool requires, one the
    event leaves behind, or one the status column lists after those the tool requires (a rental
    returned after it was delivered) and not called off; its event date not after the clock."""
    statuses = status_columns(table)
    status = row.get(statuses[0].name) if statuses else None
    order = [str(v) for v in statuses[0].enum or ()] if statuses else []
    first = min((order.index(v) for v in rule.after if v in order), default=len(order))
    later = isinstance(status, str) and status in order[first:] and status not in CALLED_OFF
    return (status in rule.after or status_phase(status) == "after" or later) and not event_ahead(
        spec, table, row, rows
    )


def event_child_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[EventChild, dict[str, Any], bool]]:
    """(rule, child row, made before its parent's event) for every child row read, each row once."""
    tables = {t.name: t for t in spec.tables}
    seen: set[tuple[str, int]] = set()
    for rule in event_children(spec):
        key = tables[rule.parent].primary_key[0]
        parents = {r.get(key): r for r in rows.get(rule.parent, [])}
        statuses = status_columns(tables[rule.child])
        for row in rows.get(rule.child, []):
            if (rule.child, id(row)) in seen:
                continue
            own = row.get(statuses[0].name) if statuses else None
            parent = parents.get(row.get(rule.column))
            if parent is None or (rule.states is not None and own not in rule.states):
                continue
            if rule.kind is not None and row.get(rule.kind[0]) != rule.kind[1]:
                continue
            seen.add((rule.child, id(row)))
            yield rule, row, not happened(spec, rule, tables[rule.parent], parent, rows)


@dataclass
class EventChildCounts:
    """Child rows that follow their parent's event, and those under a parent whose event is ahead."""

    event_children_checked: int = 0
    children_before_event: int = 0


def children_before_event(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> EventChildCounts:
    """Measure 76 over ``rows`` (table -> rows; the seed by default) against ``spec.clock``."""
    out = EventChildCounts()
    for _, _, early in event_child_findings(spec, spec.seed if rows is None else rows):
        out.event_children_checked += 1
        out.children_before_event += early
    return out
