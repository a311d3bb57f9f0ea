"""Kinds and sizes that do not fit what they belong to (measure 99, docs/synthesis.md): a footing
inspection under a roof permit, a 5,265.30 alternator.

Each half holds seed rows to what is known of the trade, written down here as measure 41's bands are
(:mod:`.amount_bands`), and matched by column names and words alone, so it runs on any catalog:

* **Kinds.** A child's enum column (:data:`KIND_FITS`: ``inspection_type``) whose row points to a
  parent holding a kind column (``project_type``) holds, for each parent kind the table knows, one of
  the values that kind of work has: a roof permit has a final inspection, no footing or framing one; a
  deck has footing and framing, no plumbing. A value the table does not judge (``final``) fits any.
* **Sizes.** A row whose free text names exactly one part of a known price band (:data:`PART_BANDS`:
  an alternator 300–1,200, parts and labour) holds, in a money column named for what the work costs
  (``repair_cost``, ``estimated_cost``, ``quote_amount``), an amount inside that band. A text naming
  no part, or two, says nothing of the cost.

The seed generator keeps both: a domain keys the child's kind on its parent's
(``Attribute.values_by``), and ``synthesis.domains.part_prices`` draws a cost inside its part's band.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .seed import status_columns
from .tool_sql import number

#: (child column, parent column) -> parent kind -> the child kinds that kind of work has, among
#: those the table judges (:data:`JUDGED_KINDS`): building inspections by the permit's project.
KIND_FITS: dict[tuple[str, str], dict[str, frozenset[str]]] = {
    ("inspection_type", "project_type"): {
        "addition": frozenset({"footing", "framing", "electrical", "plumbing"}),
        "deck": frozenset({"footing", "framing"}),
        "remodel": frozenset({"framing", "electrical", "plumbing"}),
        "roof": frozenset(),
        "pool": frozenset({"electrical", "plumbing"}),
        "solar": frozenset({"electrical"}),
        "garage": frozenset({"footing", "framing", "electrical"}),
    },
}
#: The child kinds :data:`KIND_FITS` rules on; any other (a final inspection) fits every parent.
JUDGED_KINDS: dict[tuple[str, str], frozenset[str]] = {
    pair: frozenset().union(*fits.values()) for pair, fits in KIND_FITS.items()
}

#: A part named in a repair's text -> what replacing or repairing it costs, parts and labour (USD):
#: a band wide enough for any make and shop. Longer names win over the shorter ones inside them.
PART_BANDS: dict[str, tuple[float, float]] = {
    "alternator": (300.0, 1200.0),
    "starter motor": (250.0, 1000.0),
    "water pump": (350.0, 1400.0),
    "wheel bearing": (200.0, 900.0),
    "radiator": (350.0, 1500.0),
    "fuel pump": (450.0, 1600.0),
    "a/c compressor": (800.0, 2800.0),
    "steering rack": (800.0, 2800.0),
    "head unit": (500.0, 2500.0),
    "transmission control module": (400.0, 1800.0),
    "timing chain": (1000.0, 3500.0),
    "head gasket": (1200.0, 4000.0),
    "rear main seal": (600.0, 2500.0),
    "turbocharger": (1200.0, 4500.0),
    "differential": (1200.0, 4500.0),
}
#: Words of a money column holding what the work itself costs.
COST_WORDS = ("cost", "estimate", "quote")


def named_part(text: object) -> str | None:
    """The one part of :data:`PART_BANDS` ``text`` names (None for none or several)."""
    if not isinstance(text, str):
        return None
    lowered = text.lower()
    found = [p for p in PART_BANDS if p in lowered]
    found = [p for p in found if not any(p != q and p in q for q in found)]
    return found[0] if len(found) == 1 else None


def _cost_columns(table: TableSpec) -> list[str]:
    return [c.name for c in table.columns if c.type == "real" and any(w in c.name for w in COST_WORDS)]


def _text_columns(table: TableSpec) -> list[str]:
    statuses = {c.name for c in status_columns(table)}
    return [c.name for c in table.columns if c.type == "text" and not c.enum and c.name not in statuses]


def priced_parts(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[str, dict[str, Any], str, str]]:
    """(table, row, the part its text names, its cost column) for every row naming one part beside a
    cost."""
    for table in spec.tables:
        costs = _cost_columns(table)
        texts = _text_columns(table)
        if len(costs) != 1 or not texts:
            continue
        for row in rows.get(table.name, []):
            parts = {p for c in texts if (p := named_part(row.get(c))) is not None}
            if len(parts) == 1 and number(row.get(costs[0])) is not None:
                yield table.name, row, parts.pop(), costs[0]


def kind_pairs(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[dict[str, Any], str, str, bool]]:
    """(child row, its kind, its parent's kind, whether the kind fits) for every child row whose
    kind and parent's kind :data:`KIND_FITS` rules on."""
    tables = {t.name: t for t in spec.tables}
    for table in spec.tables:
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            if parent is None or len(fk.columns) != 1 or len(parent.primary_key) != 1:
                continue
            pairs = [
                (c, p)
                for c in (col.name for col in table.columns if col.enum)
                for p in (col.name for col in parent.columns if col.enum)
                if (c, p) in KIND_FITS
            ]
            by_key = {r.get(parent.primary_key[0]): r for r in rows.get(parent.name, [])}
            for child_col, parent_col in pairs:
                fits, judged = KIND_FITS[child_col, parent_col], JUDGED_KINDS[child_col, parent_col]
                for row in rows.get(table.name, []):
                    up = by_key.get(row.get(fk.columns[0]))
                    kind, parent_kind = row.get(child_col), up.get(parent_col) if up else None
                    if kind in judged and parent_kind in fits:
                        yield row, str(kind), str(parent_kind), kind in fits[str(parent_kind)]


@dataclass
class KindFitCounts:
    """Child kinds read against their parent's kind, and parts against their price band."""

    kind_pairs_checked: int = 0
    kinds_unfit_for_parent: int = 0
    priced_parts_checked: int = 0
    parts_out_of_band: int = 0


def kinds_and_sizes_unfit(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> KindFitCounts:
    """Measure 99 over ``rows`` (table -> rows; the seed by default)."""
    rows = spec.seed if rows is None else rows
    out = KindFitCounts()
    for *_, fits in kind_pairs(spec, rows):
        out.kind_pairs_checked += 1
        out.kinds_unfit_for_parent += not fits
    for _, row, part, column in priced_parts(spec, rows):
        low, high = PART_BANDS[part]
        out.priced_parts_checked += 1
        out.parts_out_of_band += not low <= float(row[column]) <= high
    return out
