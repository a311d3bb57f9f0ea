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

from ..engine import Environment, Episode
from ..errors import SpecError, ToolError
from ..formats.task import Task
from .answers import prose
from .asides import without_asides
from .everyday import spec_readings
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
from .refusals import refusal_checks
from .reports import acted_on, call_ids, required_values, turned_down
from .restating import (
    AnswerContext,
    dumped_records,
)
from .results import ChangedRow, CheckResult, ColumnChange, Row, Score, TableDiff
from .written import denied_writes, old_values, stated_as_current

FLOAT_REL_TOL = 1e-6
#: Checklist kinds that read the final answer; together they make the ``outputs`` component.
ANSWER_CHECKS = ("output", "distractor", "refusal", "report")

Key = tuple[Any, ...]


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
    dumped = (
        dumped_records(answer, reads, reported, user, names=call_ids(task), acted_on=acted, asked=task.outputs)
        if task.outputs
        else []
    )
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

    def names(text: str, value: str) -> bool:
        return (
            label_named(without_denied_lists(text), value)
            if is_label(value)
            else Reading(without_denied(text)).states(value)
        )

    # "your other policy is still active" gives another record's status as that record's, beside the answer
    distracting = without_asides(kept, reads, task.outputs, task.distractors, names) if task.distractors else kept
    for value in task.distractors:
        named = names(distracting, value)
        checklist.append(CheckResult(kind="distractor", description=f"not stated: {value}", passed=not named))
    checklist += refusal_checks(task, answer, env, expected.results)
    return checklist


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
