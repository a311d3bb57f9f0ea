"""Tools whose effect or check disagrees with the environment's own rules (measure 50, docs/synthesis.md):

* **children left live** — a tool ends a parent (its event ``cancelled``) while children stay in a
  state that another tool lets them reach only while the parent is in other states (a catering order
  ``submitted`` only while its event is ``confirmed``: the submitting tool's check on the event's
  status), and that a tool still acts on. Read on the engine: the tool is called on every seed parent
  it accepts that has such a child, and a child still in that state afterwards counts;
* **a flag checked instead of its rows** — a tool checks a parent's column (the vehicle's
  ``availability`` is ``available``) that another tool sets to another value when it inserts a child
  (placing a hold marks the vehicle ``on_hold``), and never reads the children's table: a flag out of
  step with its rows lets a second hold in;
* **payments of nothing** — a payment tool (its name says so: a refund of a deposit is none) records
  a row of a record's amount and sets that amount to 0 (pays a bill's whole amount due): called on a
  seed record in a state it accepts whose amount is made 0, a call that goes through has recorded a
  payment of nothing and paid the record again.

Read from the generated tools' SQL shapes (``UPDATE "t" SET status = 'x' WHERE t_id = :t_id``; a
``require`` on ``:ref_<name>.<column>`` beside the query that binds ``ref_<name>``); a catalog whose
tools are written otherwise counts nothing checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..engine import Environment
from ..errors import EnvFarmError
from ..formats.spec import EnvSpec, ToolSpec
from ..formats.task import PatchOp

_MOVE = re.compile(r'^\s*UPDATE\s+"?(\w+)"?\s+SET\s+"?(\w+)"?\s*=\s*\'(\w+)\'\s+WHERE\s+(\w+)\s*=\s*:(\w+)\s*$', re.I)
_FROM = re.compile(r'\bFROM\s+"?(\w+)"?', re.I)
_REF_TEST = re.compile(r"^\s*SELECT\s+:(ref_\w+)\.(\w+)\s+(?:IS|IN)\s+\(?((?:'\w+'(?:,\s*)?)+)\)?\s*$", re.I)
_OWN_STATES = re.compile(r"^\s*SELECT\s+:rec\.(\w+)\s+IN\s+\(((?:'\w+'(?:,\s*)?)+)\)\s*$", re.I)
_INSERT = re.compile(r'^\s*INSERT\s+INTO\s+"?(\w+)"?', re.I)
_STATED = re.compile(r"\bmust be (?:one of )?([\w ,]+?)\.?$")
_ZEROED = re.compile(r'^\s*UPDATE\s+"?(\w+)"?\s+SET\s+"?(\w+)"?\s*=\s*0\s+WHERE\s+(\w+)\s*=\s*:(\w+)\s*$', re.I)


@dataclass
class EffectCounts:
    """Measure 48: tools checked and those whose effect or check disagrees with the rules."""

    parent_moves_checked: int = 0
    parent_moves_leaving_children_live: int = 0
    children_left_live: int = 0
    flag_checks: int = 0
    flag_checks_without_rows: int = 0
    whole_payments_checked: int = 0
    whole_payments_of_nothing: int = 0


def _is_status(column: str) -> bool:
    return column == "status" or column.endswith("_status")


def _literals(text: str) -> set[str]:
    return set(re.findall(r"'(\w+)'", text))


def _bound_tables(tool: ToolSpec) -> dict[str, str]:
    """Query binding -> the table it reads (``ref_event_booking`` -> ``event_bookings``)."""
    out = {}
    for step in tool.steps:
        bind = getattr(step, "bind", None)
        if step.kind == "query" and bind and (m := _FROM.search(step.sql)):
            out[bind] = m.group(1)
    return out


def _moves(tool: ToolSpec) -> list[tuple[str, str, str]]:
    """(table, column, state) of the tool's UPDATEs that set a fixed state on one record by its key."""
    return [
        (m.group(1), m.group(2), m.group(3))
        for s in tool.steps
        if s.kind == "exec" and (m := _MOVE.match(s.sql)) and m.group(4) == m.group(5)
    ]


def _parent_tests(tool: ToolSpec) -> list[tuple[str, str, set[str]]]:
    """(parent table, column, allowed values) of the tool's checks on a record it reads by reference."""
    tables = _bound_tables(tool)
    out = []
    for s in tool.steps:
        if s.kind == "require" and (m := _REF_TEST.match(s.sql)) and m.group(1) in tables:
            out.append((tables[m.group(1)], m.group(2), _literals(m.group(3))))
    return out


def _acted_on(tool: ToolSpec) -> tuple[str, str, set[str]] | None:
    """(table, status column, states) a tool acts on its record in (``:rec.status IN (...)``)."""
    table = _bound_tables(tool).get("rec")
    for s in tool.steps:
        if table and s.kind == "require" and (m := _OWN_STATES.match(s.sql)):
            return table, m.group(1), _literals(m.group(2))
    return None


def _reads(tool: ToolSpec, table: str) -> bool:
    """Whether a check or query of the tool reads ``table`` (its own inserts do not count)."""
    return any(
        s.kind in ("query", "require") and table in (m.group(1) for m in _FROM.finditer(s.sql)) for s in tool.steps
    )


def _arguments(tool: ToolSpec, row: dict[str, Any]) -> dict[str, Any] | None:
    """A call of ``tool`` on ``row``: its columns by name, ``confirm`` true; None when the tool needs
    a value the row does not hold."""
    props: dict[str, Any] = tool.parameters.get("properties", {})
    args: dict[str, Any] = {}
    for name in tool.parameters.get("required", []):
        if name in row and row[name] is not None:
            args[name] = row[name]
        elif name == "confirm":
            args[name] = True
        elif "enum" in props.get(name, {}):
            args[name] = props[name]["enum"][0]
        elif props.get(name, {}).get("type") == "string" and "pattern" not in props[name]:
            args[name] = "Requested by the customer"
        else:
            return None
    return args


def _table_key(spec: EnvSpec, table: str) -> str | None:
    t = next((t for t in spec.tables if t.name == table), None)
    return t.primary_key[0] if t is not None and len(t.primary_key) == 1 else None


def _stated_parent_tests(spec: EnvSpec, tool: ToolSpec, child: str) -> list[tuple[str, str, set[str]]]:
    """(parent table, status column, states) of the rules of ``tool`` that say a parent of ``child`` must be
    in some states ("the event booking must be confirmed"), checked by the tool or left to the policy."""
    out = []
    for rule in spec.rules:
        m = _STATED.search(rule.text) if rule.tool == tool.name else None
        if m is None:
            continue
        values = {v.strip().replace(" ", "_") for v in re.split(r",\s*|\s+or\s+", m.group(1)) if v.strip()}
        table = next((t for t in spec.tables if t.name == child), None)
        for fk in table.foreign_keys if table is not None else []:
            parent = next((t for t in spec.tables if t.name == fk.table and t.name != child), None)
            if parent is None:
                continue
            for col in parent.columns:
                if _is_status(col.name) and col.enum and values <= set(col.enum):
                    out.append((parent.name, col.name, values))
    return out


def _child_rules(spec: EnvSpec) -> list[tuple[str, str, str, str, set[str]]]:
    """(child table, status column, state, parent table, parent states it needs) of every tool that moves a
    child into a state only while its parent is in some states, where a tool still acts on that state."""
    acted = {(a[0], a[1], s) for t in spec.tools if (a := _acted_on(t)) for s in a[2]}
    rules = []
    for tool in spec.tools:
        for table, column, state in _moves(tool):
            if (table, column, state) not in acted:
                continue
            for parent, parent_column, allowed in [*_parent_tests(tool), *_stated_parent_tests(spec, tool, table)]:
                rule = (table, column, state, parent, allowed)
                if parent != table and _is_status(parent_column) and rule not in rules:
                    rules.append(rule)
    return rules


def _children_left_live(env: Environment, counts: EffectCounts) -> None:
    spec = env.spec
    rules = _child_rules(spec)
    for tool in spec.tools:
        acted = _acted_on(tool)
        for parent, column, state in _moves(tool):
            key = _table_key(spec, parent)
            live = [r for r in rules if r[3] == parent and state not in r[4]]
            if not live or key is None or acted is None or acted[0] != parent:
                continue
            counts.parent_moves_checked += 1
            left = 0
            for child, child_column, child_state, _, _ in live:
                ref = _reference(spec, child, parent)
                if ref is None:
                    continue
                for row in spec.seed.get(parent, []):
                    kids = [k for k in spec.seed.get(child, []) if k.get(ref) == row[key]]
                    waiting = [k for k in kids if k.get(child_column) == child_state]
                    args = _arguments(tool, row)
                    if not waiting or row.get(column) not in acted[2] or args is None:
                        continue
                    episode = env.episode()
                    try:
                        episode.call_tool(tool.name, args)
                    except EnvFarmError:
                        continue
                    else:
                        after = episode.query(
                            f'SELECT count(*) AS n FROM "{child}" WHERE "{ref}" = :id AND "{child_column}" = :s',
                            {"id": row[key], "s": child_state},
                        )
                        left += after[0]["n"]
                    finally:
                        episode.close()
            counts.children_left_live += left
            counts.parent_moves_leaving_children_live += bool(left)


def _reference(spec: EnvSpec, child: str, parent: str) -> str | None:
    table = next((t for t in spec.tables if t.name == child), None)
    if table is None:
        return None
    return next((fk.columns[0] for fk in table.foreign_keys if fk.table == parent and len(fk.columns) == 1), None)


def _flag_checks(spec: EnvSpec, counts: EffectCounts) -> None:
    """Checks on a parent's column that a child's insert sets, by tools that never read the children."""
    marks: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (parent, column) -> (child, value set)
    for tool in spec.tools:
        inserted = [m.group(1) for s in tool.steps if s.kind == "exec" and (m := _INSERT.match(s.sql))]
        own = _bound_tables(tool).get("rec")
        for parent, column, value in _moves(tool):
            if parent == own:  # a record's own move that also records a row (a refund) marks nothing
                continue
            for child in inserted:
                if _reference(spec, child, parent) is not None:
                    marks.setdefault((parent, column), []).append((child, value))
    for tool in spec.tools:
        for parent, column, allowed in _parent_tests(tool):
            children = {child for child, value in marks.get((parent, column), []) if value not in allowed}
            if not children:
                continue
            counts.flag_checks += 1
            counts.flag_checks_without_rows += not all(_reads(tool, child) for child in children)


def _whole_payments(env: Environment, counts: EffectCounts) -> None:
    """Pay-the-whole tools called on a record whose amount is made 0: one that goes through pays nothing."""
    spec = env.spec
    for tool in (t for t in spec.tools if "pay" in t.name and "refund" not in t.name):
        acted = _acted_on(tool)
        inserts = " ".join(s.sql for s in tool.steps if s.kind == "exec" and _INSERT.match(s.sql))
        for s in tool.steps:
            m = _ZEROED.match(s.sql) if s.kind == "exec" else None
            if m is None or acted is None or m.group(1) != acted[0] or f":rec.{m.group(2)}" not in inserts:
                continue
            table, column, key = m.group(1), m.group(2), m.group(3)
            rows = [r for r in spec.seed.get(table, []) if r.get(acted[1]) in acted[2] and _arguments(tool, r)]
            if not rows:
                continue
            counts.whole_payments_checked += 1
            episode = env.episode()
            try:
                episode.apply_patch([PatchOp(op="update", table=table, where={key: rows[0][key]}, set={column: 0})])
                args = _arguments(tool, rows[0])
                assert args is not None
                episode.call_tool(tool.name, args)
            except EnvFarmError:
                continue
            else:
                counts.whole_payments_of_nothing += 1
            finally:
                episode.close()


def effect_counts(env: Environment) -> EffectCounts:
    """Measure 48 for one environment."""
    counts = EffectCounts()
    _children_left_live(env, counts)
    _flag_checks(env.spec, counts)
    _whole_payments(env, counts)
    return counts
