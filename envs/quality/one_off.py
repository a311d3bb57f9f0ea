"""One real thing recorded many times: three returns of one purchase, two refunds of one return, four
unemployment claims open at once for one claimant, seven live subscriptions of one viewer (measure 45,
docs/synthesis.md).

Tables are picked by their names and statuses alone, so the measure runs on any catalog; the seed
generator keeps the rules (``synthesis.seeds.seedgen``) and the task generator writes nothing that
breaks them (``synthesis.tasks.chain``):

* **Acts done once to one thing.** A child table named for an act a thing undergoes once
  (:data:`ONCE_ACTS`: ``return_requests``, ``deposit_refunds``, ``freight_claims``,
  ``citation_appeals``, ``carrier_invoices``) holds, per parent record that is one thing a person
  bought, booked or was decided on (:data:`ONE_THINGS`: a purchase, an order, a booking, a shipment,
  a return request, a load offer), no
  more live rows than the parent's quantity (:data:`QUANTITY_WORDS`), or one. Rows called off or
  refused (:data:`CALLED_OFF`) leave room for another. A parent that belongs to nobody (a train, a
  store) or that is the person (the user table) is no one thing; a standing record (a policy, an
  account, a contract) may have claims without end, so it is not named in :data:`ONE_THINGS`.
* **Held one at a time.** A table named for what a person holds one of at a time
  (:data:`HELD_ONE_AT_A_TIME`: a subscription, a membership, a lease, an enrollment, a registration;
  a benefit claim) that references the user table holds, per person and per other record it names
  (the unit leased, the package subscribed to, the vehicle a wash membership covers), at most one row
  in a held status (:data:`HELD`: active, paused, past due, pending ...). A plan in a column is a
  tier of the one service, not another thing held.
* **Taken by one holder at a time.** A table whose live rows take one thing (:data:`TAKING`: a hold, a
  lease, a rental, a permit) of a parent with a flag saying it is free (:func:`free_flag`: a vehicle's
  ``availability``, a unit's ``vacant``) holds, per parent, at most one row in a held status: two
  shoppers' active holds on one vehicle are one too many. (That the flag agrees is measure 49,
  :mod:`.agreement`.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, ForeignKey, TableSpec
from .periods import IN_FORCE, OVERDUE
from .seed import status_columns
from .spec import owner_paths, user_table
from .text import word_set

#: Acts a thing undergoes once (a table's last word, singular).
ONCE_ACTS = word_set("return refund exchange claim chargeback dispute appeal reimbursement payout invoice")
#: Words for asking for an act, which the word before names (a return request, a refund authorization).
_ASKING = word_set("request authorization application filing")
#: Records that are one thing a person bought, booked or was decided on (a table's last word, singular).
ONE_THINGS = word_set(
    """purchase order item line booking reservation stay visit trip shipment delivery transaction charge
    enrollment lease rental citation certification request authorization claim project sale offer tender"""
)
#: What a person holds one of at a time (a table's last word, singular).
HELD_ONE_AT_A_TIME = word_set("subscription membership lease tenancy enrollment registration passport")
#: Words of a parent's count of the things it is for (two units bought may be returned twice).
QUANTITY_WORDS = word_set("quantity qty units")
#: Last words of a table whose live rows take one thing for one holder (a hold on a vehicle).
TAKING = word_set("hold lease tenancy rental permit")
#: Words of a column saying a thing is free to take, and its values that say so.
_FREE_NAMES = word_set("is vacant available availability unoccupied")
FREE_VALUES = word_set("available vacant free unoccupied")
#: Statuses of a record its person still holds.
HELD = IN_FORCE | OVERDUE | word_set("paused on_hold suspended pending registered waitlisted disconnect_pending")
#: Last words of a status of an act called off or refused, which leaves room for another.
CALLED_OFF = word_set(
    """cancelled canceled withdrawn void voided revoked rescinded retracted abandoned deleted reversed
    declined rejected denied"""
)


def singular(word: str) -> str:
    """``deliveries`` -> ``delivery``, ``leases`` -> ``lease``; ``pass`` stays."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _last(name: str) -> str:
    return singular(name.lower().split("_")[-1])


def _act(name: str) -> str:
    """What a table's rows are: its last word, or the one before a word for asking (a return request)."""
    words = [singular(w) for w in name.lower().split("_")]
    return words[-2] if len(words) > 1 and words[-1] in _ASKING else words[-1]


def done_once(child: str, parent: str) -> bool:
    """Whether rows of table ``child`` are an act its ``parent`` record undergoes once (by their names:
    ``return_requests`` of ``purchases``, ``return_refunds`` of ``return_requests``)."""
    return _act(child) in ONCE_ACTS and _last(parent) in ONE_THINGS


def held_one_at_a_time(table: str) -> bool:
    """Whether a person holds one row of table ``table`` at a time (by its name)."""
    words = [singular(w) for w in table.lower().split("_")]
    return words[-1] in HELD_ONE_AT_A_TIME or (words[-1] == "claim" and "benefit" in words)


def is_free_flag(name: str) -> bool:
    """Whether a column's name says its row is free to take (``vacant``, ``is_available``, ``availability``)."""
    words = set(name.lower().split("_"))
    return bool(words - {"is"}) and words <= _FREE_NAMES


def free_flag(table: TableSpec) -> str | None:
    """The column saying a row of ``table`` is free to take, if any."""
    return next((c.name for c in table.columns if c.type in ("boolean", "text") and is_free_flag(c.name)), None)


def says_free(value: Any) -> bool:
    """Whether a free flag's value says the thing is free."""
    if isinstance(value, bool | int):  # a boolean flag, as the seed writes it or SQLite reads it back
        return value == 1
    return isinstance(value, str) and value.strip().lower() in FREE_VALUES


def takes_one_thing(child: str, parent: TableSpec) -> bool:
    """Whether each live row of table ``child`` takes its ``parent`` row for one holder (by the child's
    name and the parent's free flag: a hold on a vehicle, a lease of a box, a rental of a unit)."""
    return taking_table(child) and free_flag(parent) is not None


def taking_table(name: str) -> bool:
    """Whether a table's name says its live rows take one thing each (a hold, a lease, a rental)."""
    return _last(name) in TAKING


def _status_word(value: Any) -> str:
    return value.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else ""


def held(value: Any) -> bool:
    """Whether a status says its person still holds the record."""
    return _status_word(value) in HELD


def called_off(value: Any) -> bool:
    """Whether a status says the act was called off or refused (its last word)."""
    return _status_word(value).split("_")[-1] in CALLED_OFF


def quantity_column(table: TableSpec) -> str | None:
    """The parent's integer column counting the things it is for, if any."""
    return next(
        (c.name for c in table.columns if c.type == "integer" and set(c.name.lower().split("_")) & QUANTITY_WORDS),
        None,
    )


@dataclass(frozen=True)
class OnceRule:
    """Live rows of ``child`` per ``parent`` row (through ``fk``): at most its ``quantity``, or one."""

    child: str
    fk: ForeignKey
    parent: str
    quantity: str | None
    statuses: tuple[str, ...]


@dataclass(frozen=True)
class HeldRule:
    """Rows of ``table`` in a held status per value of ``key`` (the person, then what else it names): one."""

    table: str
    key: tuple[str, ...]
    statuses: tuple[str, ...]


class OneOffRules:
    """Which tables of one spec the measure reads, computed once."""

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        users = user_table(spec)
        owned = {t for t, paths in owner_paths(spec, users).items() if paths} if users else set()
        tables = {t.name: t for t in spec.tables}
        self.once: list[OnceRule] = []
        self.held: list[HeldRule] = []
        self.taking: list[OnceRule] = []
        for table in spec.tables:
            statuses = tuple(c.name for c in status_columns(table))
            for fk in table.foreign_keys:
                parent = tables.get(fk.table)
                if parent is None or parent is table or parent.name == users or len(fk.columns) != 1:
                    continue
                if parent.name in owned and done_once(table.name, parent.name):
                    self.once.append(OnceRule(table.name, fk, parent.name, quantity_column(parent), statuses))
                elif statuses and takes_one_thing(table.name, parent):
                    self.taking.append(OnceRule(table.name, fk, parent.name, None, statuses))
            person = [fk.columns[0] for fk in table.foreign_keys if fk.table == users and len(fk.columns) == 1]
            if statuses and len(person) == 1 and held_one_at_a_time(table.name):
                others = [fk.columns[0] for fk in table.foreign_keys if fk.table != users and len(fk.columns) == 1]
                self.held.append(HeldRule(table.name, (person[0], *others), statuses))

    def beyond(self, rows: Mapping[str, list[dict[str, Any]]]) -> tuple[int, set[tuple[str, tuple[Any, ...]]]]:
        """(groups checked, groups beyond their room) in ``rows``: a group is (table, parent key) for an
        act done once, (table, person and what else the row names) for a record held one at a time."""
        checked = 0
        over: set[tuple[str, tuple[Any, ...]]] = set()
        for rule in self.once:
            live = _live(rule, rows)
            checked += len(live)
            over |= {(f"{rule.child}.{rule.fk.columns[0]}", (p,)) for p, (n, room) in live.items() if n > room}
        for trule in self.taking:
            takers = _takers(trule, rows)
            checked += len(takers)
            over |= {(f"{trule.child}.{trule.fk.columns[0]}", (p,)) for p, n in takers.items() if n > 1}
        for hrule in self.held:
            holding: Counter[tuple[Any, ...]] = Counter()
            for row in rows.get(hrule.table, []):
                key = tuple(row.get(c) for c in hrule.key)
                if key[0] is not None and any(held(row.get(s)) for s in hrule.statuses):
                    holding[key] += 1
            checked += len(holding)
            over |= {(hrule.table, key) for key, n in holding.items() if n > 1}
        return checked, over

    def new_excess(
        self, before: Mapping[str, list[dict[str, Any]]], after: Mapping[str, list[dict[str, Any]]]
    ) -> list[str]:
        """The groups beyond their room in ``after`` that were not in ``before`` (a write that files a
        second return of one purchase, or opens a second subscription), described."""
        _, was = self.beyond(before)
        _, now = self.beyond(after)
        return [f"{table} {', '.join(map(str, key))} recorded more than once" for table, key in sorted(now - was)]

    def full(self, child: str, column: str, rows: Mapping[str, list[dict[str, Any]]]) -> set[Any]:
        """Keys of the parents (through ``child.column``) whose room for ``child`` rows is taken: a
        purchase returned already."""
        return {
            parent
            for rule in self.once
            if rule.child == child and rule.fk.columns[0] == column
            for parent, (n, room) in _live(rule, rows).items()
            if n >= room
        }

    def read_tables(self, changed: Iterable[str]) -> set[str]:
        """The tables to read to judge a write that changed ``changed``: its counted tables and their parents."""
        out = set()
        for rule in self.once:
            if rule.child in changed:
                out |= {rule.child, rule.parent}
        out |= {r.table for r in self.held if r.table in changed}
        out |= {r.child for r in self.taking if r.child in changed}
        return out


def _live(rule: OnceRule, rows: Mapping[str, list[dict[str, Any]]]) -> dict[Any, tuple[int, int]]:
    """Parent key -> (its live ``rule.child`` rows, its room) for each parent with a live child."""
    by_key = {r.get(rule.fk.references[0]): r for r in rows.get(rule.parent, [])}
    live: Counter[Any] = Counter()
    for row in rows.get(rule.child, []):
        parent = row.get(rule.fk.columns[0])
        if parent in by_key and not any(called_off(row.get(s)) for s in rule.statuses):
            live[parent] += 1
    out = {}
    for parent, n in live.items():
        room = by_key[parent].get(rule.quantity) if rule.quantity else None
        out[parent] = (n, room if isinstance(room, int) and not isinstance(room, bool) and room > 0 else 1)
    return out


def _takers(rule: OnceRule, rows: Mapping[str, list[dict[str, Any]]]) -> Counter[Any]:
    """Parent key -> its live ``rule.child`` rows, for a table whose live rows take their parent."""
    return Counter(
        row.get(rule.fk.columns[0])
        for row in rows.get(rule.child, [])
        if row.get(rule.fk.columns[0]) is not None and any(held(row.get(s)) for s in rule.statuses)
    )


@dataclass
class OneOffCounts:
    """Groups of one thing's acts or of one person's held records, and those beyond their room."""

    one_off_groups_checked: int = 0
    one_off_recorded_many_times: int = 0


def recorded_many_times(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> OneOffCounts:
    """Measure 45 over ``rows`` (table -> rows; the seed by default)."""
    checked, over = OneOffRules(spec).beyond(spec.seed if rows is None else rows)
    return OneOffCounts(one_off_groups_checked=checked, one_off_recorded_many_times=len(over))
