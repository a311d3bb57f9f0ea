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
  event "last week" for a record whose own day is not in the week before; "I booked it by mistake"
  of a waitlisted registration; "I can't make it" of what already happened; "We decided not to go
  ahead" with an application already denied; "It stopped working" of a thing reported lost.
* **105, the record's kind** contradicts it: a break from using it ("I'm taking a short break", "I'll
  be away and won't be using it") of a record not used over time (a parcel); an excuse ("It was an
  honest mistake", "I had a family emergency that week") for waiving what is no charge (a signature);
  a change of mind ("It isn't as described") to return something under a guarantee, or the waiting
  for it ("I've been waiting on it") of cover, both of which are for a defect; something sent in ("I've
  got everything together now") that the business sends the user (a copy of results); a time ("I've
  checked my calendar") of a record with no day; a routine ("the next stretch", "next month") of a
  one-off record; a start ("I'm ready to get started") of an end (a move-out, a redelivery); "I
  switched providers" to change a phone number (a number moves with its owner, not the carrier);
  "another venue" to drop one's part in someone else's event (an errand "to that side of town" of
  what is not fetched is measure 51's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
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
    {"delivered", "collected", "picked_up", "received", "completed", "installed", "fulfilled", "redeemed", "used",
     "attended", "done", "finished", "no_show", "checked_out"}
)  # fmt: skip
_NEVER_CAME = re.compile(r"\bnever turned up\b|\bnever (?:came|arrived)\b", re.IGNORECASE)
_BOOKED_BY_MISTAKE = re.compile(r"\bbooked it by mistake\b", re.IGNORECASE)
_BOOKED = frozenset(
    {"booked", "confirmed", "scheduled", "reserved", "enrolled", "registered", "ticketed", "planned", "upcoming",
     "placed", "active", "accepted", "paid"}
)  # fmt: skip
_CANT_MAKE_IT = re.compile(r"\bcan't make it\b", re.IGNORECASE)
_GOING_AHEAD = re.compile(r"\bgo(?:ing)? ahead\b|\bpursu|\bfell through\b", re.IGNORECASE)
_TURNED_DOWN = frozenset({"denied", "declined", "rejected", "refused"})
_FAULT = re.compile(
    r"\bstopped working\b|\bisn't as described\b|\bdoesn't fit what I needed\b|\barrived damaged\b|"
    r"\bwhat I expected when I ordered\b",
    re.IGNORECASE,
)
_GONE = frozenset({"lost", "stolen", "missing"})
_VENUE = re.compile(r"\banother venue\b", re.IGNORECASE)
_TAKING_PART = frozenset({"participation", "registration", "attendance", "rsvp", "attendee", "enrollment", "ticket"})
_TOO_DEAR = re.compile(r"\bcosts? more than\b|\bwilling to spend\b|\bsomething cheaper\b", re.IGNORECASE)
_CHARGE = re.compile(r"price|cost|fee|charge|amount|total|difference|rate|premium|fare|estimate|labor|labour")
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
    return [f for found in _judged(spec, tasks) for f in found]


def motive_premise_counts(spec: EnvSpec, tasks: list[Task]) -> MotivePremiseCounts:
    judged = list(_judged(spec, tasks))
    return MotivePremiseCounts(
        motive_premises_checked=len(judged),
        motive_premises_against_state=sum(f.by == "state" for found in judged for f in found),
        motive_premises_against_kind=sum(f.by == "kind" for found in judged for f in found),
    )


def _judged(spec: EnvSpec, tasks: list[Task]) -> Iterator[list[PremiseFinding]]:
    """For each reason paired with a call, what its record contradicts. Two requests of one verb
    ("withdraw one of my claims", "another one") are told apart by the refused request a reason
    follows in the instruction; where the words do not tell, a reason is given the record it fits."""
    writes = {t.name for t in spec.tools if t.kind == "write"}
    keyed = {t.primary_key[0]: t for t in spec.tables if len(t.primary_key) == 1}
    rows = {t.name: {r.get(t.primary_key[0]): r for r in spec.seed.get(t.name, [])} for t in keyed.values()}
    today = spec.clock.date()

    def judge(task: Task, motive: str, call: ToolCall) -> list[PremiseFinding]:
        record = _record(call, keyed, rows)
        if record is None:
            return []
        state = _against_state(motive, record.row, call)
        kind = _against_kind(motive, call, record.table, record.row)
        return [
            PremiseFinding(task.id, motive, call.tool, by, why) for by, why in (("state", state), ("kind", kind)) if why
        ]

    for task in tasks:
        calls = [c for c in task.gold_actions if c.tool in writes and c.actor == "agent"]
        calls += [r.call for r in task.refusals if r.call is not None]
        unclaimed = list(calls)
        creates: list[str] = []
        asked: list[tuple[str, str]] = []
        for fact in (f for f in task.user.known_facts if f.startswith("Why I")):
            if m := _CREATE.match(fact):
                creates.append(m.group(1))
            elif (found := _pair(fact, calls)) is not None:
                asked.append((fact, found[1]))
        for _, motive, call in _assigned(task, asked, unclaimed, judge):
            unclaimed.remove(call)
            if _record(call, keyed, rows) is not None:
                yield judge(task, motive, call)
        # a new record's call is one left over that names no row of its own table by its key
        made = [c for c in unclaimed if _record(c, keyed, rows) is None or _makes(c, keyed)]
        for motive, call in zip(creates, made, strict=False):
            why = _create_against_state(motive, call, keyed, rows, today)
            yield [PremiseFinding(task.id, motive, call.tool, "state", why)] if why else []


def _assigned(
    task: Task,
    asked: list[tuple[str, str]],
    calls: list[ToolCall],
    judge: Callable[[Task, str, ToolCall], list[PremiseFinding]],
) -> list[tuple[str, str, ToolCall]]:
    """Each reason (fact, motive) with its call: the refused request it is said right after, else,
    over the calls of its verb, the assignment that leaves the fewest premises contradicted (the
    first such in the order the calls are listed)."""
    left = list(calls)
    out: list[tuple[str, str, ToolCall]] = []
    open_: list[tuple[str, str]] = []
    for fact, motive in asked:
        call = _said_after(task, motive, [c for c in left if _pair(fact, [c]) is not None])
        if call is None:
            open_.append((fact, motive))
        else:
            left.remove(call)
            out.append((fact, motive, call))
    best: tuple[int, list[ToolCall | None]] | None = None
    for chosen in _choices(open_, left):
        cost = sum(len(judge(task, m, c)) for (_, m), c in zip(open_, chosen, strict=True) if c is not None)
        if best is None or cost < best[0]:
            best = (cost, chosen)
        if cost == 0:
            break
    if best is not None:
        out += [(f, m, c) for (f, m), c in zip(open_, best[1], strict=True) if c is not None]
    return out


def _choices(asked: list[tuple[str, str]], calls: list[ToolCall], limit: int = 720) -> Iterator[list[ToolCall | None]]:
    """Ways to give each reason a distinct call of its verb, in the order the calls are listed; a
    reason no call is left for is dropped from the pairing (as measure 51 drops it)."""
    if not asked:
        yield []
        return
    fact = asked[0][0]
    fitting = [c for c in calls if _pair(fact, [c]) is not None]
    if not fitting:
        yield from ([None, *tail] for tail in _choices(asked[1:], calls, limit))
        return
    made = 0
    for call in fitting:
        rest = [c for c in calls if c is not call]
        for tail in _choices(asked[1:], rest, limit):
            yield [call, *tail]
            made += 1
            if made >= limit:
                return


def _said_after(task: Task, motive: str, calls: list[ToolCall]) -> ToolCall | None:
    """The refused request's call that ``motive`` is said right after in the instruction ("Please
    withdraw my claim from January 6. I've worked it out with them directly."), if any."""
    at = task.instruction.find(motive)
    refused = {id(r.call): r.request for r in task.refusals if r.call is not None}
    for call in calls:
        request = refused.get(id(call))
        start = task.instruction.find(request) if request is not None and at >= 0 else -1
        if start >= 0 and 0 <= at - (start + len(request or "")) <= 3:
            return call
    return None


def _makes(call: ToolCall, keyed: dict[str, TableSpec]) -> bool:
    own = [k for k in call.arguments if k in keyed and call.tool.endswith(keyed[k].name.rstrip("s"))]
    return not own


def _words(table: TableSpec, call: ToolCall) -> frozenset[str]:
    return frozenset(w.rstrip("s") if len(w) > 3 else w for w in (*table.name.split("_"), *call.tool.split("_")))


def _status(row: dict[str, Any]) -> str:
    return str(row.get("status") or "").lower()


def _against_state(motive: str, row: dict[str, Any], call: ToolCall) -> str:
    status = _status(row)
    lost_itself = bool(set(call.tool.split("_")) & {"lost", "stolen"})  # a thing lost since it came
    if status in _ARRIVED and (_NEVER_CAME.search(motive) or (_LOST_WHOLE.search(motive) and not lost_itself)):
        return "lost, of a record that arrived"
    if _BOOKED_BY_MISTAKE.search(motive) and status and status not in _BOOKED and not status.endswith("_scheduled"):
        return "booked by mistake, of a record not booked"
    if _CANT_MAKE_IT.search(motive) and status in _ARRIVED:
        return "can't make it, of what already happened"
    if _GOING_AHEAD.search(motive) and status in _TURNED_DOWN:
        return "going ahead, with what was turned down"
    if _FAULT.search(motive) and status in _GONE:
        return "a fault, of a thing lost"
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
    paused = call.tool.startswith(("pause", "suspend", "freeze"))  # only what is in use is paused
    if _BREAK.search(motive) and not paused and _status(row) not in _ONGOING_STATES and not words & _ONGOING_WORDS:
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
    if _VENUE.search(motive) and words & _TAKING_PART:
        return "a venue, of an event the user only takes part in"
    return ""


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
