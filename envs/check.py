"""``check_env``: the conformance checker every environment must pass before it is served.

Gymnasium's ``check_env`` is the model: run it in CI on every catalog entry, and as the admission
gate of the synthesis pipeline. It never raises for a problem in the environment; it reports.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from pydantic import ValidationError

from .engine import Environment, Episode
from .errors import EnvFarmError, SpecError, ToolError
from .formats.spec import EnvSpec
from .formats.task import Task
from .grading.decidable import decide, is_time_rule, stated_now
from .grading.mentions import parse_value
from .grading.outputs import as_number, numbers_in, output_present
from .grading.scoring import expected_outcome, score_episode
from .grading.stated import missing_statements, policy_conditions
from .grading.tested import unshown_values
from .schemas.lint import lint_tool


@dataclass(frozen=True)
class Problem:
    """One failed check: which check, where, and what is wrong."""

    check: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.where}: {self.message}"


@dataclass
class CheckReport:
    """What ``check_env`` found. ``ok`` is true when there are no problems (warnings are allowed)."""

    env_id: str
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    checks_run: int = 0
    tasks_passed: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def fail(self, check: str, where: str, message: str) -> None:
        self.problems.append(Problem(check, where, message))

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "ok": self.ok,
            "checks_run": self.checks_run,
            "tasks_passed": self.tasks_passed,
            "problems": [str(p) for p in self.problems],
            "warnings": [str(w) for w in self.warnings],
        }


def _statements(spec: EnvSpec) -> Iterable[tuple[str, str, bool, str | None]]:
    """Every SQL statement of the spec: (where, sql, read_only, the tool whose reach it has; None:
    every table)."""
    for tool in spec.tools:
        for i, step in enumerate(tool.steps):
            yield f"tool {tool.name} steps[{i}]", step.sql, tool.kind == "read", tool.name
    for inv in spec.invariants:
        yield f"invariant {inv.name}", inv.violations, True, None


def _invariant_problems(env: Environment, ep: Any) -> list[str]:
    out = []
    for inv in env.spec.invariants:
        try:
            rows = ep.query(inv.violations)
        except ToolError as exc:
            out.append(f"invariant '{inv.name}' cannot run: {exc}")
            continue
        if rows:
            out.append(f"invariant '{inv.name}' ({inv.description}) is violated by {json.dumps(rows[0], default=str)}")
    return out


def check_env(spec: EnvSpec | dict[str, Any], tasks: Iterable[Task] = ()) -> CheckReport:
    """Check an environment and its tasks; return a report (never raises for bad data).

    Checks: the spec validates and compiles (seed rows satisfy constraints and foreign keys); every
    SQL statement prepares against the schema under the sandbox of its tool; parameter schemas are
    valid JSON Schema, and the schemas clients are shown pass every model API's rules
    (``envs.schemas.lint``); seed satisfies the invariants; and for every task: its initial patch
    applies, gold actions name existing tools, run without error and return what the tool's output
    schema says, change state exactly when the task says so, keep the invariants, satisfy the
    task's checklist, give the same bytes when run twice, leave state unchanged on read calls, rest
    on nothing the agent is not told (a condition only the user can state is among the user's
    facts; the value a policy-only rule tests comes back from a call before the write), and the
    gold replay scores 1.0.

    >>> from envs.catalog import load_env
    >>> entry = load_env("clinic")
    >>> check_env(entry.spec, entry.tasks).ok
    True
    """
    env_id = spec.get("id", "?") if isinstance(spec, dict) else spec.id
    report = CheckReport(env_id=str(env_id))
    if isinstance(spec, dict):
        try:
            spec = EnvSpec.model_validate(spec)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            report.fail("spec", loc or "(root)", err["msg"].removeprefix("Value error, "))
            return report
    report.checks_run += 1
    try:
        env = Environment(spec)
    except SpecError as exc:
        report.fail("seed", "compile", str(exc))
        return report

    seed_ep = env.episode()
    for tool in spec.tools:
        report.checks_run += 1
        try:
            jsonschema.Draft202012Validator.check_schema(tool.parameters)
        except jsonschema.SchemaError as exc:
            report.fail("schema", f"tool {tool.name}", exc.message)
            continue
        report.checks_run += 1
        lint = lint_tool(spec.id, tool.name, env.advertised_parameters(tool.name), env.output_schema(tool.name))
        for vendor, problems in lint.problems.items():
            for problem in problems:
                report.fail("tool-schema", f"tool {tool.name}", f"{vendor}: {problem}")
    for where, sql, read_only, tool_name in _statements(spec):
        report.checks_run += 1
        try:
            seed_ep.explain(sql, read_only=read_only, tool=tool_name)
        except ToolError as exc:
            report.fail("sql", where, str(exc))
    for problem in _invariant_problems(env, seed_ep):
        report.fail("invariant", "seed", problem)
    seed_ep.close()
    if report.problems:
        return report  # tasks cannot be trusted on a broken schema
    for task in tasks:
        before = len(report.problems)
        _check_task(env, task, report)
        report.tasks_passed += len(report.problems) == before
    return report


def _check_task(env: Environment, task: Task, report: CheckReport) -> None:
    where = f"task {task.id}"
    report.checks_run += 1
    if task.env != env.spec.id:
        report.fail("task", where, f"belongs to env '{task.env}', not '{env.spec.id}'")
        return
    for i, call in enumerate(task.gold_actions):
        if call.tool not in env.tools:
            report.fail("task", f"{where} gold_actions[{i}]", f"unknown tool '{call.tool}'")
            return
    try:
        initial = env.episode(task)
    except EnvFarmError as exc:
        report.fail("task", f"{where} initial_patch", str(exc))
        return
    try:
        expected = expected_outcome(env, task)
    except SpecError as exc:
        # "gold action 1 (cancel_order) fails: ...", without the "task <id>: " prefix ``where`` repeats
        report.fail("gold", where, str(exc).removeprefix(f"task {task.id}: "))
        initial.close()
        return
    run = env.episode(task)
    for i, call in enumerate(task.gold_actions):
        before = run.serialize() if env.tools[call.tool].kind == "read" else None
        result = run.call_tool(call.tool, call.arguments, actor=call.actor)
        if before is not None and run.serialize() != before:  # exact: not one byte may change
            report.fail("read-only", where, f"read tool '{call.tool}' changed the state")
        declared = env.output_schema(call.tool)
        if declared is not None:  # MCP clients validate structured results against it: it must be exact
            error = jsonschema.exceptions.best_match(
                jsonschema.Draft202012Validator(declared).iter_errors(result.content)
            )
            if error is not None:
                report.fail("output-schema", f"{where} gold_actions[{i}]", f"{call.tool}: {error.message}")
    changed = bool(run.changed_keys()) and run.state_hash() != initial.state_hash()
    if changed != task.expects_change:
        said = "to change" if task.expects_change else "not to change"
        report.fail(
            "change",
            where,
            f"the task says the state is {said}, but the gold actions {'change' if changed else 'do not change'} it",
        )
    if run.serialize() != expected.image:
        report.fail("determinism", where, "replaying the gold actions twice gave different bytes")
    for problem in _invariant_problems(env, run):
        report.fail("invariant", where, problem)
    for a in task.assertions:
        try:
            rows = run.query(a.sql)
            ok = bool(rows) and bool(next(iter(rows[0].values())))
        except ToolError as exc:
            report.fail("assertion", where, f"'{a.description}' cannot run: {exc}")
            continue
        if not ok:
            report.fail("assertion", where, f"'{a.description}' does not hold after the gold actions")
    produced = json.dumps(expected.results, default=str)
    produced += " " + produced.replace("_", " ")  # a stored value 'checked_in' is stated as "checked in"
    produced += " " + env.spec.policy  # a rule's fixed amount ("at least 50.00") is the policy's to state
    for out in [*task.outputs, *(value for r in task.refusals for value in r.reason)]:
        if not output_present(out, produced) and not _worked_out(out, produced, expected.results):
            report.warnings.append(
                Problem("output", where, f"required output '{out}' appears in no gold result nor the policy")
            )
    for missing in _unknown_documents(env, task, initial):
        report.fail("document", where, f"required document '{missing}' is no row of a full-text table")
    _check_told(env, task, initial, expected.results, report)
    for value in task.distractors:
        if any(output_present(value, out) or output_present(out, value) for out in task.outputs):
            report.fail("distractor", where, f"distractor '{value}' is also a required output")
    if task.refusals and task.answer is None:
        report.fail("answer", where, "a task with refusals needs a reference answer that turns them down")
    _check_refusals(env, task, run, report)
    answer = task.answer if task.answer is not None else " ".join(task.outputs)
    score = score_episode(env, task, run, answer=answer)
    if score.reward != 1.0:
        report.fail("oracle", where, f"gold replay scores {score.reward}:\n{score.explain()}")
    run.close()
    initial.close()


def _unknown_documents(env: Environment, task: Task, initial: Episode) -> list[str]:
    """The task's required documents that no full-text table holds (by primary key) at its start."""
    held: set[str] = set()
    for table in env.spec.tables:
        if table.full_text and len(table.primary_key) == 1:
            held |= {str(row[table.primary_key[0]]) for row in initial.dump(table.name)}
    return [d for d in task.required_documents if d not in held]


def _documents(env: Environment, initial: Episode) -> list[str]:
    """The text of every document the agent can search (the rows of full-text tables)."""
    out = []
    for table in env.spec.tables:
        for row in initial.dump(table.name) if table.full_text else []:
            out += [str(row[c]) for c in table.full_text if row.get(c) is not None]
    return out


def _check_told(env: Environment, task: Task, initial: Episode, results: list[Any], report: CheckReport) -> None:
    """Every condition a gold write rests on must reach the agent: what only the user can state is
    among the user's facts (``envs.grading.stated``), and the value a rule the tools leave to the
    policy tests comes back from a read before the write (``envs.grading.tested``)."""
    where = f"task {task.id}"
    conditions = policy_conditions([env.spec.policy, *_documents(env, initial)])
    for i, c in missing_statements(env.spec, conditions, task):
        report.fail(
            "told",
            f"{where} gold_actions[{i}]",
            f"'{c.line}' waits on the user saying \"{c.statement}\", which no fact of the user holds",
        )
    for t in unshown_values(env, task, results):
        report.fail(
            "told",
            f"{where} gold_actions[{t.index}]",
            f"the rule '{t.rule}' tests {t.table} {t.key}'s {t.column} ({t.value}), which no call before it returns",
        )


def _check_refusals(env: Environment, task: Task, run: Episode, report: CheckReport) -> None:
    """Each refused call, tried on a copy of the gold final state: a rule the tool enforces must
    make it fail; a rule that lives in the policy only must let it through and change the state
    (or the task would not test whether the agent holds back)."""
    for i, refusal in enumerate(task.refusals):
        where = f"task {task.id} refusals[{i}]"
        rule = env.spec.rule(refusal.rule) if refusal.rule is not None else None
        if refusal.rule is not None and rule is None:
            report.fail("refusal", where, f"names rule '{refusal.rule}', which the spec does not have")
            continue
        if rule is not None and is_time_rule(rule.text):
            _check_decidable(env, rule.text, refusal.reason, where, report)
        if refusal.call is None:
            continue
        if refusal.call.tool not in env.tools:
            report.fail("refusal", where, f"unknown tool '{refusal.call.tool}'")
            continue
        trial = env.restore(run.serialize())
        try:
            before = trial.state_hash()
            try:
                trial.call_tool(refusal.call.tool, refusal.call.arguments)
                error: ToolError | None = None
            except ToolError as exc:
                error = exc
            in_policy_only = rule is not None and rule.enforced_by == "policy"
            if in_policy_only and (error is not None or trial.state_hash() == before):
                said = f"fails ({error})" if error is not None else "changes nothing"
                report.fail("refusal", where, f"rule '{refusal.rule}' is policy-only, but the refused call {said}")
            elif not in_policy_only and error is None:
                report.fail("refusal", where, f"the tool lets the refused call {refusal.call.tool} through")
        finally:
            trial.close()


def _check_decidable(env: Environment, rule: str, reason: list[str], where: str, report: CheckReport) -> None:
    """A refusal on a time rule must follow from the rule as written, the current time the policy
    states, and the reason value (``envs.grading.decidable``)."""
    now = stated_now(env.spec.policy)
    if now is None:
        report.fail("decidable", where, f"the rule '{rule}' is about time, but the policy states no current time")
        return
    moments = [v for v in reason if parse_value(v) is not None]
    if not moments:
        report.fail("decidable", where, f"the rule '{rule}' is about time, but no reason value is a date")
    for value in moments:
        verdict = decide(rule, now, value)
        if verdict is not False:
            said = "allows the action" if verdict else "does not decide"
            report.fail("decidable", where, f"the rule '{rule}' at {now:%Y-%m-%d %H:%M} {said} for {value}")


#: Numbers of the gold results and the policy tried in pairs for a one-step sum or difference.
MAX_NUMBERS_PAIRED = 400


def _worked_out(output: str, produced: str, results: list[Any]) -> bool:
    """Whether a number no result shows can be worked out from them: a total of one listing, or one
    value plus or minus another (a balance after a payment the policy describes)."""
    if _a_listed_total(output, results):
        return True
    value = as_number(output)
    if value is None:
        return False
    numbers = sorted(set(numbers_in(produced)))[:MAX_NUMBERS_PAIRED]
    seen = set(numbers)
    return any(
        any(math.isclose(value - a, b, abs_tol=0.005) or math.isclose(a - value, b, abs_tol=0.005) for b in seen)
        for a in numbers
    )


def _a_listed_total(output: str, results: list[Any]) -> bool:
    """Whether ``output`` is a total an agent can work out from one gold listing: the sum of one
    numeric field over its rows that share a value of another field ("the total amount of my open
    fines": the amounts of the rows whose status is open), or over all of them."""
    value = as_number(output)
    if value is None:
        return False
    for result in results:
        rows = [r for r in result if isinstance(r, dict)] if isinstance(result, list) else []
        if len(rows) < 2:
            continue
        numeric = {k for r in rows for k, v in r.items() if isinstance(v, int | float) and not isinstance(v, bool)}
        groups: list[list[dict[str, Any]]] = [rows]
        for key in {k for r in rows for k, v in r.items() if isinstance(v, str)}:
            for shared in {r.get(key) for r in rows}:
                groups.append([r for r in rows if r.get(key) == shared])
        for group in groups:
            for key in numeric:
                numbers = [r[key] for r in group if isinstance(r.get(key), int | float)]
                if len(numbers) >= 2 and math.isclose(sum(numbers), value, abs_tol=0.005):
                    return True
    return False
