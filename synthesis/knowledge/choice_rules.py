"""What a choice task's gold may write and what its checklist states (:mod:`.choices`): the rules a
tool leaves to the policy applied to one record, and the assertions written from the gold's changes.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from envs.engine import Environment, Episode
from envs.errors import ToolError
from envs.formats.spec import EnvSpec
from envs.formats.task import Assertion, Task, ToolCall
from envs.grading.decidable import decide
from envs.grading.tested import column_named, owner_and_column, owner_table, record_lookup

from ..tasks.checklist import condition
from .terms import read_terms

_TIMED = ("after", "before", "last", "passed")

_MARKED = re.compile(r"^(?P<owner>.+?) must (?P<neg>not )?be marked (?P<column>[a-z ]+)$")


def rule_allows(spec: EnvSpec, episode: Episode, text: str, args: dict[str, Any], now: datetime) -> bool | None:
    """Whether the rule ``text`` allows the write with ``args``: its terms (:mod:`.terms`), "… must be in
    the future" or "… must (not) be marked <flag>" applied to the value the call reaches; None when
    the words are none of those or the value is out of reach."""
    marked = _MARKED.match(text)
    terms = None if marked else read_terms(text)  # "must be marked …" reads as a status otherwise
    if marked is not None:
        owner_words, column = marked["owner"].removeprefix("the "), marked["column"].replace(" ", "_")
    else:
        owner_words, column = owner_and_column((terms.subject if terms else None) or text.split(" must ")[0])
    table = owner_table(spec, owner_words)
    timed = terms is None or terms.kind in _TIMED
    name = column_named(table, column, timed) if table is not None else None
    lookup = record_lookup(spec, table, name, args) if table is not None and name else None
    rows = episode.query(*lookup) if lookup else []
    if len(rows) != 1 or rows[0]["v"] is None:
        return None
    value = rows[0]["v"]
    if terms is not None:
        return terms.allows(now, [str(value)])
    if marked is not None:
        return bool(value) is not bool(marked["neg"])
    return decide(text, now, str(value))  # "must be in the future", and any other time rule it reads


def checklist(
    env: Environment,
    task: Task,
    reads: list[ToolCall],
    gold: list[ToolCall],
    written: tuple[str, str],
    refused: list[str],
) -> list[Assertion] | None:
    """What the gold changes, row by row (from the state after ``reads``), and that each ``refused``
    record of the ``written`` (table, key) keeps what the gold's writes change on that table; None
    when the gold fails, breaks an invariant or reaches a refused record too."""
    table, pk = written
    tables = [t for t in env.spec.tables if len(t.primary_key) == 1 and not t.full_text]
    before, after = env.episode(task), env.episode(task)
    try:
        before.replay(reads)
        try:
            after.replay(gold)
            # the copies keep the environment's invariants (a customer's count of open records, a
            # record's customer the one of the record it belongs to), before the gold and after it
            if any(after.query(inv.violations) or before.query(inv.violations) for inv in env.spec.invariants):
                return None
        except ToolError:
            return None
        out: list[Assertion] = []
        changed_columns: set[str] = set()
        for t in tables:
            key = t.primary_key[0]
            old = {r[key]: r for r in before.dump(t.name)}
            for r in after.dump(t.name):
                prior = old.get(r[key])
                if prior is None:
                    cols = [c for c in r if c != key and r[c] is not None]
                    where = " AND ".join(condition(c, r[c]) for c in cols)
                    sql = f'SELECT count(*) >= 1 FROM "{t.name}" WHERE {where}'
                    out.append(Assertion(description=f"A new {t.name.replace('_', ' ')} record is added", sql=sql))
                    continue
                for c, v in r.items():
                    if v != prior[c]:
                        if t.name == table:
                            changed_columns.add(c)
                        sql = f'SELECT count(*) = 1 FROM "{t.name}" WHERE "{key}" = \'{r[key]}\' AND {condition(c, v)}'
                        out.append(Assertion(description=f"The {c.replace('_', ' ')} of {r[key]}", sql=sql))
        rows = {r[pk]: r for r in before.dump(table)}
        now_rows = {r[pk]: r for r in after.dump(table)}
        if any(rows[k] != now_rows.get(k) for k in refused):  # the gold's writes reach them too
            return None
        for k in refused:
            for c in sorted(changed_columns):
                where = f"\"{pk}\" = '{k}' AND {condition(c, rows[k][c])}"
                sql = f'SELECT count(*) = 1 FROM "{table}" WHERE {where}'
                out.append(
                    Assertion(description=f"{k} keeps its {c.replace('_', ' ')}: the current terms refuse it", sql=sql)
                )
    finally:
        before.close()
        after.close()
    return out or None
