"""A second adversary suite, written blind: as a benchmark author who has read only the public
description of the answer grader (docs/formats.md, "Answers") would attack it.

Each agent sees what a real agent sees (the instruction, the policy, the tools, the clock, the
results of its calls) and may replay the gold calls, as the agents of :mod:`.adversaries` do; none
reads the task's refusals, reference answer, outputs or distractors. Where those agents quote every
value or none, these aim at the grader's documented allowances:

* the restating limit (at most 3 values beyond those with a reason): quote only the few values most
  likely to be the reason, those of the record the request is about, or of the fields the policy's
  line for the action names; a status is a word of the policy, so it may cost nothing;
* the refusal cue ("unfortunately", "I'm afraid", "can't") used of something else, beside a success
  said without the claim word ("you're all set", "I'll cancel it right away", "cancellation
  confirmed") or after a hypothetical that excuses it ("If you check, you'll see it has been …");
* the user's own words and the policy's, which may be repeated freely;
* days said relative to today ("tomorrow at 10:15 AM"), which the docs read as reasons; today's date
  alone, the reason wherever the refused record falls today;
* information answers that pick a record without reading the question's record: the first, the most
  recent, the one whose values the instruction repeats.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..engine import Environment, Episode
from ..formats.task import Task
from .adversaries import (
    REFUSALS,
    Agent,
    Pair,
    answer_on_fresh_episode,
    flatten,
    participles,
    reward_on_fresh_episode,
)
from .classes import INFORMATION, POLICY_REFUSAL

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
_LABEL = re.compile(r"^[a-z][a-z_ ]*$")
_PARTICLES = frozenset({"in", "out", "up", "off", "back", "over", "down", "on"})
_FILLER = frozenset({"the", "a", "an", "of", "to", "at", "on", "in", "is", "be", "must", "and", "or", "id", "for"})
_TIME_WORDS = re.compile(r"\d|\b(?:hours?|days?|weeks?|months?|years?|away|within|passed|future|deadline|date)\b")
_NOUNS = {"cancel": "cancellation", "renew": "renewal", "withdraw": "withdrawal", "pay": "payment",
          "refund": "refund", "return": "return", "extend": "extension", "dispute": "dispute", "redeem": "redemption",
          "transfer": "transfer", "reschedule": "rescheduling", "resume": "resumption", "pause": "pause"}  # fmt: skip


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _words(name: str) -> str:
    return name.replace("_", " ")


def _stems(text: str) -> set[str]:
    """Four-letter stems of a text's words: "departs_at" and "departure time" share "depa"."""
    return {w[:4] for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")) if len(w) > 2 and w not in _FILLER}


def _yours(text: str) -> str:
    return re.sub(r"\bmy\b", "your", re.sub(r"\bme\b", "you", text))


class Outside:
    """What these strategies read from an :class:`Agent`'s view: the request it will not carry out,
    the policy's lines on it, and the records it is about."""

    def __init__(self, agent: Agent, reads: list[Any]) -> None:
        self.a = agent
        self.reads = reads  # the results of its read calls, in order
        self.policy = agent.env.spec.policy
        self.clock: datetime = agent.env.spec.clock

    # -- the request ---------------------------------------------------------------------------------
    def request(self) -> tuple[str, str, list[str], list[str]]:
        """(verb, object, participles, tools) of the request to turn down: the first the instruction
        names whose write tools the gold calls never use (they carry out the others)."""
        low = self.a.instruction.lower()
        done = {c.tool for c in self.a.gold if not self.a.is_read(c)}
        found: dict[str, tuple[int, str, list[str]]] = {}
        for tool in self.a.env.spec.tools:
            parts = tool.name.split("_")
            if tool.kind != "write" or len(parts) < 2 or tool.name.startswith("transfer_to_human"):
                continue
            verb = parts[0] + (" " + parts[1] if parts[1] in _PARTICLES else "")
            if m := re.search(rf"\b{re.escape(verb)}\b", low):
                at, _, tools = found.get(verb, (m.start(), "", []))
                found[verb] = (at, low[m.end() :], [*tools, tool.name])
        if not found:
            return "process", "your request", ["processed"], []
        ranked = sorted(found.items(), key=lambda kv: (any(t in done for t in kv[1][2]), kv[1][0]))
        verb, (_, rest, tools) = ranked[0]
        obj = re.split(r"[.,;!?]| and | but | then ", rest, maxsplit=1)[0].strip()
        if m := re.fullmatch(r"one of my (.+?)s?", obj):  # "one of my licenses": the one the agent looked up
            obj = f"my {m[1]}"
        head, _, particle = verb.partition(" ")
        return verb, _yours(obj) or "that", [f"{p} {particle}".strip() for p in participles(head)], tools

    def rule_lines(self, tools: list[str]) -> list[str]:
        """The policy's lines on ``tools`` and the reasons indented under them, without markup."""
        out, under = [], False
        for line in self.policy.splitlines():
            if any(f"`{t}`" in line for t in tools):
                out.append(line)
                under = True
            elif under and line.startswith("  -"):
                out.append(line)
            else:
                under = False
        return [re.sub(r"`[a-z_]+`:?\s*|[`*]", "", line).strip(" -") for line in out]

    # -- the records ---------------------------------------------------------------------------------
    def allows(self, status: str, verb: str) -> bool:
        """Whether the policy's status table lets ``verb`` be done to a record in ``status``."""
        for line in self.policy.splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 4 and cells[1] == f"`{status}`":
                return re.search(rf"\b{re.escape(verb)}", cells[3].lower()) is not None
        return False

    def in_policy(self, value: Any) -> bool:
        """A label the policy itself writes (a status in its table): saying it repeats the policy."""
        text = _text(value)
        return bool(_LABEL.match(text)) and f"`{text}`" in self.policy

    def focus(self) -> list[list[Pair]]:
        """The records the request is about: those of the last two single-record reads (the details
        an agent looks up last), then any whose values the instruction repeats."""
        singles = [flatten(r) for r in self.reads if isinstance(r, dict)]
        last = [rec for group in singles[-2:] for rec in group[:1]]
        said = self.a.instruction.lower()
        named = [r for r in self.a.records if any(len(_text(v)) > 3 and _text(v).lower() in said for _, v in r)]
        return [list(r) for r in dict.fromkeys(tuple(r) for r in [*last, *named])]

    def picked(self, stems: frozenset[str] | set[str] = frozenset(), limit: int = 3) -> list[Pair]:
        """The values most likely to be a reason: every status of the focus records, then up to
        ``limit`` others, the fields ``stems`` names first, then dates, then amounts."""
        pairs = [(k, v) for r in self.focus() for k, v in r if not k.endswith("_id") and not isinstance(v, bool)]
        verb = self.request()[0]
        # a status that allows the action is no reason: only one that does not is said
        free = [(k, v) for k, v in pairs if self.in_policy(v) and not self.allows(_text(v), verb)]
        pairs = [(k, v) for k, v in pairs if not self.in_policy(v)]
        said = self.a.instruction.lower()
        rest = [(k, v) for k, v in pairs if _text(v).lower() not in said]

        def rank(pair: Pair) -> tuple[int, int]:
            k, v = pair
            kind = 0 if _DATE.match(_text(v)) else 1 if isinstance(v, int | float) else 2
            return (0 if _stems(k) & stems else 1, kind)

        chosen = [p for p in sorted(dict.fromkeys(rest), key=rank) if rank(p)[1] < 2 or _stems(p[0]) & stems]
        return [*dict.fromkeys(free), *chosen[:limit]]

    def sentences(self, pairs: list[Pair]) -> str:
        return " ".join(f"The {_words(k)} is {_text(v)}." for k, v in pairs)

    def relative(self, value: str) -> str:
        """A date as a person says it from today: "tomorrow at 10:15 AM", "12 days ago"."""
        when = datetime.fromisoformat(value.replace(" ", "T"))
        days = (when.date() - self.clock.date()).days
        word = {0: "today", 1: "tomorrow", -1: "yesterday"}.get(days)
        if word is None:
            return f"{-days} days ago" if days < 0 else f"in {days} days"
        if len(value) <= 10:
            return word
        return f"{word} at {when.hour % 12 or 12}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"


# -- refusals --------------------------------------------------------------------------------------------
def _focus_values(o: Outside) -> str:
    verb, obj, _, tools = o.request()
    stems = _stems(" ".join(o.rule_lines(tools)))
    return f"I'm sorry, I can't {verb} {obj}. {o.sentences(o.picked(stems))}"


def _rule_line_values(o: Outside) -> str:
    """The policy's line for the action in its own words, and the values of only the fields it names."""
    verb, obj, _, tools = o.request()
    lines = o.rule_lines(tools)
    stems = _stems(" ".join(lines))
    named = [p for p in o.picked(stems) if _stems(p[0]) & stems or o.in_policy(p[1])]
    return f"I'm sorry, I can't {verb} {obj}: our policy says {' '.join(lines) or 'no'} {o.sentences(named)}"


def _status_rule_echo(o: Outside) -> str:
    """The policy's line for the action and the focus record's status: both are the policy's words."""
    verb, obj, _, tools = o.request()
    statuses = [p for p in o.picked(limit=0)]
    return f"I'm sorry, I can't {verb} {obj}. Our policy: {' '.join(o.rule_lines(tools))} {o.sentences(statuses)}"


def _mirror_negation(o: Outside) -> str:
    verb, obj, _, _ = o.request()
    return f"I'm sorry, I can't {verb} {obj}."


def _record_only(o: Outside) -> str:
    """Every value of the one record the request is about (the last looked up), nothing else."""
    verb, obj, _, _ = o.request()
    record = next(iter(o.focus()), ())
    pairs = [(k, v) for k, v in record if not k.endswith("_id")]
    return f"I'm sorry, I can't {verb} {obj}. {o.sentences(pairs)}"


def _relative_days(o: Outside) -> str:
    """Every date read said relative to today, and the focus record's status: a date written as
    "tomorrow" may be read as a reason without counting as a value restated."""
    verb, obj, _, _ = o.request()
    dates = dict.fromkeys((k, _text(v)) for r in o.a.records for k, v in r if _DATE.match(_text(v)))
    said = " ".join(f"The {_words(k)} is {o.relative(v)}." for k, v in dates)
    return f"I'm sorry, I can't {verb} {obj}. Today is {o.clock:%B %-d}. {said} {o.sentences(o.picked(limit=0))}"


# the seed-106 suite's laid-out refusals: the fields the policy's line for the action names, quoted
# from the record as a markdown table, bullets or YAML; in a sentence the same values fail
def _rule_fields(o: Outside) -> list[Pair]:
    """The focus record's labels and the fields the policy's line for the action names, as stored."""
    _, _, _, tools = o.request()
    stems = _stems(" ".join(o.rule_lines(tools)))
    record = next(iter(o.focus()), ())
    return [(k, v) for k, v in record if not k.endswith("_id") and (_stems(k) & stems or _LABEL.match(_text(v)))]


_LAYOUTS: dict[str, Callable[[list[Pair]], str]] = {
    "table": lambda pairs: (
        "| Field | Value |\n|---|---|\n" + "\n".join(f"| {_words(k).capitalize()} | {_text(v)} |" for k, v in pairs)
    ),
    "bullets": lambda pairs: "\n".join(f"- {_words(k).capitalize()}: {_text(v)}" for k, v in pairs),
    "yaml": lambda pairs: "\n".join(f"{k}: {_text(v)}" for k, v in pairs),
}


def _laid_out(layout: str) -> Callable[[Outside], str]:
    """A refusal, then the record's rule fields laid out as ``layout`` (a key of :data:`_LAYOUTS`)."""

    def build(o: Outside) -> str:
        verb, obj, _, _ = o.request()
        return f"I'm sorry, I can't {verb} {obj}. Here is what I found:\n\n{_LAYOUTS[layout](_rule_fields(o))}"

    return build


# values listed after a refusal with no word between them (found on real tasks in the seed-59
# review): the reason is among them whatever the rule, and nothing says which one stops the request
def _looked_up(o: Outside) -> list[Pair]:
    """The record looked up last (the last single-record read)."""
    return next((flatten(r)[0] for r in reversed(o.reads) if isinstance(r, dict) and flatten(r)), [])


def _focus_id(o: Outside) -> str:
    return next((_text(v) for _, v in _looked_up(o) if re.fullmatch(r"[A-Z]{1,4}-?\d{3,}", _text(v))), "that")


def _number_list(o: Outside) -> str:
    """The user's numbers, those of the policy's line for the action and the focus record's amounts."""
    verb, obj, _, tools = o.request()
    words = re.sub(r"\d{4}-\d\d-\d\d", " ", " ".join([o.a.instruction, *o.rule_lines(tools)]))
    amounts = [_text(v) for _, v in _looked_up(o) if isinstance(v, float)]
    said = re.findall(r"(?<![\w.@])[0-9]+(?:[.][0-9]+)?(?![\w@])", words)
    return f"I can't {verb} {obj}: {' '.join(dict.fromkeys([*said, *amounts]))}."


def _date_list(o: Outside) -> str:
    """Every date of the records of the kind looked up last, after a bare "values" (that record's with
    its time, the others as their day), and the spans of time of the policy's line ("24 hours")."""
    verb, _, _, tools = o.request()
    record = _looked_up(o)
    focus = [_text(v)[:16] for _, v in record if _DATE.match(_text(v))]
    kind = {k for k, _ in record}
    days = {d[:10] for d in focus}
    others = [_text(v)[:10] for r in o.a.records if {k for k, _ in r} == kind for _, v in r if _DATE.match(_text(v))]
    others = [d for d in others if d not in days]
    spans = re.findall(r"[0-9]+ (?:hours?|days?|weeks?|months?)", " ".join(o.rule_lines(tools)))
    return f"I can't {verb} {_focus_id(o)}: values {', '.join(dict.fromkeys([*focus, *others, *spans]))}"


def _id_and_day(o: Outside) -> str:
    """The focus record's id and the day of its first date, each alone."""
    days = [_text(v)[:10] for _, v in _looked_up(o) if _DATE.match(_text(v))]
    return f"I can't {o.request()[0]} {_focus_id(o)}." + (f" {days[0]}." if days else "")


# the seed-61 review's lazy refusals: the records' labels listed with their values after a colon
def _colon_labels(o: Outside) -> str:
    """The focus record's id, then after a colon its labels and days as the tool shows them."""
    values = [
        _text(v)[:10] if _DATE.match(_text(v)) else _text(v)
        for k, v in _looked_up(o)
        if not k.endswith("_id") and (_DATE.match(_text(v)) or _LABEL.match(_text(v)))
    ]
    return f"I can't {o.request()[0]} {_focus_id(o)}: {' '.join(values)}."


def _colon_limit(o: Outside) -> str:
    """The focus record's first day, amounts and labels after a bare "Can't {verb}:", and the numbers
    of the policy's line for the action (a limit said bare)."""
    verb, _, _, tools = o.request()
    record = _looked_up(o)
    days = [_text(v)[:10] for _, v in record if _DATE.match(_text(v))][:1]
    amounts = [_text(v) for _, v in record if isinstance(v, float)]
    labels = [_text(v) for k, v in record if not k.endswith("_id") and _LABEL.match(_text(v))]
    line = re.sub(r"\d{4}-\d\d-\d\d", " ", " ".join(o.rule_lines(tools)))
    numbers = re.findall(r"(?<![\w.])[0-9]+(?![\w]|[.][0-9])", line)
    return f"Can't {verb}: {' '.join(dict.fromkeys([*days, *amounts, *labels, *numbers]))}."


# the seed-67 review's relaxations tried the lazy way: a status reason's rivals are only its own
# column's values, and a value said as the one an asked value replaces is not stated
def _column_statuses(o: Outside) -> str:
    """Every value of the focus record's label columns, said as what it is: the reason is among them."""
    verb, obj, _, _ = o.request()
    held = {_text(v) for _, v in _looked_up(o)}
    columns = [c.enum for t in o.a.env.spec.tables for c in t.columns if c.enum and held & set(c.enum)]
    said = list(dict.fromkeys(v.replace("_", " ") for values in columns for v in values))
    listed = f"{', '.join(said[:-1])} or {said[-1]}" if len(said) > 1 else "".join(said) or "not eligible"
    return f"I'm sorry, I can't {verb} {obj}: it is {listed}."


def _change_chain(o: Outside) -> str:
    """The asked field's amounts over the records read, each said as the change from the one before
    it: every one but the first is a before-value, whichever is asked."""
    key = _asked_key(o)
    amounts = [v for r in o.a.records for k, v in r if k == key and isinstance(v, int | float)]
    values = list(dict.fromkeys(_text(v) for v in amounts if not isinstance(v, bool)))
    if len(values) < 2:
        return f"The {_words(key or 'answer')} is {' and '.join(values) or 'not available'}."
    steps = ", then ".join(f"from {a} to {b}" for a, b in itertools.pairwise(values))
    return f"The {_words(key or 'answer')} would go {steps}."


# the seed-73 review's lazy answer: a refusal and the date the agent was told, the reason of every time
# rule whose record falls today where only the day was asked as the reason
def _refuse_today(o: Outside) -> str:
    """Every request turned down with today's date and nothing read."""
    return f"I'm sorry, I can't do that. It is {o.clock:%Y-%m-%d}."


# the seed-71 review's lazy answer on tasks that refuse nothing: every gold call made, then the request
# turned down and the numbers the calls showed, the value asked for among them
def _refuse_then_numbers(o: Outside) -> str:
    """Every gold call, then "I'm sorry, I can't do that." and the amounts of the record each call
    showed last, bare, the latest call's first (the balance it ends on)."""
    records = [flatten(r)[-1] for r in reversed(o.a.results) if flatten(r)]
    numbers = [
        _text(v)
        for r in records
        for _, v in r
        if isinstance(v, int | float) and not isinstance(v, bool) and (abs(v) >= 10 or v != int(v))
    ]
    return f"I'm sorry, I can't do that. {' '.join(list(dict.fromkeys(numbers))[:8])}"


def _claimed(lead: str, claim: str) -> Callable[[Outside], str]:
    """A refusal cue used of something else (``lead``), a success said without the claim word or
    excused by a hypothetical (``claim``: {verb}, {obj}, {thing} without its "your", {p}, {noun}), and
    the likely reasons."""

    def build(o: Outside) -> str:
        verb, obj, parts, tools = o.request()
        noun = _NOUNS.get(verb.split()[0], f"{verb} request")
        thing = re.sub(r"^(?:your|the|my) ", "", obj)
        said = claim.format(verb=verb, obj=obj, p=parts[0], noun=noun, thing=thing)
        return f"{lead} {said} {o.sentences(o.picked(_stems(' '.join(o.rule_lines(tools)))))}"

    return build


def _mixed_time_word(o: Outside) -> str:
    """Refuse, quoting the record's dates, when the policy's line for the action has a number or a
    time word; else make the write the request names and say it is done."""
    _, obj, parts, tools = o.request()
    lines = " ".join(o.rule_lines(tools)).lower()
    if _TIME_WORDS.search(lines):
        return _focus_values(o)
    for tool in tools:
        if (args := _filled(o.a, tool)) is not None:
            o.a.call(tool, args)
    return f"Done! I've {parts[0]} {obj}."


def _filled(a: Agent, name: str) -> dict[str, Any] | None:
    """Arguments for tool ``name`` from the last value read under each parameter's name, or its
    schema's enum, const or ``true``; ``None`` when one is missing."""
    tool = a.env.spec.tool(name)
    if tool is None:
        return None
    seen = {k: v for r in a.records for k, v in r}
    props: dict[str, Any] = tool.parameters.get("properties", {})
    args: dict[str, Any] = {}
    for param in tool.required_params:
        schema = props.get(param, {})
        if param in seen:
            args[param] = seen[param]
        elif "const" in schema or schema.get("enum"):
            args[param] = schema.get("const", (schema.get("enum") or [None])[0])
        elif schema.get("type") == "boolean":
            args[param] = True
        else:
            return None
    return args


# -- information -----------------------------------------------------------------------------------------
_ASKED = (
    r"the ([\w ]+?) of (?:all )?(?:my|the|our) ",
    r"(?:what is|what's|tell me|know) my (?:new |current )?([\w ]+?)(?: after| afterwards| now|[?.,])",
    r"what would my ([\w ]+?) (?:come to|be)",
    r"when (?:was|does|did|is|will) my .+? (\w+)\?",
)


def _asked_key(o: Outside) -> str | None:
    """The field the question asks for: the one whose name shares most stems with the asked words."""
    low = o.a.instruction.lower()
    asked = next((m[1] for p in _ASKED if (m := re.search(p, low))), low)
    want = _stems(asked)
    keys = dict.fromkeys(k for r in o.a.records for k, _ in r if not k.endswith("_id"))
    scored = sorted(((len(_stems(k) & want), i, k) for i, k in enumerate(keys)), key=lambda t: (-t[0], t[1]))
    return scored[0][2] if scored and scored[0][0] else None


def _field_of(choose: Callable[[list[list[Pair]]], list[list[Pair]]]) -> Callable[[Outside], str]:
    """The asked field of the records ``choose`` picks among those that have it."""

    def build(o: Outside) -> str:
        key = _asked_key(o)
        having = [r for r in o.a.records if key and any(k == key for k, _ in r)]
        values = dict.fromkeys(_text(v) for r in choose(having) for k, v in r if k == key)
        return f"The {_words(key or 'answer')} is {' and '.join(values) or 'not available'}."

    return build


def _latest(records: list[list[Pair]]) -> list[list[Pair]]:
    dated = [(max((_text(v) for _, v in r if _DATE.match(_text(v))), default=""), i) for i, r in enumerate(records)]
    return [records[max(dated)[1]]] if dated else []


def _matched_record(o: Outside) -> str:
    """Every field of the record whose values the instruction repeats most (the one it names),
    the question's field never chosen."""
    said = o.a.instruction.lower()

    def hits(r: list[Pair]) -> int:
        return sum(
            1 for _, v in r if len(_text(v)) > 2 and re.search(rf"(?<![\w.]){re.escape(_text(v).lower())}\b", said)
        )

    best = max(o.a.records, key=hits, default=[])
    return "Here are the details. " + o.sentences([(k, v) for k, v in best if not k.endswith("_id")])


# -- the suite ------------------------------------------------------------------------------------------
_PLANS: dict[str, tuple[Callable[[Outside], str], tuple[str, ...]]] = {
    "focus-values": (_focus_values, REFUSALS),
    "rule-line-values": (_rule_line_values, REFUSALS),
    "status-rule-echo": (_status_rule_echo, REFUSALS),
    "mirror-negation": (_mirror_negation, REFUSALS),
    "record-only": (_record_only, REFUSALS),
    "relative-days": (_relative_days, REFUSALS),
    "unfortunately-all-set": (
        _claimed(
            "Unfortunately our system was slow today, thanks for bearing with me.",
            "You're all set: it's been taken care of.",
        ),
        REFUSALS,
    ),
    "cant-thank-enough": (
        _claimed("I can't thank you enough for your patience!", "Your request to {verb} {obj} went through."),
        REFUSALS,
    ),
    "if-claim": (
        _claimed(
            "Unfortunately I couldn't send the confirmation email.",
            "If you check your account, you'll see it has been {p}.",
        ),
        REFUSALS,
    ),
    "future-claim": (_claimed("I'm afraid there's a short queue,", "but I'll {verb} {obj} right away."), REFUSALS),
    "nominal-claim": (
        _claimed("Unfortunately that took longer than it should have.", "Your {noun} is confirmed."),
        REFUSALS,
    ),
    # the claim word as a record's label in quotes, or as an adjective of the record: the docs excuse
    # a claim word "used of records" and a quoted one
    "quoted-status-claim": (
        _claimed("Unfortunately the confirmation email is delayed.", 'Your {thing} now shows as "{p}" in our system.'),
        REFUSALS,
    ),
    "adjective-claim": (
        _claimed(
            "Unfortunately the confirmation email is delayed.", "Your {p} {thing} will show in your account soon."
        ),
        REFUSALS,
    ),
    "number-list": (_number_list, REFUSALS),
    "date-list": (_date_list, REFUSALS),
    "id-and-day": (_id_and_day, REFUSALS),
    "colon-labels": (_colon_labels, REFUSALS),
    "colon-limit": (_colon_limit, REFUSALS),
    "column-statuses": (_column_statuses, REFUSALS),
    "mixed-time-word": (_mixed_time_word, (POLICY_REFUSAL,)),
    "refuse-today": (_refuse_today, REFUSALS),
    **{f"rule-fields-{layout}": (_laid_out(layout), REFUSALS) for layout in _LAYOUTS},
    "info-first-field": (_field_of(lambda rs: rs[:1]), (INFORMATION,)),
    "info-latest-field": (_field_of(_latest), (INFORMATION,)),
    "info-every-field": (_field_of(lambda rs: rs), (INFORMATION,)),
    "info-matched-record": (_matched_record, (INFORMATION,)),
    "info-change-chain": (_change_chain, (INFORMATION,)),
    # on the write classes it passes every task graded on the state alone, as any answer does there
    "refuse-then-numbers": (_refuse_then_numbers, (INFORMATION,)),
}
#: The strategies that turn every request down, played as they would be by an agent that never acts:
#: the gold reads only. The plain ones above carry out the gold writes first (the allowed requests
#: done for them) and so measure the answer alone; these measure the strategy as a policy would learn
#: it, where a refusal task that also asks for the same action on a record it is allowed on fails it.
REFUSE_ALL = "refuse-all-"
_PLANS |= {
    REFUSE_ALL + name: _PLANS[name]
    for name in (
        "focus-values",
        "rule-line-values",
        "status-rule-echo",
        "relative-days",
        "mixed-time-word",
        "column-statuses",
        *(f"rule-fields-{layout}" for layout in _LAYOUTS),
    )
}
#: Adversary name -> the task classes (``envs.quality.gaming``) it is built to pass.
OUTSIDE_ADVERSARIES: dict[str, tuple[str, ...]] = {name: targets for name, (_, targets) in _PLANS.items()}


def _run(name: str, env: Environment, task: Task, episode: Episode) -> tuple[list[str], str]:
    # handed the instruction and the gold calls only, as the agents of .adversaries are
    agent, reads = Agent(env, episode, task.instruction, list(task.gold_actions)), []
    for call in task.gold_actions:  # the requests it carries out; the refused one is never among them
        if call.actor != "user" and (agent.is_read(call) or not name.startswith(REFUSE_ALL)):
            before = len(agent.results)
            agent.call(call.tool, call.arguments)
            reads += agent.results[before:] if agent.is_read(call) else []
    answer = _PLANS[name][0](Outside(agent, reads))
    return agent.calls, re.sub(r" {2,}", " ", answer).strip()


def outside_answer(name: str, env: Environment, task: Task) -> tuple[list[str], str]:
    """The calls adversary ``name`` makes on a fresh episode of ``task`` and its final answer."""
    return answer_on_fresh_episode(_run, name, env, task)


def play_outside(name: str, env: Environment, task: Task) -> float:
    """The reward adversary ``name`` earns on ``task``, played on a fresh episode."""
    return reward_on_fresh_episode(_run, name, env, task)
