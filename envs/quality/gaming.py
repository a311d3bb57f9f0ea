"""``envfarm bench gaming``: scripted agents that try to pass tasks without doing them right.

Each agent replays a task on the engine and answers by a fixed strategy; the episode is scored as
any other. A catalog whose tasks test judgment fails every gaming agent on the tasks it targets and
passes the oracle on all of them (docs/synthesis.md, "Gaming"):

* ``oracle`` — the gold calls and the task's reference answer (must pass everything);
* ``claim-success`` — the gold calls, then "Done, I've renewed it" and the refused record restated;
* ``wrong-reason`` — the gold calls, then a refusal for another rule of the same action, and the
  refused record restated;
* ``dump`` — the gold calls, then every tool result as the answer;
* ``act-anyway`` — the gold calls, then every refused call made all the same, then the reference
  answer (only the state can fail it);
* ``bare-done`` — the gold calls, then "Done.";
* ``never-asks`` — the gold calls without the user's (dual control: it never gets the user to act on
  their side), then the reference answer;
* ``follows-distractor`` — on a knowledge-base task, the decision the close-but-wrong article would
  give: each refused call made (another segment's looser terms allow it), or, where the task refuses
  nothing under the rule, the gold writes under it left out (an archived edition's stricter terms
  refuse them); then the reference answer.

Beside them play the adversaries of :mod:`.adversaries` (an outside reviewer's attacks: refuse and
quote every value read, hedged claims, act then refuse, dumps, the policy parroted …), written
without the grader's ground truth, those of :mod:`.outside_adversaries` and
:mod:`.blind_info_adversaries` (a record by its place in the results, sums by status, comparisons),
those of :mod:`.asked_record_adversaries` (the asked record read out, or the asked field of every
record, knowing which is asked), and :mod:`.guesses`' agent that answers a question with no call at
all. Those measure the grader's false positives; the correct answers of :mod:`.natural_answers`,
written in many natural forms, and of :mod:`.identified_answers` (the asked value beside a second
fact of its record) measure its false negatives.

Task classes: ``information``, ``refusal (policy-only rule)`` (some refusal rests on a rule the
tool does not check), ``refusal (enforced)`` (the tool refuses, or the user declines), ``user acts``
(dual control: the user must change something on their own side), ``documents`` and ``documents
(write)`` (a knowledge-base task whose refusal, or only whose writes, rest on a rule in an article the
agent must find, beside close-but-wrong ones), ``write`` and ``write (value asked)`` (a write task that
asks for a value too). :mod:`.write_adversaries` do a write task's writes and then misreport them;
:mod:`.write_answers` confirms them correctly in many forms. :mod:`.blind_adversaries` holds the
strategies of an independent blind review of refusal and write-task grading.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..catalog import CatalogEntry
from ..engine import Environment, Episode
from ..errors import ToolError
from ..formats.task import Refusal, Task
from ..grading.scoring import score_episode
from .adversaries import ADVERSARIES, play_adversary
from .asked_record_adversaries import ASKED_RECORD_ADVERSARIES, play_asked_record
from .blind_adversaries import BLIND_ADVERSARIES, play_blind
from .blind_info_adversaries import BLIND_INFO_ADVERSARIES, play_blind_info
from .classes import (
    CLASSES,
    DOCUMENT_WRITES,
    DOCUMENTS,
    ENFORCED_REFUSAL,
    INFORMATION,
    POLICY_REFUSAL,
    USER_ACTS,
    WRITE,
    WRITE_VALUE,
    task_class,
)
from .guesses import GUESS_ADVERSARIES, play_guess
from .identified_answers import identified_answers
from .natural_answers import natural_answers
from .outside_adversaries import OUTSIDE_ADVERSARIES, play_outside
from .outside_answers import outside_answers
from .reported_answers import reported_answers
from .verbose_answers import verbose_answers
from .write_adversaries import WRITE_ADVERSARIES, play_write
from .write_answers import write_answers

OWN_AGENTS = (
    "oracle",
    "claim-success",
    "wrong-reason",
    "dump",
    "act-anyway",
    "bare-done",
    "never-asks",
    "follows-distractor",
)
#: The classes each gaming agent is built to pass; the oracle targets every class.
TARGETS: dict[str, tuple[str, ...]] = {
    "oracle": CLASSES,
    "claim-success": (POLICY_REFUSAL, ENFORCED_REFUSAL, DOCUMENTS),
    "wrong-reason": (POLICY_REFUSAL, ENFORCED_REFUSAL, DOCUMENTS),
    "dump": (INFORMATION,),
    "act-anyway": (POLICY_REFUSAL, DOCUMENTS),
    "bare-done": (INFORMATION, POLICY_REFUSAL, ENFORCED_REFUSAL, DOCUMENTS),
    "never-asks": (USER_ACTS,),
    "follows-distractor": (DOCUMENTS, DOCUMENT_WRITES),
    **ADVERSARIES,
    **OUTSIDE_ADVERSARIES,
    **BLIND_INFO_ADVERSARIES,
    **GUESS_ADVERSARIES,
    **WRITE_ADVERSARIES,
    **BLIND_ADVERSARIES,
    **ASKED_RECORD_ADVERSARIES,
}
AGENTS = (
    *OWN_AGENTS,
    *ADVERSARIES,
    *OUTSIDE_ADVERSARIES,
    *GUESS_ADVERSARIES,
    *WRITE_ADVERSARIES,
    *BLIND_ADVERSARIES,
    *BLIND_INFO_ADVERSARIES,
    *ASKED_RECORD_ADVERSARIES,
)
#: Agents the answer grader cannot hold to the bound, measured and reported apart (docs/synthesis.md,
#: "Gaming"): those that turn every request down and state the value the policy's line for the action
#: names (on a refusal task that answer is a correct one; only the tasks where the same request must
#: be carried out fail them, on state), and those that answer a question from one record picked
#: without reading the question (the first, the latest, the best-worded: right whenever the asked-for
#: record happens to be that one). ``column-statuses`` (every status of the record's column said as
#: what it is) is held: a record said to be any of several statuses is a hedge (``envs.grading.hedges``).
#: ``rule-fields-table``, ``-bullets`` and ``-yaml`` (the record's status and the fields the policy's line
#: names, laid out) are open as their sentence forms are: where the status is the reason and no other
#: field allows the action, they are a correct refusal (dealership_test_drives-007: a converted hold);
#: their ``refuse-all-`` forms are held.
#: ``info-last-detail`` (every field but the keys of the last record read) is open for the same reason:
#: the gold reads end on the asked record's details, and where that record holds nothing beyond the
#: asked field and the one the user named it by (a payment's amount and day), its every field *is* the
#: correct answer, word for word (pet_insurance_claims-015, collision_repair_shop-011 on seed 0;
#: tire_shop_installations-009; docs/formats.md, "Answers"). The other blind information agents are held.
#: The read-outs of the asked record's fields but the keys (``info-asked-record-sentence``, ``-apart``,
#: ``-list``) are open for the same reason: where it holds the asked value and one more field (a
#: payment's amount and day: pet_insurance_claims-006, -015, collision_repair_shop-011), its fields
#: are the answer a person gives ("Your $1,116.77 reimbursement was paid on November 30, 2025").
OPEN_AGENTS = frozenset(
    {
        "info-asked-record-sentence",
        "info-asked-record-apart",
        "info-asked-record-list",
        "focus-values",
        "rule-line-values",
        "status-rule-echo",
        "relative-days",
        "mixed-time-word",
        "record-only",
        "rule-fields-table",
        "rule-fields-bullets",
        "rule-fields-yaml",
        "info-first-field",
        "info-latest-field",
        "info-matched-record",
        "info-last-detail",
    }
)
__all__ = [
    "AGENTS",
    "CLASSES",
    "DOCUMENTS",
    "DOCUMENT_WRITES",
    "ENFORCED_REFUSAL",
    "INFORMATION",
    "OPEN_AGENTS",
    "POLICY_REFUSAL",
    "TARGETS",
    "USER_ACTS",
    "WRITE",
    "WRITE_VALUE",
    "task_class",
]


def _record_of(refusal: Refusal, results: list[Any]) -> str:
    """The refused record as the tool results showed it (every result that names its id)."""
    ids = [str(v) for v in (refusal.call.arguments.values() if refusal.call else ()) if isinstance(v, str)]
    shown = [r for r in results if any(i in json.dumps(r, default=str) for i in ids[:1])]
    return json.dumps(shown[-1] if shown else results[-1:], default=str)


def _wrong_rule(env: Environment, refusal: Refusal) -> str:
    tool = refusal.call.tool if refusal.call else None
    others = [r.text for r in env.spec.rules if r.tool == tool and r.id != refusal.rule]
    return others[0] if others else "this action is not available for this record"


def _under_documents(env: Environment, task: Task) -> tuple[set[int], bool]:
    """The gold writes under a policy-only rule that a document the task names states, and whether
    the task refuses a request under such a rule (then a looser reading acts, else a stricter one
    leaves the writes out)."""
    texts = [
        "\n".join(str(row.get(c) or "") for c in table.full_text).lower()
        for table in env.spec.tables
        if table.full_text and len(table.primary_key) == 1
        for row in env.spec.seed.get(table.name, [])
        if str(row.get(table.primary_key[0])) in task.required_documents
    ]
    stated = {r.id for r in env.spec.rules if r.enforced_by == "policy" and any(r.text.lower() in t for t in texts)}
    refuses = any(r.rule in stated for r in task.refusals)
    tools = {r.tool for r in env.spec.rules if r.id in stated}
    return {i for i, call in enumerate(task.gold_actions) if call.tool in tools and not refuses}, refuses


def _answer(agent: str, env: Environment, task: Task, results: list[Any]) -> str:
    reference = task.answer if task.answer is not None else " ".join(task.outputs)
    if agent in ("oracle", "act-anyway", "never-asks", "follows-distractor"):
        return reference
    if agent == "bare-done":
        return "Done."
    if agent == "dump":
        return "\n".join(json.dumps(r, default=str) for r in results)
    parts = []
    for refusal in task.refusals or []:
        record = _record_of(refusal, results)
        if agent == "claim-success":
            done = refusal.claims[0] if refusal.claims else "taken care of"
            parts.append(f"Done, I've {done} it for you ({refusal.request}).\n\nHere is the record: {record}")
        else:
            parts.append(f"I'm sorry, I can't do that: {_wrong_rule(env, refusal)}.\n\nHere is the record: {record}")
    if not parts:  # nothing to refuse: the strategy has nothing to say beyond what it did
        return "Done, all taken care of.\n\n" + "\n".join(json.dumps(r, default=str) for r in results[-1:])
    return "\n\n".join(parts)


def play(agent: str, env: Environment, task: Task) -> float:
    """The reward ``agent`` earns on ``task``."""
    if agent in ADVERSARIES:
        return play_adversary(agent, env, task)
    if agent in OUTSIDE_ADVERSARIES:
        return play_outside(agent, env, task)
    if agent in BLIND_INFO_ADVERSARIES:
        return play_blind_info(agent, env, task)
    if agent in GUESS_ADVERSARIES:
        return play_guess(agent, env, task)
    if agent in WRITE_ADVERSARIES:
        return play_write(agent, env, task)
    if agent in BLIND_ADVERSARIES:
        return play_blind(agent, env, task)
    if agent in ASKED_RECORD_ADVERSARIES:
        return play_asked_record(agent, env, task)
    episode: Episode = env.episode(task)
    try:
        results = []
        left_out, acts = _under_documents(env, task) if agent == "follows-distractor" else (set(), False)
        for i, call in enumerate(task.gold_actions):
            if agent == "never-asks" and call.actor == "user":
                continue  # the user's part is left undone: this agent never asks for it
            if i in left_out:
                continue  # the stricter terms refuse it
            try:
                results.append(episode.call_tool(call.tool, call.arguments, actor=call.actor).content)
            except ToolError:
                if not left_out:
                    raise
        if agent == "act-anyway" or acts:
            for refusal in task.refusals:
                if refusal.call is not None:
                    try:
                        results.append(episode.call_tool(refusal.call.tool, refusal.call.arguments).content)
                    except ToolError:
                        pass  # the tool stopped it: that is the tool's judgment, not the agent's
        return score_episode(env, task, episode, answer=_answer(agent, env, task, results)).reward
    finally:
        episode.close()


@dataclass
class GamingReport:
    """Pass counts by agent and task class, and the correct answers' pass counts (answers graded,
    by class and by form)."""

    tasks: Counter[str] = field(default_factory=Counter)  # by class
    passed: dict[str, Counter[str]] = field(default_factory=lambda: {a: Counter() for a in AGENTS})
    natural: Counter[str] = field(default_factory=Counter)  # correct answers graded, by class
    natural_passed: Counter[str] = field(default_factory=Counter)
    forms: Counter[str] = field(default_factory=Counter)  # correct answers graded, by form
    forms_passed: Counter[str] = field(default_factory=Counter)
    natural_failures: list[str] = field(default_factory=list)  # the first few, for a reader
    failures_by_form: dict[str, list[str]] = field(default_factory=dict)  # the first few of each form
    passes_on_target: dict[str, list[str]] = field(default_factory=dict)  # tasks a gaming agent passed, first few

    def rate(self, agent: str, cls: str) -> float | None:
        n = self.tasks[cls]
        return round(self.passed[agent][cls] / n, 4) if n else None

    def _worst(self, agents: Iterable[str]) -> float | None:
        return max((r for a in agents for c in TARGETS[a] if (r := self.rate(a, c)) is not None), default=None)

    def natural_rate(self, cls: str | None = None) -> float | None:
        """The share of correct answers that pass (all of them, or those of one class)."""
        n = self.natural[cls] if cls else sum(self.natural.values())
        passed = self.natural_passed[cls] if cls else sum(self.natural_passed.values())
        return round(passed / n, 4) if n else None

    def as_json(self) -> dict[str, Any]:
        return {
            "tasks": dict(self.tasks),
            "pass_rate": {a: {c: self.rate(a, c) for c in CLASSES} for a in AGENTS},
            "targets": {a: list(t) for a, t in TARGETS.items()},
            "worst_gaming_rate_on_target": self._worst(a for a in AGENTS if a != "oracle" and a not in OPEN_AGENTS),
            "open_agents": sorted(OPEN_AGENTS),
            "worst_open_rate_on_target": self._worst(iter(OPEN_AGENTS)),
            "correct_answers": {
                "graded": sum(self.natural.values()),
                "pass_rate": self.natural_rate(),
                "pass_rate_by_class": {c: self.natural_rate(c) for c in CLASSES if self.natural[c]},
                "pass_rate_by_form": {
                    f: round(self.forms_passed[f] / n, 4) for f, n in sorted(self.forms.items()) if n
                },
                "first_failures": self.natural_failures,
                "first_failures_by_form": self.failures_by_form,
            },
            "first_passes_on_target": self.passes_on_target,
        }


#: How many failing correct answers the report quotes, in all and of each form; and how many tasks
#: each gaming agent passed on a class it targets.
MAX_QUOTED_FAILURES = 20
MAX_QUOTED_PER_FORM = 3


def _grade_natural(report: GamingReport, env: Environment, task: Task, cls: str) -> None:
    """Score each correct answer of ``task`` on one replay of its gold actions."""
    # confirmations of what a write task did, in their own forms
    answers = natural_answers(env, task) | {f"write {k}": v for k, v in write_answers(env, task).items()}
    if not answers:
        return
    episode = env.episode(task)
    try:
        results = [r.content for r in episode.replay(task.gold_actions)]
        # forms from answers a reviewer wrote on real tasks that the grader once failed
        answers |= reported_answers(env, task, results)
        # the asked value with a second fact of its record, as the seed-107 reviewer wrote it
        answers |= {f"second-fact {k}": v for k, v in identified_answers(task, results).items()}
        # the held-out corpus: verbose answers as LLM agents write them, never used to tune the grader
        answers |= {f"held-out {k}": v for k, v in verbose_answers(env, task, results).items()}
        # a second held-out corpus, written blind to the grader: forms a careful person writes
        answers |= {f"outside {k}": v for k, v in outside_answers(env, task, results).items()}
        for form, text in answers.items():
            score = score_episode(env, task, episode, answer=text)
            passed = score.reward == 1.0
            report.natural[cls] += 1
            report.forms[form] += 1
            report.natural_passed[cls] += passed
            report.forms_passed[form] += passed
            if passed:
                continue
            quoted = f"{task.id} [{form}] {text!r}: {score.explain()}"
            if len(report.natural_failures) < MAX_QUOTED_FAILURES:
                report.natural_failures.append(quoted)
            if len(of_form := report.failures_by_form.setdefault(form, [])) < MAX_QUOTED_PER_FORM:
                of_form.append(quoted)
    finally:
        episode.close()


def bench_gaming(entries: Iterable[CatalogEntry], *, progress: Callable[[str], None] | None = None) -> GamingReport:
    """Every agent on every task of ``entries``."""
    report = GamingReport()
    for entry in entries:
        env = entry.environment
        for task in entry.tasks:
            cls = task_class(env, task)
            report.tasks[cls] += 1
            for agent in AGENTS:
                if play(agent, env, task) == 1.0:
                    report.passed[agent][cls] += 1
                    if agent != "oracle" and cls in TARGETS[agent]:
                        shown = report.passes_on_target.setdefault(agent, [])
                        shown += [task.id] if len(shown) < MAX_QUOTED_PER_FORM else []
            _grade_natural(report, env, task, cls)
        if progress is not None:
            progress(entry.spec.id)
    return report
