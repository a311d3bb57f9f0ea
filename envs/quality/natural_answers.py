"""Correct final answers written the way people and LLM agents write them, built apart from the answer
grader so that grading them measures the grader's false negatives honestly.

Every answer turns each refused request down, says nothing was done for it and states each of its
reason values; states every required output; reports the writes the agent did do (a partial refusal's
allowed part); and states no distractor, pastes no tool result and adds no value a correct agent would
have no reason to give. The forms (:data:`FORMS`) vary, each on its own: where the reason sits, how the
refusal is worded, how dates, amounts and statuses are written, and whether the rule is paraphrased.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from ..engine import Environment
from ..formats.task import Refusal, Task, ToolCall


def _options(text: str) -> tuple[str, ...]:  # variants written as one string, separated by " | "
    return tuple(text.split(" | "))


@dataclass(frozen=True)
class _Form:
    """One way of writing an answer: each number picks from its own list of variants."""

    name: str
    layout: str  # where the reason sits relative to the refusal
    wording: int  # _REFUSE (and _HELD_OFF for a declined fee)
    date: int  # _day / _moment styles, 0-6
    money: int  # _money / _count styles, 0-4
    status: int  # plain, capitalized, quoted
    rule: int  # 0: the fact alone; 1: fact, then the rule; 2: the rule, then the fact and today's date
    done: int  # _nothing phrasing, and which fact phrasing
    writes_first: bool  # report the allowed writes before the refusal or after it


# Each column varies on its own, so no two forms share one mix of choices.
_FORMS = (
    _Form("reason-before", "before", 0, 1, 0, 0, 1, 0, True), _Form("reason-after", "after", 1, 0, 1, 1, 0, 1, False),
    _Form("because", "because", 2, 2, 2, 2, 2, 2, True), _Form("parenthetical", "paren", 3, 3, 3, 0, 1, 3, False),
    _Form("colon", "colon", 4, 4, 4, 1, 0, 0, True), _Form("dash", "dash", 5, 5, 0, 2, 2, 1, False),
    _Form("two-paragraphs", "paragraphs", 6, 6, 1, 0, 1, 2, True), _Form("bullets", "bullets", 7, 1, 2, 1, 1, 3, False),
    _Form("since", "since", 8, 0, 3, 2, 0, 0, True), _Form("rule-first", "rule-first", 9, 2, 4, 0, 2, 1, False),
    _Form("apology", "apology", 1, 3, 0, 1, 1, 2, True), _Form("terse", "terse", 10, 4, 1, 2, 0, 3, False),
)  # fmt: skip
#: Names of the answer forms, in the order :func:`natural_answers` returns them.
FORMS: tuple[str, ...] = tuple(f.name for f in _FORMS)

_REFUSE = _options(
    "I can't {act} | I'm unable to {act} | I'm not able to {act} | I looked into your request to {act}, but "
    "that isn't possible | I won't be able to {act} | unfortunately, I can't {act} | I'm afraid I'm not allowed to "
    "{act} | our policy doesn't allow me to {act} | your request to {act} isn't eligible | I have to decline your "
    "request to {act} | there's no way for me to {act}"
)
# A declined fee is the user's own condition, not a rule: the agent held off as asked.
_HELD_OFF = _options(
    "I didn't go ahead and {act} | I haven't gone ahead with your request to {act} | I've held off on your request "
    "to {act} | as you asked, I won't {act} | I didn't {act}"
)
_ISO = re.compile(r"\b(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::\d\d)?)?\b")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_MONEY = re.compile(
    r"(?i)\b(amount|price|cost|fee|balance|credit|total|budget|refund|payout|deposit|estimate|charge|fare|owed|"
    r"paid|pay|spend|premium|payment|allowance|rate|installment|principal|value|tip|how much)"
)
# A unit that makes a number a count, whatever money word stands next to it ("points balance").
_COUNTED = re.compile(
    r"(?i)\b(points?|credits|hours?|days?|gb|kw|kwh|percent|miles|lbs|gallons|count|number|visits|calls|lessons|"
    r"downloads|sessions|left|units|weight|seats|bags|nights|minutes|attendance|score)\b"
)
_IRREGULAR = {
    "pay": "paid", "prepay": "prepaid", "withdraw": "withdrawn", "leave": "left", "make": "made", "take": "taken",
    "put": "put", "buy": "bought", "hold": "held", "send": "sent", "give": "given", "freeze": "frozen",
    "unfreeze": "unfrozen", "set": "set", "keep": "kept", "let": "let", "get": "gotten", "run": "run",
    "bring": "brought", "begin": "begun", "split": "split", "find": "found", "do": "done", "undo": "undone",
    "lend": "lent", "spend": "spent", "build": "built", "rebuild": "rebuilt", "sell": "sold", "resell": "resold",
}  # fmt: skip
_DOUBLED = {"cancel", "drop", "ship", "skip", "unskip", "flag", "opt", "swap", "stop", "plan", "submit", "refer",
            "transfer", "permit", "admit", "commit", "tip", "ban", "bar", "tag", "plug", "unplug", "step"}  # fmt: skip
_PARTICLES = {"in", "up", "out", "back", "down", "off", "over", "away"}
_PREPOSITIONS = {"with", "from", "to", "for", "in", "on", "at", "as", "into", "of", "by"}
# The question templates of information tasks: what is asked (x) about which records (y).
_END = r"(?:\?|\.(?!\d)|$)"  # a sentence's end, not the point of "87.4"
_ASKS = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in (
    ("total", r"add up the (?P<x>.+?) of all (?:my|the) (?P<y>.+?) for me"),
    ("total", r"how much is the (?P<x>.+?) of (?:my|the) (?P<y>.+?) altogether"),
    ("if", r"if I were to (?P<act>.+?), what would my (?P<x>.+?) be afterwards"),
    ("if", r"what would my (?P<x>.+?) come to if I (?P<act>.+?)\?"), ("new", r"what is my (?P<x>.+?) after that"),
    ("new", r"tell me my new (?P<x>.+?)" + _END), ("when", r"when (?:was|does) my (?P<y>.+) (?P<act>\w+)\?"),
    ("field", r"(?:what is|tell me|need to know) the (?P<x>.+?) of my (?P<y>.+?)" + _END),
    ("much", r"(?P<x>how much) is my (?P<y>.+?)\?"), ("many", r"how many (?P<x>[\w ]+?) did my (?P<y>.+?) earn me\?"),
))  # fmt: skip
_SAY = {
    "total": "Your {y} total {v}. | The {x} of your {y} adds up to {v}. | Added together, that's {v}. | {v} is the "
    "total {x} across your {y}. | I added them up: the {x} comes to {v} in total. | Altogether, the {x} is {v}.",
    "if": "If you {act}, your {x} would be {v}. | Your {x} would come to {v} afterwards. | That would leave your {x} "
    "at {v}. | {v} would be your {x} after that. | Afterwards, your {x} would be {v}. | It would be {v}.",
    "new": "Your {x} is now {v}. | Your new {x} is {v}. | After that, your {x} stands at {v}. | {v} is your updated "
    "{x}. | The {x} on your account is now {v}. | It's now {v}.",
    "when": "Your {y} {did} {at} {v}. | It {did} {at} {v}. | {v} is when your {y} {did}. | That was {at} {v}. | "
    "I checked, and your {y} {did} {at} {v}. | The date is {v}.",
    "field": "The {x} of your {y} is {v}. | For your {y}, the {x} is {v}. | It's {v}. | {v} is the {x} on your {y}. | "
    "I checked your {y}: the {x} is {v}. | The {x} is {v}.",
    "much": "Your {y} is {v}. | It's {v}. | {v} is the amount of your {y}. | I checked your {y}: it's {v}. | "
    "That's {v}. | Your {y} comes to {v}.",
    "many": "Your {y} earned you {v} {x}. | It earned you {v} {x}. | That's {v} {x}. | {v} {x} in all. | "
    "I checked your {y}: {v} {x}. | You got {v} {x} for it.",
    "": "Here's what I found: {v}. | It comes to {v}. | The figures are {v}. | That's {v}. | In short: {v}. | "
    "Here are the details: {v}.",
}


@dataclass(frozen=True)
class _Ctx:
    env: Environment
    task: Task
    today: date
    users: str  # alternation of the nouns the user goes by (tables with an email column)
    writes: tuple[ToolCall, ...]  # the gold calls that change the state


def natural_answers(env: Environment, task: Task) -> dict[str, str]:
    """One complete, correct final answer for ``task`` in each of the :data:`FORMS`.

    Args:
        env: The task's environment (its spec gives the rules, the tools and today's date).
        task: The task to answer, as an agent that did every gold action would.

    Returns:
        Form name to answer text; empty for a task with neither refusals nor outputs.
    """
    if not task.refusals and not task.outputs:
        return {}
    tables = [t.name for t in env.spec.tables if t.column("email") is not None]
    nouns = {_singular(n).replace("_", " ") for n in tables}
    users = "|".join(sorted(nouns | {"customer", "user", "member", "client"}, key=len, reverse=True))
    writes = tuple(call for call in task.gold_actions if (t := env.spec.tool(call.tool)) and t.kind == "write")
    c = _Ctx(env, task, env.spec.clock.date(), users, writes)
    return {f.name: _answer(c, f, i) for i, f in enumerate(_FORMS)}


def _answer(c: _Ctx, f: _Form, i: int) -> str:
    bullet = "- " if f.layout == "bullets" else ""
    # a write repeated with the same arguments is reported once, as a person would
    writes = ("\n" if bullet else " ").join(dict.fromkeys(bullet + _done(c, call, f) for call in c.writes))
    refusals = [_refusal(c, r, f) for r in c.task.refusals]
    blocks = [writes, *refusals] if f.writes_first else [*refusals, writes]
    blocks += [_outputs(c, f, i)] if c.task.outputs else []
    text = {"bullets": "\n", "paragraphs": "\n\n"}.get(f.layout, " ").join(b for b in blocks if b)
    return f"Here's where things stand:\n{text}" if bullet else text


# -- values ---------------------------------------------------------------------------------------------
def _day(d: date, style: int, year: int) -> str:
    m, th = d.strftime("%B"), "th" if 10 <= d.day <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    ordinal = f"{m} {d.day}{th}" + ("" if d.year == year else f", {d.year}")  # this year goes without saying
    return (d.isoformat(), f"{m} {d.day}, {d.year}", f"{d.day} {m} {d.year}", f"{d:%m/%d/%Y}",
            f"{d:%b} {d.day}, {d.year}", ordinal, f"{d:%A}, {m} {d.day}, {d.year}")[style]  # fmt: skip


def _clock(hour: int, minute: int, style: int) -> str:
    twelve = f"{hour % 12 or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"
    return (f"{hour:02d}:{minute:02d}", twelve, twelve.replace(" ", "").lower())[style]


def _moment(m: re.Match[str], style: int, year: int) -> str:
    """An ISO date or date-time (seconds dropped, as people do), in the form's style."""
    d = date(int(m[1]), int(m[2]), int(m[3]))
    if m[4] is None:
        return _day(d, style, year)
    t = [_clock(int(m[4]), int(m[5]), k) for k in range(3)]
    return (f"{d.isoformat()} {t[0]}", f"{t[1]} on {_day(d, 1, year)}", f"{_day(d, 2, year)} at {t[0]}",
            f"{d:%m/%d/%Y} {t[1]}", f"{_day(d, 4, year)} at {t[1]}", f"{_day(d, 5, year)} at {t[2]}",
            f"{_day(d, 6, year)} at {t[1]}")[style]  # fmt: skip


def _money(x: Decimal, style: int) -> str:
    cents, plain = f"{x:,.2f}", f"{x:.2f}"
    return (f"${cents}", f"{cents} USD", f"USD {x.normalize():f}", f"{plain} dollars", f"${plain}")[style]


def _count(raw: str, x: Decimal, style: int) -> str:
    """A number that may not be money: as given, grouped in thousands, or without a zero fraction."""
    grouped = f"{x:,.{len(raw.partition('.')[2])}f}"
    whole = f"{x:,.0f}" if x == x.to_integral_value() else grouped
    return (raw, grouped, whole, raw, grouped)[style]


#: States as people say them rather than as the record spells them (plain style only).
_SPOKEN = {"disputed": "under dispute", "past due": "overdue", "under review": "being reviewed",
           "in review": "under review", "appealed": "under appeal", "in progress": "underway"}  # fmt: skip


def _status(v: str, style: int) -> str:
    v = v.replace("_", " ")  # a name, code or phrase with digits stays as the record has it
    plain = _SPOKEN.get(v, v)
    return (plain, v[0].upper() + v[1:], f'"{v}"')[style] if re.fullmatch(r"[a-z][a-z ]*", v) else v


def _value(v: str, money: bool, f: _Form, year: int) -> str:
    if m := _ISO.fullmatch(v):
        return _moment(m, f.date, year)
    if t := re.fullmatch(r"(\d{1,2}):(\d\d)", v):
        return _clock(int(t[1]), int(t[2]), f.date % 3)
    if _NUMBER.fullmatch(v):
        return _money(Decimal(v), f.money) if money else _count(v, Decimal(v), f.money)
    return _status(v, f.status)


def _is_money(context: str) -> bool:
    return _MONEY.search(context) is not None and _COUNTED.search(context) is None


def _join(items: list[str], last: str = "and") -> str:
    return ", ".join(items[:-1]) + f" {last} " + items[-1] if len(items) > 1 else "".join(items)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _yours(text: str, f: _Form, year: int) -> str:
    """The user's words said back to them: "my" becomes "your", and dates take the form's style."""
    for mine, theirs in ((r"\bmy\b", "your"), (r"\bme\b", "you"), (r"\bI'm\b", "you're"), (r"\bI\b", "you")):
        text = re.sub(mine, theirs, text)
    return _ISO.sub(lambda m: _moment(m, f.date, year), text)


def _clean(c: _Ctx, text: str) -> bool:
    """Whether ``text`` states none of the task's distractors (the user's words may hold one)."""
    return not any(re.search(rf"(?<![\w.]){re.escape(d)}(?!\w|\.\d)", text) for d in c.task.distractors)


def _participle(verb: str) -> str:
    v = verb.lower()
    regular = (
        v + v[-1] + "ed" if v in _DOUBLED else v + "d" if v.endswith("e") else re.sub(r"([^aeiou])y$", r"\1i", v) + "ed"
    )
    return _IRREGULAR.get(v, regular)


# -- refusals -------------------------------------------------------------------------------------------
_LAYOUTS = {
    "before": "{W}. Because of that, {no}; {done}.", "after": "{N}. {W}. {D}.", "colon": "{N}: {why}. {D}.",
    "because": "{N} because {why}, so {done}.", "paren": "{N} ({why}), so {done}.", "dash": "{N} — {why}. {D}.",
    "paragraphs": "{N}.\n\n{W}. {D}.", "bullets": "- {N}.\n- Reason: {why}.\n- {D}.", "terse": "{N}; {why}. {D}.",
    "since": "Since {why}, {no}. {D}.", "rule-first": "{W}. So {no}, and {done}.",
    "apology": "I'm sorry, but {no}. {W}, so {done}.",
}  # fmt: skip
_FACTS = {  # how the deciding fact is said, by kind; the form's ``done`` picks one
    "fee": "it would cost {} | there's a fee of {} | it comes with a {} fee | a {} fee would apply",
    "already": "it's already {} | it has already been {} | its status is already {} | it was already {}",
    "already+": "its status is already {} | it's already marked as {} | its status is already {} | it's already {}",
    "status": "it's currently {} | its status is {} | it's marked as {} | it's {} at the moment",
    "status+": "its status is currently {} | its status is {} | it's marked as {} | it's marked {}",
    "date": "it's scheduled for {} | it's dated {} | the date on it is {} | it's set for {}",
    "recent": "it dates from {} | it's from {} | it's dated {} | the date on it is {}",
}  # fmt: skip
_RULES = {  # the rule in plain words, from the kind of its predicate and its argument
    "away": "that can only be done more than {} in advance", "soon": "that's only possible within {} of it",
    "recent": "that's only possible within {} of that date", "passed": "that's only possible once that date has passed",
    "future": "that's only possible while it's still in the future", "least": "that needs {its} to be at least {}",
    "differ": "that needs {its} to differ from {}", "is": "that's only possible when {subject} is {}",
    "not": "that isn't allowed when {subject} is {}",
}  # fmt: skip
_KINDS = (
    ("away", r"be more than (\d+ \w+) away"), ("soon", r"be no more than (\d+ \w+) away"), ("passed", r"have passed()"),
    ("recent", r"be within the last (\d+ \w+)"), ("future", r"be in the future()"), ("oneof", r"be one of (.+)"),
    ("limit", r"(?:be at most|stay within) (.+)"), ("least", r"be at least (.+)"), ("differ", r"differ from (.+)"),
    ("fewer", r"fewer than \d+ (.+?) records per .+"), ("is", r"be (.+)"),
)  # fmt: skip


def _refusal(c: _Ctx, r: Refusal, f: _Form) -> str:
    act = _yours(r.request, f, c.today.year)
    fee = r.rule is None and bool(r.reason) and all(_NUMBER.fullmatch(v) for v in r.reason)
    no = (_HELD_OFF[f.wording % len(_HELD_OFF)] if fee else _REFUSE[f.wording]).format(act=act)
    fact, rule, already = _reason(c, r, f, fee)
    head = re.search(r"\byour ([\w' -]+?)(?= with | from | dated | due | for | in [A-Z]| on \d| on [A-Z]|$)", act)
    if f.layout in ("before", "since") and head and not fee:  # the reason comes first: name the record
        swap = {"it's ": " is ", "its ": "'s ", "it ": " "}
        fact = re.sub(r"^it(?:'s|s)? ", lambda p: f"your {head[1]}{swap[p[0]]}", fact)
    why = fact if f.rule == 0 or not rule else f"{fact}, and {rule}" if f.rule == 1 else f"{rule}, and {fact}"
    done = _nothing(r, f, already)
    return _LAYOUTS[f.layout].format(no=no, why=why, done=done, N=_cap(no), W=_cap(why), D=_cap(done))


def _nothing(r: Refusal, f: _Form, already: bool) -> str:
    """That nothing was done: at times with the very word a claim would use, negated."""
    verb, _, rest = r.request.partition(" ")
    # "put my prescription on hold": the verb alone ("I haven't put it") would not say what was not done
    plain = rest.startswith("my ") and rest.split()[-1] not in _PARTICLES | {"hold"} and not already
    first = f"I haven't {_participle(verb)} it" if plain else "nothing has been changed"
    return (first, "it remains exactly as it was", "no changes were made to it", "everything stays as it is")[f.done]


def _reason(c: _Ctx, r: Refusal, f: _Form, fee: bool) -> tuple[str, str, bool]:
    """The fact that decides the refusal and the rule behind it ("" when none), as clauses; and whether
    the record already is what the request would make it."""
    year, pick = c.today.year, f.done
    if fee:
        fact = _options(_FACTS["fee"])[pick].format(_join([_value(v, True, f, year) for v in r.reason]))
        return fact, "you asked me not to go ahead if there was a fee", False
    rule = c.env.spec.rule(r.rule) if r.rule else None
    if rule is None:  # the record's status decides
        verb = r.request.split()[0]
        # the request would make it what it already is: "cancel" a cancelled one, "put on hold" one on hold
        already = any(
            v.replace(" ", "")[:4] == verb[:4] or set(v.split()) & set(r.claims) or r.request.endswith(" " + v)
            for v in r.reason
        )
        phrase = "+" if any(" " in v for v in r.reason) else ""  # "remake requested" is a status, not an adjective
        facts = _options(_FACTS[("already" if already else "status") + phrase])
        return facts[pick].format(_join([_status(v, f.status) for v in r.reason])), "", already
    text = rule.text.replace("_", " ")
    m = re.fullmatch(r"(?:not when )?(.+?) (?:must|is) (.+)", text)
    subject = re.sub(r" of ([\w ,'-]+?) records per [\w ]+$", r" of \1s", m[1]) if m else "the limit"
    predicate = m[2] if m else text
    kind, arg = next(((k, g[1]) for k, p in _KINDS if (g := re.fullmatch(p, predicate))), ("other", predicate))
    kind = "not" if text.startswith("not when ") else kind  # "not when the charge type is equipment"
    v = _join([_value(x, _is_money(subject), f, year) for x in r.reason])
    if kind in ("away", "soon", "recent", "passed", "future"):
        fact = _options(_FACTS["recent" if kind == "recent" else "date"])[pick].format(v)
        today = f" (today is {_day(c.today, f.date, year)})" if f.rule == 2 else ""
        return fact + today, _RULES[kind].format(arg), False
    if kind == "fewer":
        return f"you can only have fewer than {v} {arg}s at a time", "", False
    if kind == "limit":
        return f"the limit on {subject} is {v}", "", False
    owner = re.fullmatch(r"the ([\w ]+?)'s (.+)", subject)  # the user's field is "your ...", the record's "its ..."
    its = re.sub(r"^the ", "its ", subject) if not owner else subject
    its = f"your {owner[2]}" if owner and re.fullmatch(c.users, owner[1]) else its
    if kind in ("oneof", "not"):
        kind, arg = ("is", _join(arg.split(", "), "or")) if kind == "oneof" else (kind, v)
    plain = re.sub(r"\bmust\b", "has to", text)
    return f"{its} is {v}", _RULES[kind].format(arg, subject=subject, its=its) if kind in _RULES else plain, False


# -- writes the agent did -------------------------------------------------------------------------------
def _done(c: _Ctx, call: ToolCall, f: _Form) -> str:
    """The write ``call`` reported in plain words, with the verb of its tool ("I've paused your membership")."""
    if call.tool.startswith("transfer_to_human"):
        return "I've passed your request on to a human agent."
    tables = {t.name: t.name for t in c.env.spec.tables} | {_singular(t.name): t.name for t in c.env.spec.tables}
    words, args = call.tool.split("_"), call.arguments
    fields = [k for k, v in args.items() if not k.endswith("_id") and k != "confirm" and not isinstance(v, list | bool)]
    if words[0] == "update":  # update_<record>_<field>
        cut = next((k for k in range(len(words), 1, -1) if "_".join(words[1:k]) in tables), 2)
        field, record = " ".join(words[cut:]) or "details", " ".join(words[1:cut])
        own = sum(k.endswith("_id") for k in args) == 1 or re.fullmatch(c.users, record) is not None
        thing = f"your {field}" if own else f"the {field} of your {record}"
        value = str(args[fields[0]]) if len(fields) == 1 and args[fields[0]] is not None else ""
        shown = _value(value, _is_money(field), f, c.today.year) if value and _clean(c, value) else ""
        verb, to = ("updated", "changed")[f.done // 2 % 2], f" to {shown}" if shown else ""
        return f"{_cap(thing)} is now {shown or 'updated'}." if f.done % 2 else f"I've {verb} {thing}{to}."
    cut = next((k for k in range(1, len(words)) if "_".join(words[k:]) in tables), 1)
    # a status between verb and record describes the record: cancel_pending_order, "your pending order"
    states = {v for t in c.env.spec.tables for col in t.columns for v in col.enum or ()}
    while cut > 1 and (words[cut - 1] in states or words[cut - 1].endswith("ed")):
        cut -= 1
    done, middle, record = _participle(words[0]), words[1:cut], f"your {' '.join(words[cut:])}"
    if words[0] == "create":
        record, done = f"your new {' '.join(words[cut:])}", ("set up", "created")[f.done % 2]
    lists = [v for v in args.values() if isinstance(v, list) and len(v) > 1]
    both = (" (both of them)" if len(lists[0]) == 2 else " (all of them)") if lists else ""
    if not middle:
        have = "have" if lists or re.search(r"[^s]s$", record) else "has"
        return f"{_cap(record)} {have} been {done}{both}." if f.done % 2 else f"I've {done} {record}{both}."
    phrase = " ".join(middle)
    if len(middle) == 1 and phrase in _PARTICLES:  # check_in_booking: "checked in your booking"
        return f"I've {done} {phrase} {record}{both}."
    if middle[0] in _PREPOSITIONS or middle[-1] == "hold":  # pay_from_credit_bill: "paid your bill from credit"
        return f"I've {done} {record} {phrase}{both}."
    return f"I've {done} the {phrase} for {record}{both}."  # retry_payment_subscription: "retried the payment"


def _singular(name: str) -> str:
    ends = (("ies", "y"), ("sses", "ss"), ("uses", "us"), ("xes", "x"), ("ches", "ch"), ("shes", "sh"), ("s", ""))
    return next((name[: -len(p)] + one for p, one in ends if name.endswith(p) and not name.endswith("ss")), name)


# -- outputs --------------------------------------------------------------------------------------------
def _outputs(c: _Ctx, f: _Form, i: int) -> str:
    """The task's outputs in a sentence shaped by the question the user asked."""
    year, outputs = c.today.year, c.task.outputs
    asked = next(((k, m) for k, p in _ASKS if (m := p.search(c.task.instruction))), None)
    if asked and len(outputs) == 1 and _clean(c, asked[1][0]):
        kind, m = asked
        words = {k: _yours(v, f, year) for k, v in m.groupdict().items() if v is not None}
        value = _value(outputs[0], _is_money(words.get("x", "")), f, year)
        if f.layout == "bullets":
            return f"- {_cap(words.get('x', 'date'))}: {value}"
        words["did"] = "starts" if words.get("act") == "start" else f"was {words.get('act')}"
        at = "at" if re.match(r"\d{1,2}:\d\d", value) else "on"
        text = _cap(_options(_SAY[kind])[i % 6].format(v=value, at=at, **words))
        if kind == "if":  # a what-if question: say the action was not taken
            text += ("", " I haven't changed anything yet.", " Nothing has been done yet.")[i % 3]
    else:
        money = _is_money(c.task.instruction)
        values = [_value(o, money and "." in o, f, year) for o in outputs]
        if f.layout == "bullets":
            return "\n".join(f"- {v}" for v in values)
        text = _options(_SAY[""])[i % 6].format(v=_join(values))
    # the second six forms open differently, so that no two forms give the same sentence
    alone = not c.task.refusals and not c.writes
    lead = "" if i < 6 else "Sure. " if alone else "To answer your question: "
    return ("Here's what I found.\n\n" if f.layout == "paragraphs" and not c.task.refusals else lead) + text
