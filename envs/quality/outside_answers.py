"""Correct final answers in forms a careful person writes that the other corpora do not: a second
held-out set for the answer grader's false negatives, written blind to the grader's code.

Each answer says what a correct one says (each refusal turned down with its reason values, each
required output stated, nothing else from the records but a greeting's first name), in one form
(:data:`FORMS`): a refusal worded without the usual cues ("I'm not in a position to", "There's no way
for me to", "It's too early to"), a status said as a person says it ("overdue" for ``past_due``,
"under dispute" for ``disputed``), the rule said of every record of the kind ("Business licenses are
renewed when …"), a day said relative to today ("tomorrow at 10:15 AM") or as "the 11th of June,
2026", "6/11/26", "11.06.2026", a time as "quarter past ten", an amount as "US$1,234.50" or "1,234
dollars and 50 cents", the value at the very start, a closing that offers what can be done instead.
:data:`READ` names the forms built only of what docs/formats.md ("Answers") says the grader reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from ..engine import Environment
from ..formats.task import Refusal, Task
from .adversaries import participles

_ISO = re.compile(r"^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::\d\d)?)?$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_MONEY = re.compile(r"(?i)amount|price|cost|fee|balance|credit|total|paid|deposit|charge|refund|payout|fare|owed|"
                    r"value|premium|payment|tip|due|budget|salary|cash|spent|rate")  # fmt: skip
_COUNTED = re.compile(r"(?i)points|hours|days|minutes|count|number|miles|nights|seats|bags|units|spots|percent|kwh")
# statuses as people say them: only where their words differ from the label's
SPOKEN = {
    "past due": "overdue", "disputed": "under dispute", "under review": "still being reviewed",
    "in progress": "underway", "pending": "still waiting to go through", "denied": "turned down",
    "declined": "turned down", "rejected": "turned down", "submitted": "already sent in", "completed": "finished",
    "collected": "already picked up", "picked up": "already collected", "delivered": "already arrived",
    "out for delivery": "on its way to you", "in transit": "on its way", "ready for pickup": "waiting for you to "
    "collect", "paid off": "fully paid", "paused": "on pause", "expired": "run out", "lapsed": "run out",
    "active": "still in effect", "scheduled": "on the calendar", "waitlisted": "on the waitlist",
    "processing": "still being processed", "queued": "in the queue", "refunded": "already refunded in full",
    "requested": "already asked for", "withdrawn": "pulled out already", "booked": "reserved",
}  # fmt: skip
_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _th(day: int) -> str:
    return f"{day}{'th' if 10 <= day <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def _spelled(n: int) -> str:
    return _ONES[n] if n < 20 else _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])


@dataclass(frozen=True)
class _Form:
    """One way of writing: a refusal frame and an information frame, and how each kind of value is
    written (each style a key of :data:`_DATES`, :data:`_TIMES`, :data:`_AMOUNTS`, :data:`_LABELS`)."""

    name: str
    read: bool  # every construct of it is one docs/formats.md says the grader reads
    refuse: str  # {act} the request, {why} the reason clause, {V} the reason value, {what} what the value is
    inform: str  # {said} the reference sentence ({low} lower-cased), {V} the value, {what} what it is
    day: str = "iso"
    time: str = "iso"
    amount: str = "plain"
    label: str = "plain"
    close: str = ""


_SORRY = "I'm sorry, I can't {act}: {why}."
_FORMS = (
    _Form("relative-day", True, "I'm afraid I can't {act}: {why}.", "Sure! {said}", day="relative", time="ampm"),
    _Form("day-first-slash", True, "Unfortunately, I can't {act} — {why}.", "I've checked: {low}", day="dmy",
          amount="usd-code"),
    _Form("value-first", True, "{V} — that's {what}, so I can't {act}.", "{V} — that's {what}.", day="long"),
    _Form("alternatives-closing", True, _SORRY, "{said} If you'd like, I can help with anything else on your account.",
          amount="dollar", close="If it helps, I can {alt} instead, or look into anything else for you."),
    _Form("greets-by-name", True, "Hi {name}, thanks for waiting. I'm unable to {act}, because {why}.",
          "Hi {name}, thanks for waiting. {said} Have a great day!", day="long", time="ampm"),
    _Form("spoken-status", False, "I can't {act}: {why}.", "So, {low}", label="spoken"),
    _Form("no-way", False, "There's no way for me to {act} — {why}.", "Good question. {said}", amount="dollar"),
    _Form("not-in-a-position", False, "I'm not in a position to {act}, as {why}.", "From what I can see, {low}",
          day="long"),
    _Form("too-early-or-hold-off", False, "{hold} {act}: {why}.", "{said} Nothing has been changed."),
    _Form("cannot", False, "I cannot {act}: {why}.", "According to your records, {low}", label="caps"),
    _Form("ordinal-of-month", False, _SORRY, "Here you go: {low}", day="of", time="spoken", amount="words"),
    _Form("two-digit-year", False, _SORRY, "Quick answer: {V}. {said}", day="yy", time="dotted", amount="us-dollar"),
    _Form("dotted-date", False, _SORRY, "{said} Let me know if that helps.", day="dotted", time="h"),
    _Form("weekday-no-year", False, _SORRY, "Thanks for asking. {said}", day="weekday", time="hour"),
    _Form("rule-in-general", False, _SORRY, "{said}", close="{general}"),
    _Form("bold-markdown", False, "**Not possible:** I can't {act}.\n\n**Why:** {why}.", "**Answer:** {V}", day="long",
          amount="dollar"),
    # the reason laid out as a person lays out a short summary: bullets, or a small table
    _Form("bullets", False, "I can't {act}.\n\n- {What}: {V}\n- Why: {why}\n", "- {said}"),
    _Form("small-table", False, "I'm sorry, I can't {act}.\n\n| Detail | Value |\n|---|---|\n| {What} | {V} |\n"
          "| Why | {why} |\n", "{said}", day="long", amount="dollar"),
)  # fmt: skip
#: Names of the answer forms, in the order :func:`outside_answers` returns them.
FORMS: tuple[str, ...] = tuple(f.name for f in _FORMS)
#: The forms made only of what the docs say the grader reads.
READ: frozenset[str] = frozenset(f.name for f in _FORMS if f.read)


def _day(d: date, style: str, today: date) -> str:
    month = d.strftime("%B")
    rel = {0: "today", 1: "tomorrow", -1: "yesterday"}.get((d - today).days)
    return {
        "iso": d.isoformat(), "long": f"{month} {d.day}, {d.year}", "dmy": f"{d:%d/%m/%Y}",
        "relative": rel or f"{month} {d.day}, {d.year}", "of": f"the {_th(d.day)} of {month}, {d.year}",
        "yy": f"{d.month}/{d.day}/{d:%y}", "dotted": f"{d:%d.%m.%Y}", "weekday": f"{d:%A}, {month} {d.day}",
    }[style]  # fmt: skip


def _time(hour: int, minute: int, style: str) -> str:
    half = "AM" if hour < 12 else "PM"
    h12 = hour % 12 or 12
    quarter = {0: f"{h12} o'clock", 15: f"quarter past {h12}", 30: f"half past {h12}", 45: f"quarter to {h12 % 12 + 1}"}
    part = " in the morning" if hour < 12 else " in the afternoon" if hour < 18 else " in the evening"
    return {
        "iso": f"{hour:02d}:{minute:02d}", "ampm": f"{h12}:{minute:02d} {half}",
        "spoken": quarter.get(minute, f"{h12}:{minute:02d}") + part,
        "dotted": f"{h12}.{minute:02d}{half.lower()}", "h": f"{hour}h{minute:02d}",
        "hour": f"{h12} {half}" if minute == 0 else f"{h12}:{minute:02d}{half.lower()}",
    }[style]  # fmt: skip


def _amount(x: Decimal, style: str) -> str:
    cents = f"{x:,.2f}"
    whole, _, frac = cents.partition(".")
    return {
        "plain": f"{x}", "dollar": f"${cents}", "usd-code": f"USD {cents}", "us-dollar": f"US${cents}",
        "words": f"{whole} dollars" + (f" and {int(frac)} cents" if int(frac) else ""),
    }[style]  # fmt: skip


def _label(v: str, style: str) -> str:
    words = v.replace("_", " ")
    if style == "spoken":
        return SPOKEN.get(words, words)
    return words.upper() if style == "caps" else words


@dataclass(frozen=True)
class _Ctx:
    env: Environment
    task: Task
    today: date
    name: str  # the user's first name, from what the agent read


def _value(v: str, c: _Ctx, f: _Form, money: bool) -> str:
    if m := _ISO.match(v):
        d = date(int(m[1]), int(m[2]), int(m[3]))
        if m[4] is None:
            return _day(d, f.day, c.today)
        at = _time(int(m[4]), int(m[5]), f.time)
        day = _day(d, f.day, c.today)
        if f.day == "relative" and day in ("today", "tomorrow") and int(m[4]) >= 18:
            day = "tonight" if day == "today" else day
        return f"{day} at {at}"
    if _NUMBER.match(v):
        n = Decimal(v)
        if money:
            return _amount(n, f.amount)
        return _spelled(int(n)) if f.amount == "words" and n == n.to_integral_value() and 2 <= n < 100 else v
    return _label(v, f.label)


def _is_money(context: str) -> bool:
    return _MONEY.search(context) is not None and _COUNTED.search(context) is None


def _yours(text: str) -> str:
    return re.sub(r"\bI\b", "you", re.sub(r"\bmy\b", "your", text))


def _rule_parts(c: _Ctx, r: Refusal) -> tuple[str, str, str]:
    """(the rule in words with "{V}" for the value, what the value is, the source) of a refusal."""
    rule = c.env.spec.rule(r.rule) if r.rule else None
    source = "the help center" if c.task.required_documents else "our policy"
    if rule is None:
        return "it's {V}", "its status", source
    text = rule.text.replace("_", " ")
    if m := re.match(r"not when (.+?) is (.+)$", text):
        return f"{source} doesn't allow it when {m[1]} is {{V}}", m[1], source
    subject = re.split(r" must | is ", text, maxsplit=1)[0]
    return f"{source} says {text}, and here it is {{V}}", subject, source


def _alternative(c: _Ctx, r: Refusal) -> str:
    """Another thing the agent may do for the record: a write tool of the same record's kind."""
    tool = r.call.tool if r.call else ""
    record = tool.split("_", 1)[1] if "_" in tool else ""
    others = [t.name for t in c.env.spec.tools if t.kind == "write" and t.name != tool and t.name.endswith(record)]
    verb = others[0].split("_")[0] if others and record else "help"
    return f"{verb} it" if verb != "help" else "help with something else"


def _refusal(c: _Ctx, r: Refusal, f: _Form) -> str:
    act = _yours(r.request)
    rule, what, _ = _rule_parts(c, r)
    spec = c.env.spec.rule(r.rule) if r.rule else None
    money = _is_money(what + " " + (spec.text if spec else ""))
    values = [_value(v, c, f, money) for v in r.reason]
    v = " and ".join(values)
    if r.rule is None and r.call is None:  # the user's own condition: a fee they would not pay
        v = " and ".join(_value(x, c, f, True) for x in r.reason)
        text = f"I haven't gone ahead with your request to {act}, since it would cost a fee of {v}, as you asked."
        return text.replace("I haven't", f"Hi {c.name}, I haven't") if f.name == "greets-by-name" else text
    why = rule.replace("{V}", v)
    future = any((m := _ISO.match(x)) and date(int(m[1]), int(m[2]), int(m[3])) > c.today for x in r.reason)
    hold = "It's too early to" if future and r.rule else "I'll have to hold off on your request to"
    what_ = what[:1].upper() + what[1:]
    text = f.refuse.format(act=act, why=why, V=v, what=what, What=what_, name=c.name, hold=hold)
    text = text[:1].upper() + text[1:]
    close = f.close.format(alt=_alternative(c, r), general=_in_general(c, r)) if f.close else ""
    return f"{text} {close}".strip()


def _in_general(c: _Ctx, r: Refusal) -> str:
    """The rule said of every record of the kind, in the passive: "Business licenses are renewed when
    the license's expiry date is no more than 60 days away." The claim word is used of records in general."""
    words = (r.call.tool if r.call else "").split("_")
    tables = {t.name for t in c.env.spec.tables}
    # the record's table is the longest tail of the tool's name ("leave_waitlist_program_registration")
    tail = next((words[k:] for k in range(1, len(words)) if "_".join(words[k:]) + "s" in tables), words[1:])
    verb, noun = words[0], " ".join(tail) or "request"
    noun = noun[:-1] + "ies" if re.search(r"[^aeiou]y$", noun) else noun + ("es" if noun.endswith("s") else "s")
    spec = c.env.spec.rule(r.rule) if r.rule else None
    when = "their status allows it"
    if spec is not None:
        when = re.sub(r" must be ", " is ", re.sub(r" must have ", " has ", spec.text.replace("_", " ")))
        when = re.sub(r"^not when ", "", when) if spec.text.startswith("not when") else when
    # no "only", "once" or "if": the sentence states when it is done, as a rule of the service
    never = "not " if spec is not None and spec.text.startswith("not when") else ""
    return f"{noun[:1].upper() + noun[1:]} are {never}{participles(verb)[0]} when {when}."


def _inform(c: _Ctx, f: _Form) -> str:
    """The outputs in the reference answer's sentence, each value written in the form's style."""
    said = c.task.answer or " ".join(c.task.outputs)
    money = _is_money(c.task.instruction + " " + said)
    values = [_value(o, c, f, money and "." in o) for o in c.task.outputs]
    for raw, written in zip(c.task.outputs, values, strict=True):
        said = re.sub(rf"(?<![\w.]){re.escape(raw)}(?![\w]|\.\d)", written.replace("\\", r"\\"), said)
    m = re.fullmatch(r"(.+?) (?:is|are|would be|comes to) (.+?)\.", said)
    what = (m[1][0].lower() + m[1][1:]) if m else "the answer"
    low = said[:1].lower() + said[1:] if not re.match(r"[A-Z]{2}|[A-Z]\w*\d", said) else said
    text = f.inform.format(said=said, low=low, V=", ".join(values), what=what, name=c.name)
    # "nothing has been changed" closes an answer to a question; after the task's writes it is untrue
    writes = any((t := c.env.spec.tool(a.tool)) is not None and t.kind == "write" for a in c.task.gold_actions)
    return text.replace(" Nothing has been changed.", "") if writes and not c.task.refusals else text


def outside_answers(env: Environment, task: Task, results: list[Any]) -> dict[str, str]:
    """One correct final answer for ``task`` in each of the :data:`FORMS`.

    Args:
        env: The task's environment (its rules, tools and today's date).
        task: The task, as an agent that made every gold call would answer it.
        results: The content of each gold call's result (the first name a greeting uses).

    Returns:
        Form name to answer text; empty for a task with neither refusals nor outputs.
    """
    if not task.refusals and not task.outputs:
        return {}
    names = [str(r.get("full_name") or r.get("first_name") or "") for r in _records(results)]
    name = next((n.split()[0] for n in names if n.strip()), "there")
    c = _Ctx(env, task, env.spec.clock.date(), name)
    out = {}
    for f in _FORMS:
        parts = [_refusal(c, r, f) for r in task.refusals]
        parts += [_inform(c, f)] if task.outputs else []
        text = ("\n\n" if f.refuse.endswith("\n") else " ").join(parts)  # a laid-out part ends its own lines
        if text != task.answer:  # a form that changes nothing of the reference answer says nothing new
            out[f.name] = text
    return out


def _records(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        return [data, *(r for v in data.values() for r in _records(v))]
    return [r for v in data for r in _records(v)] if isinstance(data, list) else []
