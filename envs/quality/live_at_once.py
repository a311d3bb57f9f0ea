"""More records live at once than a person holds (measure 60, docs/synthesis.md): a hotel guest in
house in three rooms, a tenant with four leases running, three open repair tickets for one bike.

Measure 45 (:mod:`.one_off`) counts one thing recorded many times (two live subscriptions to one
package); this one counts what one person, or one thing, can be in or under at a time, whatever else
the rows name. Tables are picked by their names and statuses alone, so the measure runs on any
catalog; the seed generator keeps the rules (``synthesis.domains.one_off``, ``synthesis.domains.homes``):

* **In one place at a time.** A stay, reservation, booking, appointment or visit of the user table in
  a status that says the person is there now (:data:`PRESENT`: in house, checked in, in progress,
  seated): one per person.
* **One home at a time.** A lease or tenancy of the user table (a table named for nothing else:
  ``leases``, ``residential_leases``, not ``box_leases``) that runs now: in a held status
  (:data:`.one_off.HELD`), or, with no status, its end date not yet past: one per person.
* **One open job on a thing.** A ticket, repair or job on a thing a person brings in (:data:`THINGS`:
  a bicycle, a vehicle, a device) that is not done (:data:`DONE`) nor called off: one per thing.
* **No open job on a home left.** A ticket, repair or job on a lease with no status (one of the homes
  above) is not open once the lease's end date is past: a tenant who moved out has no leak still
  being fixed there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .one_off import called_off, held, singular
from .seed import status_columns
from .spec import user_table
from .text import word_set

#: Statuses saying the person is at the place now.
PRESENT = word_set("in_house checked_in in_progress seated parked occupied")
#: Last words of a table whose rows put a person somewhere for a while.
VISITS = word_set("stay reservation booking appointment visit")
#: Last words of a table of a home a person lives in, and the words that may stand before them.
HOMES = word_set("lease tenancy")
_HOME_WORDS = HOMES | word_set("residential apartment home housing")
#: Last words of a table of work done on a thing, and the things a person brings in for it.
JOBS = word_set("ticket repair job")
THINGS = word_set("bicycle bike vehicle car device appliance instrument boat phone laptop computer console watch")
#: Last words of a status of a job that is over.
DONE = word_set("collected completed closed resolved picked_up delivered returned done fixed finished")


def _words(name: str) -> list[str]:
    return [singular(w) for w in name.lower().split("_")]


def _status_word(value: Any) -> str:
    return value.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else ""


def present(value: Any) -> bool:
    """Whether a status says the person is at the place now."""
    return _status_word(value) in PRESENT


def job_open(value: Any) -> bool:
    """Whether a job's status says it is neither done nor called off."""
    word = _status_word(value)
    return bool(word) and word not in DONE and word.split("_")[-1] not in DONE and not called_off(word)


def end_columns(table: TableSpec) -> list[str]:
    """Date columns of ``table`` that end its term (``lease_end``, ``end_date``, ``ends_on``)."""
    return [
        c.name
        for c in table.columns
        if c.type in ("date", "datetime") and {"end", "ends", "expires"} & set(c.name.lower().split("_"))
    ]


@dataclass(frozen=True)
class LiveRule:
    """Rows of ``table`` live by ``live``, counted per value of ``key``: one at a time."""

    shape: str
    table: str
    key: str
    live: Callable[[Mapping[str, Any]], bool]


def _home_live(table: TableSpec, today: str) -> Callable[[Mapping[str, Any]], bool] | None:
    statuses = [c.name for c in status_columns(table)]
    if statuses:
        return lambda row: any(held(row.get(s)) for s in statuses)
    ends = end_columns(table)
    if not ends:
        return None
    return lambda row: (
        all(str(row.get(e) or "")[:10] >= today for e in ends if row.get(e) is not None)
        and any(row.get(e) is not None for e in ends)
    )


def live_rules(spec: EnvSpec, today: datetime | None = None) -> list[LiveRule]:
    """The rules of measure 60 that ``spec``'s tables fall under."""
    users = user_table(spec)
    if users is None:
        return []
    day = (today or spec.clock).strftime("%Y-%m-%d")
    tables = {t.name: t for t in spec.tables}
    out: list[LiveRule] = []
    for table in spec.tables:
        words = _words(table.name)
        statuses = [c.name for c in status_columns(table)]
        person = [fk.columns[0] for fk in table.foreign_keys if fk.table == users and len(fk.columns) == 1]
        if len(person) == 1 and words[-1] in VISITS and statuses:
            out.append(LiveRule("present", table.name, person[0], _any_status(statuses, present)))
        home = len(person) == 1 and words[-1] in HOMES and set(words) <= _HOME_WORDS
        if home and (live := _home_live(table, day)) is not None:
            out.append(LiveRule("home", table.name, person[0], live))
        if words[-1] in JOBS and statuses:
            for fk in table.foreign_keys:
                parent = tables.get(fk.table)
                if parent is None or fk.table == users or len(fk.columns) != 1:
                    continue
                if _words(parent.name)[-1] in THINGS:
                    out.append(LiveRule("job", table.name, fk.columns[0], _any_status(statuses, job_open)))
    return out


def _any_status(statuses: list[str], test: Callable[[Any], bool]) -> Callable[[Mapping[str, Any]], bool]:
    return lambda row: any(test(row.get(s)) for s in statuses)


def live_groups(rule: LiveRule, rows: Mapping[str, list[dict[str, Any]]]) -> Counter[Any]:
    """Key value -> its live rows under ``rule``."""
    return Counter(
        row.get(rule.key) for row in rows.get(rule.table, []) if row.get(rule.key) is not None and rule.live(row)
    )


def ended_homes(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> dict[str, tuple[str, set[Any]]]:
    """Status-less home table -> (its key column, the keys of its rows whose end date is past)."""
    today = spec.clock.strftime("%Y-%m-%d")
    out = {}
    for table in spec.tables:
        words = _words(table.name)
        if words[-1] not in HOMES or not set(words) <= _HOME_WORDS or status_columns(table):
            continue
        if not (ends := end_columns(table)) or len(table.primary_key) != 1:
            continue
        key = table.primary_key[0]
        past = {
            r.get(key)
            for r in rows.get(table.name, [])
            if any(str(r.get(e) or "")[:10] < today for e in ends if r.get(e) is not None)
        }
        out[table.name] = (key, past)
    return out


def jobs_on_ended_homes(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> tuple[int, int]:
    """(jobs on a status-less home, those still open on a home whose end date is past)."""
    homes = ended_homes(spec, rows)
    checked = over = 0
    for table in spec.tables:
        statuses = [c.name for c in status_columns(table)]
        if _words(table.name)[-1] not in JOBS or not statuses:
            continue
        for fk in table.foreign_keys:
            if fk.table not in homes or len(fk.columns) != 1:
                continue
            past = homes[fk.table][1]
            for row in rows.get(table.name, []):
                if row.get(fk.columns[0]) is not None:
                    checked += 1
                    over += row.get(fk.columns[0]) in past and any(job_open(row.get(s)) for s in statuses)
    return checked, over


@dataclass
class LiveCounts:
    """People or things with a live record of a kind, and those with more than one at once; jobs on a
    home, and those open after it ended."""

    live_groups_checked: int = 0
    live_beyond_one: int = 0
    home_jobs_checked: int = 0
    jobs_open_after_home_ended: int = 0


def live_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> list[tuple[str, Any, int]]:
    """(shape, key value, live rows) for every person or thing with a live record of a kind."""
    return [(rule.shape, key, n) for rule in live_rules(spec) for key, n in live_groups(rule, rows).items()]


def live_at_once(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> LiveCounts:
    """Measure 60 over ``rows`` (table -> rows; the seed by default)."""
    rows = spec.seed if rows is None else rows
    found = live_findings(spec, rows)
    jobs, open_after = jobs_on_ended_homes(spec, rows)
    return LiveCounts(len(found), sum(n > 1 for _, _, n in found), jobs, open_after)
