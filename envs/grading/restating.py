"""What an answer restates of the records it read, beside what it has a reason to state.

An answer that quotes the records holds the reason whatever the rule was, so it proves nothing
(docs/formats.md, "Answers"). Three measures tell such an answer from one that gives a reason:

* :func:`restated` — the values the gold reads showed that the answer states, other than those it
  has a reason to state (:class:`AnswerContext`); more than :data:`MAX_RESTATED` is a restatement;
* :func:`dumped_records` — the records (rows of a tool result) most of whose fields the answer
  states: an answer that reads a record out is no answer, however few fields it has;
* :func:`allowing_states` — the refused record's status where the status allows the action: a
  refusal on another rule that also says "the booking is confirmed" quotes what allows the action
  beside what forbids it, and has not said which rule stops it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..formats.spec import EnvSpec
from ..formats.task import Task, ToolCall
from .answers import prose
from .labels import label_named, phrasings
from .mentions import counted_days_as_dates, is_moment, without_dates
from .outputs import Reading, as_number

#: How many shown values an answer may restate beyond those it has a reason to state: a careful
#: answer may add a title, a date or an amount for context; a dump of the records states dozens.
MAX_RESTATED = 3
#: A record is read out when the answer states at least this share of its fields, and at least
#: :data:`MIN_DUMPED_FIELDS` of them: a careful answer names a record by one or two of its fields.
DUMPED_SHARE, MIN_DUMPED_FIELDS = 0.6, 4
#: A record with at least this many fields besides its keys is read out when the answer states every
#: one of them and one has no reason to be said (of exactly this many, one besides its status): an answer
#: to a question says what was asked and what names the record, not the rest of it.
MIN_PLAIN_FIELDS = 3
#: How many facts of the asked record with no other reason to be said (its amount, its kind, its day)
#: an answer may give in the asked value's own sentence: a person names the record so ("Your PayPal
#: payout of $1,605.55 was requested on December 7, 2025"); a read-out says every field on its own.
MAX_IDENTIFYING = 2


def shown_values(results: Iterable[object]) -> set[str]:
    """The values in tool results (JSON values, nested at any depth) that an answer restating the
    records would state: texts, labels, dates and amounts. Counts below 10 and texts shorter than 3
    characters are left out: "2 days", "1 item", "no" are said for many reasons.

    >>> sorted(shown_values([{"due": "2026-06-09", "fee": 12.5, "qty": 2, "tags": [{"n": 40, "s": "late"}]}]))
    ['12.5', '2026-06-09', '40', 'late']
    """
    out: set[str] = set()
    stack = list(results)
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int | float):
            if abs(value) >= 10 or value != int(value):
                out.add(repr(value) if isinstance(value, float) else str(value))
        elif isinstance(value, str) and len(value.strip()) >= 3:
            out.add(value.strip())
    return out


def values_in(text: str) -> set[str]:
    """The dates and amounts written in ``text`` (the user's words, the policy), named as
    :func:`shown_values` names them when a tool shows them.

    >>> sorted(values_in("Refunds within 30 days; today is 2026-03-02 09:00:00, fee $12.50."))
    ['12.5', '2026-03-02', '2026-03-02 09:00:00', '30']
    """
    out: set[str] = set()
    for token in re.findall(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?", text):
        out.add(token)
        out.add(token[:10])
    for token in re.findall(r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?", without_dates(text)):
        number = as_number(token)
        if number is not None:
            out.add(repr(number) if number != int(number) else str(int(number)))
    return out


def restated(
    answer: str, shown: Iterable[str], allowed: Iterable[str], context: str = "", today: date | None = None
) -> list[str]:
    """The ``shown`` values that ``answer`` states in its own words, other than ``allowed`` ones
    (compared by value: "12.5" is "12.50", a date is its day however written) and those ``context``
    states (the user's words, the policy: what an agent has a reason to repeat).

    >>> restated("I can't: it is due June 9, 2026 and cost $40.", ["2026-06-09", "40", "12.5"], ["2026-06-09"])
    ['40']
    >>> restated("I can't: it is due June 9, 2026, not April 10.", ["2026-04-10 16:00:00"], ["2026-06-09"])
    ['2026-04-10 16:00:00']
    """
    exempt = {_key(v) for v in allowed}
    exempt_days = {v[:10] for v in allowed if is_moment(v)}
    # a day counted from ``today`` ("16694 days ago") restates it; "today" itself names no record's day
    said = Reading(prose(counted_days_as_dates(answer, today) if today is not None else answer))
    known = Reading(context)

    def states(v: str) -> bool:
        if said.states(v):
            return True
        # a date-time's day said without its time restates it as much ("2026-04-10" of a 4 PM audit)
        day = v[:10]
        return len(v) > 10 and is_moment(v) and day not in exempt_days and said.states(day) and not known.states(day)

    return sorted(v for v in set(shown) if _key(v) not in exempt and states(v) and not known.states(v))


def rivals(
    extra: Iterable[str],
    reason: Iterable[str],
    labels: Iterable[str] = (),
    claims: Iterable[str] = (),
    allowed: Iterable[str] = (),
) -> list[str]:
    """The restated values (``extra``) of a reason's own kind: a second date beside a date reason, an
    amount beside an amount, a status (one of ``labels``) beside a status. An answer that gives two
    dates has not said which one stops the request; one that gives the reason and a title has. A
    label that is one of the refusal's ``claims`` is the request's verb ("I haven't refunded it").

    >>> rivals(["2026-05-01", "Yoga"], ["2026-06-09"]), rivals(["12.5"], ["2026-06-09"])
    (['2026-05-01'], [])
    >>> rivals(["in_repair", "Chain"], ["collected"], labels=["in_repair", "collected"])
    ['in_repair']
    >>> rivals(["ready_for_pickup"], ["ready for pickup"], labels=["ready_for_pickup"])
    []
    """

    def plain(value: str) -> str:
        return " ".join(value.lower().replace("_", " ").split())

    statuses, said = {plain(v) for v in labels}, {plain(r) for r in reason}
    days = {r[:10] for r in reason if is_moment(r)}
    # "03/02/2026" is read both ways: the day it may also be of a day the answer may say (today) is none
    days |= {f"{d[:4]}-{d[8:10]}-{d[5:7]}" for d in {a[:10] for a in [*reason, *allowed] if is_moment(a)}}

    def kind(value: str) -> str:
        if is_moment(value):
            return "date"
        if as_number(value) is not None:
            return "amount"
        return "status" if plain(value) in statuses else ""

    kinds = {kind(r) for r in reason} - {""}
    # the reason's own day said with its time, or its label as the tool writes it
    # ("ready_for_pickup" as the tool shows the reason "ready for pickup") is the reason again
    same = {v for v in extra if plain(v) in said | {plain(c) for c in claims} or (kind(v) == "date" and v[:10] in days)}
    return sorted(v for v in extra if kind(v) in kinds and v not in same)


#: A rule weighing one amount against a field of the record: "the wallet balance must be at least the
#: price", "the refund must not exceed the amount paid".
_WEIGHED_AGAINST = re.compile(
    r"\b(?:at least|at most|no more than|no less than|more than|less than|greater than|exceeds?|below|above|"
    r"cover|covers|up to)\s+(?:the\s+)?(?:[a-z]+(?: [a-z]+)?'s\s+)?([a-z][a-z ]*?)\s*$"
)


def weighed_against(rule: str, reads: Iterable[object], key: tuple[str, str] | None) -> set[str]:
    """The amounts of the refused record (the read whose ``key`` column holds its id) that ``rule``
    weighs the reason against: an answer that says both sides ("it costs 252.51 and your balance is
    only 209.63") has said which decides, however many amounts it gives.

    >>> weighed_against("the patient's wallet balance must be at least the price",
    ...                 [{"lab_order_id": "LO4", "price": 252.51, "fee": 12.5}], ("lab_order_id", "LO4"))
    {'252.51'}
    """
    m = _WEIGHED_AGAINST.search(rule.lower().strip().rstrip("."))
    if m is None or key is None:
        return set()
    field = m[1].strip().replace(" ", "_")
    records = [r for r in reads if isinstance(r, dict) and r.get(key[0]) == key[1]]
    return shown_values([r[c] for r in records for c in r if c == field or c.endswith("_" + field)])


def reason_labels(spec: EnvSpec, reason: Iterable[str]) -> set[str]:
    """The labels of a reason's own kind: every value of each column whose values hold one of the
    ``reason``'s (as the tool writes it or as said). A cancelled ticket's rivals are its other
    statuses, not its service type; an exam type or a billing plan said in passing is no second
    status.
    """

    def plain(value: str) -> str:
        return " ".join(value.lower().replace("_", " ").split())

    said = {plain(r) for r in reason}
    columns = [c.enum for t in spec.tables for c in t.columns if c.enum]
    return {v for values in columns if any(plain(v) in said for v in values) for v in values}


def named_rivals(
    answer: str,
    own_kind: Iterable[str],
    reason: Iterable[str],
    excused: str = "",
    claims: Iterable[str] = (),
    user: str = "",
) -> list[str]:
    """The values of a status reason's own column (``own_kind``, :func:`reason_labels`) that
    ``answer`` names beside the reason, shown by a tool or not, other than those ``excused`` says
    as the rule (the policy, the tools' descriptions, the documents deciding it), the ``user``'s words
    and the request's own participle (``claims``). A
    refusal that lists every status the record could hold has its reason among them and has not said
    which one; one that says which status the rule wants ("only registered ones", in a rule's
    sentence) has, and so does "it must be one of laptop, phone, television".

    >>> own = ["registered", "checked_in", "scored", "cancelled"]
    >>> named_rivals("It is registered, checked in, scored or cancelled.", own, ["checked in"], "", ["cancelled"])
    ['registered', 'scored']
    >>> named_rivals("It is checked in; only registered ones can be.", own, ["checked in"], "only if registered")
    []
    >>> named_rivals("It is registered, checked in or scored. Only registered ones can be.", own, ["checked in"], "if")
    ['registered', 'scored']
    """

    def plain(value: str) -> str:
        return " ".join(value.lower().replace("_", " ").split())

    said, known = {plain(v) for v in [*reason, *claims]}, plain(excused)
    text = " ".join(prose(answer).lower().replace("_", " ").replace("-", " ").split())

    def as_rule(value: str) -> bool:  # "only registered ones can be": a sentence with a rule word
        found = list(re.finditer(rf"\b{re.escape(plain(value))}\b", text))
        clauses = [re.split(r"[.;!?]", text[: m.start()])[-1].split() for m in found]
        return bool(re.search(rf"\b{re.escape(plain(value))}\b", known)) and all(_RULE_WORDS & set(c) for c in clauses)

    words = plain(user)
    return sorted(
        v
        for v in set(own_kind)
        if plain(v) not in said
        and not any(phrasings(v) & phrasings(r) for r in said)  # the reason said otherwise ("in review")
        and not re.search(rf"\b{re.escape(plain(v))}\b", words)  # the user's own words ("listed on May 2")
        and label_named(answer, v)
        and not as_rule(v)
    )


def _key(value: str) -> str:
    number = as_number(value)
    if number is not None:
        return f"n:{number:g}"
    if is_moment(value):
        return f"d:{value[:16]}"
    return f"t:{' '.join(value.lower().replace('_', ' ').split())}"  # a label as the tool writes it or as said


def dumped_records(
    answer: str,
    results: Iterable[object],
    allowed: Iterable[str] = (),
    context: str = "",
    *,
    names: Iterable[str] = (),
    acted_on: Iterable[str] = (),
    reasons_excuse: bool = False,
    asked: Iterable[str] = (),
) -> list[str]:
    """The records (JSON objects of ``results`` with at least :data:`MIN_DUMPED_FIELDS` fields) most
    of whose field values ``answer`` states in its own words, each named by its first field. Of the
    fields it has no reason to state (values neither ``allowed`` nor said in ``context``: the answer
    asked for, the user's words; nor the record's own id, by which an answer names it, where it names
    none of the record's other keys) it must state most too, and at least three, unless it states
    every field but the keys (``*_id``): "Your invoice CI0003, issued November 17, 2025, is for
    $5,150.29. It's currently submitted." names the record the user named by its date, and reads
    none out; "PS0025 at $11.84 a week and PS0045 at $10.41, both Sunday-only" names the two
    subscriptions asked about. Ids among ``names`` (those the task's own calls send) name records
    wherever they stand ("MD0018 … its subscription PS0030"), and of a record among ``acted_on``
    (one the task's allowed writes act on) the answer reports what was done, whatever of its fields it
    says; a record stated in every field, keys and all, is read out whatever names it holds. Of the
    record holding an ``asked`` value, every field but the keys is no read-out where at most
    :data:`MAX_IDENTIFYING` of them have no reason to be said and each stands in a sentence that
    gives an asked value: "The $1.99 charge on November 5, 2025 was a rental extension" names the
    charge asked about; "The amount is 1.99. The charge type is rental_extension." reads it out.

    >>> row = {"id": "SR0033", "route": "airport_to_downtown", "departs": "2026-03-02 11:00:00", "fare": 23.88}
    >>> dumped_records("I can't: it is SR0033, airport to downtown, 2026-03-02 11:00:00, 23.88.", [row])
    ['SR0033']
    >>> dumped_records("I can't cancel SR0033: it leaves at 11:00 AM on March 2, 2026.", [row])
    []
    """
    said, known, exempt = Reading(prose(answer)), Reading(context), {_key(v) for v in allowed}
    call_named, acted = set(names), set(acted_on)
    asked = list(asked)
    beside_asked = _beside_asked(answer, asked)

    def free(value: str) -> bool:  # no reason to state it
        return _key(value) not in exempt and not (context and known.states(value))

    def names_it(plain: Mapping[str, str]) -> bool:
        """Whether the fields of a record holding an asked value, each stated, only name it: the
        few said for no other reason stand beside the asked value, not each on its own, and not
        under their columns' names ("the charge type is rental extension" reads a field out)."""
        if not any(_key(v) in {_key(a) for a in asked} for v in plain.values()):
            return False
        unreasoned = {k: v for k, v in plain.items() if v.strip() and free(v)}
        return len(unreasoned) <= MAX_IDENTIFYING and all(
            beside_asked.states(v) and not _column_said(k, beside_asked.text) and not _listed(v, beside_asked.text)
            for k, v in unreasoned.items()
        )

    out = []
    for record in records_of(results):
        named = {k: str(v) for k, v in record.items() if v is not None and not isinstance(v, bool | dict | list)}
        fields = list(named.values())
        if len(fields) < MIN_DUMPED_FIELDS:
            continue
        stated = [v for v in fields if v.strip() and said.states(v)]
        first = next(iter(named))
        # every field but the keys, one of them with no reason to be said: the record, whatever share of
        # its fields the keys make (a redemption of four ids and four values, its code the user's words,
        # its status and pickup day asked, its points spent said for nothing)
        plain_fields = {k: v for k, v in named.items() if not k.endswith("_id") and v.strip()}
        plain = list(plain_fields.values())
        # (of three, one said for nothing other than the record's status: "It's pending." beside the asked
        # total and the day the user named the order by is context, "installed April 11 at 9:45" or "the
        # reason is guarantee_return" a read-out)
        unasked = [
            v
            for k, v in plain_fields.items()
            if free(v) and (len(plain) > MIN_PLAIN_FIELDS or not (k == "status" or k.endswith("_status")))
        ]
        if (
            named[first] not in acted
            and len(plain) >= MIN_PLAIN_FIELDS
            and all(v in stated for v in plain)
            and unasked
            and not names_it(plain_fields)
        ):
            out.append(fields[0])
            continue
        if len(stated) < MIN_DUMPED_FIELDS or len(stated) < DUMPED_SHARE * len(fields):
            continue
        # ids the task's own calls send name records ("MD0018 … its subscription PS0030")
        ids = {k for k, v in named.items() if (k == first or k.endswith("_id")) and v in call_named}
        # every field, keys and all: the record, however named; beside a refusal (``reasons_excuse``)
        # unless each of its values has a reason to be said (a small record named by its id and its
        # parent's, its kind in the user's words, its status the reason: "That is SS0066, on booking
        # BK0023."); an answer to a question that says every field of the record it read reads it out
        unkeyed = [v for k, v in named.items() if k != first and not k.endswith("_id") and v.strip()]
        if (
            (ids or named[first] in acted)
            and all(v in stated for v in fields if v.strip())
            and (not reasons_excuse or any(free(v) for v in unkeyed))
        ):
            out.append(fields[0])
            continue
        # the record's own id names it ("PS0025 at $11.84"), unless the answer reads out its other
        # keys too: an answer points at a record by one id, not by every id it holds
        keys = [v for k, v in named.items() if k.endswith("_id") and k != first and k not in ids]
        own = first if first.endswith("_id") and not any(said.states(v) for v in keys) else None
        kept = [v for k, v in named.items() if k != own and k not in ids]
        beyond, rest = [v for v in kept if v in stated and free(v)], [v for v in kept if free(v)]
        # every field but the keys, whatever the reasons to state some: the record, not an answer
        plain = [v for k, v in named.items() if not k.endswith("_id")]
        # (of a record the task acted on, its kind, day, price and new status are the report of what was
        # done: "I cancelled your host-read spot SP0010 airing May 15; the $2,059.58 went back")
        every = (
            named[first] not in acted
            and len(plain) >= MIN_DUMPED_FIELDS
            and all(v in stated for v in plain if v.strip())
            and not names_it({k: v for k, v in named.items() if not k.endswith("_id")})
        )
        # of a record the task acted on, the answer reports what it did: its fields are the report
        most = named[first] not in acted and len(beyond) >= MIN_DUMPED_FIELDS - 1
        if every or (most and len(beyond) >= DUMPED_SHARE * len(rest)):
            out.append(fields[0])
    return out


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _beside_asked(answer: str, asked: list[str]) -> Reading:
    """The sentences of ``answer`` (in its own words) that state one of the ``asked`` values, read
    together: what stands there names the record the asked value is of.

    >>> _beside_asked("The $1.99 charge was a rental extension. It was on 2025-11-05.", ["1.99"]).text
    'The $1.99 charge was a rental extension.'
    """
    kept = [s for s in _SENTENCE.split(prose(answer)) if asked and any(Reading(s).states(a) for a in asked)]
    return Reading(" ".join(kept))


#: Where a list's items part: a comma not inside a date ("December 7, 2025"), a semicolon, a colon, a dash.
_ITEMS = re.compile(r",\s(?!\d{4}\b)|[;:]\s|\s[—–-]\s")
#: Words that only join a list's items or stand before one: they relate no value to anything.
_GLUE = frozenset(re.findall(r"[a-z]+", "a an the and or of usd dollars cents"))


def _listed(value: str, text: str) -> bool:
    """Whether ``value`` stands in ``text`` only as an item of a list: every piece between separators
    that states it holds nothing but it ("Here's your charge: 1.99, rental extension, November 5"),
    not a word that says what it is to the record ("the $1.99 charge … was a rental extension").

    >>> _listed("rental_extension", "Here's your charge: 1.99, rental extension, November 5, 2025.")
    True
    >>> _listed("rental_extension", "The $1.99 charge on November 5, 2025 was a rental extension.")
    False
    """
    own = set(re.findall(r"[a-z]+", value.lower().replace("_", " ")))
    pieces = [piece for piece in _ITEMS.split(text) if Reading(piece).states(value)]
    return bool(pieces) and all(
        not set(re.findall(r"[a-z]+", without_dates(piece).lower())) - own - _GLUE for piece in pieces
    )


def _column_said(column: str, text: str) -> bool:
    """Whether ``text`` names ``column`` ("charge_type" as "charge type", "charge-type")."""
    words = r"[\s_-]+".join(map(re.escape, column.lower().split("_")))
    return re.search(rf"\b{words}\b", text.lower()) is not None


def records_of(results: Iterable[object]) -> Iterator[Mapping[str, Any]]:
    """Every JSON object in ``results``, nested ones too."""
    stack = list(results)
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            yield value
            stack.extend(v for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend(value)


def _status_columns(spec: EnvSpec) -> dict[str, set[str]]:
    """Per primary-key column, the status-like columns (an enum named for a status or state) of its table."""
    out: dict[str, set[str]] = {}
    for table in spec.tables:
        names = {c.name for c in table.columns if c.enum and re.search(r"status|state", c.name)}
        if len(table.primary_key) == 1 and names:
            out[table.primary_key[0]] = names
    return out


def allowing_states(spec: EnvSpec, call: ToolCall | None, reason: Iterable[str], results: Iterable[object]) -> set[str]:
    """The refused record's status values where the status is not the reason (so the status allows
    the action, and another rule forbids it), read from the records the gold reads showed."""
    if call is None:
        return set()
    keys = {k: v for k, v in call.arguments.items() if isinstance(v, str)}
    columns = _status_columns(spec)
    because = {r.lower().replace("_", " ") for r in reason}
    out: set[str] = set()
    for record in records_of(results):
        for key, value in keys.items():
            if key in columns and record.get(key) == value:
                out |= {str(record[c]) for c in columns[key] if isinstance(record.get(c), str)}
    return {s for s in out if s.lower().replace("_", " ") not in because}


#: After a status word, these make it a verb of time ("is scheduled for 11:00"), not a state.
_ONWARD = "for|to|on|at|by|in|with|from|until"
_RULE_WORDS = frozenset({"only", "must", "when", "if", "unless", "needs", "need", "required", "requires", "while"})
_SAYS_STATE = r"\b(?:is|are|was|were|status|state|currently|still|remains|stays)\b"


def states_status(answer: str, status: str) -> bool:
    """Whether ``answer`` says a record is in ``status`` ("is confirmed", "status: confirmed",
    "still active"), not only uses the word ("I confirmed the details").

    >>> states_status("Your booking is confirmed, but check-in opens later.", "confirmed")
    True
    >>> states_status("I've confirmed the flight departs on March 29.", "confirmed")
    False
    >>> states_status("It is scheduled for 11:00 AM; that's only possible when the status is scheduled.", "scheduled")
    False
    """
    word = re.escape(status.lower().replace("_", " "))
    text = " ".join(prose(answer).lower().replace("_", " ").replace("-", " ").split())
    for m in re.finditer(rf"{_SAYS_STATE}[\s:'\"]*(?:still |currently |now )?{word}\b(?!\s+(?:{_ONWARD})\b)", text):
        before = text[max(0, m.start() - 60) : m.start()].split()[-6:]
        if not _RULE_WORDS & set(before):  # "only when the member's status is active" states a rule
            return True
    return False


def _required_document_texts(spec: EnvSpec, task: Task) -> list[str]:
    """The indexed text of the documents ``task`` names as deciding it (rows of full-text tables)."""
    if not task.required_documents:
        return []
    texts = []
    for table in spec.tables:
        if table.full_text and len(table.primary_key) == 1:
            key = table.primary_key[0]
            for row in spec.seed.get(table.name, []):
                if str(row.get(key)) in task.required_documents:
                    texts.append("\n".join(str(row.get(c) or "") for c in table.full_text))
    return texts


@dataclass(frozen=True)
class AnswerContext:
    """What the gold reads of a task showed, and what an answer to it has a reason to state.

    Attributes:
        shown: the values the gold reads showed (:func:`shown_values`).
        allowed: the reasons and required outputs, today's date, and what the gold writes sent and
            returned (an agent reports what it did).
        words: the user's words, the policy, the documents the task names as deciding it and the
            refused tools' descriptions, whose values an answer may repeat.
        reads: the gold reads' results, record by record.
        documents: the text of the documents the task names as deciding it.
    """

    shown: set[str]
    allowed: set[str]
    words: str
    reads: list[Any]
    documents: tuple[str, ...] = ()

    @classmethod
    def of(cls, spec: EnvSpec, task: Task, results: list[Any]) -> AnswerContext:
        reads: list[Any] = []
        acted: list[Any] = []
        for call, result in zip(task.gold_actions, results, strict=False):
            tool = spec.tool(call.tool)
            (acted if tool is not None and tool.kind == "write" else reads).append(result)
            acted.append(call.arguments)
        user = task.user
        words = [task.instruction, spec.policy, *user.known_facts, *user.reveal_if_asked]
        documents = _required_document_texts(spec, task)
        words += documents  # where the rules live in documents, they are the policy
        for refusal in task.refusals:
            words.append(refusal.request)
            tool = spec.tool(refusal.call.tool) if refusal.call is not None else None
            words.append(tool.description if tool is not None else "")
            acted.append(refusal.call.arguments if refusal.call is not None else {})
        clock = spec.clock
        allowed = {*values_in("\n".join(words)), *shown_values(acted), *task.outputs}
        allowed |= {v for r in task.refusals for v in r.reason}
        allowed |= {clock.strftime("%Y-%m-%d"), clock.strftime("%Y-%m-%d %H:%M:%S")}
        return cls(shown_values(reads), allowed, "\n".join(words), reads, tuple(documents))
