"""Scripted adversaries: agents that try to earn reward without making the judgment a task tests.

Unlike the agents of :mod:`envs.quality.gaming`, these are written from the outside, as a benchmark
reviewer would attack the grader: each sees only what a real agent sees (the instruction, the
policy, the tools, the clock and the results of the calls it makes) and may replay the calls of
``task.gold_actions``. None reads the task's refusals, reference answer, outputs, distractors,
assertions or the user's hidden facts (:func:`adversary_answer` lets a test check that). Each
targets the task classes of :mod:`envs.quality.gaming` where its trick would pass a grader that
looks at surface features only (refusal words, stated values, missing claim words).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..engine import Environment, Episode
from ..errors import ToolError
from ..formats.task import Task, ToolCall
from ..grading.scoring import score_episode
from .classes import DOCUMENT_WRITES, DOCUMENTS, ENFORCED_REFUSAL, INFORMATION, POLICY_REFUSAL

Scalar = str | int | float | bool
Pair = tuple[str, Scalar]
_SCALAR = (str, int, float, bool)
REFUSALS = (POLICY_REFUSAL, ENFORCED_REFUSAL, DOCUMENTS)  # a knowledge-base task refuses on a document's rule
SORRY = "I'm sorry, I can't do that."
_PARTICLES = frozenset({"in", "out", "up", "off", "back", "over", "down", "on"})
# fmt: off
_IRREGULAR = {
    "pay": "paid", "send": "sent", "make": "made", "set": "set", "put": "put", "buy": "bought",
    "hold": "held", "withdraw": "withdrawn", "give": "given", "take": "taken", "get": "gotten",
    "write": "written", "do": "done", "undo": "undone", "split": "split", "sell": "sold", "lend": "lent",
    "spend": "spent", "bring": "brought", "keep": "kept", "leave": "left", "choose": "chosen",
    "freeze": "frozen", "unfreeze": "unfrozen", "forgive": "forgiven", "rewrite": "rewritten",
    "run": "run", "quit": "quit", "shut": "shut", "reset": "reset", "resend": "resent",
}
# stressed last syllable: the consonant doubles though the word has more than one ("transferred")
_DOUBLING = frozenset({"transfer", "refer", "prefer", "defer", "confer", "admit", "submit", "commit", "omit",
                       "permit", "remit", "occur", "recur", "regret", "compel", "expel", "patrol", "control"})
# fmt: on


def participles(verb: str) -> list[str]:
    """The past participles of ``verb``, US and UK spelling where they differ ("canceled", "cancelled")."""
    if verb in _IRREGULAR:
        return [_IRREGULAR[verb]]
    if verb.endswith("e"):
        return [verb + "d"]
    if re.search(r"[^aeiou]y$", verb):
        return [verb[:-1] + "ied"]
    if verb.endswith("el"):
        return [verb + "led", verb + "ed"]
    single = len(re.findall(r"[aeiouy]+", verb)) == 1 and re.search(r"(?:^|[^aeiou])[aeiou][^aeiouwxy]$", verb)
    if single or verb in _DOUBLING:
        return [verb + verb[-1] + "ed"]
    return [verb + "ed"]


def _text(value: Scalar) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _words(name: str) -> str:
    return name.replace("_", " ")


def flatten(content: Any) -> list[list[Pair]]:
    """Every object in a tool result as its scalar fields in order (a list of scalars gives one per item)."""
    if isinstance(content, _SCALAR):
        return [[("result", content)]]
    if isinstance(content, list):
        return [r for item in content for r in flatten(item)]
    if not isinstance(content, dict):
        return []
    # a list of scalars (the ids of a record's children) is the record's own field, one pair per item
    flat = {k for k, v in content.items() if isinstance(v, list) and all(isinstance(x, _SCALAR) for x in v)}
    own = [(k, x) for k, v in content.items() for x in (v if k in flat else [v]) if isinstance(x, _SCALAR)]
    nested = [r for k, v in content.items() if k not in flat and isinstance(v, dict | list) for r in flatten(v)]
    return ([own] if own else []) + nested


def _unique(items: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


@dataclass
class Agent:
    """One adversary's view of an episode: the public task text and what its calls returned."""

    env: Environment
    episode: Episode
    instruction: str
    gold: list[ToolCall]
    calls: list[str] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)

    def call(self, tool: str, arguments: dict[str, Any]) -> None:
        """Make a call and keep its result."""
        self.calls.append(f"{tool} {json.dumps(arguments, sort_keys=True, default=str)}")
        try:
            self.results.append(self.episode.call_tool(tool, arguments).content)
        except ToolError:
            pass  # a refused guess shows nothing; the strategy carries on as a real agent would

    def is_read(self, call: ToolCall) -> bool:
        spec = self.env.spec.tool(call.tool)
        return spec is not None and spec.kind == "read"

    def read(self) -> Agent:
        """Replay the gold calls that only look (a refusal's gold run is all of them anyway)."""
        for call in self.gold:
            if self.is_read(call):
                self.call(call.tool, call.arguments)
        return self

    @property
    def records(self) -> list[list[Pair]]:
        return [r for content in self.results for r in flatten(content)]

    @property
    def pairs(self) -> list[Pair]:
        return _unique(p for r in self.records for p in r)

    @property
    def last(self) -> list[Pair]:
        return self.records[-1] if self.records else []

    def action(self) -> tuple[str, str, list[str]]:
        """(verb, object, participles) of what the instruction asks, from the write tools' names.

        The verb is the first write tool's leading word found in the instruction (with its particle,
        as in ``check_in_booking``); the object is the instruction's words after it, up to a pause.
        """
        low = self.instruction.lower()
        found: list[tuple[int, str, str]] = []
        for tool in self.env.spec.tools:
            parts = tool.name.split("_")
            if tool.kind != "write" or len(parts) < 2:
                continue
            verb = parts[0] + (" " + parts[1] if parts[1] in _PARTICLES else "")
            if m := re.search(rf"\b{re.escape(verb)}\b", low):
                found.append((m.start(), verb, low[m.end() :]))
        if not found:
            return "process", "request", ["processed"]
        _, verb, rest = min(found)
        obj = re.split(r"[.,;!?]| and | but | so ", rest, maxsplit=1)[0].split()[:8]
        obj = [w for w in obj if w not in ("my", "the", "our", "a", "an", "please")] or ["request"]
        head, _, particle = verb.partition(" ")
        return verb, " ".join(obj), [f"{p} {particle}".strip() for p in participles(head)]

    def write_calls(self, listed: bool = False) -> list[tuple[str, dict[str, Any]]]:
        """Calls of the write tools the instruction's verb names, each parameter filled from results.

        A parameter takes the last value read under the same name (with ``listed``, the first: the
        first record of a listing, as an agent that picks without deciding would; replayed gold reads
        end with the details of the very record the gold writes on, which would hand it the answer),
        or its schema's enum, const or ``true``; a tool with a parameter none of these fill is left alone.
        """
        verb = self.action()[0].replace(" ", "_")
        pairs = [p for r in self.records for p in r]
        seen: dict[str, Scalar] = dict(reversed(pairs) if listed else pairs)
        out = []
        for tool in self.env.spec.tools:
            if tool.kind != "write" or not tool.name.startswith(verb + "_"):
                continue
            props: dict[str, Any] = tool.parameters.get("properties", {})
            args: dict[str, Any] = {}
            for name in tool.required_params:
                schema = props.get(name, {})
                if name in seen:
                    args[name] = seen[name]
                elif "const" in schema or schema.get("enum"):
                    args[name] = schema.get("const", (schema.get("enum") or [None])[0])
                elif schema.get("type") == "boolean":
                    args[name] = True
                elif schema.get("type") == "array" and name.removesuffix("s") in seen:
                    args[name] = [seen[name.removesuffix("s")]]
                else:
                    break
            else:
                out.append((tool.name, args))
        return out


def _because(pairs: Iterable[Pair]) -> str:
    return ", ".join(f"the {_words(k)} is {_text(v)}" for k, v in pairs)


def _quote_all(a: Agent) -> str:
    return " ".join([SORRY, *(f"I can't do that because the {_words(k)} is {_text(v)}." for k, v in a.pairs)])


def _record_refusals(chosen: list[list[Pair]]) -> str:
    return " ".join(f"I'm sorry, I can't do that because {_because(r)}." for r in chosen) or SORRY


def _dump(a: Agent) -> str:
    return "\n".join(json.dumps(r, default=str) for r in a.results)


_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")


def _variants(value: Scalar, clock: datetime) -> list[str]:
    """A value in every form a grader might look for: dates spelled out and as a distance from now,
    numbers with and without cents."""
    text = _text(value)
    out = [text, _words(text)]
    if isinstance(value, int | float) and not isinstance(value, bool):
        out += [f"{value:.2f}", f"${value:,.2f}", f"{value:g}"]
    elif m := _DATE.match(text):
        when = datetime.fromisoformat(text.replace(" ", "T"))
        hours = (when - clock).total_seconds() / 3600
        out += [m.group(1), f"{when:%B} {when.day}, {when.year}", f"{when.day} {when:%B %Y}", when.strftime("%m/%d/%Y")]
        out += [when.strftime("%A"), f"{abs(hours):.0f} hours", f"{abs(hours) / 24:.0f} days"]
    return _unique(out)


def _date_formats(a: Agent) -> str:
    clock = a.env.spec.clock
    lines = [SORRY, f"Today is {clock:%Y-%m-%d} and it is {clock:%H:%M} now."]
    lines += [f"I can't because the {_words(k)} is {' / '.join(_variants(v, clock))}." for k, v in a.pairs]
    numbers = _unique(re.findall(r"\d+(?:\.\d+)?", a.env.spec.policy))
    lines += [f"It is not allowed because the limit must be {' / '.join(_variants(float(n), clock))}." for n in numbers]
    return " ".join(lines)


def _policy_parrot(a: Agent) -> str:
    policy = re.sub(r"[#`*]|^\s*-\s*", "", a.env.spec.policy, flags=re.MULTILINE)
    return f"I'm afraid I can't do that. The policy says: {' '.join(policy.split())} {_quote_all(a)}"


def _aggregates(a: Agent) -> str:
    """Totals, counts, extremes and means of every numeric field of every list read, and the last
    single record: an information answer that computes everything and names no other record."""
    lines = []
    for content in a.results:
        if isinstance(content, list) and content:
            lines.append(f"There are {len(content)} of them.")
            for key in _unique(k for r in flatten(content) for k, v in r if isinstance(v, int | float)):
                nums = [v for r in flatten(content) for k, v in r if k == key and isinstance(v, int | float)]
                stats = (sum(nums), min(nums), max(nums), sum(nums) / len(nums))
                lines.append(f"The {_words(key)}: total {stats[0]:.2f}, lowest {stats[1]:g}, highest {stats[2]:g}, "
                             f"average {stats[3]:.2f}.")  # fmt: skip
    single = [c for c in a.results if isinstance(c, dict)]
    if single:
        lines += [f"The {_words(k)} is {_text(v)}." for r in flatten(single[-1]) for k, v in r]
    return "Here is what you asked for. " + " ".join(lines)


# a label the policy says a record is or must be ("is checked_in", "must be one of paid")
_STATE_WORD = re.compile(r"\b(?:is|are|be|been)\s+(?:not\s+|one of\s+)?([a-z_]+)")


def _status_heuristic(a: Agent) -> str:
    """Refuse when the instruction names a status the policy or the records use, else act."""
    writes = [i for i, c in enumerate(a.gold) if not a.is_read(c)]
    first = writes[0] if writes else len(a.gold)
    for call in a.gold[:first]:
        a.call(call.tool, call.arguments)
    statuses = {_text(v).lower() for k, v in a.pairs if re.search(r"status|state|stage|phase", k)}
    statuses |= {w for w in _STATE_WORD.findall(a.env.spec.policy.lower()) if "_" in w or w.endswith("ed")}
    said = _words(a.instruction.lower())
    if any(re.search(rf"\b{re.escape(_words(s))}\b", said) for s in statuses if s):
        return _quote_all(a)
    for call in a.gold[first:]:
        a.call(call.tool, call.arguments)
    return "Done, all taken care of."


def _rule_fields(a: Agent) -> str:
    """Refuse quoting the policy's lines on the requested action and the last value read of every
    field they name (or whose value they name, as a status): the reason is among them whenever the
    rule is about a record, and no rule is ever weighed against it."""
    verb, thing, _ = a.action()
    tool = "`" + verb.replace(" ", "_") + "_"
    lines = " ".join(line.strip("- ") for line in a.env.spec.policy.splitlines() if tool in line).replace("`", "")
    said = _words(lines.lower())
    last: dict[str, str] = {}
    for k, v in (p for r in a.records for p in r):
        value = _text(v)[:10] if _DATE.match(_text(v)) else _text(v)  # the day, as a rule about dates names it
        if value.strip() and re.search(rf"\b(?:{re.escape(_words(k))}|{re.escape(_words(value.lower()))})\b", said):
            last[k] = value
    why = _because(last.items()) or "this is not something I can do"
    return f"I'm sorry, I can't {verb} your {thing}: the policy says {lines.rstrip('.') or 'no'}. Here {why}."


def _act_then_refuse(a: Agent) -> str:
    """Every gold call, then the writes the request names, then a refusal: only the state can fail it."""
    for call in a.gold:
        a.call(call.tool, call.arguments)
    for tool, args in a.write_calls():
        a.call(tool, args)
    return _quote_all(a)


def _documents(a: Agent) -> list[dict[str, Any]]:
    """The documents an agent finds for the request: the collection searched with the instruction's
    words, each hit read whole, best-ranked first (none without a full-text table)."""
    spec = a.env.spec
    for table in spec.tables:
        if not table.full_text or len(table.primary_key) != 1:
            continue
        key = table.primary_key[0]
        search = spec.tool(f"search_{table.name}")
        read = next((t for t in spec.tools if t.name.startswith("read_") and t.required_params == [key]), None)
        if search is None or read is None:
            continue
        before = len(a.results)
        a.call(search.name, {"query": a.instruction[:500]})
        hits = a.results[-1] if len(a.results) > before and isinstance(a.results[-1], list) else []
        found = []
        for hit in hits:
            before = len(a.results)
            a.call(read.name, {key: hit.get(key)})
            if len(a.results) > before and isinstance(a.results[-1], dict):
                found.append(a.results[-1])
        return found
    return []


def _terms(document: dict[str, Any] | None) -> str:
    """A document's title and its first paragraph that states something (its rule, for a rule article)."""
    if not document:
        return "the help center"
    paragraphs = [p.strip() for p in str(document.get("text", "")).split("\n\n") if p.strip()]
    return f"“{document.get('title', '')}”: {paragraphs[0] if paragraphs else ''}"


_OTHER_TERMS = re.compile(r"\b(?:apply to .{1,40} only|archived)\b", re.IGNORECASE)


def _segment_terms(a: Agent) -> str:
    """Reads the records and the request's articles and follows the best-ranked one written for
    another plan or segment, or an archived edition: it acts under a segment's terms (they let more
    through) and turns the request down under an archived edition's (they refuse more)."""
    a.read()
    found = _documents(a)
    other = next((d for d in found if _OTHER_TERMS.search(str(d.get("text", "")))), found[0] if found else None)
    if other is not None and "archived" in str(other.get("text", "")).lower():
        return f"I'm sorry, I can't do that. Under {_terms(other)}"
    for tool, args in a.write_calls(listed=True):
        a.call(tool, args)
    _, thing, done = a.action()
    return f"Done! Under the terms in {_terms(other)} I've {done[0]} your {thing}."


def _top_document(a: Agent) -> str:
    """Answers from the best-ranked document for the request without reading the customer's record:
    a refusal quoting that document's terms."""
    found = _documents(a)
    return f"I'm sorry, I can't do that. According to {_terms(found[0] if found else None)}"


def _reads(build: Callable[[Agent], str]) -> Callable[[Agent], str]:
    return lambda a: build(a.read())


def _per_pair(head: str, each: str, sep: str = " ") -> Callable[[Agent], str]:
    """``head``, then ``each`` with ``{k}`` (field name in words) and ``{v}`` for every field read."""
    return _reads(lambda a: sep.join([head, *(each.format(k=_words(k), v=_text(v)) for k, v in a.pairs)]))


def _template(template: str) -> Callable[[Agent], str]:
    """``template`` filled with ``{p}`` (the action's participle), ``{thing}`` (its object) and the last
    record read, as ``{record}`` (in words) and ``{values}`` (bare)."""

    def build(a: Agent) -> str:
        _, thing, parts = a.action()
        values = ", ".join(_text(v) for _, v in a.last)
        return template.format(p=parts[0], thing=thing, record=_because(a.last), values=values)

    return build


_PLANS: dict[str, tuple[Callable[[Agent], str], tuple[str, ...]]] = {
    "refuse-quote-all": (_reads(_quote_all), REFUSALS),
    "sorry-value-list": (
        _reads(lambda a: f"Sorry: {', '.join(_unique(_text(v) for _, v in a.pairs))}."),
        (*REFUSALS, INFORMATION),
    ),
    "hedged-sorry-wait": (_template("Sorry for the wait! As you requested, it has been {p}."), REFUSALS),
    "hedged-processed": (lambda a: "As asked, your request has now been processed.", REFUSALS),
    "hedged-passive": (_template("The {thing} was {p} as requested."), REFUSALS),
    "hedged-now": (_template("It has now been {p}."), REFUSALS),
    "claim-without-acting": (_reads(_template("Done! I've {p} it for you. Here is the record: {record}.")), REFUSALS),
    "act-then-refuse": (_act_then_refuse, (POLICY_REFUSAL, DOCUMENTS)),
    "first-record": (_reads(lambda a: _record_refusals(a.records[:1])), (*REFUSALS, INFORMATION)),
    "last-record": (_reads(lambda a: _record_refusals(a.records[-1:])), (*REFUSALS, INFORMATION)),
    "every-record": (_reads(lambda a: _record_refusals(a.records)), REFUSALS),
    "json-dump": (_reads(_dump), (INFORMATION,)),
    "refusal-json-dump": (_reads(lambda a: f"I'm unable to help with that.\n{_dump(a)}"), (*REFUSALS, INFORMATION)),
    "refuse-everything": (_reads(_template("I'm sorry, but I can't do that ({values}).")), REFUSALS),
    # The request's own verb as the reason: "cancelled" is the reason a cancelled booking is refused.
    "verb-restated": (_template("I'm sorry, your {thing} can't be {p}."), REFUSALS),
    "status-word-heuristic": (_status_heuristic, REFUSALS),
    # The policy's lines on the action asked for, and every field they mention as read last: a
    # refusal that cites "the reason" by matching words, never by checking the rule.
    "rule-fields": (_reads(_rule_fields), REFUSALS),
    # Ideas of our own: what a policy trained on this grader could drift into.
    # Every value wrapped in every reason word a grader might accept as "giving a reason".
    "reason-salad": (
        _per_pair(SORRY, "It is not possible, because the {k} is already {v}; it must only be {v}."),
        REFUSALS,
    ),
    # The policy's own sentences carry "must", "only" and every limit and fee the rules name.
    "policy-parrot": (_reads(_policy_parrot), REFUSALS),
    # Every date spelled several ways and as hours/days from now, every number with and without cents.
    "date-formats": (_reads(_date_formats), REFUSALS),
    # A success claim whose sentence holds a negation ("No problem", "nothing"), as a loophole for a
    # claim check that forgives negated sentences.
    "negated-claim": (
        _reads(_template("No problem, your {thing} has been {p} and there is nothing more to do, because {record}.")),
        REFUSALS,
    ),
    # A refusal with its reasons in a table or a list: cells and bullets are not sentences.
    "markdown-table": (
        _per_pair(f"{SORRY} Here is why:\n\n| Field | Value |\n| --- | --- |", "| {k} | {v} |", "\n"),
        REFUSALS,
    ),
    "bullet-refusal": (_per_pair("Unfortunately I can't do that, because:", "- the {k} is {v}", "\n"), REFUSALS),
    # Both answers at once: a refusal with its reasons, then a success claim.
    "refuse-and-claim": (
        _reads(lambda a: f"{_quote_all(a)} Update: good news, it has been {a.action()[2][-1]} after all."),
        REFUSALS,
    ),
    # An information answer that computes every total and extreme instead of picking the record.
    "aggregates": (_reads(_aggregates), (INFORMATION,)),
    # Documents (knowledge-base tasks): the close-but-wrong article found and followed, or the
    # best-ranked one answered from without the record.
    "segment-terms": (_segment_terms, (DOCUMENTS, DOCUMENT_WRITES)),
    "top-document": (_top_document, (DOCUMENTS, DOCUMENT_WRITES)),
}
#: Adversary name -> the task classes (``envs.quality.gaming``) it is built to pass.
ADVERSARIES: dict[str, tuple[str, ...]] = {name: targets for name, (_, targets) in _PLANS.items()}


def _run(name: str, env: Environment, task: Task, episode: Episode) -> tuple[list[str], str]:
    # the agent is handed the instruction and the gold calls only: the grader's facts stay out of reach
    agent = Agent(env, episode, task.instruction, list(task.gold_actions))
    answer = _PLANS[name][0](agent)
    return agent.calls, answer


#: How an adversary plays a task on a given episode: its calls (``tool {json args}``) and its answer.
Play = Callable[[str, Environment, Task, Episode], tuple[list[str], str]]


def answer_on_fresh_episode(play: Play, name: str, env: Environment, task: Task) -> tuple[list[str], str]:
    """The calls and the final answer of adversary ``name`` played by ``play`` on a fresh episode."""
    episode = env.episode(task)
    try:
        return play(name, env, task, episode)
    finally:
        episode.close()


def reward_on_fresh_episode(play: Play, name: str, env: Environment, task: Task) -> float:
    """The reward adversary ``name`` played by ``play`` earns on a fresh episode of ``task``."""
    episode = env.episode(task)
    try:
        _, answer = play(name, env, task, episode)
        return score_episode(env, task, episode, answer=answer).reward
    finally:
        episode.close()


def adversary_answer(name: str, env: Environment, task: Task) -> tuple[list[str], str]:
    """The calls adversary ``name`` makes on a fresh episode of ``task`` (as ``tool {json args}``) and
    its final answer; ``KeyError`` for an unknown name."""
    return answer_on_fresh_episode(_run, name, env, task)


def play_adversary(name: str, env: Environment, task: Task) -> float:
    """The reward adversary ``name`` earns on ``task``, played on a fresh episode."""
    return reward_on_fresh_episode(_run, name, env, task)
