"""How a user names one of their records: as people do, from what the domain says they know.

One rule set, read from the domain format (attribute kinds and ``lookup``), for every domain. A
record is named by *handles*, each a fact its owner really has:

0. a person's **own name** (a student, a child, a dependent), always first: "my student Leah Reid";
1. **what it is called** or **a code they were given**: a title (the game, the piece, the panel:
   "my recital entry for Moonlight Sonata") or an attribute marked ``lookup`` (a booking
   reference, an order number, a line's phone number): "my booking with booking reference BK-204913";
2. **when**: a date or datetime of the record: "my loan from 2026-02-10", "my loan due on
   2026-03-01", "my appointment on 2026-03-03 at 09:30";
3. **what it is**: an enum value of the record, said before the noun: "my premium economy booking";
4. **who or where**: a person's name, a company or a city on the record;
5. the same of a record it references (one hop, never its owner): "my appointment with Jane Roe"
   (the doctor's name), "my registration for Young Explorers" (the program's name), "my loan for
   the fiction book", "my appointment for the slot on 2026-03-03 at 09:30", "my booking for flight
   AW1234" (the flight's lookup code);
6. **what it cost**, last: the record's price or amount ("my payment of 294.14", "my package that
   cost 661.71", "my solar project with a contract price of 24310.5"), only when nothing above
   names it. Never an amount the system keeps on it or a
   measurement ("with estimate 316.37", "with system kw 13"): its owner does not know it
   (``envs/quality/record_names.py``, measure 63).

Never a primary key (the system's own id, which the customer was never told), a code the customer
was not given (no ``lookup``) or free text. A handle names the record only when no other record of
the user shares it; a single handle is tried first (most often in the order above, what a thing is
called before when it is, before what kind it is), then two together (a date with one other handle
first: "my pending claim from March 3", else any two: "my Honda's brake job with Dr. Chen"), then
what it cost. With no such name the record is not named at all, and the task generator picks another
record.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from itertools import combinations
from typing import Any

from envs.quality.naming import is_lorem_title, is_verb_form, person_role
from envs.quality.record_names import customer_knows
from envs.quality.spoken import spoken_money, spoken_when
from envs.quality.text import column_words

from ..domains.domain import Attribute, Domain, Entity, Reference

#: Attribute kinds people name their records by (besides the codes they were given).
HANDLE_KINDS = frozenset({"date", "datetime", "enum", "person_name", "company", "city", "title"})
#: How readily people name a record by a kind of handle (lower first): what it is called or the code
#: they were given, when it is, who or where, what kind of thing it is.
_PREFERENCE = {"title": 0, "code": 0, "date": 1, "datetime": 1, "person_name": 2, "company": 2, "enum": 3, "city": 3}
#: Words of a date column that say when a record ends or starts, or when it was made or is for (the
#: rest name some other date of it, said with its name: "whose next credit date is …").
_ENDS = frozenset({"end", "ends", "ending", "ended", "expires", "expiry", "expiration", "until", "through"})
_STARTS = frozenset({"start", "starts", "starting", "begins", "begin", "effective"})
_WHEN_MADE = frozenset(
    {"created", "placed", "requested", "purchased", "ordered", "issued", "filed", "submitted", "opened", "booked",
     "made", "paid", "received", "reported", "scheduled", "appointment", "visit", "event", "service", "lesson",
     "session", "pickup", "delivery", "travel", "departure", "arrival", "sent", "applied", "signed", "loaned",
     "recorded", "incident", "performance", "move", "install", "installation", "order", "purchase", "booking"}
)  # fmt: skip
#: Money columns that are what a record cost: "my payment of 294.14", "my package that cost 661.71".
_PAID = frozenset({"amount", "amount_paid", "price", "price_paid", "cost", "fee", "fee_paid", "total", "total_price"})
#: Of records named by one handle, how many take it in the order of ``_PREFERENCE`` (the rest: any).
PREFERRED_SHARE = 0.7
#: Words of a code's name that make it a machine's number the owner has never read out (a release's
#: UPC, a phone's IMEI, a part's SKU): a record is named by it only where nothing a person says does.
_MACHINE_CODES = frozenset(
    {"upc", "isrc", "isbn", "sku", "imei", "serial", "vin", "ndc", "part", "stock", "asset", "tank", "modem",
     "microchip", "premise", "parcel", "lot", "batch", "panel", "rfid"}
)  # fmt: skip
#: The rank of a person's own name: a parent names their child by name, never by school or meal plan.
OWN_NAME = -1
#: Kinds a record is named by only when nothing else names it: how much.
AMOUNT_KINDS = frozenset({"money", "quantity"})
Row = dict[str, Any]


def _machine_code(a: Attribute) -> bool:
    return a.kind == "code" and bool(set(a.name.split("_")) & _MACHINE_CODES)


def is_handle(a: Attribute) -> bool:
    """Whether the owner of a record knows this attribute's value and would name the record by it."""
    return a.kind in HANDLE_KINDS or a.kind in AMOUNT_KINDS or a.lookup


def _sayable(a: Attribute, value: Any) -> bool:
    """A value to name a record by: set, and of three characters or with a digit ("grade B", "type
    ep" are too slight a handle to be heard, or found in a sentence); an amount other than zero; a
    title that is a real one, not lorem words strung together ("Two Account Worker")."""
    if value is None or isinstance(value, bool):
        return False
    if a.kind == "title" and is_lorem_title(value):
        return False
    if a.kind in AMOUNT_KINDS:
        return isinstance(value, int | float) and value != 0
    text = str(value)
    return len(text) >= 3 or any(ch.isdigit() for ch in text)


def _own_name(entity: Entity, a: Attribute) -> bool:
    """Whether ``a`` is the name of the person the record is (a student's, a child's, a dependent's)."""
    own = ("name", "full_name", f"{entity.name}_name", f"{entity.name.split('_')[-1]}_name")
    return a.kind == "person_name" and a.name in own


def _when(value: Any, kind: str, today: date | None) -> str:
    """A record's day, or day and time, in words: "February 17", "March 3 at 9:30 AM"."""
    text = str(value)
    return spoken_when(text[:16] if kind == "datetime" and len(text) >= 16 else text[:10], today)


def _event(words: list[str]) -> str:
    """The event a date column is named after, as a noun: ``hearing_date`` "the hearing",
    ``next_credit_on`` "the next credit"."""
    return " ".join(w for w in words if w not in ("at", "on", "date", "time")) or "date"


#: A record's own time said by the word a column names it for: "my appointment on April 26 at 3:30 PM",
#: not "with the slot on"; "my bill payment going out on June 6", not "with the send on".
_OWN_TIME = {
    "slot": "on",
    "send": "going out on",
    "receipt": "from",
    "return": "returning on",
    "air": "airing on",
    "maturity": "maturing on",
}
#: Deadlines a customer acts by: "my eyewear order ready by March 8", "my job offer to respond to by April 1".
_BY = {"ready": "ready by", "respond": "to respond to by", "pickup": "to pick up by", "return": "to return by"}


def _event_fragment(event: list[str], when: str, noun: str) -> str:
    """A record named by the day of an event a column records: "with the hearing on February 17",
    "whose next billing is on March 16", "my energy audit on January 29"."""
    said = _event(event)
    words = said.split()
    if words and words[-1] == "by":
        head = " ".join(words[:-1])
        return f"{_BY[head]} {when}" if head in _BY else f"to {head} by {when}"
    if words and words[0] == "next":
        return f"with its {said} on {when}"  # a membership "with its next credit on February 5"
    if words and words[0] == "scheduled":
        return f"scheduled for {when}"
    if said in _OWN_TIME:
        return f"{_OWN_TIME[said]} {when}"
    if words and (set(words) & set(noun.split()) or words[0].endswith("ed")):
        # the event is the record itself ("my energy audit on ..."), or a deed done to it: "my top up
        # from February 25", not "with the topped up on"
        return f"on {when}" if not words[0].endswith("ed") else f"from {when}"
    return f"with the {said} on {when}"  # "with the hearing on February 17"


@dataclass(frozen=True)
class Handle:
    """One fact that may single a record out: ``column`` of the record, or of the record it
    references through ``via``, is ``value``; ``fragment`` is how the user says it."""

    fragment: str
    column: str
    value: Any
    via: Reference | None = None
    is_date: bool = False
    is_amount: bool = False
    #: the same said before the record's noun, where people say it so ("premium economy")
    prefix: str | None = None
    preference: int = 4
    #: an amount its owner knows (what it cost), not one the system keeps (an estimate, a kW rating)
    known: bool = False
    #: a limit the business sets (a return deadline, a pickup-by day): no one names their record by it
    #: while anything else tells it apart
    limit: bool = False

    def fits(self, row: Row, parents: Mapping[str, Mapping[Any, Row]]) -> bool:
        """Whether another record ``row`` has the same value (``parents``: rows by id, per entity)."""
        if self.via is None:
            return bool(row.get(self.column) == self.value)
        parent = parents[self.via.entity].get(row.get(self.via.column), {})
        return bool(parent.get(self.column) == self.value)


def _own_fragment(a: Attribute, value: Any, rng: random.Random, today: date | None = None, noun: str = "") -> str:
    if a.kind in ("date", "datetime"):
        when = _when(value, a.kind, today)
        words = set(a.name.split("_"))
        if "due" in words:
            return f"due on {when}"
        if words & {"expires", "expiry", "expiration"}:
            return f"expiring on {when}"
        if words & _ENDS:  # an end date is no date a record is "from": "my plan ending on 2026-03-06"
            return f"ending on {when}"
        if words & _STARTS:
            return f"starting on {when}"
        if not words <= _WHEN_MADE | {"at", "on", "date", "time"}:  # hearing_date, refunded_on, next_credit_date
            event = a.name.split("_")
            if is_verb_form(event[0]) and _event(event) == event[0]:
                return f"that {event[0]} on {when}"  # renews_on: "that renews on June 2", no "the renews"
            if event[0].endswith("ed") and len(event) <= 2:  # "approved on February 8"
                # what the record is named for: "my refund from February 8", not "refunded on"
                own = noun.split()[-1] if noun else ""
                return f"from {when}" if own and event[0].startswith(own[:-1]) else f"{event[0]} on {when}"
            return _event_fragment(event, when, noun)
        said = rng.choice([f"from {when}", f"dated {when}"])  # drawn either way: later draws keep
        if today is not None and str(value)[:10] > today.isoformat():
            said = f"for {when}"  # a day to come: "my installation order for June 10", not "from"
        return f"on {when}" if a.kind == "datetime" else said
    if a.kind == "title":
        return f"for {value}"  # my recital entry for Moonlight Sonata
    if a.kind == "person_name":  # my student Leah Reid (the record's own name); my pickup pass for Sam Lee
        if a.name in ("name", "full_name") or a.name.endswith("_name"):
            return str(value)
        return f"{person_role(a.name)} {value}"
    if a.kind == "company":
        return f"with {value}"
    if a.kind == "city":
        return f"in {value}"
    if a.kind == "money" and isinstance(value, int | float) and not isinstance(value, bool):
        value = spoken_money(float(value))  # a customer says "$92.49", never a bare "92.49"
    if a.kind == "money" and a.name in _PAID:
        return f"of {value}" if a.name == "amount" else f"that cost {value}"  # my fee of $92.49
    if a.kind == "money" and customer_knows(a.name, a.kind):
        return f"with a {column_words(a.name)} of {value}"  # my solar project with a contract price of $24,310.50
    shown = str(value).replace("_", " ")
    return f"with {a.name.replace('_', ' ')} {shown}"


def _parent_fragment(parent: Entity, a: Attribute, value: Any, today: date | None = None) -> str:
    names_parent = a.name in ("name", "full_name", "company", f"{parent.name}_name")
    if a.kind in ("person_name", "company") and names_parent:
        return f"with {value}"  # the record's own name: my appointment with Jane Roe, my policy with Acme Ltd
    if a.kind == "city":
        return f"in {value}"
    if a.kind == "title":
        return f"for {value}"  # my registration for Young Explorers
    if a.kind == "enum":
        return f"for the {str(value).replace('_', ' ')} {parent.human}"  # my loan for the fiction book
    if a.kind in ("date", "datetime"):
        return f"for the {parent.human} on {_when(value, a.kind, today)}"
    if a.kind == "code" or a.lookup:
        return f"for {parent.human} {value}"  # a code the customer has: my booking for flight AW1234
    return f"for the {parent.human} with {a.name.replace('_', ' ')} {str(value).replace('_', ' ')}"


def _is_limit(column: str) -> bool:
    """Whether a date column is a limit the business sets: ``return_deadline``, ``pickup_by``,
    ``hold_until``, ``respond_by``."""
    words = column.split("_")
    return "deadline" in words or words[-1] in ("by", "until")


def _is_due(column: str) -> bool:
    """Whether a date column is when something falls due (``due_date``, ``due_on``): a bill is named
    by it, but a loan or a contract with a title of its own is named by that first."""
    return "due" in column.split("_")


def handles(
    domain: Domain,
    entity: Entity,
    row: Row,
    parents: Mapping[str, Mapping[Any, Row]],
    rng: random.Random,
    *,
    avoid: str | None = None,
    today: date | None = None,
) -> list[Handle]:
    """Every handle of ``row`` (see the module doc); ``avoid``: a column not to name it by (the value
    the user asks about, or the one a refusal is about); ``today``: the clock's day, so a day of this
    year is said without its year."""
    out = []
    for a in entity.attributes:
        # a one-letter value ("grade B") is too slight a handle to name a record by
        if is_handle(a) and a.name != avoid and _sayable(a, row.get(a.name)):
            is_date, is_amount = a.kind in ("date", "datetime"), a.kind in AMOUNT_KINDS
            prefix = str(row[a.name]).replace("_", " ") if a.kind == "enum" else None
            rank = 4 if _machine_code(a) else _PREFERENCE.get("code" if a.lookup else a.kind, 4)
            out.append(
                Handle(
                    _own_fragment(a, row[a.name], rng, today, entity.human),
                    a.name,
                    row[a.name],
                    None,
                    is_date,
                    is_amount,
                    prefix,
                    OWN_NAME if _own_name(entity, a) else rank,
                    known=a.name in _PAID or customer_knows(a.name, a.kind),
                    limit=is_date and _is_limit(a.name),
                )
            )
    for ref in entity.references:
        if ref.role == "owner" or row.get(ref.column) is None:
            continue
        parent = domain.entity(ref.entity)
        prow = parents[parent.name].get(row[ref.column], {})
        for a in parent.attributes:
            if is_handle(a) and a.kind not in AMOUNT_KINDS and _sayable(a, prow.get(a.name)):
                is_date = a.kind in ("date", "datetime")
                rank = 4 if _machine_code(a) else _PREFERENCE.get("code" if a.lookup else a.kind, 4)
                fragment = _parent_fragment(parent, a, prow[a.name], today)
                out.append(Handle(fragment, a.name, prow[a.name], ref, is_date, preference=rank))
    return out


def single_out(
    candidates: list[Handle],
    siblings: Iterable[Row],
    parents: Mapping[str, Mapping[Any, Row]],
    rng: random.Random,
) -> list[Handle] | None:
    """The handles that no sibling shares: one, else a date and one more, else an amount; or None."""
    others = list(siblings)
    options = list(candidates)
    rng.shuffle(options)
    if rng.random() < PREFERRED_SHARE:
        options.sort(key=lambda h: h.preference)  # stable: random within a rank
    options.sort(key=lambda h: h.preference != OWN_NAME)  # a person by their name, always first
    options.sort(key=lambda h: h.limit)  # "my title with the return deadline on February 11": last
    if any(h.preference == 0 for h in options):  # a title or a code: "my loan for Tidy Windows"
        options.sort(key=lambda h: h.limit or _is_due(h.column))  # before "my loan due on March 21"
    named = [h for h in options if not h.is_amount]
    for h in named:
        if not any(h.fits(s, parents) for s in others):
            return [h]
    # two natural handles before any amount: a date and another first, then any two
    pairs = sorted(combinations(named, 2), key=lambda p: not (p[0].is_date or p[1].is_date))
    for a, b in pairs:
        if not any(a.fits(s, parents) and b.fits(s, parents) for s in others):
            return sorted((a, b), key=lambda h: not h.is_date)  # the date first: "my loan from ... for ..."
    for h in options:
        if h.is_amount and h.known and not any(h.fits(s, parents) for s in others):
            return [h]  # what it cost: its owner knows that much; no estimate, no kW
    return None
