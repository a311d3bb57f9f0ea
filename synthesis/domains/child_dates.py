"""Seed rows dated after the record they belong to came to be (the quality report's measure 32,
:mod:`envs.quality.child_dates`): a payment after its citation was issued, a refund after the
enrollment, a fine after the loan.

:func:`settle_child_dates` runs on the finished seed, parents before children, and moves a child's
own history (its recorded dates, together, so their order holds) to start after its parent's first
record and end by the clock. Dates a lifecycle times (``timing.anchored_dates``) stay, and so does
a row whose move would turn one of its date pairs backwards.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import networkx as nx

from envs.formats.spec import EnvSpec
from envs.quality.child_dates import early_columns, first_recorded, parent_links
from envs.quality.seed_time import date_columns

from .bounds import settle_bound_dates
from .terms import settle_terms
from .timeline import TIME, inverted, parse
from .timing import Anchors


def _parents_first(spec: EnvSpec) -> dict[str, int]:
    """Each table's place in an order where a table comes after the tables it references."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(t.name for t in spec.tables)
    graph.add_edges_from((fk.table, t.name) for t in spec.tables for fk in t.foreign_keys if fk.table != t.name)
    order = list(nx.topological_sort(graph)) if nx.is_directed_acyclic_graph(graph) else list(graph)
    return {name: i for i, name in enumerate(order)}


def settle_child_dates(spec: EnvSpec, anchored: Anchors | None = None) -> int:
    """Move the recorded dates of child rows dated before their parent's first record (in place).
    Then the dates of what happened during a parent's span (:func:`.bounds.settle_bound_dates`: an
    expense receipt not before the trip), and the dates the tool making a record sets
    (:func:`.terms.settle_terms`: a 30-day guarantee 30 days after the install). Returns the number
    of rows moved (deterministic)."""
    rng = random.Random(f"child-dates:{spec.id}")
    anchored = anchored or (lambda *_: frozenset())
    place = _parents_first(spec)
    moved = 0
    for table, mine, column, parents, theirs in sorted(parent_links(spec, spec.seed), key=lambda x: place[x[0].name]):
        kinds: dict[str, str] = {c.name: c.type for c in date_columns(table)}
        for row in spec.seed.get(table.name, []):
            parent = parents.get(row.get(column))
            since = first_recorded(parent, theirs) if parent is not None else None
            early = early_columns(row, mine, since) if since is not None else []
            if since is None or not early or set(early) & anchored(table.name, row):
                continue
            held = anchored(table.name, row)
            before = dict(row)
            _shift_history(row, [c for c in mine if c not in held], kinds, since, spec.clock, rng)
            if inverted(row, kinds) or any(isinstance(row.get(c), str) and parse(row[c]) > spec.clock for c in mine):
                row.update(before)
                continue
            moved += row != before
    moved += settle_bound_dates(spec)
    for _ in range(5):  # a term's end moved back may undo the day its record was made: settle again
        if not (passed := settle_terms(spec, anchored)):
            break
        moved += passed
    return moved


def _shift_history(
    row: dict[str, Any], columns: list[str], kinds: dict[str, str], since: str, clock: datetime, rng: random.Random
) -> None:
    """Move ``row``'s dates in ``columns`` so the earliest falls on or after the day ``since`` and the
    latest by ``clock``: shifted together, or squeezed in proportion where the gap is too short."""
    values = {c: parse(row[c]) for c in columns if isinstance(row.get(c), str)}
    if not values:
        return
    first, last = min(values.values()), max(values.values())
    start = datetime.fromisoformat(since) + timedelta(days=rng.randint(0, 3), hours=rng.randint(8, 17))
    start = min(start, clock)
    room, spread = clock - start, last - first
    scale = 1.0 if spread <= room else room / spread
    for c, v in values.items():
        new = start + (v - first) * scale
        quarter = new.replace(minute=new.minute - new.minute % 15, second=0, microsecond=0)
        row[c] = new.strftime("%Y-%m-%d") if kinds.get(c) == "date" else quarter.strftime(TIME)
