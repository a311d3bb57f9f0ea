"""Motives whose premise the record contradicts (measures 104 and 105, docs/synthesis.md, "Quality
report").

Every motive presumes something of what it is given for: "I can't find it anywhere" that the thing
never came, "I've checked my calendar" that it happens at a time, "I'd rather have the next stretch
paid ahead" that it recurs. Measure 51 (:mod:`.motive_fit`) reads whether a motive fits who pays
whom and how near a day is; these two read the premise itself, on the record the reason is paired
with (the same pairing as measure 51's) or, for a reason given for a new record, the rows its call
names:

* **104, the record's state** contradicts it: the whole thing lost ("It never turned up on my end")
  of a record whose status says it arrived (a delivered order with a few items missing); a price
  too high ("It costs more than I'm willing to spend") of a record whose every charge is zero; an
  event "last week" for a record whose own day is not in the week before.
* **105, the record's kind** contradicts it: a break from using it ("I'm taking a short break", "I'll
  be away and won't be using it") of a record not used over time (a parcel); an excuse ("It was an
  honest mistake", "I had a family emergency that week") for waiving what is no charge (a signature);
  a change of mind ("It isn't as described") to return something under a guarantee, or the waiting
  for it ("I've been waiting on it") of cover, both of which are for a defect; something sent in ("I've
  got everything together now") that the business sends the user (a copy of results); a time ("I've
  checked my calendar") of a record with no day; a routine ("the next stretch", "next month") of a
  one-off record; a start ("I'm ready to get started") of an end (a move-out, a redelivery); "I
  switched providers" to change a phone number (a number moves with its owner, not the carrier); an
  errand "to that side of town" of a record with no place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from ..formats.task import Task, ToolCall
from .motive_fit import _pair, _record

_CREATE = re.compile(r"^Why I'm asking for a new [^:]+: (.+)$")

_LOST_WHOLE = re.compile(
    r"\bnever turned up\b|\bcan't find it\b|\blooked everywhere\b|\bnever (?:came|arrived)\b", re.IGNORECASE
)
_ARRIVED = frozenset(
    {"delivered", "collected", "picked_up", "received", "completed", "installed", "fulfilled", "redeemed", "used"}
)
_TOO_DEAR = re.compile(r"\bcosts? more than\b|\bwilling to spend\b|\bsomething cheaper\b", re.IGNORECASE)
_CHARGE = re.compile(r"price|cost|fee|charge|amount|total|difference|rate|premium|fare")
_LAST_WEEK = re.compile(r"\blast week\b", re.IGNORECASE)
_DAY_COLUMN = re.compile(r"(?:_at|_on|_date|date|_day|_time)$")

_BREAK = re.compile(
    r"\bshort break\b|\bwon't be using it(?! after all)\b|\bwon't need it for a little while\b|"
    r"\btravelling for a few weeks\b",
    re.IGNORECASE,
)
#: Records used over time: only these are paused for a trip or a break.
_ONGOING_STATES = frozenset({"active", "live", "running", "paused", "suspended", "frozen", "on_hold"})
_ONGOING_WORDS = frozenset(
    {"membership", "subscription", "plan", "campaign", "account", "service", "rental", "lease", "policy", "contract",
     "line", "enrollment", "enrolment", "program", "delivery"}
)  # fmt: skip
_EXCUSE = re.compile(
    r"\bhonest mistake\b|\bmy fault\b|\bfamily emergency that week\b|\bdid everything I was asked\b", re.IGNORECASE
)
_PENALTY_WORDS = frozenset(
    {"fee", "fine", "penalty", "charge", "late", "interest", "strike", "violation", "infraction", "deposit", "cost",
     "surcharge", "no", "show", "missed", "overage", "ticket", "citation", "demerit", "balance"}
)  # fmt: skip
_CHANGED_MIND = re.compile(
    r"\bisn't as described\b|\bwhat I expected when I ordered\b|\bdoesn't fit what I needed\b|\barrived damaged\b",
    re.IGNORECASE,
)
_COVER_WORDS = frozenset({"guarantee", "warranty", "insurance", "coverage", "protection", "hazard"})
_AWAITED = re.compile(r"\bbeen waiting on it\b|\bhave a use for it now\b", re.IGNORECASE)
_SENT_IN = re.compile(r"\bget it in\b|\bgot everything together\b", re.IGNORECASE)
_SENT_TO_USER = frozenset({"copy", "result", "results", "statement", "receipt", "transcript", "certificate"})
_CALENDAR = re.compile(
    r"\bmy calendar\b|\bconflict then\b|\boriginal time\b|\bclashes with it\b|\bcan't make it\b", re.IGNORECASE
)
_ROUTINE = re.compile(r"\bnext stretch\b|\bnext month\b|\bmy usual\b|\bevery (?:week|month)\b", re.IGNORECASE)
_RECURRING_COLUMN = re.compile(r"month|week|billing|period|rent|installment|recurr|frequency|cycle|renew|annual")
_START = re.compile(r"\bget(?:ting)? started\b|\bget this going\b", re.IGNORECASE)
_ENDINGS = frozenset({"out", "redelivery", "redeliver", "return", "close", "end", "cancel", "terminate"})
_PROVIDER = re.compile(r"\bswitched providers\b", re.IGNORECASE)
_ERRAND = re.compile(r"\bthat side of town\b", re.IGNORECASE)
_PLACE_COLUMN = re.compile(r"store|location|point|facility|venue|site|address|branch|shop|office|station|center")


@dataclass
class MotivePremiseCounts:
    motive_premises_checked: int = 0
    motive_premises_against_state: int = 0
    motive_premises_against_kind: int = 0


@dataclass(frozen=True)
class PremiseFinding:
    """A reason whose premise its record contradicts: ``by``, "state" or "kind"; ``why``: which premise."""

    task_id: str
    motive: str
    tool: str
    by: str
    why: str


def motive_premise_findings(spec: EnvSpec, tasks: list[Task]) -> list[PremiseFinding]:
    """The reasons of ``tasks`` whose premise the seed record they are paired with contradicts."""
    writes = {t.name for t in spec.tools if t.kind == "write"}
    keyed = {t.primary_key[0]: t for t in spec.tables if len(t.primary_key) == 1}
    rows = {t.name: {r.get(t.primary_key[0]): r for r in spec.seed.get(t.name, [])} for t in keyed.values()}
    today = spec.clock.date()
    found: list[PremiseFinding] = []
    for task, motive, call, record in _paired(tasks, writes, keyed, rows):
        if record is None:
            why = _create_against_state(motive, call, keyed, rows, today)
            if why:
                found.append(PremiseFinding(task.id, motive, call.tool, "state", why))
            continue
        table, row = record
        for by, why in (("state", _against_state(motive, row)), ("kind", _against_kind(motive, call, table, row))):
            if why:
                found.append(PremiseFinding(task.id, motive, call.tool, by, why))
    return found


def motive_premise_counts(spec: EnvSpec, tasks: list[Task]) -> MotivePremiseCounts:
    writes = {t.name for t in spec.tools if t.kind == "write"}
    keyed = {t.primary_key[0]: t for t in spec.tables if len(t.primary_key) == 1}
    rows = {t.name: {r.get(t.primary_key[0]): r for r in spec.seed.get(t.name, [])} for t in keyed.values()}
    findings = motive_premise_findings(spec, tasks)
    return MotivePremiseCounts(
        motive_premises_checked=sum(1 for _ in _paired(tasks, writes, keyed, rows)),
        motive_premises_against_state=sum(f.by == "state" for f in findings),
        motive_premises_against_kind=sum(f.by == "kind" for f in findings),
    )


def _paired(
    tasks: list[Task],
    writes: set[str],
    keyed: dict[str, TableSpec],
    rows: dict[str, dict[Any, dict[str, Any]]],
) -> Any:
    """(task, motive, call, (table, row) or None for a new record) for each reason paired with a call."""
    for task in tasks:
        calls = [c for c in task.gold_actions if c.tool in writes and c.actor == "agent"]
        calls += [r.call for r in task.refusals if r.call is not None]
        unclaimed = list(calls)
        creates: list[str] = []
        for fact in (f for f in task.user.known_facts if f.startswith("Why I")):
            if m := _CREATE.match(fact):
                creates.append(m.group(1))
                continue
            found = _pair(fact, unclaimed)
            if found is None:
                continue
            call, motive, _ = found
            unclaimed.remove(call)
            record = _record(call, keyed, rows)
            if record is not None:
                yield task, motive, call, (record.table, record.row)
        # a new record's call is one left over that names no row of its own table by its key
        made = [c for c in unclaimed if _record(c, keyed, rows) is None or _makes(c, keyed)]
        for motive, call in zip(creates, made, strict=False):
            yield task, motive, call, None


def _makes(call: ToolCall, keyed: dict[str, TableSpec]) -> bool:
    own = [k for k in call.arguments if k in keyed and call.tool.endswith(keyed[k].name.rstrip("s"))]
    return not own


def _words(table: TableSpec, call: ToolCall) -> frozenset[str]:
    return frozenset(w.rstrip("s") if len(w) > 3 else w for w in (*table.name.split("_"), *call.tool.split("_")))


def _status(row: dict[str, Any]) -> str:
    return str(row.get("status") or "").lower()


def _against_state(motive: str, row: dict[str, Any]) -> str:
    if _LOST_WHOLE.search(motive) and _status(row) in _ARRIVED:
        return "lost, of a record that arrived"
    charges = [v for k, v in row.items() if _CHARGE.search(k) and _number(v)]
    if _TOO_DEAR.search(motive) and charges and all(v <= 0 for v in charges):
        return "too dear, of a record that costs nothing"
    return ""


def _create_against_state(
    motive: str, call: ToolCall, keyed: dict[str, TableSpec], rows: dict[str, dict[Any, dict[str, Any]]], today: date
) -> str:
    if not _LAST_WEEK.search(motive):
        return ""
    days = [
        d
        for name, value in call.arguments.items()
        if name in keyed and (row := rows[keyed[name].name].get(value)) is not None
        for column, v in row.items()
        if _DAY_COLUMN.search(column) and isinstance(v, str) and (d := _day(v)) is not None
    ]
    if days and not any(1 <= (today - d).days <= 13 for d in days):
        return "last week, of a record whose day is another week"
    return ""


def _against_kind(motive: str, call: ToolCall, table: TableSpec, row: dict[str, Any]) -> str:
    words = _words(table, call)
    tool = frozenset(call.tool.split("_"))
    if _BREAK.search(motive) and _status(row) not in _ONGOING_STATES and not words & _ONGOING_WORDS:
        return "a break, of a record not used over time"
    if _EXCUSE.search(motive) and not words & _PENALTY_WORDS:
        return "an excuse, for waiving what is no charge"
    if _CHANGED_MIND.search(motive) and tool & _COVER_WORDS:
        return "a change of mind, for a return under cover"
    if _AWAITED.search(motive) and words & _COVER_WORDS:
        return "waiting for cover, which is used when something goes wrong"
    if _SENT_IN.search(motive) and tool & _SENT_TO_USER:
        return "sending in what the business sends the user"
    timed = any(_DAY_COLUMN.search(c.name) or c.type in ("date", "datetime", "timestamp") for c in table.columns)
    if _CALENDAR.search(motive) and not timed:
        return "a time, of a record with no day"
    recurring = any(_RECURRING_COLUMN.search(c.name) for c in table.columns) or bool(
        tool & {"month", "week", "installment"}
    )
    if _ROUTINE.search(motive) and not recurring:
        return "a routine, of a one-off record"
    if _START.search(motive) and tool & _ENDINGS:
        return "a start, of an end"
    phone = call.tool.endswith(("_phone", "_mobile")) or any("phone" in k or "mobile" in k for k in call.arguments)
    if _PROVIDER.search(motive) and phone:
        return "a new provider, to change a phone number"
    if _ERRAND.search(motive) and not any(_PLACE_COLUMN.search(c.name) for c in table.columns):
        return "an errand, to a record with no place"
    return ""


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
