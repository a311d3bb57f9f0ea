"""Score an episode's final state against a task, without any LLM.

The expected state is what the task's gold actions produce from its initial state (replayed once
per task and cached). States are compared only over tables either side changed, after
normalization: rows keyed by primary key, JSON compared parsed, floats with a relative tolerance,
ignored columns dropped. See docs/formats.md, "Scoring", for the reward and partial-credit formulas.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..engine import Environment, Episode
from ..errors import SpecError, ToolError
from ..formats.task import Refusal, Task, ToolCall
from .answers import claimed, prose, says_no, without_general_rules, worded
from .everyday import spec_readings
from .hedges import hedged_statuses
from .labels import (
    is_label,
    label_named,
    value_stated,
    without_denied,
    without_denied_lists,
    without_excluded,
    without_superseded,
    without_user_words,
)
from .outputs import Reading
from .reassurance import refusal_gives_reason, without_kept_status
from .reports import acted_on, call_ids, required_values, turned_down
from .restating import (
    MAX_RESTATED,
    AnswerContext,
    allowing_states,
    dumped_records,
    named_rivals,
    reason_labels,
    restated,
    rivals,
    shown_values,
    states_status,
    weighed_against,
)
from .tied import bare_numbers, other_records_statuses, record_names
from .unasked import offered_payments, refused_key, reminders, unasked_figures
from .written import denied_writes, old_values, stated_as_current

FLOAT_REL_TOL = 1e-6
#: How many statuses of a status reason's own column, shown by no tool, an answer must name beside
#: the reason to leave unsaid which one stops the request (one shown by a tool is a rival alone).
MIN_LISTED_RIVALS = 2
#: Checklist kinds that read the final answer; together they make the ``outputs`` component.
ANSWER_CHECKS = ("output", "distractor", "refusal", "report")

Row = dict[str, Any]
Key = tuple[Any, ...]


class ColumnChange(BaseModel):
    """One column of one row that differs."""

    column: str
    expected: Any
    actual: Any


class ChangedRow(BaseModel):
    """A row present on both sides whose columns differ."""

    key: dict[str, Any]
    columns: list[ColumnChange]


class TableDiff(BaseModel):
    """How one table differs from what was expected."""

    table: str
    missing: list[Row] = []
    extra: list[Row] = []
    changed: list[ChangedRow] = []

    @property
    def empty(self) -> bool:
        return not (self.missing or self.extra or self.changed)


class CheckResult(BaseModel):
    """One checklist item and whether it holds: an ``assertion`` on the final state, or a check of
    the answer: a required ``output`` stated, a ``distractor`` not stated, a ``refusal`` said."""

    kind: str
    description: str
    passed: bool
    error: str | None = None


class Score(BaseModel):
    """The verdict on an episode.

    Attributes:
        reward: 1.0 if every component in the task's reward basis holds, else 0.0.
        partial_credit: share of checklist items and expected row changes achieved, minus
            unexpected row changes, in [0, 1].
        components: each reward component's value (state, outputs, assertions).
        diff: per changed table, rows missing / extra / changed column by column.
        renamed_ids: the agent's generated ids read as the gold run's (see ``score_episode``); the
            diff, checklist and answer are judged under this renaming. Empty when none was needed.
    """

    task_id: str
    reward: float
    partial_credit: float
    components: dict[str, float]
    checklist: list[CheckResult]
    expected_changes: int
    achieved_changes: int
    unexpected_changes: int
    diff: list[TableDiff]
    renamed_ids: dict[str, str] = {}

    def explain(self) -> str:
        """A few readable lines: what failed and how."""
        lines = [f"task {self.task_id}: reward {self.reward:.2f}, partial credit {self.partial_credit:.2f}"]
        if self.renamed_ids:
            pairs = ", ".join(f"{old} as {new}" for old, new in sorted(self.renamed_ids.items()))
            lines.append(f"  generated ids read as the gold run's: {pairs}")
        lines += [
            f"  [{c.kind}] not satisfied: {c.description}" + (f" ({c.error})" if c.error else "")
            for c in self.checklist
            if not c.passed
        ]
        for d in self.diff:
            lines += [f"  {d.table}: missing row {json.dumps(r, default=str)}" for r in d.missing]
            lines += [f"  {d.table}: unexpected row {json.dumps(r, default=str)}" for r in d.extra]
            for ch in d.changed:
                cols = "; ".join(f"{c.column}: expected {c.expected!r}, got {c.actual!r}" for c in ch.columns)
                lines.append(f"  {d.table} {ch.key}: {cols}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Expected:
    """A task's expected outcome, computed once per task.

    Attributes:
        image: the state after the gold actions.
        results: what each gold action returned.
        rows: for every row the gold actions touched, keyed by (table, primary key): the
            (expected row, initial row) pair, either of which may be None (inserted / deleted).
    """

    image: bytes
    results: list[Any]
    rows: dict[tuple[str, Key], tuple[Row | None, Row | None]]
    generated: dict[str, set[str]]

    @property
    def written_tables(self) -> set[str]:
        return {t for t, _ in self.rows}


_expected_cache: weakref.WeakKeyDictionary[Environment, dict[str, Expected]] = weakref.WeakKeyDictionary()


def expected_outcome(env: Environment, task: Task) -> Expected:
    """Replay the task's gold actions on a fresh episode (once per task; cached).

    Raises:
        SpecError: a gold action fails — the task is broken, not the agent.
    """
    per_env = _expected_cache.setdefault(env, {})
    hit = per_env.get(task.id)
    if hit is not None:
        return hit
    ep = env.episode(task)
    initial = env.episode(task)
    try:
        results = []
        for i, call in enumerate(task.gold_actions):
            try:
                results.append(ep.call_tool(call.tool, call.arguments, actor=call.actor).content)
            except ToolError as exc:
                raise SpecError(f"gold action {i} ({call.tool}) fails: {exc}", source=f"task {task.id}") from exc
        rows: dict[tuple[str, Key], tuple[Row | None, Row | None]] = {}
        for table, keys in ep.changed_keys().items():
            after, before = ep.rows_by_key(table, keys), initial.rows_by_key(table, keys)
            rows.update({(table, k): (after[k], before[k]) for k in keys})
        out = Expected(image=ep.serialize(), results=results, rows=rows, generated=ep.generated_ids())
    finally:
        ep.close()
        initial.close()
    per_env[task.id] = out
    return out


def _normalize(row: Row | None, types: Mapping[str, str]) -> Row | None:
    """Drop ignored columns (absent from ``types``) and parse JSON columns."""
    if row is None:
        return None
    out = {}
    for col, typ in types.items():
        value = row.get(col)
        if typ == "json" and isinstance(value, str):
            try:
                value = json.loads(value)
            except (ValueError, RecursionError):  # nested too deep to read: compared as text
                pass
        out[col] = value
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int) and (isinstance(a, float) or isinstance(b, float)):
        return math.isclose(a, b, rel_tol=FLOAT_REL_TOL, abs_tol=1e-9)
    return bool(a == b)


def _row_equal(a: Row | None, b: Row | None) -> bool:
    if a is None or b is None:
        return a is b
    return all(_same(a[c], b[c]) for c in a)


def _check_list(task: Task, episode: Episode, answer: str, env: Environment, expected: Expected) -> list[CheckResult]:
    checklist: list[CheckResult] = []
    for a in task.assertions:
        try:
            rows = episode.query(a.sql)
            passed = bool(rows) and bool(next(iter(rows[0].values())))
            checklist.append(CheckResult(kind="assertion", description=a.description, passed=passed))
        except ToolError as exc:
            checklist.append(CheckResult(kind="assertion", description=a.description, passed=False, error=str(exc)))
    # a value said only as left out of the answer ("the cancelled $136.07 isn't included") is not given
    said = Reading(prose(without_excluded(answer)), today=env.spec.clock.date())
    # an output found only in a record read out whole was not picked out of it; the answer itself and
    # what the user named the record by are no reading out
    user = "\n".join([task.instruction, *task.user.known_facts, *task.user.reveal_if_asked])
    reads = AnswerContext.of(env.spec, task, expected.results).reads if task.outputs else []
    # what the task did (its writes, what its assertions check) the answer reports, and the records it
    # did it to it describes: the flight booked, by route, day, miles and taxes
    reported = [*task.outputs, *required_values(env, task, expected.results)] if task.outputs else []
    acted = acted_on(env, task, expected.results)
    dumped = dumped_records(answer, reads, reported, user, names=call_ids(task), acted_on=acted) if task.outputs else []
    writes = [c for c in task.gold_actions if env.tools[c.tool].kind == "write"]
    refused = None
    if not task.refusals and writes:
        # where the writes were made, an answer that says they were not ("I can't do that", "I wasn't
        # able to add the liftgate") misreports them, hand-overs included; the user's own writes are
        # theirs to do, so only a bare turn-down denies those
        refused = denied_writes(answer, [c.tool for c in writes if c.actor != "user"])
    elif not task.refusals and task.outputs:
        refused = turned_down(answer)
    plainly = Reading(prose(without_excluded(answer)))  # "today" says no record's date: only a value written out does
    # "$40, not $50" does not state $50, nor "from $50 to $40" (of the asked $40): what it was
    # nor does it state what it restates of the user's own words ("your order delivered on January 3")
    kept = without_superseded(without_user_words(plainly.text, user), task.outputs)
    # an asked value the writes changed: what it was before them is said as what it was, or not at all
    done = [
        (c.arguments, r)
        for c, r in zip(task.gold_actions, expected.results, strict=False)
        if env.tools[c.tool].kind == "write"
    ]
    replaced = [
        v
        for v in (old_values(expected.rows, task.outputs, done) if writes and task.outputs else [])
        if not Reading(user).states(v) and stated_as_current(kept, v)
    ]
    for out in task.outputs:
        error = f"stated only by reading out the records {', '.join(dumped)}" if dumped else None
        if replaced:
            error = (
                f"the answer states {', '.join(replaced)}, the value before the writes, as the current one or "
                "beside the new one with nothing telling which is which"
            )
        error = f"the answer turns the request down ({refused!r}), though nothing was refused" if refused else error
        stated = value_stated(said, out, also=spec_readings(env.spec, out) if is_label(out) else ())
        checklist.append(CheckResult(kind="output", description=out, passed=stated and not error, error=error))
    if refused and not task.outputs:
        # checked only where it fails, so that the partial credit of every answer it passes stays as it was
        checklist.append(
            CheckResult(
                kind="report",
                description="the answer does not say the writes made were not made",
                passed=False,
                error=f"the answer says the request was not done ({refused!r}), though it was",
            )
        )
    undenied = Reading(without_denied(kept))
    for value in task.distractors:
        named = label_named(without_denied_lists(kept), value) if is_label(value) else undenied.states(value)
        checklist.append(CheckResult(kind="distractor", description=f"not stated: {value}", passed=not named))
    checklist += _refusal_checks(task, answer, env, expected)
    return checklist


def _refusal_checks(task: Task, answer: str, env: Environment, expected: Expected) -> list[CheckResult]:
    if not task.refusals:
        return []
    context = AnswerContext.of(env.spec, task, expected.results)
    acted = acted_on(env, task, expected.results)  # what the allowed writes did is reported, not read out
    labels = {v for t in env.spec.tables for c in t.columns for v in c.enum or ()}
    # a reason is given in words: values only listed (the records' labels among them), or a sentence
    # of values alone, relate nothing
    listed = labels | {v for v in context.shown if is_label(v) and len(v.split()) <= 3}
    said = Reading(worded(answer, listed), today=env.spec.clock.date())
    extra = restated(answer, context.shown, context.allowed, context.words, env.spec.clock.date())
    # the user's words for a record and the reason itself are no reading of it out
    user = "\n".join(
        [task.instruction, *task.user.known_facts, *task.user.reveal_if_asked, *(r.request for r in task.refusals)]
    )
    # what the agent did (the gold writes' arguments and results) it may report too
    done_values = shown_values(
        [c.arguments for c in task.gold_actions if env.tools[c.tool].kind == "write"]
        + [r for c, r in zip(task.gold_actions, expected.results, strict=False) if env.tools[c.tool].kind == "write"]
    )
    reasons = [v for r in task.refusals for v in r.reason]
    dumped = dumped_records(
        answer, context.reads, [*reasons, *done_values], user, names=call_ids(task), acted_on=acted, reasons_excuse=True
    )
    done = [_action_words(call) for call in task.gold_actions if env.tools[call.tool].kind == "write"]
    keys = [k for t in env.spec.tables for k in t.primary_key]  # a status said of another record: a list
    about = record_names(task.refusals, acted, user, context.reads, keys)
    out = []
    for refusal in task.refusals:
        tool = _refused_tool(env, refusal)
        rules = [r.text for r in env.spec.rules if r.tool == tool or r.id == refusal.rule]
        claim = claimed(
            answer,
            refusal.claims,
            states=refusal.reason,
            quoted=rules,
            about=_request_words(refusal),
            elsewhere=done,
            verb=refusal.request.split()[0],
        )
        request, claims = refusal.request, refusal.claims
        deciding = [*rules, *(t.description for t in env.spec.tools if t.name == tool)]
        # a label said in its column's everyday words ("still unpaid" of an open bill), where they fit
        # no other value the rules would let through
        missing = [
            v
            for v in refusal.reason
            if not value_stated(said, v, request=request, claims=claims, also=spec_readings(env.spec, v, deciding))
        ]
        cited = [r.text for r in env.spec.rules if r.tool == tool and r.id != refusal.rule and _quotes(answer, r.text)]
        # a reason's rivals are the other values its column could hold (a ticket's other statuses),
        # not another column's (its service type), nor what the gold writes sent
        own_kind = reason_labels(env.spec, refusal.reason)
        shown_rivals = rivals(extra, refusal.reason, own_kind, refusal.claims, context.allowed)
        # the statuses the action is allowed in (its description, its rules) may be said as the rule
        excused = "\n".join([*rules, context.words])
        said_rivals = named_rivals(answer, own_kind, refusal.reason, excused, refusal.claims, user)
        # one status of the policy said in passing is often another record's ("SP0025 was quoted, and
        # I've signed it"); a list of them beside the reason is not
        said_rivals = said_rivals if len(said_rivals) >= MIN_LISTED_RIVALS else []
        # the field a rule weighs the reason against is the other side of the reason, not its rival
        rule_text = next((r.text for r in env.spec.rules if r.id == refusal.rule), "")
        weighed = weighed_against(rule_text, context.reads, refused_key(refusal.call))
        rival = [v for v in dict.fromkeys([*shown_rivals, *said_rivals]) if v not in done_values | weighed]
        # the record said to be any of several of its column's statuses, the reason among them
        hedged = hedged_statuses(answer, own_kind, labels)
        # the record's status said as kept ("still scheduled, but I can't cancel it because …") reassures
        # where the refusal itself gives the reason; it is no reason
        kept = refusal_gives_reason(answer, refusal.reason, env.spec.clock.date(), request)
        general_free = without_general_rules(answer)  # "X are cancelled when …" names no state of this one
        allowing = [
            s
            for s in allowing_states(env.spec, refusal.call, refusal.reason, context.reads)
            if states_status(without_kept_status(general_free, s) if kept else general_free, s)
        ]
        # figures of fields no rule of the request names: the user's particulars, other rows', or a string
        figures = unasked_figures(
            extra,
            context.reads,
            [*rules, *(t.description for t in env.spec.tools if t.name == tool), *context.documents],
            refused_key(refusal.call),
            [*context.allowed, *refusal.reason],
            acted,
            offered_payments(answer),
            reminders(env.spec.policy),
        )
        error = None
        # "it's already been issued" of a request to issue it, or already in the reason's state
        if not says_no(answer, already=[*refusal.claims, *(v for v in refusal.reason if is_label(v))]):
            error = "the answer does not say it is turned down"
        elif claim is not None:
            error = f"the answer claims it was done: {claim!r}"
        elif missing:
            error = f"the answer does not give the reason {', '.join(missing)}"
        elif dumped:
            error = f"the answer reads out the records {', '.join(dumped)} instead of giving the reason"
        elif len(extra) > MAX_RESTATED:
            error = f"the answer restates {len(extra)} values the tools showed that are no reason: {', '.join(extra)}"
        elif figures:
            error = f"the answer reads out {', '.join(figures)}, of fields no rule of the request names"
        elif rival:
            error = (
                f"the answer gives {', '.join(rival)} beside the reason, of its own kind: which one decides is unsaid"
            )
        elif hedged:
            error = f"the answer says the record is any of {', '.join(hedged)}: which one it is, is unsaid"
        elif untied := other_records_statuses(answer, labels, about):
            error = (
                f"the answer gives statuses of {', '.join(untied)}, records it is not about: which decides is unsaid"
            )
        elif numbers := bare_numbers(answer):
            error = f"the answer lists figures ({numbers}) with no rule or field tied to any of them"
        elif cited:
            error = f"the answer cites rules that do not stop it ({'; '.join(cited)}) beside the one that does"
        elif allowing:
            error = f"the answer gives the status {', '.join(allowing)}, which allows it, beside the reason"
        out.append(
            CheckResult(
                kind="refusal", description=f"turned down: {refusal.request}", passed=error is None, error=error
            )
        )
    return out


def _refused_tool(env: Environment, refusal: Refusal) -> str | None:
    """The write tool a refused request would call: its ``call``'s, or (a fee the user declined has
    none) the one write tool named by the request's verb and words ("cancel my booking" →
    ``cancel_booking``)."""
    if refusal.call is not None:
        return refusal.call.tool
    verb, *rest = refusal.request.lower().split()
    said = set(re.findall(r"[a-z0-9]+", " ".join(rest)))
    found = [
        t.name
        for t in env.spec.tools
        if t.kind == "write" and t.name.split("_")[0] == verb and set(t.name.split("_")[1:]) <= said
    ]
    return found[0] if len(found) == 1 else None


def _quotes(answer: str, rule: str) -> bool:
    """Whether ``answer`` quotes ``rule`` word for word (an agent that has found the rule that stops
    a request paraphrases or quotes that one; one that pastes the action's rules has not decided)."""
    said = " ".join(re.findall(r"[a-z0-9']+", answer.lower().replace("_", " ")))
    return " ".join(re.findall(r"[a-z0-9']+", rule.lower().replace("_", " "))) in said


def _request_words(refusal: Refusal) -> str:
    """What a refused request is about: its words less its verb ("read type spot" of "change the read
    type for your spot")."""
    return " ".join(refusal.request.split()[1:])


def _action_words(call: ToolCall) -> str:
    """What a gold write is about: its tool's words less the verb, and its text arguments."""
    texts = [v for v in call.arguments.values() if isinstance(v, str) and not any(ch.isdigit() for ch in v)]
    return " ".join([*call.tool.split("_")[1:], *texts])


#: Most renamings of generated ids tried for one score (k ids of one prefix give k! of them).
MAX_RENAMINGS = 24


def score_episode(env: Environment, task: Task, episode: Episode, answer: str = "") -> Score:
    """Score ``episode`` (its current state) against ``task``; ``answer`` is the agent's final text.

    Ids made by ``new_id()`` are names handed out in call order: an agent that books two slots in
    the other order, or adds a row it then deletes, ends with the right rows under other names.
    When the state differs, each one-to-one renaming of the agent's generated ids (those naming a
    row) to the gold run's, prefix by prefix, is tried on a copy — state, assertions and the answer
    alike — and the best score stands, with its renaming in ``renamed_ids``.

    >>> from envs.catalog import load_env
    >>> entry = load_env("clinic"); env = entry.environment; task = entry.tasks[0]
    >>> ep = env.episode(task); _ = ep.replay(task.gold_actions)
    >>> score_episode(env, task, ep, answer=" ".join(task.outputs)).reward
    1.0
    """
    expected = expected_outcome(env, task)
    best = _score(env, task, episode, answer, expected)
    if best.components["state"] == 1.0:
        return best
    for renaming in _renamings(episode.generated_ids(), expected.generated):
        copy = env.restore(episode.serialize())
        try:
            copy.rename_ids(renaming)
            candidate = _score(env, task, copy, _rename_in_text(answer, renaming), expected)
        finally:
            copy.close()
        if (candidate.reward, candidate.partial_credit) > (best.reward, best.partial_credit):
            best = candidate.model_copy(update={"renamed_ids": renaming})
    return best


def _renamings(actual: Mapping[str, set[str]], expected: Mapping[str, set[str]]) -> list[dict[str, str]]:
    """Every one-to-one renaming of the agent's ids to the gold run's that changes something, where
    each prefix has as many of one as of the other; none if there would be more than MAX_RENAMINGS."""
    per_prefix: list[list[dict[str, str]]] = []
    for prefix in sorted(set(actual) | set(expected)):
        mine, theirs = sorted(actual.get(prefix, ())), sorted(expected.get(prefix, ()))
        if len(mine) != len(theirs) or not mine:
            continue
        per_prefix.append([dict(zip(mine, p, strict=True)) for p in itertools.permutations(theirs)])
    if math.prod(len(options) for options in per_prefix) > MAX_RENAMINGS:
        return []
    out = []
    for combination in itertools.product(*per_prefix):
        renaming = {old: new for part in combination for old, new in part.items() if old != new}
        if renaming:
            out.append(renaming)
    return out


def _rename_in_text(text: str, renaming: Mapping[str, str]) -> str:
    """The answer as the agent would have written it under the renaming (whole ids only)."""
    pattern = re.compile(
        r"(?<![\w])(" + "|".join(map(re.escape, sorted(renaming, key=len, reverse=True))) + r")(?![\w])"
    )
    return pattern.sub(lambda m: renaming[m.group(1)], text)


def _score(env: Environment, task: Task, episode: Episode, answer: str, expected: Expected) -> Score:
    ignore = set(task.ignore)
    actual_keys = episode.changed_keys()
    by_table: dict[str, set[Key]] = {}
    for table, key in expected.rows:
        by_table.setdefault(table, set()).add(key)
    for table, keys in actual_keys.items():
        by_table.setdefault(table, set()).update(keys)
    # Rows only the agent touched: their expected value is their initial value.
    agent_only = {t: {k for k in keys if (t, k) not in expected.rows} for t, keys in actual_keys.items()}
    initial_rows: dict[tuple[str, Key], Row | None] = {}
    if any(agent_only.values()):
        initial = env.episode(task)
        try:
            for t, keys in agent_only.items():
                initial_rows.update({(t, k): r for k, r in initial.rows_by_key(t, keys).items()})
        finally:
            initial.close()

    diffs: list[TableDiff] = []
    n_expected = n_achieved = n_unexpected = 0
    for table in sorted(by_table):
        spec = env.spec.table(table)
        types = {c.name: c.type for c in spec.columns if f"{table}.{c.name}" not in ignore}
        ordered = sorted(by_table[table], key=lambda k: json.dumps(k, default=str))  # stable diff order
        current = episode.rows_by_key(table, ordered)
        diff = TableDiff(table=table)
        for key in ordered:
            if (table, key) in expected.rows:
                exp_raw, init_raw = expected.rows[(table, key)]
            else:
                exp_raw = init_raw = initial_rows[(table, key)]
            exp, init, act = (_normalize(r, types) for r in (exp_raw, init_raw, current[key]))
            if not _row_equal(exp, act):
                if act is None:
                    diff.missing.append(exp)  # type: ignore[arg-type]
                elif exp is None:
                    diff.extra.append(act)
                else:
                    cols = [
                        ColumnChange(column=c, expected=exp[c], actual=act[c]) for c in exp if not _same(exp[c], act[c])
                    ]
                    diff.changed.append(ChangedRow(key=dict(zip(spec.primary_key, key, strict=True)), columns=cols))
            expected_change = not _row_equal(exp, init)
            n_expected += expected_change
            n_achieved += expected_change and _row_equal(act, exp)
            n_unexpected += not expected_change and not _row_equal(act, init)
        if not diff.empty:
            diffs.append(diff)

    checklist = _check_list(task, episode, answer, env, expected)
    components = {
        "state": 1.0 if not diffs else 0.0,
        "outputs": 1.0 if all(c.passed for c in checklist if c.kind in ANSWER_CHECKS) else 0.0,
        "assertions": 1.0 if all(c.passed for c in checklist if c.kind == "assertion") else 0.0,
    }
    reward = math.prod(components[c] for c in task.reward_basis)
    passed = sum(c.passed for c in checklist)
    denominator = len(checklist) + n_expected
    if denominator:
        partial = (passed + n_achieved - n_unexpected) / denominator
    else:
        partial = 1.0 if n_unexpected == 0 else 0.0
    return Score(
        task_id=task.id,
        reward=float(reward),
        partial_credit=min(1.0, max(0.0, partial)),
        components=components,
        checklist=checklist,
        expected_changes=n_expected,
        achieved_changes=n_achieved,
        unexpected_changes=n_unexpected,
        diff=diffs,
    )
