"""Motives that contradict the record they are given for (docs/synthesis.md, "Quality report").

A request's reason is in the user's facts ("Why I'm asking to decline it: …", "Why I want the
autopay changed: …"); it is paired with the write of the gold, or the refused call, that carries the
request's verb or field, and so with the record that call is about, read from the seed. A reason
contradicts the record when it says:

* lateness ("rather than be late with it") of a record already overdue;
* spending ("costs more than I'm willing to spend", "found something cheaper") of money paid to the
  user (a trade-in offer, a payout, a refund, a claim);
* a pay day ("I just got paid, so I can clear it now") for a small sum, or one that clears nothing;
* plans that changed or fell through of a claim, a dispute or an appeal, or a changed schedule of an
  occasion the user hosts (one's own wedding or banquet);
* something given wrong of a setting switched on or off (autopay);
* time pressure with the record's day far off: a gap, a lapse or lateness ("I don't want a gap") of a
  record whose due or end day is more than ``SOON_DAYS`` away, or something that "is taking longer"
  of a span that has not begun (a trip ten weeks away);
* money of what costs nothing ("Money is tight", "found something cheaper") to give up a record
  that carries no charge and is no thing paid for by its name (a vacation hold, a leave request);
* "before I forget" to use cover (a warranty, insurance), which is used because something went wrong;
* what fits another kind of record or action: "on my way to that side of town" to cash in a
  certificate (only a thing collected is fetched), "the problem sorted itself out" or "it's working
  again" to close a licence or a registry (only a fault or a ticket), "we're bringing more than we
  planned" to add a liftgate (only more bags, guests or hours are brought), "it arrived damaged" or
  "not what I expected when I ordered it" to replace a key or a card (a part is lost or worn out, a
  thing bought is returned), "I'll still need it for a while yet" to re-enrol a paused device (a
  restart, no renewal);
* news told at once ("I wanted you to know straight away", "as soon as I opened it") of a record
  whose days are all more than ``SOON_DAYS`` past (a box delivered six weeks ago).

``requests_unexplained`` counts, in tasks that give a reason for some request, the requests they
give none for (writes and refusals beyond the reasons given: "After that, extend the access for the
same program enrollment."); a record added to one an earlier write acted on ("a room arrangement for
the same tour booking") has that write's reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from ..formats.task import Task, ToolCall

_TRANSITION = re.compile(r"^Why I'm asking to (\S+)[^:]*: (.+)$")
_UPDATE = re.compile(r"^Why I want the (.+?) changed: (.+)$")

_LATE = re.compile(r"\bbe late\b|\bbefore it'?s due\b|\bon time\b|\bfall(?:ing)? behind\b", re.IGNORECASE)
_SPEND = re.compile(
    r"\bcosts? more\b|\bwilling to spend\b|\bcheaper\b|\bmoney is (?:a bit )?tight\b|\bcut(?:ting)? back\b|"
    r"\bcan't afford\b",
    re.IGNORECASE,
)
_PAY_DAY = re.compile(r"\bjust got paid\b|\bpay ?day\b|\bpaycheck\b", re.IGNORECASE)
_PLANS = re.compile(
    r"\bplans?\b[^.]*\b(?:changed|fell through)\b|\bfell through\b|\bchange of plans\b|\bschedule changed\b|"
    r"\bcan't make it\b|\bbooked it by mistake\b",
    re.IGNORECASE,
)
_SCHEDULE = re.compile(r"\bschedule changed\b|\bcan't make it\b|\bchange of plans at work\b", re.IGNORECASE)
_WRONG = re.compile(r"\bwrong\b|\bby mistake\b", re.IGNORECASE)

_PAYS_USER = frozenset(
    {"tradein", "buyback", "payout", "refund", "rebate", "reimbursement", "compensation", "settlement", "claim"}
)
_CLAIM = frozenset(
    {"claim", "dispute", "appeal", "complaint", "grievance", "correction", "reimbursement", "expense", "compensation"}
)
_HOSTED = frozenset({"event", "wedding", "party", "banquet", "celebration", "reception", "ceremony", "gala"})
_TAKING_PART = frozenset({"participation", "registration", "attendance", "rsvp", "attendee", "enrollment"})
_OVERDUE_STATES = frozenset({"overdue", "past_due", "late", "delinquent", "in_arrears", "arrears", "defaulted"})
_SETTLED_STATES = frozenset({"paid", "settled", "closed", "cancelled", "canceled", "refunded", "void", "waived"})
_DUE_COLUMN = re.compile(r"(?:^|_)due(?:_date|_on|_by)?$|^due_")
_PAID_ARGUMENT = re.compile(r"amount|deposit|payment|sum|total")
_OWED_COLUMN = re.compile(r"due|balance|outstanding|owed|remaining")
#: Below this no one waits for a pay day ("I just got paid" for a few dollars).
SMALL = 50.0
#: How near a due or end day is "soon": a lapse or lateness is a worry within three weeks.
SOON_DAYS = 21
_GAP = re.compile(r"\bgap\b|\blapse\b|\bbe late\b|\bbefore it'?s due\b|\bneed a bit more time\b", re.IGNORECASE)
_LONGER = re.compile(r"\btaking longer\b|\bran longer\b|\bnot quite finished\b", re.IGNORECASE)
_TIGHT = re.compile(r"\bmoney is (?:a bit )?tight\b|\bcheaper\b|\bcut(?:ting)? back\b", re.IGNORECASE)
_FORGET = re.compile(r"\buse it before I forget\b", re.IGNORECASE)
_ERRAND = re.compile(r"\bthat side of town\b", re.IGNORECASE)
_FETCHED = frozenset({"pick", "pickup", "collect"})
_BOUGHT = re.compile(r"\barrived damaged\b|\bwhen I ordered it\b|\bisn't as described\b", re.IGNORECASE)
_PARTS = frozenset({"key", "card", "badge", "fob", "tag", "pin", "sticker", "decal", "remote", "sim", "wristband"})
_STILL = re.compile(r"\bfor a while yet\b", re.IGNORECASE)
_PROMPT = re.compile(r"\bknow straight away\b|\bas soon as I (?:noticed|opened)\b", re.IGNORECASE)
_MENDED = re.compile(r"\bsorted itself out\b|\bworking again\b", re.IGNORECASE)
_PROBLEMS = frozenset(
    {"ticket", "issue", "case", "complaint", "outage", "repair", "fault", "incident", "report", "maintenance",
     "problem", "defect", "breakdown", "inquiry", "query", "dispute", "grievance"}
)  # fmt: skip
_BRINGING = re.compile(r"\bbringing more than\b", re.IGNORECASE)
_COUNTED = frozenset(
    {"bag", "baggage", "luggage", "passenger", "guest", "person", "people", "seat", "hour", "item", "box", "ticket",
     "traveler", "traveller", "attendee", "rider", "crew", "mover"}
)  # fmt: skip
_END_COLUMN = re.compile(
    r"(?:^|_)due(?:_date|_on|_by)?$|^due_|"
    r"(?:^|_)(?:ends?|until|expires|expiry|expiration|renews|renewal|through|exit|checkout|return)(?:_|$)"
)
_START_COLUMN = re.compile(r"(?:^|_)(?:starts?|begins?|departs?|departure|check_in|effective|from)(?:_|$)")
_CHARGE_COLUMN = re.compile(r"price|rate|fee|cost|premium|amount|total|balance|charge|payment|due|fare|rent|dues")
#: Things the user pays for, whatever the row holds (an order's price is on its product).
_COSTS_USER = frozenset(
    {"quote", "estimate", "substitution", "upgrade", "part", "parts", "line", "treatment", "repair", "plan", "order",
     "invoice", "bill", "fee", "charge", "supplement", "addon", "add", "job", "proposal", "subscription"}
)  # fmt: skip
_COVER = frozenset({"warranty", "guarantee", "insurance", "coverage", "protection", "hazard"})


@dataclass
class MotiveFitCounts:
    motives_checked: int = 0
    motives_contradicting: int = 0
    late_motives_on_overdue: int = 0
    spend_motives_on_money_to_user: int = 0
    pay_day_motives_on_small_sums: int = 0
    plan_motives_on_claims_or_hosted: int = 0
    wrong_value_motives_on_settings: int = 0
    time_motives_far_off: int = 0
    money_motives_on_free_records: int = 0
    forget_motives_on_cover: int = 0
    motives_of_another_kind: int = 0
    prompt_motives_on_old_records: int = 0
    requests_unexplained: int = 0


@dataclass(frozen=True)
class _Record:
    table: TableSpec
    row: dict[str, Any]
    call: ToolCall

    @property
    def words(self) -> frozenset[str]:
        return frozenset(_stem(w) for w in self.table.name.replace("trade_in", "tradein").split("_"))


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def motive_fit_counts(spec: EnvSpec, tasks: list[Task]) -> MotiveFitCounts:
    """Measure the reasons of ``tasks`` against the seed rows of ``spec``."""
    out = MotiveFitCounts()
    writes = {t.name for t in spec.tools if t.kind == "write"}
    keyed = {t.primary_key[0]: t for t in spec.tables if len(t.primary_key) == 1}
    rows = {t.name: {r.get(t.primary_key[0]): r for r in spec.seed.get(t.name, [])} for t in keyed.values()}
    today = spec.clock.date()
    for task in tasks:
        calls = [c for c in task.gold_actions if c.tool in writes and c.actor == "agent"]
        calls += [r.call for r in task.refusals if r.call is not None]
        reasons = [f for f in task.user.known_facts if f.startswith("Why I")]
        if reasons:
            added = sum(_added_to_earlier(c, calls[:i], keyed, rows) for i, c in enumerate(calls))
            out.requests_unexplained += max(0, len(calls) - added - len(reasons))
        unclaimed = list(calls)
        for fact in reasons:
            found = _pair(fact, unclaimed)
            if found is None:
                continue
            call, motive, column = found
            unclaimed.remove(call)
            record = _record(call, keyed, rows)
            if record is None:
                continue
            out.motives_checked += 1
            kinds = _contradictions(motive, record, column, today)
            out.late_motives_on_overdue += "late" in kinds
            out.spend_motives_on_money_to_user += "spend" in kinds
            out.pay_day_motives_on_small_sums += "pay_day" in kinds
            out.plan_motives_on_claims_or_hosted += "plans" in kinds
            out.wrong_value_motives_on_settings += "wrong" in kinds
            out.time_motives_far_off += "far_off" in kinds
            out.money_motives_on_free_records += "free" in kinds
            out.forget_motives_on_cover += "cover" in kinds
            out.motives_of_another_kind += "kind" in kinds
            out.prompt_motives_on_old_records += "old" in kinds
            out.motives_contradicting += bool(kinds)
    return out


def _pair(fact: str, calls: list[ToolCall]) -> tuple[ToolCall, str, str | None] | None:
    """The call a reason is for: the first whose tool carries the request's verb, or sets its field."""
    if m := _TRANSITION.match(fact):
        verb = m.group(1).lower().split("-")[0]  # "re-enroll" is re_enroll_…
        call = next((c for c in calls if verb in c.tool.split("_")), None)
        return (call, m.group(2), None) if call is not None else None
    if m := _UPDATE.match(fact):
        column = m.group(1).replace(" ", "_")
        call = next((c for c in calls if column in c.arguments), None)
        return (call, m.group(2), column) if call is not None else None
    return None


def _acted_on(call: ToolCall, keyed: dict[str, TableSpec]) -> tuple[str, Any] | None:
    """The key argument ``call`` acts on and its value (as :func:`_record` reads it), or None."""
    keys = [name for name in call.arguments if name in keyed]
    keys.sort(key=lambda name: not call.tool.endswith(_stem(keyed[name].name)))
    return (keys[0], call.arguments[keys[0]]) if keys else None


def _added_to_earlier(
    call: ToolCall, earlier: list[ToolCall], keyed: dict[str, TableSpec], rows: dict[str, dict[Any, dict[str, Any]]]
) -> bool:
    """Whether ``call`` adds a record to one an earlier write of the task acted on or made (a key
    the seed does not hold: "a consent form for the same vaccination appointment" just booked): the
    reason given for that write is its reason too, and a second one would be made up ("It belongs
    with it, so I'd rather do both now.")."""
    if not earlier or any(call.tool.endswith(_stem(keyed[name].name)) for name in call.arguments if name in keyed):
        return False  # the first request, or one that acts on a record of its own
    acted = {_acted_on(c, keyed) for c in earlier}
    return any(
        (name, value) in acted or value not in rows[keyed[name].name]
        for name, value in call.arguments.items()
        if name in keyed
    )


def _record(call: ToolCall, keyed: dict[str, TableSpec], rows: dict[str, dict[Any, dict[str, Any]]]) -> _Record | None:
    """The seed row ``call`` acts on: the key argument whose table the tool's name ends with, else
    the first key argument."""
    keys = [(name, keyed[name]) for name in call.arguments if name in keyed]
    keys.sort(key=lambda k: not call.tool.endswith(_stem(k[1].name)))
    for name, table in keys:
        row = rows[table.name].get(call.arguments[name])
        if row is not None:
            return _Record(table, row, call)
    return None


def _contradictions(motive: str, record: _Record, column: str | None, today: date) -> set[str]:
    words, row = record.words, record.row
    found: set[str] = set()
    if _LATE.search(motive) and _overdue(row, today):
        found.add("late")
    if _SPEND.search(motive) and words & _PAYS_USER:
        found.add("spend")
    if _PAY_DAY.search(motive) and _small_or_partial(record):
        found.add("pay_day")
    # taking part in someone else's event (a participation) is attending it: plans at work may change
    hosted = words & _HOSTED and not words & _TAKING_PART
    if (_PLANS.search(motive) and words & _CLAIM) or (_SCHEDULE.search(motive) and hosted):
        found.add("plans")
    if column is not None and _WRONG.search(motive) and _is_setting(record.table, column, record.call):
        found.add("wrong")
    if (_GAP.search(motive) and _ends_far_off(row, today)) or (_LONGER.search(motive) and _not_begun(row, today)):
        found.add("far_off")
    charged = bool(words & _COSTS_USER) or any(
        _CHARGE_COLUMN.search(k) and _number(v) and v > 0 for k, v in row.items()
    )
    if _TIGHT.search(motive) and not charged:
        found.add("free")
    if _FORGET.search(motive) and words & _COVER:
        found.add("cover")
    tool = frozenset(_stem(w) for w in record.call.tool.split("_"))
    if (
        (_ERRAND.search(motive) and not tool & _FETCHED)
        or (_MENDED.search(motive) and not words & _PROBLEMS)
        or (_BRINGING.search(motive) and not tool & _COUNTED)
        or (_BOUGHT.search(motive) and tool & _PARTS)
        or (_STILL.search(motive) and record.call.tool.startswith("re_"))
    ):
        found.add("kind")
    past = [d for v in row.values() if isinstance(v, str) and (d := _day(v)) is not None and d <= today]
    if _PROMPT.search(motive) and past and (today - max(past)).days > SOON_DAYS:
        found.add("old")
    return found


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _days(row: dict[str, Any], pattern: re.Pattern[str]) -> list[date]:
    out = []
    for column, value in row.items():
        if pattern.search(column) and value is not None:
            try:
                out.append(date.fromisoformat(str(value)[:10]))
            except ValueError:
                continue
    return out


def _ends_far_off(row: dict[str, Any], today: date) -> bool:
    """Whether the record's due or end days are all more than ``SOON_DAYS`` away, none near or past."""
    ends = _days(row, _END_COLUMN)
    return bool(ends) and all((d - today).days > SOON_DAYS for d in ends)


def _not_begun(row: dict[str, Any], today: date) -> bool:
    starts = _days(row, _START_COLUMN)
    return bool(starts) and min(starts) > today


def _overdue(row: dict[str, Any], today: date) -> bool:
    status = str(row.get("status") or "").lower()
    if status in _OVERDUE_STATES:
        return True
    if status in _SETTLED_STATES:
        return False
    for column, value in row.items():
        if _DUE_COLUMN.search(column) and value is not None:
            try:
                if date.fromisoformat(str(value)[:10]) < today:
                    return True
            except ValueError:
                continue
    return False


def _small_or_partial(record: _Record) -> bool:
    paid = [v for k, v in record.call.arguments.items() if _PAID_ARGUMENT.search(k) and _number(v)]
    owed = [v for k, v in record.row.items() if _OWED_COLUMN.search(k) and _number(v) and v > 0]
    if paid:
        return paid[0] < SMALL or (bool(owed) and paid[0] + 0.005 < owed[0])
    return bool(owed) and owed[0] < SMALL


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_setting(table: TableSpec, column: str, call: ToolCall) -> bool:
    spec = next((c for c in table.columns if c.name == column), None)
    return isinstance(call.arguments.get(column), bool) or (spec is not None and spec.type == "boolean")
