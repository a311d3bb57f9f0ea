"""A knowledge-base variant of a synthesized environment: the same tables, tools and data, plus a help
center holding every rule; the policy shrinks to a header; the tasks are the original ones whose
decision rests on a rule the tools leave to the policy, each naming the article that states it.

Which tasks: those with a refusal on a policy-only rule whose words :mod:`.terms` reads, that the rule
as stated refuses and that a looser distractor's value would let through, and those with a gold
write under such a rule that a stricter distractor's value would refuse (the value the rule tests
on the written record read by :mod:`.records`). Each is copied with the variant's ids,
``required_documents`` (the articles stating its deciding rules), a gold that reads them first, and
is verified by :mod:`.verify`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from envs.engine import Environment
from envs.formats.knowledge import retrieval_tools
from envs.formats.spec import EnvSpec, RuleSpec, TableSpec
from envs.formats.task import Task, ToolCall
from envs.grading.decidable import stated_now

from .articles import RulePlan, write_articles
from .choices import choice_task, more_choices
from .distractors import looser, stricter
from .header import header_policy
from .policy_split import rule_reasons, split_policy
from .records import tested_value
from .terms import Terms, read_terms

#: (task id, gold call index, the value the rule tests on the record it writes)
Acted = tuple[str, int, str]
Deciding = tuple[RulePlan, list[str], int | None]
SUFFIX = "_kb"
#: The tag of a write task the articles decide as a choice among the customer's records (:mod:`.choices`).
CHOICE = "document-choice"
TABLE = "help_articles"
#: A source environment gets a variant when at least this many of its tasks can rest on an article.
MIN_TASKS = 8
DOCUMENT_TABLE = TableSpec.model_validate(
    {
        "name": TABLE,
        "description": "The help center: the articles stating the service's rules",
        "primary_key": ["article_id"],
        "full_text": ["title", "body"],
        "columns": [
            {"name": "article_id", "type": "text"},
            {"name": "title", "type": "text"},
            {"name": "body", "type": "text"},
            {"name": "tags", "type": "text"},
        ],
    }
)
TOOLS = retrieval_tools(
    DOCUMENT_TABLE, id_column="article_id", title_column="title", text_column="body", tags_column="tags"
)
SEARCH, READ, GREP = (str(t["name"]) for t in TOOLS)


@dataclass
class KbVariant:
    spec: EnvSpec
    tasks: list[Task]
    source: str
    plans: list[RulePlan] = field(default_factory=list)
    #: task id -> (rule text, the value it tests, the gold write's index or None for a refusal)
    deciding: dict[str, list[tuple[str, list[str], int | None]]] = field(default_factory=dict)


def _field_values(spec: EnvSpec, value: str) -> list[str]:
    """The other values of the enum column that holds ``value`` (in words), for an exclusion's distractor."""
    label = value.replace("_", " ").lower()
    for table in spec.tables:
        for column in table.columns:
            words = [v.replace("_", " ") for v in column.enum or []]
            if label in words:
                return [w for w in words if w != label]
    return []


def _policy_rules(spec: EnvSpec) -> dict[str, list[RuleSpec]]:
    by_text: dict[str, list[RuleSpec]] = {}
    for r in spec.rules:
        if r.enforced_by == "policy":
            by_text.setdefault(r.text, []).append(r)
    return by_text


def _acted(env: Environment, tasks: Sequence[Task], text: str, tools: set[str], terms: Terms) -> list[Acted]:
    """Each gold write of ``tools`` with the value ``terms`` test on its record, where they allow it."""
    now = stated_now(env.spec.policy)
    found = []
    for task in tasks:
        for i, call in enumerate(task.gold_actions):
            if call.tool not in tools or now is None:
                continue
            value = tested_value(env, task, i, terms)
            if value is not None and terms.allows(now, [value]) is True:
                found.append((task.id, i, value))
    return found


def _plans(spec: EnvSpec, tasks: Sequence[Task]) -> list[RulePlan]:
    now = stated_now(spec.policy)
    by_text = _policy_rules(spec)
    reasons = rule_reasons(spec.policy, list(by_text))
    env = Environment(spec)
    plans = []
    for text, rules in by_text.items():
        ids = {r.id for r in rules}
        terms = read_terms(text)
        plan = RulePlan(text, list(dict.fromkeys(r.tool for r in rules)), reasons.get(text, ""), terms)
        if terms is not None and terms.text == text and now is not None:
            refused = [r.reason for t in tasks for r in t.refusals if r.rule in ids]
            refused = [reason for reason in refused if terms.allows(now, reason) is False]
            others = _field_values(spec, terms.values[0]) if terms.kind == "not_when" else []
            avoid = frozenset(r.text for r in spec.rules)  # a distractor never states another rule
            plan.looser = looser(terms, now, refused, others, avoid)
            plan.acted = _acted(env, tasks, text, set(plan.tools), terms)
            plan.stricter = stricter(terms, now, [[v] for _, _, v in plan.acted], avoid)
        plans.append(plan)
    return plans


def _deciding(spec: EnvSpec, task: Task, plans: Sequence[RulePlan]) -> list[Deciding] | None:
    """What decides ``task`` in the help center: each refusal on a rule left to the policy (a looser
    distractor lets its value through) and each gold write that a stricter distractor would refuse,
    as (plan, the value tested, the write's gold index or None); None when the task cannot rest on an
    article (nothing decides it, or a refusal on such a rule that no distractor flips)."""
    now = stated_now(spec.policy)
    if now is None:
        return None
    by_rule = {r.id: p for p in plans for r in spec.rules if r.text == p.text and r.enforced_by == "policy"}
    found: list[Deciding] = []
    for refusal in task.refusals:
        plan = by_rule.get(refusal.rule or "")
        if plan is None:
            continue
        terms, loose = plan.terms, plan.looser
        if terms is None or loose is None or refusal.call is None:
            return None
        if terms.allows(now, refusal.reason) is not False or loose.allows(now, refusal.reason) is not True:
            return None
        found.append((plan, refusal.reason, None))
    for plan in plans:
        strict = plan.stricter
        for tid, index, value in plan.acted:
            if tid == task.id and strict is not None and strict.allows(now, [value]) is False:
                found.append((plan, [value], index))
    return found or None


def eligible_tasks(spec: EnvSpec, tasks: Sequence[Task]) -> int:
    """How many of ``tasks`` a variant of ``spec`` would keep (the choice of sources reads this)."""
    plans = _plans(spec, tasks)
    return sum(_deciding(spec, t, plans) is not None for t in tasks)


def build_variant(spec: EnvSpec, tasks: Sequence[Task]) -> KbVariant:
    """The knowledge-base variant of ``spec`` with its tasks (not verified: :func:`.verify.verify_variant`)."""
    plans = _plans(spec, tasks)
    split = split_policy(spec.policy)
    rows = write_articles(spec, split, plans)
    vid = spec.id + SUFFIX
    name = f"{spec.name} (help center)"
    data = spec.model_dump(mode="json")
    data.update(
        id=vid,
        name=name,
        policy=header_policy(split, name, SEARCH, READ, GREP),
        # In every other mode the prompt says where the articles are instead of naming withheld tools.
        knowledge_policies={m: header_policy(split, name, SEARCH, READ, GREP, m) for m in ("full", "required", "none")},
        tables=[*data["tables"], DOCUMENT_TABLE.model_dump(mode="json", exclude_defaults=True)],
        tools=[*data["tools"], *TOOLS],
        seed={**data["seed"], TABLE: rows},
    )
    variant = KbVariant(EnvSpec.model_validate(data), [], spec.id, plans)
    lookups = _Lookups(variant.spec, rows, plans)
    now = stated_now(spec.policy)
    templates: list[tuple[Task, RulePlan, int]] = []  # write tasks as choices, and what decides them
    chosen: set[str] = set()  # the deciding write of each choice task
    refused: list[tuple[Task, RulePlan, int]] = []  # refusal tasks, with the refused call as their write
    for task in tasks:
        deciding = _deciding(spec, task, plans)
        if deciding is None:
            continue
        tid = f"{vid}-{len(variant.tasks) + 1:03d}"
        documents = list(dict.fromkeys(p.article for p, _, _ in deciding))
        reads = [call for d in documents for call in lookups.calls(d)]
        answer = task.answer.replace("the policy says", "the help center says") if task.answer else task.answer
        copied = task.model_copy(
            update={
                "id": tid,
                "env": vid,
                "required_documents": documents,
                "gold_actions": [*reads, *task.gold_actions],
                "answer": answer,
                "tags": [*task.tags, "knowledge-base"],
            }
        )
        shift = len(reads)  # the variant's gold finds and reads the documents first
        decided = [(p.text, value, None if i is None else i + shift) for p, value, i in deciding]
        if not task.refusals:  # the user names the record the rule allows: only a choice can rest on it
            plan, at = deciding[0][0], decided[0][2] if len(decided) == 1 else None
            choice = choice_task(variant.spec, copied, plan, at, now) if at is not None and now else None
            if at is not None and _key(copied.gold_actions[at]) in chosen:  # the same request again
                choice = None
            if choice is None or at is None:  # kept as a plain write: acting without the article gives its state
                tags = [t for t in copied.tags if t != "knowledge-base"]
                variant.tasks.append(copied.model_copy(update={"required_documents": [], "tags": tags}))
                if at is not None:  # its record may still make a choice task of its own (_more_choices)
                    templates.append((copied, plan, at))
                continue
            written = copied.gold_actions[at]
            chosen.add(_key(written))
            copied = choice.model_copy(update={"tags": choice_tags(variant.spec, choice)})
            at = copied.gold_actions.index(written)  # the writes follow the listing's order
            decided = [(text, value, at) for text, value, _ in decided]
            templates.append((copied, plan, at))
        variant.tasks.append(copied)
        variant.deciding[tid] = decided
        for refusal in task.refusals:
            call = refusal.call
            under = next((p for p, _, i in deciding if i is None and call and call.tool in p.tools), None)
            if under is not None and call is not None:
                # a refused call under the rule: its reads lead to the customers' records of the kind too
                gold = [*copied.gold_actions, call]
                refused.append((copied.model_copy(update={"gold_actions": gold}), under, len(gold) - 1))
    lookups.close()
    _more_choices(variant, [*templates, *refused])
    return variant


def choice_tags(spec: EnvSpec, task: Task) -> list[str]:
    """A choice task's tags: its writes counted anew ("2-write"), ``knowledge-base``, ``document-choice``."""
    writes = sum(1 for c in task.gold_actions if (t := spec.tool(c.tool)) is not None and t.kind == "write")
    refusals = {"refusal", "partial-refusal", "same-action-allowed"}  # a refusal task's, when one is its model
    kept = [t for t in task.tags if not re.fullmatch(r"\d+-writes?", t) and t not in refusals]
    return [*dict.fromkeys([*kept, f"{writes}-write", "knowledge-base", CHOICE])]


def _key(call: ToolCall) -> str:
    return json.dumps([call.tool, call.arguments], sort_keys=True, default=str)


def _more_choices(variant: KbVariant, templates: list[tuple[Task, RulePlan, int]]) -> None:
    """Choice tasks for other customers, while the variant has fewer than ``MIN_TASKS`` tasks a document
    decides (a write task that names its record became a plain write)."""
    now = stated_now(variant.spec.policy)
    decided = sum(bool(t.required_documents) for t in variant.tasks)
    # one task per record written: those the choice tasks already decide
    seen = {
        _key(t.gold_actions[i]) for t in variant.tasks for _, _, i in variant.deciding.get(t.id, []) if i is not None
    }
    tried: set[tuple[str, str]] = set()
    for template, plan, index in templates:
        if decided >= MIN_TASKS or now is None:
            return
        if (plan.text, template.gold_actions[index].tool) in tried:  # the same customers again
            continue
        tried.add((plan.text, template.gold_actions[index].tool))
        for made, at in more_choices(variant.spec, template, plan, index, now):
            if decided >= MIN_TASKS or _key(made.gold_actions[at]) in seen:
                continue
            tid = f"{variant.spec.id}-{len(variant.tasks) + 1:03d}"
            variant.tasks.append(made.model_copy(update={"id": tid, "tags": choice_tags(variant.spec, made)}))
            value = tested_value(Environment(variant.spec), made, at, plan.terms) if plan.terms else None
            variant.deciding[tid] = [(plan.text, [value] if value is not None else [], at)]
            seen.add(_key(made.gold_actions[at]))
            decided += 1


class _Lookups:
    """How the gold finds an article before reading it, as an agent would: a search for the action the
    rule governs ("reinstate member"), else for the article's title, whichever first shows it among the
    results (a search that would not show it is no way to find it)."""

    def __init__(self, spec: EnvSpec, rows: Sequence[dict[str, str]], plans: Sequence[RulePlan]) -> None:
        self._episode = Environment(spec).episode()
        self._titles = {r["article_id"]: r["title"] for r in rows}
        self._actions = {p.article: p.tools[0].replace("_", " ") for p in plans if p.tools and p.article}

    def calls(self, article: str) -> list[ToolCall]:
        read = ToolCall(tool=READ, arguments={"article_id": article})
        for query in (self._actions.get(article), self._titles[article]):
            if query and article in (
                r["article_id"] for r in self._episode.call_tool(SEARCH, {"query": query}).content
            ):
                return [ToolCall(tool=SEARCH, arguments={"query": query}), read]
        return [read]  # no search shows it (never seen: the title's own words rank it first)

    def close(self) -> None:
        self._episode.close()
