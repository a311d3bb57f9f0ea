"""The help center of a knowledge-base variant: its articles, written from the original policy.

* per entity, a status article (what each status means, what can be done) and a "what you can do
  and why" article (each write tool's line; a rule left to the policy is not stated there but named
  by the article that states it);
* per rule left to the policy (one statement, whichever tools share it), an article stating it with
  the reason beside it;
* per such rule, its distractors: the same title and topic for another customer segment (looser: it
  lets through what the rule refuses) and, where the form has a stricter side, an archived edition;
* the general rules (``## Always``), the requests only staff handle, and a FAQ in customers' words
  that names the articles but states no value.

Ids (``HC-001`` …) are given in an order drawn from the titles, so a rule's article and its
distractors are not neighbours and an id says nothing about which one applies.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from envs.formats.spec import EnvSpec

from ..domains.domain import plural
from ..tasks.phrasing import verb_phrase
from .distractors import ARCHIVED, SEGMENTS
from .policy_split import ALWAYS, STAFF, SplitPolicy, is_reason_line, statuses_and_actions
from .terms import Terms

#: What a rule article is about, by the form of its rule.
_TOPIC = {
    "after": "notice period",
    "before": "time window",
    "last": "time limit",
    "passed": "timing",
    "one_of": "eligibility",
    "not_when": "exclusions",
    "equals": "limits",
    "at_most": "limits",
}


@dataclass
class RulePlan:
    """A rule statement left to the policy, the tools it governs, why, and its distractors."""

    text: str
    tools: list[str]
    reason: str
    terms: Terms | None
    looser: Terms | None = None
    stricter: Terms | None = None
    #: (task id, gold call index, tested value) of each gold write the rule let through
    acted: list[tuple[str, int, str]] = field(default_factory=list)
    article: str = ""  # the id of the article stating it
    distractors: dict[str, Terms] = field(default_factory=dict)  # article id -> the terms it states


@dataclass(frozen=True)
class Article:
    title: str
    body: str
    tags: str
    key: str  # what it is, for the id order: "rule:<text>", "looser:<text>", "entity:<name>" ...

    def row(self, article_id: str) -> dict[str, str]:
        return {"article_id": article_id, "title": self.title, "body": self.body, "tags": self.tags}


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _words(name: str) -> str:
    return name.replace("_", " ")


def rule_title(plan: RulePlan) -> str:
    """A rule article's title, as "Renew loan: time window (loan's due date)": the actions (a bulk twin,
    ``decline_substitutions`` beside ``decline_substitution``, is left out), the kind of rule, and
    what it is about."""
    tools = [t for t in plan.tools if t.removesuffix("s") == t or t.removesuffix("s") not in plan.tools]
    actions = ", ".join(_upper(_words(t)) if i == 0 else _words(t) for i, t in enumerate(tools))
    topic = _TOPIC.get(plan.terms.kind if plan.terms else "", "conditions")
    subject = plan.terms.subject if plan.terms else ""
    subject = re.sub(r"^(?:the |not when the )", "", subject)
    return f"{actions}: {topic}" + (f" ({subject})" if subject else "")


def _rule_body(statement: str, plan: RulePlan, head: str = "") -> str:
    why = f", {plan.reason}" if plan.reason else ""
    tools = ", ".join(f"`{t}`" for t in plan.tools)
    return (
        (head + "\n\n" if head else "")
        + f"{_upper(statement)}{why}.\n\nApplies to: {tools}.\n\n"
        + "The tools do not check this rule: check the customer's record against it before you act. If the "
        "record does not meet it, do not go ahead; tell the customer which rule stops it and the value in "
        "their record that does."
    )


def _refer(lines: Sequence[str], plans: Sequence[RulePlan], titles: dict[str, str]) -> list[str]:
    """Lines with every rule left to the policy named by its article instead of stated."""
    out = []
    for line in lines:
        if any(is_reason_line(line, p.text) for p in plans):
            continue
        for p in plans:
            line = re.sub(re.escape(p.text), f"the rule in “{titles[p.text]}”", line, flags=re.IGNORECASE)
        out.append(line)
    return out


def _user_entity(spec: EnvSpec) -> str | None:
    """The customer's entity: the one the policy's identity look-up finds by email (``find_member_by_email``)."""
    return next(
        (t.name.removeprefix("find_").removesuffix("_by_email") for t in spec.tools if t.name.endswith("_by_email")),
        None,
    )


def faq_question(tool: str, tables: set[str], user_entity: str | None) -> str:
    """A customer's question about what ``tool`` does, in their words: ``renew_loan`` gives "Can you just
    renew my loan?", ``reinstate_member`` (the customer's own record) "Can you just reinstate my
    account?", ``create_loan`` "Can you set up a new loan for me?"."""
    words = tool.split("_")
    for cut in range(1, len(words)):  # the longest entity name the tool ends with
        entity = "_".join(words[cut:])
        if plural(entity) in tables:
            verb = "_".join(words[:cut])
            break
    else:
        return f"Can you just {_words(tool)} for me?"
    noun = _words(entity)
    if verb == "create":
        return f"Can you set up a new {noun} for me?"
    return f"Can you just {verb_phrase(verb, 'my account' if entity == user_entity else f'my {noun}')}?"


def _faq(spec: EnvSpec, plans: Sequence[RulePlan], titles: dict[str, str]) -> list[Article]:
    by_tool: dict[str, list[str]] = {}
    for p in plans:
        for t in p.tools:
            by_tool.setdefault(t, []).append(titles[p.text])
    tables, user = {t.name for t in spec.tables}, _user_entity(spec)
    lines = []
    for tool, named in by_tool.items():
        if tool.endswith("s") and tool[:-1] in by_tool:  # a bulk twin asks the same question
            continue
        refs = " and ".join(f"“{n}”" for n in dict.fromkeys(named))
        lines += [
            f"**“{faq_question(tool, tables, user)}”**",
            f"Usually, yes, once we have checked your record against {refs}. If your record does not meet "
            "those terms, we will tell you which one and why; we cannot make exceptions.",
            "",
        ]
    if not lines:
        return []
    asked = len(lines) // 3
    half = (asked + 1) // 2 * 3
    parts = [lines[:half], lines[half:]] if asked > 3 else [lines]
    return [
        Article(
            f"Frequently asked questions{f' ({i + 1} of {len(parts)})' if len(parts) > 1 else ''}",
            "\n".join(part).strip(),
            "faq",
            f"faq:{i}",
        )
        for i, part in enumerate(parts)
        if part
    ]


def write_articles(spec: EnvSpec, split: SplitPolicy, plans: Sequence[RulePlan]) -> list[dict[str, str]]:
    """The help center's rows, with ids; fills each plan's ``article`` and ``distractors``."""
    titles = {p.text: rule_title(p) for p in plans}
    articles: list[Article] = []
    for s in split.entity_sections:
        statuses, actions = statuses_and_actions(s)
        topic = s.heading
        if "\n".join(statuses).strip():
            body = "\n".join(_refer(statuses, plans, titles)).strip()
            articles.append(Article(f"{topic}: statuses and what they mean", body, "statuses", f"status:{topic}"))
        if actions:
            body = "\n".join(_refer(actions, plans, titles)).strip()
            articles.append(Article(f"{topic}: what you can do and why", body, "actions", f"actions:{topic}"))
    general = ((ALWAYS, "General rules", "general"), (STAFF, "Requests only our staff handle", "staff"))
    for heading, title, tags in general:
        section = split.section(heading)
        if section is not None and section.body:
            body = "\n".join(_refer(section.lines, plans, titles)).strip()
            articles.append(Article(title, body, tags, f"section:{heading}"))
    articles += _faq(spec, plans, titles)
    distractor_terms: dict[str, Terms] = {}
    for i, p in enumerate(plans):
        tags = ", ".join(["rules", *p.tools])
        articles.append(Article(titles[p.text], _rule_body(p.text, p, ""), tags, f"rule:{p.text}"))
        segment = SEGMENTS[i % len(SEGMENTS)]
        if p.looser is not None:
            head = f"These terms apply to {segment} only. Requests of other customers follow the standard terms."
            key = f"looser:{p.text}"
            articles.append(Article(f"{titles[p.text]} — {segment}", _rule_body(p.looser.text, p, head), tags, key))
            distractor_terms[key] = p.looser
        if p.stricter is not None:
            head = "Archived: this edition has been replaced and no longer applies."
            key = f"stricter:{p.text}"
            title = f"{titles[p.text]} — {ARCHIVED}"
            articles.append(Article(title, _rule_body(p.stricter.text, p, head), f"{tags}, archived", key))
            distractor_terms[key] = p.stricter
    order = sorted(articles, key=lambda a: (zlib.crc32(f"{spec.id}:{a.key}".encode()), a.key))
    ids = {a.key: f"HC-{n:03d}" for n, a in enumerate(order, start=1)}
    for p in plans:
        p.article = ids[f"rule:{p.text}"]
        p.distractors = {ids[k]: t for k, t in distractor_terms.items() if k.split(":", 1)[1] == p.text}
    return [a.row(ids[a.key]) for a in sorted(articles, key=lambda a: ids[a.key])]
