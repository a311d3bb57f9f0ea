"""Records the user names by a criterion instead of a value: the agent must compare to find them.

"Cancel my booked reservation with the earliest check-in date", "a seat for the economy flight with
the lowest price": what the user says fits several records, and only comparing them on the named
attribute gives the one meant. A criterion is used only where it has exactly one answer (no tie, at
least two records fit) and that answer is a record the policy lets the action use; the gold calls
include the listing or search that shows every record that fits, so an agent can compare them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any, NamedTuple

from envs.quality.asked import ended_state
from envs.quality.everyday_ranks import EARLIEST, Rank, everyday_rank, names_a_record, next_rank, unmistakable_rank
from envs.quality.spoken import spoken_when
from envs.quality.text import superlative

from ..domains.domain import Attribute, Entity, plural
from ..domains.sqlgen import pk
from ..tools.toolkit import ToolMeta
from .amounts import proportionate_inputs
from .chain import Chain
from .consent import ConsentGoals

#: Attribute kinds a criterion compares.
ORDERED = frozenset({"money", "quantity", "integer", "percent", "rating", "date", "datetime"})
#: Of the writes on a record the user owns, or on a public record a new one is for, how many name it
#: by a criterion the agent must work out ("my open fine with the highest amount") where one applies.
CRITERION_SHARE = 0.45
#: Kinds of attribute that name a record a person picks (a tutor by name, a course by title).
_LABELS = frozenset({"person_name", "title", "company", "name"})
#: The most records a search shows at once (its ``limit``): a criterion over more is not checkable.
SEARCH_LIMIT = 50
Row = dict[str, Any]


class TotalQuestion(NamedTuple):
    """The user's question about a sum: whose, which records, which money column, the total, and the
    other totals the same listing gives (the answer must not state them)."""

    user_id: str
    which: str
    attr: str
    total: float
    distractors: list[str]


def _sum(rows: list[Row], column: str) -> float | None:
    values = [r.get(column) for r in rows]
    if any(not isinstance(v, int | float) or isinstance(v, bool) for v in values):
        return None
    return round(sum(values), 2)  # type: ignore[arg-type]


def extreme(entity: Entity, rows: list[Row], rng: random.Random, *, own: bool = False) -> tuple[Row, Rank] | None:
    """The first of :func:`extremes`, or None."""
    return next(extremes(entity, rows, rng, own=own), None)


def extremes(entity: Entity, rows: list[Row], rng: random.Random, *, own: bool = False) -> Iterator[tuple[Row, Rank]]:
    """Each row of ``rows`` with the smallest or largest value of some ordered attribute, and how
    a person says it ("the cheapest plan", "my booking with the most nights"); none where every
    such attribute ties at both ends. Only the attributes a person names a record by
    (:func:`names_a_record`): of the user's ``own`` records what their owner knows of them (a date of
    their own event or term, what they cost, a count they chose), never an amount the system keeps
    ("the highest current balance") or a date only it acts on ("the earliest disconnect date"); of
    anyone's, when it is, what it costs or its size, never another party's capacity ("the caregiver
    with the fewest open hours"). Every such row and rank, in a random order of attributes."""
    ordered = [a for a in entity.attributes if a.kind in ORDERED]
    attrs = [a for a in ordered if names_a_record(a.name, a.kind, own)]
    rng.shuffle(attrs)
    for a in attrs:
        values = [r.get(a.name) for r in rows]
        if any(v is None for v in values):
            continue
        for largest in rng.sample([False, True], 2):
            best = max(values) if largest else min(values)  # type: ignore[type-var]
            if values.count(best) == 1:
                yield rows[values.index(best)], _rank(a, largest, ordered)


def unique_label(entity: Entity, row: Row, listed: list[Row]) -> str | None:
    """The first name of ``row`` (a title, a person's or company's name) no other of ``listed`` shares:
    "the knee scooter equipment model KneeRover" says which one, as "the cheapest" does not to a
    person who has not compared them."""
    labels = [a.name for a in entity.attributes if a.kind in _LABELS]
    said = [a for a in labels if row.get(a) is not None]
    return next((a for a in said if [str(r.get(a)) for r in listed].count(str(row[a])) == 1), None)


def own_rank_phrase(entity: Entity, rank: Rank, rows: list[Row], today: date) -> str:
    """How the owner of ``entity``'s record says ``rank`` of it among their ``rows``: "my next lesson"
    for the earliest where every one is still ahead of ``today`` ("my earliest lesson" says nothing a
    person would), else the rank's own words ("my most recent order", "my most expensive rental").
    A rank keeps the comparison the agent must make (measure 23); measure 111 counts the requests
    where a name of the record's own would have told it apart."""
    dated = [a.name for a in entity.attributes if a.kind in ("date", "datetime")]
    happens = (c for c in dated if rank.marker == EARLIEST and everyday_rank(c, True, False) == rank)
    when = next(happens, None)  # when the thing itself happens: a lesson, a drive, not a due date
    if not rank.is_recency and when is not None and all(str(r.get(when))[:10] > today.isoformat() for r in rows):
        return next_rank().name(entity.human, "my")
    return rank.name(entity.human, "my")


def _names_a_kind(parent: Entity, search_filter: str) -> bool:
    """Whether a search's filter says what kind of record it lists ("economy flight"): no limit, no
    date range, and no status, which said before the noun reads as the system's word ("the up for
    swap shift with the fewest hours")."""
    if search_filter == "limit" or search_filter.endswith(("_from", "_to")):
        return False
    status = parent.lifecycle.field if parent.lifecycle else None
    return search_filter != status and search_filter.split("_")[-1] not in ("status", "state")


def _rank(a: Attribute, largest: bool, ordered: list[Attribute]) -> Rank:
    """How the user ranks by ``a``: in everyday words where they say which column without naming it
    ("the cheapest plan", "the order that expires first"), else by the column ("the plan with the
    most seats left")."""
    dated = a.kind in ("date", "datetime")
    others = [(o.name, o.kind in ("date", "datetime")) for o in ordered]
    everyday = unmistakable_rank(a.name, dated, largest, others)
    if everyday is not None:
        return everyday
    said = superlative(a.name, dated, largest)
    return Rank(f"the {{noun}} with the {said}", said)


class CriterionGoals(ConsentGoals):
    """Targets chosen by a criterion (mixed into the task generator)."""

    def owned_now(self, e: Entity, user_id: str, chain: Chain | None) -> list[Row]:
        """The user's records of ``e`` as they are now in the chain's episode (the seed's without one):
        a criterion compares what the agent will see."""
        if chain is None or chain.episode is None:
            return self.owned(e, user_id)
        return [r for r in chain.episode.dump(e.table) if self.oracle.owner_of(e, r) == user_id]

    def criterion_target(
        self, m: ToolMeta, user_id: str, chain: Chain | None = None
    ) -> tuple[Row, dict[str, Any], str] | None:
        """(row, extra arguments, phrase): the user's record a transition is asked for by a criterion
        among all their records, when the one it picks is one the policy allows; the phrase is the rank
        as its owner says it (:func:`own_rank_phrase`)."""
        e, _ = self._transition(m)
        allowed = {r[pk(e)]: (r, extra) for r, extra in self.candidates(m, user_id)}
        # among all the user's records: a rank among those in one state says the state before the
        # noun ("my open freight quote that expires last"), which no one says of their own records
        rows = self.owned_now(e, user_id, chain)
        for row, rank in extremes(e, rows, self.rng, own=True) if len(rows) >= 2 else ():
            if row[pk(e)] in allowed:  # another rank where this one picks a record the policy refuses
                return row, allowed[row[pk(e)]][1], own_rank_phrase(e, rank, rows, self.spec.clock.date())
        self.rejections["no_criterion"] += 1
        return None

    def public_by_criterion(
        self, chain: Chain, m: ToolMeta, parent: Entity, column: str, args: dict[str, Any], given: dict[str, Any]
    ) -> tuple[Row, str] | None:
        """A record that is nobody's (a flight, a slot) the new record is for, asked for by a criterion
        among those sharing a searchable value ("the economy flight with the lowest price"): the
        search that lists them joins the chain. None where no search, no unique answer, or the
        create is refused for the answer."""
        search = next((x for x in self.meta.values() if x.role == "search" and x.entity == parent.name), None)
        if search is None or chain.episode is None:
            return None
        spec = self.env.spec.tool(search.tool)
        assert spec is not None
        if self.rng.random() < 0.5 and (after := self._after_a_date(chain, m, parent, column, args, given, search)):
            return after
        filters = [f for f in spec.parameters.get("properties", {}) if _names_a_kind(parent, f)]
        self.rng.shuffle(filters)
        rows = chain.episode.dump(parent.table)
        for f in filters:
            values = sorted({str(r[f]) for r in rows if r.get(f) is not None})
            self.rng.shuffle(values)
            for value in values[:3]:
                fitting = [r for r in rows if str(r.get(f)) == value]
                found = extreme(parent, fitting, self.rng) if 2 <= len(fitting) <= SEARCH_LIMIT else None
                if found is None:
                    continue
                row, rank = found
                tried = {**args, column: row[pk(parent)]}
                fitted = proportionate_inputs(self.spec, chain, self.domain.entity(m.entity).table, tried, given)
                if chain.on_copy(self.env, m.tool, {**tried, **fitted}) is not None:
                    continue  # the policy does not let the new record use it
                chain.call(search.tool, **{f: value, "limit": SEARCH_LIMIT})
                # a shopper picks among what the search lists by price or size ("the cheapest 10x20
                # unit"): the comparison is the agent's to make, as tau2's "the cheapest flight"
                return row, rank.name(f"{value.replace('_', ' ')} {parent.human}")
        return None

    def public_by_label(
        self, chain: Chain, m: ToolMeta, parent: Entity, column: str, args: dict[str, Any], given: dict[str, Any]
    ) -> tuple[Row, str] | None:
        """A record that is nobody's named by what it is and its name, among those a search lists ("the
        dermatology clinician Ana Ruiz"), where no lookup finds it and no rank a person picks by
        tells it apart; the search joins the chain. None where no name is unique among them or the
        create is refused for every one tried."""
        search = next((x for x in self.meta.values() if x.role == "search" and x.entity == parent.name), None)
        labels = [a.name for a in parent.attributes if a.kind in _LABELS]
        if search is None or chain.episode is None or not labels:
            return None
        props = self.env.spec.tool(search.tool).parameters.get("properties", {})  # type: ignore[union-attr]
        filters = [f for f in props if _names_a_kind(parent, f)]
        rows = chain.episode.dump(parent.table)
        for f in self.rng.sample(filters, len(filters)):
            values = sorted({str(r[f]) for r in rows if r.get(f) is not None})
            for value in self.rng.sample(values, min(3, len(values))):
                fitting = [r for r in rows if str(r.get(f)) == value]
                if len(fitting) > SEARCH_LIMIT:
                    continue
                for row in self.rng.sample(fitting, min(4, len(fitting))):
                    label = unique_label(parent, row, fitting)
                    tried = {**args, column: row[pk(parent)]}
                    fitted = proportionate_inputs(self.spec, chain, self.domain.entity(m.entity).table, tried, given)
                    if label is None or chain.on_copy(self.env, m.tool, {**tried, **fitted}) is not None:
                        continue
                    chain.call(search.tool, **{f: value, "limit": SEARCH_LIMIT})
                    return row, f"the {value.replace('_', ' ')} {parent.human} {row[label]}"
        return None

    def _after_a_date(
        self,
        chain: Chain,
        m: ToolMeta,
        parent: Entity,
        column: str,
        args: dict[str, Any],
        given: dict[str, Any],
        search: ToolMeta,
    ) -> tuple[Row, str] | None:
        """The public record with the earliest date from a day the user names on ("the earliest delivery
        slot on or after March 11"), found with the search's date range; only by a date a person picks
        a record by (when it happens, never a cargo cutoff)."""
        assert chain.episode is not None
        props = self.env.spec.tool(search.tool).parameters.get("properties", {})  # type: ignore[union-attr]
        dated = [
            a
            for a in parent.attributes
            if a.kind in ("date", "datetime") and f"{a.name}_from" in props and names_a_record(a.name, a.kind, False)
        ]
        if not dated:
            return None
        a = self.rng.choice(dated)
        rows = [r for r in chain.episode.dump(parent.table) if r.get(a.name)]
        days = sorted({str(r[a.name])[:10] for r in rows})
        for day in self.rng.sample(days, min(4, len(days))):
            start = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
            fitting = [r for r in rows if str(r[a.name])[:10] >= start]
            if not 2 <= len(fitting) <= SEARCH_LIMIT:
                continue
            first = min(str(r[a.name]) for r in fitting)
            if [str(r[a.name]) for r in fitting].count(first) != 1:
                continue
            row = next(r for r in fitting if str(r[a.name]) == first)
            tried = {**args, column: row[pk(parent)]}
            fitted = proportionate_inputs(self.spec, chain, self.domain.entity(m.entity).table, tried, given)
            if chain.on_copy(self.env, m.tool, {**tried, **fitted}) is not None:
                continue
            chain.call(search.tool, **{f"{a.name}_from": start, "limit": SEARCH_LIMIT})
            rank = _rank(a, False, [o for o in parent.attributes if o.kind in ORDERED])
            day = spoken_when(start, self.env.spec.clock.date())  # "on or after April 16", not an ISO date
            return row, f"{rank.name(parent.human)} on or after {day}"
        return None

    def total_question(self, e: Entity, rows: list[Row]) -> TotalQuestion | None:
        """A question about a sum: the user's records of ``e`` in one state (at least two), whose
        total differs from each one's amount; with the other totals the same listing gives (another
        money column, the same one over every state) as distractors, of which there must be one."""
        money = [a.name for a in e.attributes if a.kind == "money"]
        if not money:
            self.rejections["no_total"] += 1
            return None
        status = e.lifecycle.field if e.lifecycle else None
        groups: dict[tuple[str, str], list[Row]] = {}
        for r in rows:
            owner = str(self.oracle.owner_of(e, r))
            groups.setdefault((owner, str(r.get(status)) if status else ""), []).append(r)
        # a charge of records that ended unfulfilled applies no more: no one adds up the weekly rate of
        # their cancelled subscriptions
        options = sorted(k for k, g in groups.items() if len(g) >= 2 and not ended_state(k[1]))
        self.rng.shuffle(options)
        for user_id, state in options:
            attr = self.rng.choice(money)
            group = groups[(user_id, state)]
            total = _sum(group, attr)
            if total is None or any(abs(total - r[attr]) < 0.005 for r in group):
                continue
            mine = [r for (owner, _), g in groups.items() if owner == user_id for r in g]
            others = [_sum(group, m) for m in money if m != attr] + [_sum(mine, attr)]
            distractors = sorted({f"{x:.2f}" for x in others if x is not None and abs(x - total) >= 0.005})
            # the same column added up over the user's records in each other state: an answer that sums
            # every state's records has not picked the asked one (a sum that is one of the asked
            # records' own amounts is left out, so that an answer may list what it added)
            parts = [float(r[attr]) for r in group]
            by_state = [_sum(g, attr) for (owner, s), g in groups.items() if owner == user_id and s != state]
            distractors = sorted(
                {*distractors}
                | {f"{x:.2f}" for x in by_state if x is not None and all(abs(x - v) >= 0.005 for v in (total, *parts))}
            )
            if not distractors:  # the listing's one total: adding up everything shown answers it
                continue
            which = f"{state.replace('_', ' ')} {plural(e.human)}" if state else plural(e.human)
            return TotalQuestion(user_id, which, attr, total, distractors)
        self.rejections["no_total"] += 1
        return None
