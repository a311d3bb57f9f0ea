"""A record's label in the everyday words of its column, where those words can only mean it.

An agent says "it's still unpaid" of an ``open`` bill, "it's for your device" of an ``equipment``
charge, "a continuous pass" of a ``continuous_1_month`` one. Whether such words name the label
depends on the label's column: "unpaid" says ``open`` on a bill that is ``open``, ``overdue`` or
``paid`` only if an overdue bill would be turned down too. Two readings (docs/formats.md, "Answers"):

* a label that is a kind and a size (``continuous_1_month``, ``annual_twelve``) is named by its kind
  word alone;
* :data:`EVERYDAY` — the everyday words for the statuses and kinds most frequent across the catalog,
  each with every label it could describe.

Either reading counts only where every other value of the column it also fits would be turned down
as well (:func:`blocked_values` reads that from the rules), and not where its words name a field of
the record's table (``duty_owed`` makes "owed" a field, not a state).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..formats.spec import EnvSpec

#: Everyday words: the labels they name, the other labels they could also describe, and the words.
#: A word names a label only where no other value of that label's column among all those it lists
#: would allow the request: an ``open`` and an ``overdue`` bill are both unpaid. A label left out of
#: what a word could describe is a reading that passes where it should not, so the second list errs
#: long.
EVERYDAY: tuple[tuple[frozenset[str], frozenset[str], tuple[str, ...]], ...] = tuple(
    (frozenset(named.split()), frozenset(named.split()) | frozenset(fits.split()), words)
    for named, fits, words in (
        (
            "open unpaid due duty_due payment_due balance_due outstanding pending_payment awaiting_payment "
            "invoiced",
            "overdue past_due delinquent in_collections in_payment_plan partially_paid disputed "
            "quoted billed",
            ("unpaid", "not paid", "not yet paid", "not been paid", "hasn't been paid", "has not been paid",
             "awaiting payment", "waiting for payment", "waiting on payment", "pending payment", "still owed",
             "still owing", "outstanding", "payable", "not settled"),
        ),
        ("equipment equipment_fee hardware device device_payment handset", "router_purchase",
         ("device", "hardware", "handset")),
        ("completed done finished fulfilled", "closed resolved", ("finished", "all done", "already done")),
        ("active live in_effect", "current activated", ("in effect", "in force", "still running")),
        ("submitted sent", "filed applied requested", ("sent in", "handed in", "already sent")),
        ("draft", "", ("not submitted yet", "not yet submitted", "hasn't been submitted", "not been submitted")),
        ("no_show absent", "missed", ("didn't show up", "did not show up", "never showed up", "didn't turn up",
                                      "did not turn up", "never turned up", "didn't show", "did not show")),
        ("expired lapsed", "ended", ("run out", "ran out", "no longer valid")),
        ("paused on_hold", "frozen suspended held", ("on pause", "put on hold", "temporarily stopped")),
        ("delivered received arrived", "", ("already arrived", "has arrived", "have arrived", "dropped off")),
        ("picked_up collected", "returned checked_out", ("picked up", "collected")),
        ("paid paid_off settled", "", ("paid in full", "fully paid", "paid off", "settled")),
        ("approved accepted granted", "completed processed paid credited posted",
         ("gone through", "went through", "been okayed", "got the go-ahead")),
        ("refund refunded", "returned reversed credited", ("refunded", "a refund", "money back")),
        ("processing queued", "pending in_progress under_review in_review", ("being processed", "in the queue")),
        ("scheduled booked", "confirmed reserved requested assigned planned upcoming",
         ("on the calendar", "on the schedule", "on the books", "still booked in")),
        ("rejected declined denied refused turned_down", "cancelled canceled withdrawn closed voided void",
         ("turned down", "was declined", "were declined", "been declined", "declined it", "was denied",
          "were denied", "been denied", "was refused", "been refused")),
        ("converted purchased sold", "completed closed fulfilled delivered",
         ("already bought", "already purchased", "was bought", "been bought", "was purchased", "been purchased",
          "turned into a purchase", "became a purchase", "converted into a sale")),
        ("requested", "submitted pending placed ordered applied new open received awaiting_confirmation",
         ("already asked for", "been asked for", "only asked for so far", "still just a request",
          "only a request so far")),
        ("withdrawn", "cancelled canceled closed retracted abandoned dropped", ("pulled out", "been pulled")),
        ("waitlisted wait_listed", "", ("on the waitlist", "on a waitlist", "on the waiting list", "on the wait list")),
        ("pending", "processing queued submitted requested awaiting_approval pending_approval under_review in_review "
                    "in_progress",
         ("waiting to go through", "yet to go through", "not gone through yet", "not yet gone through")),
        ("ready_for_pickup ready_for_collection awaiting_pickup", "ready arrived delivered held_at_point",
         ("waiting for you to collect", "waiting to be collected", "waiting for you to pick up",
          "waiting to be picked up", "ready to collect", "ready to be collected", "ready to pick up",
          "ready to be picked up", "ready for collection")),
        ("out_for_delivery", "in_transit shipped dispatched en_route", ("on its way to you", "out with the driver")),
        ("in_transit", "out_for_delivery shipped dispatched en_route", ("on its way", "on the way")),
        ("booked", "reserved confirmed scheduled held", ("reserved",)),
        (
            "open",
            "escalated in_progress pending under_review in_review technician_assigned "
            "technician_scheduled technician_dispatched tracing waiting_parts reported submitted",
            ("unresolved", "not resolved", "not yet resolved", "hasn't been resolved", "still being worked on"),
        ),
    )
)  # fmt: skip

#: Words that give a label's size, not its kind ("1 month", "twelve", "15 days").
_UNITS = frozenset(
    re.findall(
        r"\w+",
        "day days week weeks month months year years hour hours night nights minute minutes ride rides visit visits "
        "session sessions",
    )
)
_SIZE = _UNITS | frozenset(re.findall(r"\w+", "one two three four five six seven eight nine ten eleven twelve fifteen "
                                             "twenty thirty"))  # fmt: skip


def plain(value: str) -> str:
    """A label as words: lower case, spaces for underscores and hyphens."""
    return " ".join(re.sub(r"[-_]", " ", value.lower()).split())


def kind_word(label: str) -> str | None:
    """The one word of a kind-and-size label that is not its size ("continuous" of
    ``continuous_1_month``), or None for any other label.

    >>> kind_word("continuous_1_month"), kind_word("annual_twelve"), kind_word("data_overage")
    ('continuous', 'annual', None)
    """
    words = plain(label).split()
    kinds = [w for w in words if not (w.isdigit() or w in _SIZE)]
    # a number in words, or in digits beside its unit, makes a size; a bare number beside a word is a
    # code ("class 100"), and a unit alone a kind ("sick visit")
    numbers = {w for w in words if w in _SIZE - _UNITS}
    sized = bool(numbers) or (any(w.isdigit() for w in words) and any(w in _UNITS for w in words))
    if len(words) < 2 or len(kinds) != 1 or not sized or len(kinds[0]) < 4 or not kinds[0].isalpha():
        return None
    return kinds[0]


_LIST_SPLIT = re.compile(r",\s*(?:or |and )?|\s+or\s+|\s+and\s+")


def blocked_values(rules: Iterable[str], column: Iterable[str]) -> set[str]:
    """The values of ``column`` that the ``rules`` (or a tool's description) turn down: those a "not
    when … is X" rule names, and every value a "must be (one of) X, Y" rule or an "Allowed only when
    … is X or Y" description leaves out (as plain words).

    >>> sorted(blocked_values(["the pass's pass type must be one of flexi 5 days, flexi 10 days"],
    ...                       ["flexi_5_days", "flexi_10_days", "continuous_15_days", "continuous_1_month"]))
    ['continuous 1 month', 'continuous 15 days']
    >>> sorted(blocked_values(["not when the charge's charge type is equipment"], ["equipment", "roaming"]))
    ['equipment']
    >>> sorted(blocked_values(["Issue a permit. Allowed only when the permit is approved; it must belong to "
    ...                        "the applicant given."], ["submitted", "approved", "issued"]))
    ['issued', 'submitted']
    """
    values = {plain(v) for v in column}
    out: set[str] = set()
    for clause in (c for text in rules for c in re.split(r"[;.]\s", plain(text) + " ")):
        if m := re.search(r"\bnot when .+? (?:is|are) (.+)$", clause.strip()):
            out |= values & {x.strip() for x in _LIST_SPLIT.split(m[1])}
        elif m := re.search(r"\b(?:must be (?:one of )?|allowed only when .+? (?:is|are) )(.+)$", clause.strip()):
            listed = values & {x.strip() for x in _LIST_SPLIT.split(m[1])}
            out |= values - listed if listed else set()
    return out


def readings(label: str, column: Iterable[str], blocked: Iterable[str] = (), names: Iterable[str] = ()) -> set[str]:
    """The everyday words that name ``label`` among the values of its ``column``: its kind word
    (:func:`kind_word`) and the words of :data:`EVERYDAY` that fit it, less any that also fit another
    value of the column not ``blocked`` (one that would allow the request), and any whose words name
    a field (``names``: the words of the record's table and column names).

    >>> sorted(readings("equipment", ["roaming", "data_overage", "equipment"]))[:3]
    ['device', 'handset', 'hardware']
    >>> readings("open", ["open", "overdue", "paid"]) & {"unpaid"}
    set()
    >>> "unpaid" in readings("open", ["open", "overdue", "paid"], blocked=["overdue", "open"])
    True
    >>> readings("duty_due", ["filed", "duty_due"], names=["duty", "owed"]) & {"still owed", "unpaid"}
    {'unpaid'}
    """
    said, values = plain(label), {plain(v) for v in column} | {plain(label)}
    free = values - {plain(b) for b in blocked} - {said}  # the other values that allow the request
    field_words = {w for n in names for w in plain(n).split()}
    out: set[str] = set()
    if (kind := kind_word(label)) is not None and not any(kind in v.split() for v in free):
        out.add(kind)
    for named, labels, words in EVERYDAY:
        fits = {plain(x) for x in labels}
        if said in {plain(x) for x in named} and not (fits & free):
            out |= set(words)
    return {w for w in out if not set(w.split()) & field_words}


def spec_readings(spec: EnvSpec, label: str, rules: Iterable[str] = ()) -> set[str]:
    """The :func:`readings` of ``label`` that hold in every column of ``spec`` whose values include
    it, the ``rules`` of the request deciding which other values would be turned down too; none for a
    value no column holds (a date, an amount, a name).

    The record's own column is not always known (a refusal names a tool, an output a value), so a
    reading must name the label wherever it stands: an ``open`` escalation and an ``open`` bill alike.
    """
    said, texts = plain(label), list(rules)
    found: list[set[str]] = []
    for table in spec.tables:
        # a day column names when, not a state: "hasn't been submitted" of a draft with a submitted_on
        names = [table.name, *(c.name for c in table.columns if c.type not in ("date", "datetime"))]
        for column in table.columns:
            if column.enum and said in {plain(v) for v in column.enum}:
                found.append(readings(label, column.enum, blocked_values(texts, column.enum), names))
    return set.intersection(*found) if found else set()
