"""Correct final answers on write tasks: the writes confirmed as people and LLM agents confirm them.

Built apart from the answer grader, for :mod:`.gaming` to measure its false negatives on write and
hand-over tasks. Every answer reports each of the agent's writes as done (the tool's verb, its record,
a date or amount it sent in the form's style), thanks the user for their own part on a dual-control
task, and states every required output; where a write changed an asked value, some forms say what it
was, as what it was ("went from $14,433.71 to $14,358.71", "previously …", "… → …"). Many carry a side
remark that turns down something else or says a limit ("I can't refund the booking fee, though"), as
correct answers do: only the writes themselves may not be said undone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..engine import Environment
from ..formats.task import Task, ToolCall
from ..grading.outputs import as_number
from ..grading.scoring import expected_outcome
from .natural_answers import _FORMS, _Ctx, _done, _Form, _is_money, _singular, _value

_ISO = re.compile(r"\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d)?)?")


@dataclass(frozen=True)
class _Write:
    name: str
    opening: str  # before the confirmations
    remark: str  # after them: a side remark, or nothing
    change: str  # how an asked value that changed is said: "new", "from", "previously", "arrow", "was"
    bullets: bool = False


_WRITE_FORMS = (
    _Write("plain", "", "", "new"),
    _Write("done-dash", "Done — ", "I can't refund the booking fee, though.", "from"),
    _Write("all-set", "You're all set. ", "Let me know if there's anything else I can help with.", "previously"),
    _Write("bullets", "Here's what I did:", "", "arrow", bullets=True),
    _Write("thanks", "Thanks for your patience! ", "There's nothing else you need to do.", "was"),
    _Write("fee-remark", "", "Unfortunately, I'm not able to waive any fees on this, though.", "new"),
    _Write("nothing-else", "Okay, ", "I didn't change anything else on your account.", "from"),
    _Write("future-limit", "", "Just so you know, it can't be changed again once it's underway.", "previously"),
    _Write("email", "Great news: ", "You'll get a confirmation email shortly.", "was"),
    _Write("terse", "Done. ", "", "new"),
    _Write("undo-offer", "I've taken care of it. ", "If you'd like to undo it, just let me know.", "arrow"),
    _Write("cannot-speed", "", "I can't speed up the processing time, but it's all in the system now.", "from"),
)
#: Names of the answer forms, in the order :func:`write_answers` returns them.
WRITE_FORMS: tuple[str, ...] = tuple(f.name for f in _WRITE_FORMS)


def write_answers(env: Environment, task: Task) -> dict[str, str]:
    """One correct answer for a write task (writes made, nothing refused) in each of :data:`WRITE_FORMS`;
    empty for any other task."""
    writes = tuple(c for c in task.gold_actions if (t := env.spec.tool(c.tool)) and t.kind == "write")
    if task.refusals or not writes:
        return {}
    tables = [t.name for t in env.spec.tables if t.column("email") is not None]
    nouns = {_singular(n).replace("_", " ") for n in tables}
    users = "|".join(sorted(nouns | {"customer", "user", "member", "client"}, key=len, reverse=True))
    c = _Ctx(env, task, env.spec.clock.date(), users, writes)
    old = _old_outputs(env, task)
    return {w.name: _answer(c, w, i, old) for i, w in enumerate(_WRITE_FORMS)}


def _old_outputs(env: Environment, task: Task) -> dict[str, str]:
    """For each numeric output the writes changed, what it was before them (the gold run's rows)."""
    out: dict[str, str] = {}
    for after, before in expected_outcome(env, task).rows.values():
        if after is None or before is None:
            continue
        for col, new in after.items():
            if isinstance(new, bool) or not isinstance(new, int | float) or before.get(col) in (None, new):
                continue
            for o in task.outputs:
                if (x := as_number(o)) is not None and abs(x - new) < 1e-9:
                    out.setdefault(o, str(before[col]))
    return out


def _answer(c: _Ctx, w: _Write, i: int, old: dict[str, str]) -> str:
    f = _FORMS[i % len(_FORMS)]  # the date and amount styles of a natural-answer form
    year = c.today.year
    agent = [call for call in c.writes if call.actor != "user"]
    said = [_with_when(c, call, _done(c, call, f), f) for call in agent]
    if any(call.actor == "user" for call in c.writes):
        said.append(
            ("Thanks for making that change on your side; I can't change settings on your device myself. ", "")[i % 2]
            + "With that done, everything should be working again."
        )
    said = list(dict.fromkeys(said))
    money = _is_money(c.task.instruction)
    values = []
    for o in c.task.outputs:
        now = _value(o, money or "." in o, f, year)
        was = _value(old[o], money or "." in old[o], f, year) if o in old else ""
        values.append(_changed(now, was, w.change))
    asked = f"Your {_asked_noun(c.task.instruction)} is now {', '.join(values)}." if values else ""
    if w.change != "new" and values:
        asked = f"As for your {_asked_noun(c.task.instruction)}: {', '.join(values)}."
    if w.bullets:
        body = "\n".join(f"- {s}" for s in [*said, *([asked] if asked else [])])
        return "\n".join(x for x in (w.opening, body, w.remark) if x)
    return " ".join(x for x in (w.opening + " ".join(said), asked, w.remark) if x.strip())


def _changed(now: str, was: str, how: str) -> str:
    if not was or how == "new":
        return now
    return {
        "from": f"it went from {was} to {now}",
        "previously": f"{now} (previously {was})",
        "arrow": f"{was} → {now}",
        "was": f"it was {was} and is now {now}",
    }[how]


def _asked_noun(instruction: str) -> str:
    """What the user asked for ("credit available" of "tell me my new credit available")."""
    m = re.search(r"(?:my new|what is my|tell me my|what's my) ([\w ]+?)(?: after| afterwards|[.?,!]|$)", instruction)
    return m[1] if m else "balance"


def _with_when(c: _Ctx, call: ToolCall, done: str, f: _Form) -> str:
    """The confirmation with the date or time the write set, in the form's style ("for March 14 at 10 AM")."""
    when = next((str(v) for v in call.arguments.values() if isinstance(v, str) and _ISO.fullmatch(v)), None)
    if when is None or when.replace("T", " ")[:10] in done:
        return done
    shown = _value(when, False, f, c.today.year)
    return done if shown in done else f"{done.rstrip('.')}, for {shown}."
