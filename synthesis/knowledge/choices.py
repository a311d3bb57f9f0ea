"""A knowledge-base write task the articles really decide: the customer asks for the action on each
of their records the current terms allow, and which those are only the rule's article says.

A copied write task names its record, and the rule allows the write: an agent that reads no article
(or follows another segment's looser terms) makes the same write and passes, so the article decides
nothing. Here the task's initial state (``initial_patch``) gives the customer two more records of
the kind, copies of the written one whose tested value the current rule refuses and the looser
distractor allows, one listed first and one last; the tools accept the write on each. Where it can, the
two are records of other customers listed just before and just after the customer's own, handed to the
customer with the refused value (an ``update`` patch): they keep their own ids, items, amounts and
dates, so nothing marks them as made for the task. Where that breaks an invariant or the tools refuse
the write on them, they are copies of the written record (an ``insert``) with ids before and after
every other. The request
names no record: the gold writes every listed record the tools accept and the current rule allows,
in listing order. Acting on the first, the last or every listed record, acting under a looser
segment's terms, or refusing under an archived edition's, ends in another state.

:func:`choice_task` returns None when the task cannot take that form (a record the user does not own
directly, a tested value no patched copy can carry, a gold with other writes); the caller then keeps
it as a plain write, tagged as no article's.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from envs.engine import Environment, Episode
from envs.errors import SpecError, ToolError
from envs.formats.spec import EnvSpec, TableSpec
from envs.formats.task import PatchOp, Task, ToolCall, UserProfile
from envs.grading.tested import column_named, details_tool, owner_and_column, owner_table

from ..tasks.phrasing import verb_phrase
from .articles import RulePlan
from .choice_rules import checklist, rule_allows
from .terms import Terms

_TIMED = ("after", "before", "last", "passed")


def _user_table(spec: EnvSpec) -> tuple[TableSpec, str] | None:
    """The customer's table and the email column its identity look-up takes."""
    for tool in spec.tools:
        if tool.name.startswith("find_") and tool.name.endswith("_by_email") and tool.required_params:
            email = tool.required_params[0]  # the one table keyed by it ("alumni" for find_alumnus_by_email)
            held = [t for t in spec.tables if any(c.name == email and c.unique for c in t.columns)]
            if len(held) == 1 and len(held[0].primary_key) == 1:
                return held[0], email
    return None


def _listed(episode: Episode, calls: list[ToolCall], key: str, value: Any) -> ToolCall | None:
    """The gold read whose result lists the written record: the customer's records of its kind."""
    for call in calls:
        try:
            result = episode.call_tool(call.tool, call.arguments, actor=call.actor).content
        except ToolError:
            continue
        if isinstance(result, list) and any(isinstance(r, dict) and r.get(key) == value for r in result):
            return call
    return None


def _new_ids(rows: list[dict[str, Any]], key: str, written: str) -> tuple[str, str] | None:
    """An id that sorts before every id of the table and one after, in the ids' own form ("TO0000",
    "TO0101"), so the copies are listed first and last."""
    m = re.fullmatch(r"([A-Za-z_-]*)(\d+)", written)
    if m is None:
        return None
    prefix, width = m[1], len(m[2])
    numbers = [
        int(n[len(prefix) :]) for r in rows if (n := str(r[key])).startswith(prefix) and n[len(prefix) :].isdigit()
    ]
    first, last = f"{prefix}{0:0{width}d}", f"{prefix}{max(numbers, default=0) + 1:0{width}d}"
    taken = {str(r[key]) for r in rows}
    return None if first in taken or last in taken or len(last) != len(written) else (first, last)


def _refused_value(
    episode: Episode, table: TableSpec, column: str, terms: Terms, wrong: Terms | None, now: datetime
) -> Any:
    """A value of ``column`` in the seed that the rule refuses and the looser terms allow."""
    for row in episode.query(f'SELECT DISTINCT "{column}" AS v FROM "{table.name}" ORDER BY 1'):
        value = row["v"]
        if value is None:
            continue
        if terms.allows(now, [str(value)]) is False and (wrong is None or wrong.allows(now, [str(value)]) is True):
            return value
    for value in next((c.enum or [] for c in table.columns if c.name == column), []):
        if terms.allows(now, [value]) is False and (wrong is None or wrong.allows(now, [value]) is True):
            return value
    return None


class _Shape:
    """Where the written record, its owner and the tested value are."""

    def __init__(self, spec: EnvSpec, call: ToolCall, terms: Terms) -> None:
        self.ok = False
        found = _user_table(spec)
        if found is None:
            return
        self.user, self.email = found
        user_key = self.user.primary_key[0]
        for t in spec.tables:
            if len(t.primary_key) != 1 or t.primary_key[0] not in call.arguments or t.name == self.user.name:
                continue
            fk = next((f for f in t.foreign_keys if f.table == self.user.name and f.references == [user_key]), None)
            if fk is not None and len(fk.columns) == 1:
                self.table, self.key, self.owner = t, t.primary_key[0], fk.columns[0]
                break
        else:
            return
        owner_words, words = owner_and_column(terms.subject)
        tested = owner_table(spec, owner_words)
        column = column_named(tested, words, terms.kind in _TIMED) if tested is not None else None
        if tested is None or column is None:
            return
        self.tested, self.column = tested, column
        # the tested value is the written record's own, or that of a record it references by one column
        if tested.name == self.table.name:
            self.via: str | None = None
        else:
            ref = next((f for f in self.table.foreign_keys if f.table == tested.name and len(f.columns) == 1), None)
            if ref is None:
                return
            self.via = ref.columns[0]
        self.ok = True


def _fresh(taken: set[str], value: str) -> str:
    """A value of a unique column in the same form as ``value`` that no row holds: its number moved on
    ("CN-48213" gives "CN-48214"), or a letter added."""
    m = re.fullmatch(r"(.*?)(\d+)", value)
    for n in range(1, 1000):
        candidate = f"{m[1]}{int(m[2]) + n:0{len(m[2])}d}" if m else f"{value}-{n}"
        if candidate not in taken:
            taken.add(candidate)
            return candidate
    raise ValueError(value)


def _copies(
    episode: Episode, shape: _Shape, row: dict[str, Any], value: Any, ids: tuple[str, str]
) -> list[dict[str, Any]]:
    tested = _tested_set(episode, shape, value)
    if tested is None:
        return []
    copies = [{**row, shape.key: i, **tested} for i in ids]
    unique = {c.name for c in shape.table.columns if c.unique} | {u[0] for u in shape.table.unique if len(u) == 1}
    for column in unique - {shape.key}:
        if row.get(column) is None:
            continue
        taken = {str(r["v"]) for r in episode.query(f'SELECT "{column}" AS v FROM "{shape.table.name}"')}
        for copy in copies:
            copy[column] = _fresh(taken, str(row[column]))
    return copies


def choice_task(spec: EnvSpec, task: Task, plan: RulePlan, index: int, now: datetime) -> Task | None:
    """``task`` (whose gold write ``index`` the rule of ``plan`` allows) as a request for every record
    of the kind the current terms allow, with two refused copies patched in; None when it cannot be."""
    env = Environment(spec)
    call = task.gold_actions[index]
    writes = [i for i, c in enumerate(task.gold_actions) if (t := spec.tool(c.tool)) is not None and t.kind == "write"]
    if plan.terms is None or writes != [index] or index != len(task.gold_actions) - 1:
        return None
    shape = _Shape(spec, call, plan.terms)
    if not shape.ok:
        return None
    episode = env.episode(task)
    try:
        reads = task.gold_actions[:index]
        listing = _listed(episode, reads, shape.key, call.arguments[shape.key])
        row = next(
            iter(
                episode.query(
                    f'SELECT * FROM "{shape.table.name}" WHERE "{shape.key}" = :k', {"k": call.arguments[shape.key]}
                )
            ),
            None,
        )
        value = _refused_value(episode, shape.tested, shape.column, plan.terms, plan.looser, now)
        ids = _new_ids(episode.dump(shape.table.name), shape.key, str(call.arguments[shape.key]))
        user = (
            episode.query(
                f'SELECT * FROM "{shape.user.name}" WHERE "{shape.user.primary_key[0]}" = :u', {"u": row[shape.owner]}
            )
            if row
            else []
        )
        copies = _copies(episode, shape, row, value, ids) if row and value is not None and ids else []
    finally:
        episode.close()
    if listing is None or not user or row is None:
        return None
    for patch, patched in _patches(env, task, shape, row, value, copies):
        draft = task.model_copy(update={"initial_patch": [*task.initial_patch, *patch]})
        try:  # a fresh engine: the first caches the task's initial state by id, without the patch
            made = _rewritten(Environment(spec), draft, shape, plan, call, listing, user[0], patched, now)
        except SpecError:  # the records break a constraint of the table (a unique pair, a check)
            continue
        if made is not None:
            return made
    return None


def _patches(
    env: Environment, task: Task, shape: _Shape, row: dict[str, Any], value: Any, copies: list[dict[str, Any]]
) -> list[tuple[list[PatchOp], list[str]]]:
    """The ways to give the customer two refused records, most natural first: other customers'
    records listed beside theirs, handed over as they are or with the written record's state, then
    copies of the written record."""
    out: list[tuple[list[PatchOp], list[str]]] = []
    if value is not None:
        episode = env.episode(task)
        try:
            near = _neighbours(episode.dump(shape.table.name), shape, row)
            tested = _tested_set(episode, shape, value)
            if near and tested is not None:
                states = {c.name: row[c.name] for c in shape.table.columns if c.enum or c.type == "boolean"}
                ids = [str(r[shape.key]) for r in near]
                for extra in ({}, states):
                    ops = [op for r in near for op in _handed_over(episode, env.spec, shape, row, r, extra | tested)]
                    out.append((ops, ids))
        finally:
            episode.close()
    if copies:
        out.append(([PatchOp(op="insert", table=shape.table.name, rows=copies)], [str(c[shape.key]) for c in copies]))
    return out


def _owned_by(spec: EnvSpec, shape: _Shape, table: TableSpec) -> str | None:
    """The column of ``table`` that names its customer, if it has one."""
    user_key = shape.user.primary_key[0]
    fk = next((f for f in table.foreign_keys if f.table == shape.user.name and f.references == [user_key]), None)
    return fk.columns[0] if fk is not None and len(fk.columns) == 1 else None


def _handed_over(
    episode: Episode, spec: EnvSpec, shape: _Shape, row: dict[str, Any], other: dict[str, Any], values: dict[str, Any]
) -> list[PatchOp]:
    """``other`` (another customer's record) made the customer's with ``values``: it hangs under the
    written record's own parents of the customer's (their vehicle, their account), and its children
    that name a customer name this one, so the invariants that tie them hold."""
    parents = {
        fk.columns[0]: row[fk.columns[0]]
        for fk in shape.table.foreign_keys
        if len(fk.columns) == 1
        and fk.table != shape.user.name
        and (parent := spec.table(fk.table)) is not None
        and _owned_by(spec, shape, parent) is not None
    }
    changes = {**values, **parents, shape.owner: row[shape.owner]}
    ops = [PatchOp(op="update", table=shape.table.name, where={shape.key: other[shape.key]}, set=changes)]
    moved: list[tuple[TableSpec, Any]] = [(shape.table, other[shape.key])]
    while moved:  # its children, their children …: each that names a customer names this one
        table, key = moved.pop()
        for child in spec.tables:
            owner = _owned_by(spec, shape, child)
            fk = next((f for f in child.foreign_keys if f.table == table.name and len(f.columns) == 1), None)
            if owner is None or fk is None or child.name == table.name or len(child.primary_key) != 1:
                continue
            pk = child.primary_key[0]
            for r in episode.query(f'SELECT "{pk}" AS k FROM "{child.name}" WHERE "{fk.columns[0]}" = :v', {"v": key}):
                ops.append(PatchOp(op="update", table=child.name, where={pk: r["k"]}, set={owner: row[shape.owner]}))
                moved.append((child, r["k"]))
    return ops


def _neighbours(rows: list[dict[str, Any]], shape: _Shape, row: dict[str, Any]) -> list[dict[str, Any]]:
    """Another customer's record listed just before the customer's first and one just after their
    last (ids of one form sort as listed), or none."""
    width = len(str(row[shape.key]))
    own = sorted(str(r[shape.key]) for r in rows if r[shape.owner] == row[shape.owner])
    others = sorted(
        (r for r in rows if r[shape.owner] != row[shape.owner] and len(str(r[shape.key])) == width),
        key=lambda r: str(r[shape.key]),
    )
    before = [r for r in others if str(r[shape.key]) < own[0]]
    after = [r for r in others if str(r[shape.key]) > own[-1]]
    return [before[-1], after[0]] if own and before and after else []


def _tested_set(episode: Episode, shape: _Shape, value: Any) -> dict[str, Any] | None:
    """The column values that give a record the refused tested ``value``."""
    if shape.via is None:
        return {shape.column: value}
    key = shape.tested.primary_key[0]
    target = episode.query(
        f'SELECT "{key}" AS k FROM "{shape.tested.name}" WHERE "{shape.column}" = :v ORDER BY 1', {"v": value}
    )
    return {shape.via: target[0]["k"]} if target else None


def patched_records(spec: EnvSpec, task: Task) -> list[tuple[str, Any]]:
    """The (table, key value) of each record a choice task's patch gives the customer, of the kind
    its last gold write acts on: the rows it inserts and the rows it hands over (not their children)."""
    written = task.gold_actions[-1].arguments if task.gold_actions else {}
    out: list[tuple[str, Any]] = []
    for op in task.initial_patch:
        table = spec.table(op.table)
        if table is None or len(table.primary_key) != 1 or table.primary_key[0] not in written:
            continue
        key = table.primary_key[0]
        if op.op == "insert":
            out += [(op.table, r[key]) for r in op.rows if key in r]
        elif op.op == "update" and set(op.where) == {key}:
            out.append((op.table, op.where[key]))
    return out


def _tested(episode: Episode, shape: _Shape, record: dict[str, Any]) -> str | None:
    if shape.via is None:
        value = record.get(shape.column)
    else:
        key = shape.tested.primary_key[0]
        rows = episode.query(
            f'SELECT "{shape.column}" AS v FROM "{shape.tested.name}" WHERE "{key}" = :k', {"k": record.get(shape.via)}
        )
        value = rows[0]["v"] if rows else None
    return None if value is None else str(value)


def _shown(spec: EnvSpec, shape: _Shape, written: list[dict[str, Any]], reads: list[ToolCall]) -> list[ToolCall]:
    """The reads that show the tested value of each record written, where the listing does not: the
    details of the record it references."""
    tool = details_tool(spec, shape.tested.name) if shape.via is not None else None
    if tool is None:
        return []
    key = shape.tested.primary_key[0]
    wanted = [ToolCall(tool=tool, arguments={key: r[shape.via]}) for r in written if shape.via is not None]
    out: list[ToolCall] = []
    for c in wanted:
        if c not in reads and c not in out:
            out.append(c)
    return out


def _accepts(env: Environment, task: Task | None, reads: list[ToolCall], call: ToolCall) -> bool:
    episode = env.episode(task)
    try:
        episode.replay(reads)
        episode.call_tool(call.tool, call.arguments)
        return True
    except ToolError:
        return False
    finally:
        episode.close()


def _rewritten(
    env: Environment,
    task: Task,
    shape: _Shape,
    plan: RulePlan,
    call: ToolCall,
    listing: ToolCall,
    user: dict[str, Any],
    ids: list[str],
    now: datetime,
) -> Task | None:
    assert plan.terms is not None
    reads = task.gold_actions[:-1]
    episode = env.episode(task)
    try:
        episode.replay(reads)
        listed = episode.call_tool(listing.tool, listing.arguments).content
        records = [r for r in listed if isinstance(r, dict)]
        verdicts = [(r, plan.terms.allows(now, [v]) if (v := _tested(episode, shape, r)) else None) for r in records]
        others = [
            r.text for r in env.spec.rules if r.tool == call.tool and r.enforced_by == "policy" and r.text != plan.text
        ]
        # the tool's other rules left to the policy, on each record the deciding rule allows
        held = {
            str(r[shape.key]): [
                rule_allows(env.spec, episode, text, {**call.arguments, shape.key: r[shape.key]}, now)
                for text in others
            ]
            for r, ok in verdicts
            if ok is True
        }
    finally:
        episode.close()
    if any(None in v and False not in v for v in held.values()):  # no rule refuses it, one cannot be applied
        return None
    if not records or str(records[0][shape.key]) != ids[0] or str(records[-1][shape.key]) != ids[-1]:
        return None
    calls = {
        str(r[shape.key]): call.model_copy(update={"arguments": {**call.arguments, shape.key: r[shape.key]}})
        for r in records
    }
    accepted = {k for k, c in calls.items() if _accepts(env, task, reads, c)}
    allowed = [
        k
        for r, ok in verdicts
        if ok is True and (k := str(r[shape.key])) in accepted and all(v is True for v in held[k])
    ]
    refused = [str(r[shape.key]) for r, ok in verdicts if ok is False and str(r[shape.key]) in accepted]
    if str(call.arguments[shape.key]) not in allowed or not set(ids) <= set(refused):
        return None
    gold = [*reads, *_shown(env.spec, shape, [r for r in records if str(r[shape.key]) in allowed], reads)]
    gold += [calls[k] for k in allowed]
    assertions = checklist(env, task, reads, gold, (shape.table.name, shape.key), refused)
    if assertions is None:
        return None
    noun = shape.table.name.replace("_", " ")
    verb = call.tool.removesuffix("_" + shape.table.name.removesuffix("s")).removesuffix("_" + shape.table.name)
    email = str(user[shape.email])
    asked = verb_phrase(verb, f"each of my {noun}")
    # what only the customer can say (a new time, a description) is said, the same for each record
    said = [(k, v) for k, v in call.arguments.items() if k not in (shape.key, shape.user.primary_key[0])]
    details = "; ".join(f"the {k.replace('_', ' ')}: {v}" for k, v in said)
    return task.model_copy(
        update={
            "instruction": f"Hi, my email is {email}. Could you {asked} that your current terms allow"
            + (f", with {details} for each" if said else "")
            + "? I'm not sure which of them qualify; leave the others as they are.",
            "user": UserProfile(
                persona=task.user.persona,
                known_facts=[
                    f"My email is {email}.",
                    f"I want each of my {noun} that the current terms allow handled, and no other; "
                    "I don't know which ones qualify.",
                    *([f"For each, {details}."] if said else []),
                ],
            ),
            "gold_actions": gold,
            "assertions": assertions,
            "outputs": [],
            "distractors": [],
            "refusals": [],
            "expects_change": True,
            "answer": None,
        }
    )


def more_choices(spec: EnvSpec, template: Task, plan: RulePlan, index: int, now: datetime) -> list[tuple[Task, int]]:
    """Choice tasks like ``template``'s (whose gold write ``index`` the rule of ``plan`` allows) for the
    other customers: a record of the kind the rule allows, once
    per customer, the gold re-addressed to them (``template``'s article reads, their identity look-up,
    their listing, the write), each with the index of its write on the record picked; ids and tags are
    the caller's."""
    call = template.gold_actions[index]
    if plan.terms is None:
        return []
    shape = _Shape(spec, call, plan.terms)
    if not shape.ok:
        return []
    env = Environment(spec)
    base = env.episode()
    try:
        rows = base.dump(shape.table.name)
        users = {r[shape.user.primary_key[0]]: r for r in base.dump(shape.user.name)}
        mine = next((r for r in rows if r[shape.key] == call.arguments.get(shape.key)), None)
        owner = users.get(mine[shape.owner]) if mine else None
        lookup = next(
            (c for c in template.gold_actions[:index] if owner and c.arguments == {shape.email: owner[shape.email]}),
            None,
        )
        listing = _listed(base, template.gold_actions[:index], shape.key, call.arguments[shape.key])
        rules = [r.text for r in spec.rules if r.tool == call.tool and r.enforced_by == "policy"]
        user_key = shape.user.primary_key[0]
        picked: list[dict[str, Any]] = []
        for row in rows:
            held = row[shape.owner]
            if held in {r[shape.owner] for r in picked}:
                continue
            args = {
                k: row[shape.key] if k == shape.key else held if k == user_key else v for k, v in call.arguments.items()
            }
            # every rule left to the policy allows it (the deciding one among them), and the tool takes it
            if all(rule_allows(spec, base, text, args, now) is True for text in rules) and _accepts(
                env, None, [], call.model_copy(update={"arguments": args})
            ):
                picked.append(row)
    finally:
        base.close()
    if owner is None or lookup is None or listing is None:
        return []
    articles = template.gold_actions[: template.gold_actions.index(lookup)]
    out = []
    for row in picked:
        swap = {owner[user_key]: row[shape.owner], call.arguments[shape.key]: row[shape.key]}

        def moved(c: ToolCall, swap: dict[Any, Any] = swap) -> ToolCall:
            return c.model_copy(update={"arguments": {k: swap.get(v, v) for k, v in c.arguments.items()}})

        email = users[row[shape.owner]][shape.email]
        gold = [*articles, lookup.model_copy(update={"arguments": {shape.email: email}}), moved(listing), moved(call)]
        draft = template.model_copy(
            update={"id": f"{template.id}-{row[shape.key]}", "gold_actions": gold, "initial_patch": []}
        )
        made = choice_task(spec, draft, plan, len(gold) - 1, now)
        if made is not None:
            out.append((made, made.gold_actions.index(moved(call))))
    return out
