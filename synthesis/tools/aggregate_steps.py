"""Tools keep the domain's aggregates (``Entity.aggregates``): a write tool that adds, removes or changes
a child a sum or count reads (posting a payment, paying a fine, adding an expense item), or a value a
difference reads, also sets the parent's value, in the same call.

Each such tool gets one ``exec`` step per relation it may break, after its own writes: an UPDATE
that sets the parent rows whose value no longer follows from their records (none, where the tool's
own effects already kept it). Sums come before the differences that read them. One invariant per
relation (``<table>_<attribute>_adds_up``) states it for ``check_env`` and the quality report.
"""

from __future__ import annotations

import re
from typing import Any

from envs.engine.compile import quote_ident

from ..domains.aggregates import Relation, relations, sentence
from ..domains.domain import Domain
from ..domains.sqlgen import pk

#: The suffix of an aggregate's invariant (read by the quality report, ``envs.quality.relations``).
INVARIANT_SUFFIX = "_adds_up"
_WRITES = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)"?', re.IGNORECASE)


def _writes(tool: dict[str, Any]) -> list[tuple[str, str]]:
    """(table, statement) of each of a tool's ``exec`` steps."""
    return [(m.group(1), s["sql"]) for s in tool["steps"] if s["kind"] == "exec" and (m := _WRITES.match(s["sql"]))]


def may_break(rel: Relation, writes: list[tuple[str, str]]) -> bool:
    """Whether statements may break ``rel``: any write of the child's table, an insert into the parent's,
    or an update of the parent's that names a column the relation reads or sets."""
    read = {rel.column, *(rel.aggregate.operands if rel.aggregate.kind == "difference" else ())}
    for table, sql in writes:
        if rel.child is not None and table == rel.child.table:
            return True
        if table == rel.table and (
            not sql.lstrip().upper().startswith("UPDATE") or read & set(re.findall(r"\w+", sql))
        ):
            return True
    return False


def recompute_step(rel: Relation) -> dict[str, Any]:
    """The UPDATE that sets ``rel``'s attribute on every row where it no longer holds."""
    table = quote_ident(rel.table)
    return {
        "kind": "exec",
        "sql": f"UPDATE {table} SET {rel.column} = {rel.expression(table)} WHERE {rel.broken(table)}",
    }


def keep_aggregates(domain: Domain, tools: list[dict[str, Any]]) -> int:
    """Add the steps that keep every relation to the write tools that may break it (in place). Returns
    the number of tools changed."""
    found = relations(domain)
    changed = 0
    for tool in tools:
        if tool["kind"] != "write" or not found:
            continue
        writes = _writes(tool)
        steps = []
        for rel in found:  # in order: a sum, once set, may feed a difference
            if may_break(rel, writes):
                steps.append(recompute_step(rel))
                writes.append((rel.table, steps[-1]["sql"]))
        if steps:
            last = max(i for i, s in enumerate(tool["steps"]) if s["kind"] == "exec")
            tool["steps"][last + 1 : last + 1] = steps
            changed += 1
    return changed


def aggregate_invariants(domain: Domain) -> list[dict[str, Any]]:
    """One invariant per relation: the parent rows whose value does not follow from their records."""
    out = []
    for rel in relations(domain):
        name = f"{rel.table}_{rel.column}{INVARIANT_SUFFIX}"
        if len(name) > 64:
            name = f"{rel.table[: 64 - len(rel.column) - len(INVARIANT_SUFFIX) - 1]}_{rel.column}{INVARIANT_SUFFIX}"
        out.append(
            {
                "name": name,
                "description": sentence(rel),
                "violations": f"SELECT p.{pk(rel.entity)}, p.{rel.column} FROM {quote_ident(rel.table)} AS p "
                f"WHERE {rel.broken('p')}",
            }
        )
    return out


def aggregate_policy_lines(domain: Domain) -> list[str]:
    """What the policy says of the values the system keeps: one sentence per relation."""
    return [sentence(rel) for rel in relations(domain)]
