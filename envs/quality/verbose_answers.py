"""Correct final answers written the way LLM customer-service agents write them: a held-out corpus for measuring the
answer grader's false negatives. Every style says the same facts, taken from the task and the records the agent read."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..engine import Environment
from ..formats.task import Task

STYLES: tuple[str, ...] = ("greeting_recap", "markdown", "numbered", "empathetic", "named_record",
                           "next_step", "terse", "long_formats", "short_formats", "paragraph")  # fmt: skip

_NUM = r"-?\d+(\.\d+)?"
_MONEY = re.compile(r"amount|price|fee|cost|balance|paid|deposit|total|charge|refund|salary|payment|copay|credit|budget"
                    r"|value|rate|due|payout|fine|tip|owed|cash|cap|spent|remaining")  # fmt: skip
_COUNT = re.compile(r"points|hours|minutes|credits\b|days|kw|miles|count|percent|nights|quantity|seats|size|spots|units"
                    r"|tickets|last four|number|calls|downloads|months|weeks|lbs")  # fmt: skip
_PARTICLES, _PREPS = {"in", "out", "up", "back", "off", "down"}, {"with", "on", "to", "for", "as", "from", "into", "at"}
_IRREGULAR = {"pay": "paid", "make": "made", "leave": "left", "buy": "bought", "put": "put", "take": "taken"}
_IRREGULAR["withdraw"] = "withdrawn"
_DOUBLE = {"submit", "cancel", "transfer", "unskip", "skip", "ship", "drop", "stop", "flag", "plan", "swap", "tag"}
_NOUNS = {"expires": "expiry", "renews": "renewal", "departs": "departure", "paid": "payment", "issued": "issue"}
_NOUNS |= {"posted": "posting", "reserved": "reservation", "starts": "start", "ends": "end", "arrives": "arrival"}
_KINDS = (("date", r"\d{4}-\d\d-\d\d"), ("datetime", r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?"), ("time", r"\d?\d:\d\d"))
_DATE_RULES = (  # (condition, fact, policy): {f} is the field, {n} and {u} the rule's number and unit
    (r"be more than (\d+) (\w+) away", "the {f} is @V, which is only {n} {u} or less from now (it's @T)",
     "this has to be done more than {n} {u} before the {f}"),
    (r"be no more than (\d+) (\w+) away", "the {f} is @V, which is still more than {n} {u} away (today is @T)",
     "this can only be done once the {f} is no more than {n} {u} away"),
    (r"have passed()()", "the {f} is @V, and that hasn't passed yet (today is @T)",
     "this can only be done after the {f} has passed"),
    (r"be in the future()()", "the {f} was @V, which has already passed (today is @T)",
     "this is only possible while the {f} is still in the future"),
    (r"be within the last (\d+) (\w+)", "the {f} was @V, more than {n} {u} ago (today is @T)",
     "this can only be done within {n} {u} of the {f}"),
    (r"be one of (.+)()", "the {f} is @V", "this is only available when the {f} is {n}"),
    (r"differ from the (.+)()", "the {f} is already @V", "the {n} has to be different from the current {f}"),
)  # fmt: skip


def _pp(verb: str) -> str:
    """The past participle of a verb from a tool name ("cancel" -> "cancelled", "late-cancel" -> "late-cancelled")."""
    if "-" in verb:
        head, _, tail = verb.rpartition("-")
        return f"{head}-{_pp(tail)}"
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ied"
    return verb + (verb[-1] if verb in _DOUBLE else "") + "ed"


def _act(done: str, past: bool = False) -> str:
    """A done item ("withdraw| your ...") with its verb as a participle or, with ``past``, a simple past."""
    verb, _, rest = done.partition("|")
    return ({"withdraw": "withdrew", "take": "took"}.get(verb, _pp(verb)) if past else _pp(verb)) + rest


def _human(name: str) -> str:
    """A column name as words: ``entry_at`` -> "entry time", ``expires_on`` -> "expiry date"."""
    words = re.sub(r" (expires|renews|starts|ends|departs|arrives)$", r" \1 on", " " + name.replace("_", " ")).split()
    if len(words) > 1 and words[-1] in ("at", "on"):
        words = [*words[:-2], _NOUNS.get(words[-2], words[-2]), "time" if words[-1] == "at" else "date"]
    return " ".join(words)


def _kind(value: str, hint: str = "") -> str:
    """What a value is, for formatting: date, datetime, time, money, number or label."""
    if (kind := next((k for k, pattern in _KINDS if re.fullmatch(pattern, value)), "label")) != "label":
        return kind
    money = _MONEY.search(hint.lower()) and not _COUNT.search(hint.lower())
    return ("money" if money else "number") if re.fullmatch(_NUM, value) else kind


def _format(value: str, kind: str, how: str, raw: dict[str, str]) -> str:
    """A value as "Tuesday, June 9, 2026 at 2:30 p.m.", "$1,234.50" (long), "9 Jun 2026" (short) or "06/09/2026"."""
    if kind in ("date", "datetime", "time"):
        t = datetime.strptime(value, "%H:%M") if kind == "time" else datetime.fromisoformat(value)
        clock = f"{t.hour % 12 or 12}:{t.minute:02d} {'ap'[t.hour >= 12]}.m." if how == "long" else f"{t:%H:%M}"
        day = {"long": f"{t:%A}, {t:%B} {t.day}, {t.year}", "short": f"{t.day} {t:%b %Y}"}.get(how, f"{t:%m/%d/%Y}")
        return {"date": day, "datetime": f"{day}{' at' if how == 'long' else ','} {clock}", "time": clock}[kind]
    if kind == "money":
        return f"${float(value):,.2f}" if how == "long" else f"{float(value):,.2f} USD"
    if kind == "label" and how == "long" and not re.search(r"\d", value):
        return _cap(value.replace("_", " "))
    return raw.get(value.lower(), value) if kind == "label" and how != "long" else value


def _walk(data: Any) -> Iterator[dict[str, Any]]:
    yield from [data] if isinstance(data, dict) else []
    for v in data.values() if isinstance(data, dict) else data if isinstance(data, list) else []:
        yield from _walk(v)


def _same(raw: Any, value: str) -> bool:
    """Whether a record's value is the stated one (numbers by value, times by prefix or clock part)."""
    if isinstance(raw, bool) or raw is None:
        return False
    text, value = str(raw).replace("_", " ").lower(), value.lower()
    if re.fullmatch(_NUM, value) and isinstance(raw, int | float):
        return abs(float(raw) - float(value)) < 1e-9
    if re.fullmatch(r"\d{4}-\d\d-\d\d.*", value):
        return text.startswith(value)
    if re.fullmatch(r"\d{1,2}:\d\d", value):
        return bool(re.fullmatch(rf"\d{{4}}-\d\d-\d\d[ t]{value}(:00)?", text))
    return text == value


def _yours(text: str) -> str:
    return re.sub(r"\bmy\b", "your", re.sub(r"\bI\b", "you", text))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _primary(tool: str, args: dict[str, Any]) -> tuple[str, str]:
    """The id argument naming the record a write acts on: the one whose name is in the tool's."""
    ids = [(k, str(v)) for k, v in args.items() if k.endswith("_id") and isinstance(v, str | int)]
    named = sorted((kv for kv in ids if f"_{kv[0][:-3]}_" in f"_{tool}_"), key=lambda kv: -len(kv[0]))
    return (named or ids or [("", "")])[0]


def _done(env: Environment, task: Task, results: list[Any]) -> list[str]:
    """The writes the gold calls made, as "cancel| your order #W1" (verb, then the rest)."""
    out = []
    for call, result in zip(task.gold_actions, results, strict=False):
        if (tool := env.spec.tool(call.tool)) is None or tool.kind != "write":
            continue
        if call.tool == "transfer_to_human_agent":
            out.append("pass| your request on to a human agent")
            continue
        key, rid = _primary(call.tool, call.arguments)
        words, noun = call.tool.split("_"), key[:-3].split("_") if key else []
        at = next((i for i in range(1, len(words)) if words[i : i + len(noun)] == noun), len(words))
        if words[0] == "create" or at == len(words):  # a new record: name it by the id the result gives
            new = next((str(r[k]) for r in _walk(result) for k in r if k == "_".join(words[1:]) + "_id"), "")
            out.append(f"{words[0]}| your {'new ' if words[0] == 'create' else ''}{' '.join(words[1:])} {new}".rstrip())
            continue
        before, after, verb, particle = words[1:at], words[at + len(noun) :], words[0], ""
        if verb in ("late", "re") and before:
            verb, before = f"{verb}-{before[0]}", before[1:]
        while before and before[0] in _PARTICLES:
            particle, before = f"{particle} {before[0]}", before[1:]
        target = f"your {' '.join(noun)} {rid}".strip()
        if verb == "update" and after:
            new_value = call.arguments.get("_".join(after))
            shown = isinstance(new_value, str | int | float) and not isinstance(new_value, bool)
            out.append(f"update| the {' '.join(after)} on {target}" + (f" to {new_value}" if shown else ""))
        elif before and before[0] in _PREPS:
            out.append(f"{verb}|{particle} {target} {' '.join(before + after)}")
        elif before and all(re.search(r"(ing|ed|lost)$", w) for w in before):
            out.append(f"{verb}|{particle} your {' '.join(before + noun)} {rid}".rstrip())
        elif before or after:
            out.append(f"{verb}|{particle} the {' '.join(before + after)} for {target}")
        else:
            out.append(f"{verb}|{particle} {target}")
    return out


def _rule_facts(text: str, value: str) -> tuple[str, str, str, str]:
    """(fact, policy, when, hint) of a rule: "@V" is the deciding value; when is the day it becomes allowed."""
    if m := re.match(r"^fewer than (\d+) (.+?) records per (.+)$", text):
        what, per = m.group(2).replace("_", " ") + "s", m.group(3).removesuffix(" id")
        fact = f"the limit is fewer than @V {what} per {per}, and you've already reached it"
        return fact, f"only a limited number of {what} are allowed at a time", "", "count"
    if m := re.match(r"^the total (.+?) of (.+?) records per .+? must stay within (.+)$", text):
        what, lim = _human(m.group(1)), m.group(3)
        cap = "@V" if _same(lim, value) else f"{_human(lim)} of @V"
        return f"the total {what} can't go over {cap}, and this would take it past that", "", "", f"{what} {lim}"
    if m := re.match(r"^not when the (?:[\w -]+?'s )?([\w -]+?) is (.+)$", text):
        f = _human(m.group(1))
        return f"the {f} is @V", f"this isn't available when the {f} is {m.group(2).replace('_', ' ')}", "", f
    if not (m := re.match(r"^the (?:[\w -]+?'s )?([\w -]+?) must (.+)$", text)):
        return "the deciding value here is @V", f"the policy says {text}", "", text
    f, cond = _human(m.group(1)), m.group(2)
    for pattern, fact, policy in _DATE_RULES:
        if t := re.fullmatch(pattern, cond):
            n = " or ".join(o.strip().replace("_", " ") for o in t.group(1).split(",")) if t.group(1) else ""
            later = value if pattern.startswith("have") else ""
            if pattern.startswith("be no more") and re.fullmatch(r"\d{4}-\d\d-\d\d( \d\d:\d\d(:\d\d)?)?", value):
                when = datetime.fromisoformat(value) - timedelta(**{t.group(2).rstrip("s") + "s": int(n)})
                later = when.strftime("%Y-%m-%d %H:%M" if " " in value else "%Y-%m-%d")
            return fact.format(f=f, n=n, u=t.group(2)), policy.format(f=f, n=n, u=t.group(2)), later, f
    if t := re.match(r"(be at least|be at most|stay within|be) (.+)", cond):
        how, lim = ("" if t.group(1) == "be" else t.group(1).removeprefix("be ")), t.group(2)
        if _same(lim, value):
            words = {"at least": "must be at least @V, and it's below that", "stay within": "can't go over @V",
                     "at most": "can be at most @V, and it's over that", "": "must be @V, and it isn't"}  # fmt: skip
            return f"the {f} {words[how]}", f"the {f} has a limit", "", f
        if re.fullmatch(_NUM, lim) or not lim.startswith("the "):
            return f"the {f} is @V", f"this requires the {f} to be {how} {lim}".replace("  ", " "), "", f
        return f"the {f} is @V, which doesn't cover {lim}", f"the {f} has to be {how} {lim}", "", f
    return f"the {f} is @V", f"the policy says {text}", "", f


@dataclass
class _Refusal:
    request: str  # in the agent's words: "cancel your ticket with section upper bowl"
    value: str
    kind: str
    fact: str  # "@V" stands for the value, "@T" for now
    policy: str = ""
    when: str = ""  # when it becomes possible (a date or datetime), if it will
    record: str = ""  # "ticket order TO0073"
    name: str = ""  # "ORD-723605073"
    fee: bool = False
    it: str = ""  # the request without its record: "cancel it", "check it in"


def _refusals(env: Environment, task: Task, results: list[Any], avoid: set[str]) -> list[_Refusal]:
    out = []
    for r in task.refusals:
        value, rule, rec, key, rid = (r.reason[0] if r.reason else ""), env.spec.rule(r.rule or ""), {}, "", ""
        if r.call is not None:
            key, rid = _primary(r.call.tool, r.call.arguments)
            rec = max((d for d in _walk(results) if key and str(d.get(key)) == rid), key=len, default={})
        if fee := rule is None and r.call is None:  # the user declined the fee
            fact, policy, when, hint = "it would come with a fee of @V", "", "", "fee"
        elif rule is not None:
            fact, policy, when, hint = _rule_facts(rule.text, value)
        elif r.call is not None:
            tool = env.spec.tool(r.call.tool)
            m = re.search(r"Allowed only when the [\w ]+? is ([\w ,]+?)(;|\.|$)", tool.description if tool else "")
            allowed = f"this is only possible while it is {m.group(1).replace('_', ' ')}" if m else ""
            fact, policy, when, hint = "its status is @V", allowed, "", "status"
        names = [v for k, v in rec.items() if re.search(r"(name|title|code|number)$", k) and isinstance(v, str)]
        name = next((v for v in names if v.lower() not in avoid), "")
        record = f"{key[:-3].replace('_', ' ')} {rid}".strip()
        verb = r.request.split(" my ")[0].split()
        it = " ".join([*verb[:-1], "it", verb[-1]] if verb[-1] in _PARTICLES else [*verb, "it"])
        out.append(_Refusal(_yours(r.request), value, _kind(value, hint), fact, policy, when, record, name, fee, it))
    return out


_ASKS = (  # (question, label, answer): the answer in the question's words
    (r"when was my (.+?) (\w+)\?", r"\2 date", r"your \1 was \2 on @V"),
    (r"when does my (.+?) (\w+)\?", r"\2 time", r"your \1 \2s at @V"),
    (r"what would my ([\w ]+?) (?:come to|be) if I (.+?)\?", r"\1", r"if you \2, your \1 would come to @V"),
    (r"if I were to (.+?), what would my ([\w ]+?) be afterwards", r"\2", r"if you were to \1, your \2 would be @V"),
    (r"add up the ([\w ]+?) of all my (.+?)(?: for me)?[?.]", r"total \1", r"the \1 of all your \2 adds up to @V"),
    (r"(?:what|how much) is the ([\w ]+?) of my (.+?) altogether", r"\1", r"the \1 of your \2 comes to @V"),
    (r"(?:what|how much) is the ([\w ]+?) of my (.+?)[?.]", r"\1", r"the \1 of your \2 is @V"),
    (r"(?:tell me|know) the ([\w ]+?) of my (.+?)[?.]", r"\1", r"the \1 of your \2 is @V"),
    (r"how much is my (.+?)\?", r"amount", r"your \1 is @V"),
    (r"how many ([\w ]+?) did my (.+?) earn me\?", r"\1", r"your \2 earned you @V \1"),
    (r"(?:tell me|what is) my (new )?([\w ]+?)(?: after that| afterwards)?[?.]", r"\2", r"your \1\2 is @V"),
)


def _outputs(task: Task, results: list[Any]) -> list[tuple[str, str, str]]:
    """Each output as (label, sentence, value): labelled from the question, else from the field that holds it."""
    text = task.instruction
    for pattern, label, sentence in _ASKS if len(task.outputs) == 1 else ():
        if m := re.search(pattern, text, re.IGNORECASE):
            return [(m.expand(label), _yours(m.expand(sentence)), task.outputs[0])]
    out = []
    for value in task.outputs:
        hits = [(k, r) for r in _walk(results) for k, v in r.items() if _same(v, value)]
        hits.sort(key=lambda kr: -sum(w in text.lower() for w in kr[0].split("_")))
        key, rec = hits[0] if hits else ("", {})
        id_key, rid = next(iter(rec.items()), ("", ""))
        owners = {str(r[id_key]) for k, r in hits if k == key and id_key in r}
        one = id_key.endswith("_id") and key != id_key and len(owners) == 1
        label = _human(key) + (f" of {_human(id_key[:-3])} {rid}" if one else "")
        out.append((label, f"the {label} is @V" if key else "the figure comes to @V", value))
    return out


@dataclass
class _Writer:
    """The facts every style says (what was done, refused, asked for), with values written by one formatter."""

    name: str
    now: datetime
    did: list[str]  # "cancel| your order #W1"
    outputs: list[tuple[str, str, str]]  # (label, sentence with "@V" for the value, value)
    refusals: list[_Refusal]
    how: str  # how values are written: "" as the task writes them, else "long", "short" or "slashes" (_format)
    raw: dict[str, str]  # the records' spelling of each label

    def fmt(self, value: str, kind: str) -> str:
        return _format(value, kind, self.how, self.raw) if self.how else value

    def outs(self) -> list[str]:
        return [_cap(s.replace("@V", self.fmt(v, _kind(v, label or s)))) + "." for label, s, v in self.outputs]

    def bullets(self) -> list[tuple[str, str]]:
        return [(_cap(label), self.fmt(v, _kind(v, label or s))) for label, s, v in self.outputs]

    def fact(self, r: _Refusal) -> str:
        hours = "hour" in r.fact
        now = self.fmt(self.now.strftime("%Y-%m-%d %H:%M" if hours else "%Y-%m-%d"), "datetime" if hours else "date")
        return r.fact.replace("@V", self.fmt(r.value, r.kind)).replace("@T", now)

    def named(self, r: _Refusal, full: bool = False) -> str:  # full: with its name (then say "it", not the request)
        mine = "your " + r.request.split(" your ")[-1]
        return f"your {r.record}" + (f" ({r.name})" if full and r.name else "") if r.record else mine

    def decline(self, r: _Refusal) -> str:
        if r.fee:
            return f"I haven't gone ahead: if I {r.request}, {self.fact(r)}, so as you asked, I've left it as it is"
        return f"I'm not able to {r.request}, because {self.fact(r)}"

    def done(self, past: bool = False) -> str:
        return _and([_act(d, past) for d in self.did]) if self.did else ""


def _style(name: str, w: _Writer) -> str:
    outs, refs, did = w.outs(), w.refusals, [f"I've {w.done()}."] if w.did else []
    hello = f"Hi {w.name}," if w.name else "Hi there,"
    if name == "greeting_recap":
        checked = _and([w.named(r) for r in refs]) if refs else "your account"
        parts = [f"{hello} thanks for reaching out! I've pulled up your details and reviewed {checked}.", *did]
        declines = [f"Unfortunately, {w.decline(r)}." for r in refs]
        return " ".join([*parts, *declines, *outs, "Is there anything else I can help you with?"])
    if name == "markdown":
        lines = ["**Here's an update on your request**", ""] + [f"- ✅ {_cap(_act(d, True))}" for d in w.did]
        for r in refs:
            why = f" ({_cap(r.policy)}.)" if r.policy else ""
            lines.append(f"- ❌ **Not done — {r.request}:** {w.fact(r)}.{why}")
        lines += [f"- **{label or 'Result'}:** {value}" for label, value in w.bullets()]
        return "\n".join([*lines, "", "Let me know if there's anything else!"])
    if name == "numbered":
        steps = ["Verified your account.", *[f"Checked {w.named(r)}." for r in refs]]
        steps += [f"{_cap(_act(d, True))}." for d in w.did] + outs
        body = "Here's a summary of what I did:\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
        tail = [f"However, I didn't {r.request}: {w.fact(r)}, and you asked me not to proceed in that case." if r.fee
                else f"However, I couldn't {r.request}: {w.fact(r)}." for r in refs]  # fmt: skip
        return "\n\n".join([body, *tail])
    if name == "empathetic":
        parts, today = [], w.fmt(w.now.strftime("%Y-%m-%d"), "date")
        for r in refs:
            fact = _cap(w.fact(r)) if "@T" in r.fact else f"As of today, {today}, {w.fact(r)}"
            why = f"{_cap(r.policy)}. " if r.policy else ""
            sorry = f"I'm really sorry, but I can't {r.request}. {why}{fact}."
            parts.append(f"I'm sorry, I know this isn't what you hoped for. {_cap(w.decline(r))}." if r.fee else sorry)
        parts += [f"The good news is that I've {w.done()}."] if w.did else []
        parts += [*outs, "I appreciate your patience and understanding."]
        return " ".join(parts if refs else ["Thanks so much for your patience!", *parts])
    if name == "named_record":
        parts = [f"I checked {w.named(r)}. {_cap(w.decline(r))}." if r.fee else
                 f"I checked {w.named(r, True)}: {w.fact(r)}, so I can't {r.it}." for r in refs]  # fmt: skip
        return " ".join([*did, *parts, *outs])
    if name == "next_step":
        parts = [*did]
        for r in refs:
            step = ("If you decide the fee is acceptable, just let me know and I can go ahead." if r.fee else
                    f"You could try again from {w.fmt(r.when, _kind(r.when))} onward." if r.when else
                    "If you'd like, I can transfer you to a human agent to look into it further.")  # fmt: skip
            parts += [f"{_cap(w.decline(r))}.", step]
        return " ".join([*parts, *outs] + ([] if refs else ["If you'd like, I can help with anything else on this."]))
    if name == "terse":
        parts = [f"Done: {w.done(True)}."] if w.did else []
        parts += [f"Didn't {r.request} — {w.fact(r)}." if r.fee else f"Can't {r.request} — {w.fact(r)}." for r in refs]
        return " ".join(parts + [f"{label or 'Answer'}: {value}." for label, value in w.bullets()])
    if name in ("long_formats", "short_formats"):
        declines = [_cap(w.decline(r)) + "." for r in refs]
        return " ".join([f"{hello} I've looked into this for you.", *did, *declines, *outs])
    parts = []  # paragraph: what could not be done first, then what was
    for r in refs:
        why = f" — {r.policy}." if r.policy else "."
        unable = f"I wasn't able to {r.request}. The reason: {w.fact(r)}{why}"
        parts.append(_cap(w.decline(r)) + "." if r.fee else unable)
    did = [f"{'What I did do' if refs else 'Here is what I did'}: I {w.done(True)}."] if w.did else []
    return " ".join(parts + did + outs)


def verbose_answers(env: Environment, task: Task, results: list[Any]) -> dict[str, str]:
    """One correct final answer per style for ``task``, given the results of its gold calls.

    Args:
        env: the task's environment (its spec gives the clock, the rules and the tools).
        task: the task; its refusals, outputs and distractors decide what each answer says.
        results: the content of each gold call's result, in order (the records the agent read).

    Returns:
        Style name -> answer; empty when the task has neither refusals nor outputs.
    """
    if not (task.refusals or task.outputs):
        return {}
    avoid = {d.lower() for d in task.distractors}
    names = [str(r.get("full_name") or r.get("first_name") or "") for r in _walk(results)]
    name = next((n.split()[0] for n in names if n and n.lower() not in avoid), "")
    did, outputs, refusals = _done(env, task, results), _outputs(task, results), _refusals(env, task, results, avoid)
    raw = {v.replace("_", " ").lower(): v for r in _walk(results) for v in r.values() if isinstance(v, str)}
    hows = {"long_formats": "long", "short_formats": "slashes" if random.Random(task.id).random() < 0.5 else "short"}
    facts = (name, env.spec.clock, did, outputs, refusals)
    writers = {s: _Writer(*facts, hows.get(s, ""), raw) for s in STYLES}
    return {s: re.sub(r"\.\.(?=\s|$)", ".", _style(s, w)) for s, w in writers.items()}
