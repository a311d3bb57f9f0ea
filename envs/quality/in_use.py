"""Records in use before they begin, and follow-ups too soon after they do (measure 112,
docs/synthesis.md): a solar share starting next week already `active` with generation credited, a
storage unit given notice the day after moving in, a library loan renewed the morning it was borrowed.

Read by column names, status words and the tools' SQL alone, so the measure runs on any catalog; the
seed generator keeps the rule (``synthesis.domains.in_use``). A table's start is its first date column
named for a beginning (:data:`START`: start, begins, effective, since, borrowed, move in). A row is in
use when its status says so (:data:`IN_USE`: checked out, occupied, generating; not `active`, which a
travel policy is before its trip), when a number of its own says it was used (classes used) or when
a table recording use points at it (:data:`USE_WORDS`: credits with `kwh_generated`, readings); such a
row has begun on or before the clock's day. A row a follow-up tool may act on (:data:`FOLLOW_UP`: a renewal, a notice,
a move-out; the states its SQL requires the row in), a row in a state such a tool moves it to (a
move-out scheduled), and a row recording a renewal (a day named for
it, a count of them above 0), has begun at least :data:`FOLLOW_UP_DAYS` before the clock, and a
renewal or notice day lies that long after the start. Extending is not read: a stay extended after
one night, a parking spot kept a day longer, are everyday.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..formats.spec import ColumnSpec, EnvSpec, TableSpec
from .horizons import day
from .own_row import status_of
from .text import word_set
from .tool_sql import bound_tables, required_statuses, status_moves

#: Name words of a column holding the day a record began (``move_in_date`` by its two words).
START = word_set("start starts started begins began commenced effective since borrowed loaned")
#: Statuses of a record being used: it has begun. Not `active`, which a policy or a travel notice
#: covering a trip next month already is.
IN_USE = word_set(
    """in_use generating checked_out occupied borrowed on_loan overdue overlocked renewed rented running
    ongoing"""
)
#: Name words of a table, or of a number column, recording use: generation credited, meter readings,
#: classes used. A row with such a number above 0, or pointed at by such a table, has been used.
USE_WORDS = word_set("generation generated kwh reading readings usage consumption consumed meter used")
#: Name words of a tool following up on a record begun: a renewal, a notice to leave.
FOLLOW_UP = word_set("renew renewal notice")
#: Name words of a column dating a follow-up, or counting renewals made.
FOLLOW_UP_DAYS_NAMED = word_set("renewed renewal notice")
#: How many days after its start a record is first renewed or given notice: a loan renewed the day it
#: was borrowed, a unit given notice the day after moving in, are not believed; a week in, they are.
FOLLOW_UP_DAYS = 7


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def start_column(table: TableSpec) -> str | None:
    """The column holding the day a row of ``table`` began, if one is named for it.

    >>> from envs.formats.spec import ColumnSpec
    >>> cols = [ColumnSpec(name="due_date", type="date"), ColumnSpec(name="move_in_date", type="date")]
    >>> start_column(TableSpec(name="unit_rentals", columns=cols, primary_key=["due_date"]))
    'move_in_date'
    """
    for col in table.columns:
        words = _words(col.name)
        if col.type in ("date", "datetime") and (words & START or {"move", "in"} <= words or {"moved", "in"} <= words):
            return col.name
    return None


_NUMBER = ("integer", "real")


def _numbers(table: TableSpec) -> list[ColumnSpec]:
    return [c for c in table.columns if c.type in _NUMBER]


def _follow_up_tool(name: str, table: str) -> bool:
    """Whether the tool ``name`` follows up on a row of ``table``: ``cancel_travel_notice`` names its
    record, not a notice given on it."""
    words = _words(name) - {w.removesuffix("s") for w in _words(table)}
    return bool(words & FOLLOW_UP) or {"move", "out"} <= words


@dataclass(frozen=True)
class Started:
    """What measure 112 reads of ``table``: its start column, the states a follow-up tool acts on
    (``follow_up_any``: any), the tables recording its use by their key to it, and the columns dating
    or counting its follow-ups."""

    table: str
    start: str
    follow_up_states: frozenset[str]
    follow_up_any: bool
    followed_states: frozenset[str]
    use_children: tuple[tuple[str, str], ...]
    use_counts: tuple[str, ...]
    follow_up_days: tuple[str, ...]
    follow_up_counts: tuple[str, ...]


def started_tables(spec: EnvSpec) -> list[Started]:
    """The tables with a start column, and what says their rows have begun or are followed up."""
    out = []
    for table in spec.tables:
        start = start_column(table)
        if start is None:
            continue
        states: set[str] = set()
        followed: set[str] = set()
        any_state = False
        for tool in spec.tools:
            if (
                tool.kind == "write"
                and _follow_up_tool(tool.name, table.name)
                and bound_tables(tool).get("rec") == table.name
            ):
                froms = required_statuses(tool)
                states |= froms
                followed |= {m.state for m in status_moves(tool) if m.table == table.name}
                any_state = any_state or not froms
        children = tuple(
            (other.name, fk.columns[0])
            for other in spec.tables
            if _words(other.name) & USE_WORDS or any(_words(c.name) & USE_WORDS for c in _numbers(other))
            for fk in other.foreign_keys
            if fk.table == table.name and len(fk.columns) == 1
        )
        use_counts = tuple(c.name for c in _numbers(table) if _words(c.name) & USE_WORDS)
        named = [c for c in table.columns if _words(c.name) & FOLLOW_UP_DAYS_NAMED]
        days = tuple(c.name for c in named if c.type in ("date", "datetime"))
        counts = tuple(c.name for c in named if c.type in _NUMBER)
        out.append(
            Started(
                table.name, start, frozenset(states), any_state, frozenset(followed), children, use_counts, days, counts
            )
        )
    return out


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def wrong_start(
    found: Started, row: Mapping[str, Any], table: TableSpec, used: set[Any], clock: datetime
) -> bool | None:
    """Whether ``row`` is in use before its start, or followed up too soon after it; None where not read
    (no start, or neither in use nor open to a follow-up). ``used``: the keys a use table points at."""
    start = day(row.get(found.start))
    if start is None:
        return None
    today = clock.replace(hour=0, minute=0, second=0, microsecond=0)
    status = status_of(row, table)
    in_use = (
        status in IN_USE
        or row.get(table.primary_key[0]) in used
        or any(_number(row.get(c)) > 0 for c in found.use_counts)
    )
    open_to = found.follow_up_any or status in found.follow_up_states
    settled = start + timedelta(days=FOLLOW_UP_DAYS)
    recorded = [d for c in found.follow_up_days if (d := day(row.get(c))) is not None]
    renewed = any(_number(row.get(c)) > 0 for c in found.follow_up_counts)
    followed = status in found.followed_states
    if not (in_use or open_to or followed or recorded or renewed):
        return None
    return (
        (in_use and start > today)
        or (open_to and start <= today < settled)
        or (followed and today < settled)
        or any(d < settled for d in recorded)
        or (renewed and today < settled)
    )


def in_use_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """(table, row, wrong) for every row read."""
    tables = {t.name: t for t in spec.tables}
    for found in started_tables(spec):
        used = {r.get(key) for child, key in found.use_children for r in rows.get(child, [])}
        for row in rows.get(found.table, []):
            wrong = wrong_start(found, row, tables[found.table], used, spec.clock)
            if wrong is not None:
                yield found.table, row, wrong


@dataclass
class InUseCounts:
    """Rows read against their start, and those in use before it or followed up too soon after it."""

    started_rows_checked: int = 0
    used_before_start: int = 0


def used_before_start(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> InUseCounts:
    """Measure 112 over ``rows`` (table -> rows; the seed by default) against ``spec.clock``."""
    out = InUseCounts()
    for *_, wrong in in_use_findings(spec, spec.seed if rows is None else rows):
        out.started_rows_checked += 1
        out.used_before_start += wrong
    return out
