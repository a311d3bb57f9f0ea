"""What the writes of one task do to the rows they touch, write after write.

:class:`WriteHistory` is fed each write's changed rows (before and after) in order and says, for
each write, whether it

* **undoes** an earlier write of the task: it sets a column back to a value the row held earlier in
  the task (submitted → draft → submitted, a seat taken and given back), deletes a row the task
  inserted or re-inserts one it deleted, or moves a row an earlier write inserted or changed into a
  called-off status (book, then cancel the same booking), or calls off a row whose parent (a row it
  references) an earlier write moved on to a live status (reopen and escalate a repair ticket, then
  cancel its repair visit);
* **sets a field twice**: it sets a column of a row that an earlier write of the task set too (the
  phone changed to one number, then to another; a booking made for one date, then moved to
  another). A write *sets* a column when it gives it a value from its own arguments, or changes a
  text, date or JSON column other than the status; counters and balances (numbers a write adds to
  or takes from) and the status (a dependent move) change as often as the task needs;
* writes **filler**: a value from its arguments into a structured column (:mod:`.values`) that is
  no value of that column's kind ("Call me first" as a country);
* **amends a filed record**: it sets a field of a row from its arguments, leaving the row's status,
  after an earlier write of the task filed, submitted, closed or otherwise finalized that row
  (:data:`FINAL`): a certification submitted, then its hours worked changed. A person corrects a
  form before filing it;
* sets **implausible dates** (:mod:`.written_dates`): a next billing date in the past, an expiry on
  an application not yet granted;
* is **made pointless**: it extends a record the task itself just made (a date moved on by a fixed
  term, not to a day the user gives, by a write that moves no money and records no row: start a
  layaway, then extend its due date — the user would take the longer term at once; a month prepaid
  pays for its term and is no extension), or it ends the term of a record whose date an earlier
  write of the task extended (extend a layaway, then pay it off or pick it up: the extension did
  nothing). No customer asks both in one conversation.

The quality report feeds it the gold actions' replay; the task generator feeds it its chains as they
grow and keeps what it says out of its tasks. Rules: docs/synthesis.md ("Quality report").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..formats.spec import EnvSpec
from .seed import status_columns
from .text import word_set
from .values import column_kind, fits_kind
from .written_dates import WrittenDates

Row = dict[str, Any]
RowKey = tuple[str, tuple[Any, ...]]  # (table, primary key)

#: Status values that call a thing off or put it on hold (their last word, after lower-casing and
#: turning spaces and hyphens into ``_``: ``late_cancelled``, ``consent_revoked`` and ``on_hold``
#: count): registering and then pausing the new registration undoes what the task asked for.
CALLED_OFF = word_set(
    """cancelled canceled withdrawn void voided revoked rescinded retracted abandoned dropped removed
    deleted reversed refunded terminated discontinued declined rejected unenrolled unsubscribed
    deregistered surrendered paused suspended frozen deactivated hold disabled"""
)

#: Status values (their last word) that file or finalize a record: its content is settled once a
#: write moves it there, and a later edit of it amends what was filed.
FINAL = word_set(
    """submitted filed closed finalized final completed complete signed certified sealed locked archived
    published posted settled paid issued sent shipped delivered resolved"""
)


#: Status words that end what a record's term was for: paying it off, collecting it, returning it.
#: An extension of the term just before is pointless.
ENDS_TERM = word_set("paid settled collected picked returned completed closed ended redeemed fulfilled delivered moved")


def ends_term(value: object) -> bool:
    """Whether a status value says the record's term is over (paid off, picked up, returned ...)."""
    return isinstance(value, str) and bool(set(re.split(r"[\s_\-]+", value.strip().lower())) & ENDS_TERM)


def finalizes(value: object) -> bool:
    """Whether a status value says the record was filed or finalized (submitted, closed, paid ...)."""
    if not isinstance(value, str) or not value.strip():
        return False
    return re.split(r"[\s_\-]+", value.strip().lower())[-1] in FINAL


def called_off(value: object) -> bool:
    """Whether a status value says the thing was called off (cancelled, withdrawn, refunded ...)."""
    if not isinstance(value, str) or not value.strip():
        return False
    return re.split(r"[\s_\-]+", value.strip().lower())[-1] in CALLED_OFF


def argument_values(value: Any) -> Iterator[Any]:
    """Every string and number inside an argument value (lists and objects included; no booleans)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str | int | float):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from argument_values(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from argument_values(v)


@dataclass
class WriteVerdict:
    """What one write did wrong, each as a short description (empty lists: nothing)."""

    undoes: list[str] = field(default_factory=list)
    sets_twice: list[str] = field(default_factory=list)
    filler: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # fields set to the value they held (:mod:`.unchanged`)
    many_times: list[str] = field(default_factory=list)  # one thing recorded again (:mod:`.one_off`)
    amends_final: list[str] = field(default_factory=list)
    implausible_dates: list[str] = field(default_factory=list)
    made_pointless: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return (
            self.undoes
            + self.sets_twice
            + self.filler
            + self.unchanged
            + self.many_times
            + self.amends_final
            + self.implausible_dates
            + self.made_pointless
        )

    @property
    def clean(self) -> bool:
        return not self.problems


class WriteHistory:
    """The versions of every row a task's writes changed, and which columns they set from arguments."""

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self._status = {t.name: {c.name for c in status_columns(t)} for t in spec.tables}
        self._keys = {t.name: set(t.primary_key) for t in spec.tables}
        self._kinds = {t.name: {c.name: k for c in t.columns if (k := column_kind(t, c))} for t in spec.tables}
        numeric = ("integer", "real", "boolean")
        self._numeric = {t.name: {c.name for c in t.columns if c.type in numeric} for t in spec.tables}
        self._json = {t.name: {c.name for c in t.columns if c.type == "json"} for t in spec.tables}
        self._real = {t.name: {c.name for c in t.columns if c.type == "real"} for t in spec.tables}
        self._versions: dict[RowKey, list[Row | None]] = {}
        self._set: set[tuple[RowKey, str]] = set()  # (row, column) set from a write's arguments
        self._touched: set[RowKey] = set()  # rows inserted or changed by earlier writes
        self._moved_on: set[RowKey] = set()  # rows an earlier write moved to a status that is not called off
        self._finalized: set[RowKey] = set()  # rows an earlier write filed, submitted or closed
        self._inserted: set[RowKey] = set()  # rows an earlier write of the task made
        self._extended: set[RowKey] = set()  # rows whose date an earlier write moved on by a fixed term
        self.dates = WrittenDates(spec)
        self._parents = {
            t.name: [(fk.columns, fk.table) for fk in t.foreign_keys if len(fk.columns) == 1] for t in spec.tables
        }

    def copy(self) -> WriteHistory:
        """An independent history with the same past (to try a write without recording it)."""
        other = WriteHistory.__new__(WriteHistory)
        other.spec, other._status, other._keys, other._kinds = self.spec, self._status, self._keys, self._kinds
        other._numeric, other._json, other._real = self._numeric, self._json, self._real
        other._versions = {k: list(v) for k, v in self._versions.items()}
        other._set, other._touched = set(self._set), set(self._touched)
        other._moved_on, other._parents = set(self._moved_on), self._parents
        other._finalized, other.dates = set(self._finalized), self.dates
        other._inserted, other._extended = set(self._inserted), set(self._extended)
        return other

    def record(
        self, arguments: Mapping[str, Any], changes: Mapping[RowKey, tuple[Row | None, Row | None]]
    ) -> WriteVerdict:
        """Add one write: ``changes`` maps each row it touched to (before, after), None for no row."""
        given = list(argument_values(dict(arguments)))
        verdict = WriteVerdict()
        newly_set: set[tuple[RowKey, str]] = set()
        newly_moved: set[RowKey] = set()
        newly_final: set[RowKey] = set()
        newly_extended: set[RowKey] = set()
        # a write that moves money or records a row pays for its term (a month prepaid, an
        # installment): no extension
        pays = any(
            old is None or any(old.get(c) != new.get(c) for c in self._real.get(key[0], ()))
            for key, (old, new) in changes.items()
            if new is not None and old != new
        )
        for key, (old, new) in sorted(changes.items(), key=lambda kv: repr(kv[0])):
            table = key[0]
            before, after = self._parsed(table, old), self._parsed(table, new)
            if before == after:
                continue
            versions = self._versions.setdefault(key, [before])
            earlier = versions[:-1]
            where = f"{table} {'/'.join(map(str, key[1]))}"
            verdict.implausible_dates += self.dates.find(table, key[1], before, after, lambda v: _given(v, given))
            statuses = self._status.get(table, ())
            if after is not None and any(
                finalizes(after.get(c)) and (before is None or before.get(c) != after.get(c)) for c in statuses
            ):
                newly_final.add(key)
            keeps_status = (
                before is not None and after is not None and all(before.get(c) == after.get(c) for c in statuses)
            )
            today = self.spec.clock.date().isoformat()
            if keeps_status and not pays and (extended := _extended_dates(before, after, given, today)):  # type: ignore[arg-type]
                newly_extended.add(key)
                if key in self._inserted:
                    verdict.made_pointless.append(f"{where}: {extended[0]} is extended right after this task made it")
            elif (
                before is not None
                and after is not None
                and key in self._extended
                and any(ends_term(after.get(c)) and after.get(c) != before.get(c) for c in statuses)
            ):
                verdict.made_pointless.append(f"{where} is {_status(after, statuses)} after this task extended it")
            if after is None:
                if None in earlier:
                    verdict.undoes.append(f"{where} is deleted after this task inserted it")
            elif before is None:
                if any(v is not None for v in earlier):
                    verdict.undoes.append(f"{where} is inserted again after this task deleted it")
            else:
                for col, value in after.items():
                    if value != before.get(col) and any(v is not None and v.get(col) == value for v in earlier):
                        verdict.undoes.append(f"{where}: {col} is set back to {value!r}")
                for col in self._status.get(table, ()):
                    if after.get(col) == before.get(col):
                        continue
                    if called_off(after.get(col)) and key in self._touched:
                        verdict.undoes.append(f"{where}: {after[col]!r} calls off what this task did to it")
                    elif called_off(after.get(col)) and (parent := self._moved_on_parent(table, after)):
                        verdict.undoes.append(f"{where}: {after[col]!r} calls off a part of {parent} it moved on")
                    elif not called_off(after.get(col)):
                        newly_moved.add(key)
            if after is not None:
                for col, value in after.items():
                    if col in self._keys.get(table, ()) or (before is not None and before.get(col) == value):
                        continue
                    given_here = _given(value, given)
                    # text and dates changed by a write are set by it; numbers and JSON only from arguments
                    plain = col not in self._numeric.get(table, ()) and col not in self._json.get(table, ())
                    changed_text = before is not None and plain
                    if given_here or (changed_text and col not in self._status.get(table, ())):
                        if (key, col) in self._set:
                            verdict.sets_twice.append(f"{where}: {col} is set again, to {value!r}")
                        newly_set.add((key, col))
                    if given_here and keeps_status and key in self._finalized and col not in statuses:
                        verdict.amends_final.append(f"{where}: {col} is changed to {value!r} after it was filed")
                    kind = self._kinds.get(table, {}).get(col)
                    if given_here and kind is not None and not fits_kind(kind, value):
                        verdict.filler.append(f"{where}: {value!r} is no {kind} for {col}")
            versions.append(after)
        self._set |= newly_set
        self._moved_on |= newly_moved
        self._finalized |= newly_final
        self._extended |= newly_extended
        self._inserted |= {k for k, (b, a) in changes.items() if b is None and a is not None}
        self._touched |= {k for k, (b, a) in changes.items() if a is not None and a != b}
        return verdict

    def _moved_on_parent(self, table: str, row: Row) -> str | None:
        """A row ``row`` references that an earlier write of the task moved on, as "table key"."""
        for (column,), parent in self._parents.get(table, []):
            if (parent, (row.get(column),)) in self._moved_on:
                return f"{parent} {row.get(column)}"
        return None

    def _parsed(self, table: str, row: Row | None) -> Row | None:
        """``row`` with its JSON columns parsed, so the same object written twice compares equal."""
        if row is None or not self._json.get(table):
            return row
        out = dict(row)
        for col in self._json[table]:
            if isinstance(out.get(col), str):
                try:
                    out[col] = json.loads(out[col])
                except ValueError:
                    pass
        return out


_ISO_DAY = re.compile(r"\d{4}-\d\d-\d\d")


def _status(row: Row, statuses: Any) -> str:
    return " ".join(str(row.get(c)) for c in statuses)


def _extended_dates(before: Row, after: Row, given: list[Any], today: str) -> list[str]:
    """The date columns a write moved later, past ``today``, by a term of its own, not to a day its
    arguments give (an extension, not a reschedule nor a last-paid day set to today)."""
    return [
        col
        for col, value in after.items()
        if isinstance(value, str)
        and isinstance(old := before.get(col), str)
        and _ISO_DAY.match(value)
        and _ISO_DAY.match(old)
        and value > old
        and value[:10] > today
        and not _given(value, given)
    ]


def _given(value: Any, given: list[Any]) -> bool:
    """Whether a column value comes from the arguments: equal to one, or (a JSON object or list)
    made of them (an address from its fields)."""
    if isinstance(value, dict | list):
        inside = list(argument_values(value))
        return bool(inside) and all(any(_same(v, g) for g in given) for v in inside)
    return any(_same(value, g) for g in given)


def _same(value: Any, given: Any) -> bool:
    """Whether a column value is an argument's value (numbers by value, text exactly)."""
    if isinstance(value, bool) or isinstance(given, bool):
        return False
    if isinstance(value, int | float) and isinstance(given, int | float):
        return float(value) == float(given)
    return isinstance(value, str) and isinstance(given, str) and value == given
