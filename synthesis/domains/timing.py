"""Status/date timing of a lifecycle, derived from the domain alone.

A lifecycle's *event field* is the date its ``future`` / ``past`` guards test most (``field:x`` or
``via:ref.x``). Its states split into *before* (the event is ahead: the initial state and the states
a ``future`` guard acts from) and *after* (it has happened: targets of ``past`` guards, states
reached only from after-states, states named for the event, such as completed or no_show).
:func:`timing` derives the split; states that fit neither (cancelled, paused ...) take any date.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.seed import event_column, status_columns, status_phase
from envs.quality.seed_time import names_past_event

from .domain import Domain, Entity, Guard, Transition
from .timeline import ANCHORED, PLACED, RecordDates, settle_record_dates

# -- status/date timing -----------------------------------------------------------------------------

#: State names that say the lifecycle's event has happened.
HAPPENED = frozenset(
    {
        "completed",
        "complete",
        "done",
        "delivered",
        "flown",
        "travelled",
        "traveled",
        "returned",
        "closed",
        "attended",
        "fulfilled",
        "picked_up",
        "collected",
        "resolved",
        "expired",
        "lapsed",
        "no_show",
        "missed",
        "failed_to_appear",
        "used",
        "redeemed",
        "boarded",
        "departed",
        "arrived",
        "checked_out",
        "served",
        "performed",
        "ended",
        "finished",
        "vaccinated",
        "watched",
        "worked",
        "seated",
        "aired",
        "installed",
        "discharged",
        "passed",
        "failed",
        "scored",
        "resulted",
        "matured",
        "taken",
        "redelivered",
    }
)


#: Words of a date column that is a deadline, not an event: a deal closed before it (a returned
#: loan, a collected order) may be early, so only :data:`LAPSED` names mean its date has passed.
DEADLINE_WORDS = frozenset(
    {"by", "until", "deadline", "expires", "expiry", "expiration", "due", "valid", "through", "end", "ends"}
)
LAPSED = frozenset({"expired", "lapsed", "no_show", "missed", "failed_to_appear", "forfeited", "overdue", "past_due"})


@dataclass(frozen=True)
class Timing:
    """How a lifecycle's states relate to its event date.

    ``field`` is ``field:x`` or ``via:ref.x``. Rows in ``before`` states have the date after the
    clock, rows in ``after`` states at or before it (the invariant allows ``after_hours`` of slack:
    a ``past`` guard with hours lets a customer act that long before the date). ``due`` states
    would be before-states but a customer action needs the date passed (checking in on the arrival
    day): their dates are ahead or earlier on the clock's day. ``windows`` are the positive hours of
    the guards on the field, so seeds can put some dates inside them.
    """

    entity: str
    field: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    after_hours: int
    windows: tuple[int, ...]
    due: tuple[str, ...] = ()

    @property
    def ref_name(self) -> str | None:
        return self.field[4:].split(".", 1)[0] if self.field.startswith("via:") else None

    @property
    def column(self) -> str:
        return self.field.split(".", 1)[1] if self.field.startswith("via:") else self.field[6:]

    def state_class(self, state: Any) -> str:
        """'before', 'after', 'due' or 'any' (the state says nothing about the date)."""
        if state in self.before:
            return "before"
        return "after" if state in self.after else "due" if state in self.due else "any"


def date_source(domain: Domain, entity: Entity, field: str | None) -> tuple[Entity, str] | None:
    """The (entity, column) a ``field:x`` / ``via:ref.x`` source reads, if it is a date or datetime."""
    if not field:
        return None
    if field.startswith("field:"):
        holder, col = entity, field[6:]
    elif field.startswith("via:") and "." in field:
        ref_name, _, col = field[4:].partition(".")
        ref = entity.reference(ref_name)
        if ref is None or ref.entity == entity.name:
            return None
        holder = domain.entity(ref.entity)
    else:
        return None
    attr = holder.attribute(col)
    return (holder, col) if attr is not None and attr.kind in ("date", "datetime") else None


def guards_on(t: Transition, kind: str, field: str) -> list[Guard]:
    return [g for g in t.guards if g.kind == kind and g.field == field]


def timing(domain: Domain, entity: Entity) -> Timing | None:
    """The event field of ``entity``'s lifecycle and its before / after states, if it has one.

    The event field is the date the lifecycle's ``future`` / ``past`` guards test most (first on a
    tie). *Before*: the initial state (when some ``future`` guard tests the field) and the states a
    ``future`` guard acts from; those a customer action leaves only once the date has passed (a
    ``past`` guard without hours, e.g. checking in on the arrival day) are *due* instead, so their
    rows can pass it. *After*: targets of ``past``-guarded moves, states named for the event
    (:data:`HAPPENED`, or only :data:`LAPSED` for a deadline) and states reached only from
    after-states; never a before- or due-state, a
    state a ``future``-guarded move enters or a customer ``future`` guard acts from, nor one a
    customer action enters from elsewhere with no ``past`` guard (returning a book early). Staff
    and system moves count: they say what a state means even though they are not tools.
    """
    lc = entity.lifecycle
    if lc is None:
        return None
    used = Counter(
        g.field for t in lc.transitions for g in t.guards if g.kind in ("future", "past", "within") and g.field
    )
    field = next((f for f, _ in used.most_common() if date_source(domain, entity, f)), None)
    if field is None:
        return None
    moves = [t for t in lc.transitions if t.to not in t.from_states]
    before: set[str] = set()
    if any(guards_on(t, "future", field) for t in lc.transitions):
        before.add(lc.initial)
    for t in lc.transitions:
        if guards_on(t, "future", field):
            before |= set(t.from_states)
    due: set[str] = set()
    for t in lc.transitions:  # a customer action that needs the date passed outright must be possible
        if t.actor == "customer" and any(g.hours == 0 for g in guards_on(t, "past", field)):
            due |= before & set(t.from_states)
    before -= due
    base = {t.to for t in moves if guards_on(t, "past", field)}
    # a window since the event ("within 30 days of delivery") acts on records whose event has happened
    within_from = {s for t in lc.transitions if guards_on(t, "within", field) for s in t.from_states}
    base |= within_from
    deadline = bool(set(field.rsplit(".", 1)[-1].removeprefix("field:").split("_")) & DEADLINE_WORDS)
    base |= {s for s in lc.states if s in (LAPSED if deadline else HAPPENED | LAPSED)}
    customer_future_from = {
        s for t in lc.transitions if t.actor == "customer" and guards_on(t, "future", field) for s in t.from_states
    }
    after: set[str] = set()
    for _ in range(len(lc.states) + 1):
        incoming = {s: [t for t in moves if t.to == s] for s in lc.states}
        grown = set(base) | {s for s, ins in incoming.items() if ins and all(set(t.from_states) <= after for t in ins)}
        grown = {
            s
            for s in grown
            if (s != lc.initial or s in within_from)
            and s not in before | due
            and s not in customer_future_from
            and not any(guards_on(t, "future", field) for t in incoming[s])
            and not any(
                t.actor == "customer" and not guards_on(t, "past", field) and not set(t.from_states) <= after
                for t in incoming[s]
            )
        }
        if grown == after:
            break
        after = grown
    after_hours = max(
        (g.hours for t in moves if t.to in after and t.actor == "customer" for g in guards_on(t, "past", field)),
        default=0,
    )
    guards = [g for t in lc.transitions for g in t.guards] + (entity.create.guards if entity.create else [])
    guards += [x.when for t in lc.transitions for x in t.effects if x.when is not None]  # fee windows too
    windows = sorted({g.hours for g in guards if g.kind in ("future", "past") and g.field == field and g.hours > 0})
    return Timing(
        entity.name,
        field,
        tuple(s for s in lc.states if s in before),
        tuple(s for s in lc.states if s in after),
        after_hours,
        tuple(windows),
        tuple(s for s in lc.states if s in due),
    )


#: Which dates of a seed row a lifecycle times: (table, row) -> columns.
Anchors = Callable[[str, dict[str, Any]], frozenset[str]]


def anchored_dates(domain: Domain) -> Anchors:
    """The dates of a row that lifecycles time, so seed fixes move other dates around them: a row's
    own event field when its state says which side of the clock the date is on, and a parent's date
    that children's lifecycles read (a flight's departure), always."""
    read: dict[str, set[str]] = {}
    own: dict[str, tuple[Timing, str]] = {}
    for e in domain.entities:
        tm = timing(domain, e)
        if tm is None or e.lifecycle is None:
            continue
        if tm.ref_name:
            ref = e.reference(tm.ref_name)
            assert ref is not None
            read.setdefault(domain.entity(ref.entity).table, set()).add(tm.column)
        else:
            own[e.table] = (tm, e.lifecycle.field)

    def anchors(table: str, row: dict[str, Any]) -> frozenset[str]:
        cols = set(read.get(table, ()))
        if table in own and own[table][0].state_class(row.get(own[table][1])) != "any":
            cols.add(own[table][0].column)
        return frozenset(cols)

    return anchors


def settle_named_dates(
    spec: EnvSpec,
    allows: Callable[[str, dict[str, Any], Any], bool] | None = None,
    anchored: Anchors | None = None,
) -> int:
    """Give rows whose status *names* its event as past or ahead (``completed``, ``scheduled`` — the
    vocabulary of the quality report) an own event date on that side of the clock, for lifecycles
    the guards say nothing about. A date named for a past event (``visited_at``) is never moved
    ahead (the status gives way), and a moved date takes the row's other dates along: its pair
    partner moves unless ``anchored`` (:func:`anchored_dates`) holds it, in which case the moved date
    stays on its side of it. Returns the number of dates moved (deterministic)."""
    rng = random.Random(f"dates:{spec.id}")
    allows = allows or (lambda *_: True)
    anchored = anchored or (lambda *_: frozenset())
    today = spec.clock.strftime("%Y-%m-%d")
    moved = 0
    for table in spec.tables:
        statuses = status_columns(table)
        where = event_column(spec, table) if statuses else None
        if where is None:
            continue
        via, col = where[0], where[1].name
        parents = {}
        if via is not None:
            parent_table = next(t for t in spec.tables if t.name == via.table)
            key = parent_table.primary_key[0]
            parents = {r[key]: r for r in spec.seed.get(via.table, [])}
        columns = ((c.name, c.type, c.nullable) for c in table.columns)
        plan = RecordDates.of(columns, statuses=[s.name for s in statuses])
        for row in spec.seed.get(table.name, []):
            phases = {status_phase(row.get(s.name), col) for s in statuses} - {None}
            source = row if via is None else parents.get(row.get(via.columns[0]), {})
            value = source.get(col)
            if len(phases) != 1 or not isinstance(value, str):
                continue
            late = phases == {"after"} and value[:10] > today
            early = phases == {"before"} and value[:10] < today
            if (late or early) and (via is not None or (early and names_past_event(col))):
                # a parent's date is shared by its other children, and a past event stays past:
                # the row's status gives way
                moved += _restate(row, statuses, "before" if late else "after", partial(allows, table.name, row))
            elif late or early:
                shift = timedelta(days=rng.randint(1, 45) * (-1 if late else 1))
                day = (spec.clock + shift).strftime("%Y-%m-%d")
                row[col] = day + value[10:]
                rank = {name: PLACED for name in plan.kinds} | dict.fromkeys(anchored(table.name, row), ANCHORED)
                settle_record_dates(row, plan, rank | {col: PLACED}, spec.clock, rng)
                moved += 1
    return moved


def _restate(row: dict[str, Any], statuses: list[Any], phase: str, allowed: Callable[[Any], bool]) -> int:
    """Move a row to an allowed state of ``phase`` (else one that names no phase); 1 if it moved."""
    for column in statuses:
        states = [v for v in column.enum or [] if allowed(v)]
        pick = next((v for v in states if status_phase(v) == phase), None)
        pick = pick or next((v for v in states if status_phase(v) is None), None)
        if pick is not None and row.get(column.name) != pick:
            row[column.name] = pick
            return 1
    return 0
