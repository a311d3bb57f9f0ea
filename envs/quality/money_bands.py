"""Amounts a person would not believe for what they price (measures 102 and 103, docs/synthesis.md).

Measure 41 (:mod:`.amount_bands`) guesses its pairs from column names; these two read what the spec
states, so they hold a catalog to its own word:

* **Bands (102).** A money column with ``bands`` (``ColumnSpec.bands``) holds, on every row whose key
  value the bands name, an amount inside that value's band: a basic wash plan is not priced as the
  ultimate one, a 5x5 unit does not rent for a 10x20's rate.
* **Ratios (103).** A money column with ``ratio`` (``ColumnSpec.ratio``) set above zero is inside its
  share of the amount it is a share of: a tip is not larger than the bill, a deposit not above the rent
  it secures. A zero (no tip left, no deposit taken) is no contradiction.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import ColumnSpec, EnvSpec, TableSpec
from .labels import _EDITION, Related, _index, _related

#: An amount within a cent of its band's edge is inside it (seed amounts are rounded to the cent).
CENT = 0.005


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def band_for(key: Any, values: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    """The band ``key``'s value names, or the value a numbered edition of it repeats (None: the bands
    leave it free)."""
    if key is None:
        return None
    text = str(key)
    found = values.get(text)
    return values.get(_EDITION.sub("", text)) if found is None else found


def share_band(base: float, share: tuple[float, float]) -> tuple[float, float]:
    """The amounts that are ``share`` of ``base``."""
    return base * share[0], base * share[1]


def inside(value: float, band: tuple[float, float]) -> bool:
    """Whether ``value`` is in ``band``, to the cent."""
    return band[0] - CENT <= value <= band[1] + CENT


@dataclass(frozen=True)
class Finding:
    """One amount held to a band: ``kind`` is 'band' (measure 102) or 'ratio' (measure 103)."""

    kind: str
    table: TableSpec
    column: ColumnSpec
    row: dict[str, Any]
    band: tuple[float, float]

    @property
    def value(self) -> float:
        return float(self.row[self.column.name])

    @property
    def out(self) -> bool:
        return not inside(self.value, self.band)


def _banded(spec: EnvSpec) -> list[tuple[TableSpec, ColumnSpec, Related]]:
    return [(t, c, _related(spec, t, c.bands.by)) for t in spec.tables for c in t.columns if c.bands is not None]


def _ratioed(spec: EnvSpec) -> list[tuple[TableSpec, ColumnSpec, Related]]:
    return [(t, c, _related(spec, t, c.ratio.of)) for t in spec.tables for c in t.columns if c.ratio is not None]


def band_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], kind: str = "band") -> Iterator[Finding]:
    """Every amount of ``rows`` a band or a share holds (``kind``: 'band' or 'ratio'); rows are read as
    they are when reached, so a caller that moves an amount is seen by the amounts read after it."""
    index = _index(spec, rows)
    for table, column, related in _banded(spec) if kind == "band" else _ratioed(spec):
        for row in rows.get(table.name, []):
            value = _number(row.get(column.name))
            if value is None:
                continue
            if column.bands is not None and kind == "band":
                band = band_for(related.value(row, index), column.bands.values)
            elif column.ratio is not None and value > 0 and (base := _number(related.value(row, index))):
                band = share_band(base, column.ratio.share) if base > 0 else None
            else:
                band = None
            if band is not None:
                yield Finding(kind, table, column, row, band)


@dataclass
class MoneyBandCounts:
    """Amounts held to a band by kind and to a share of another amount, and those outside."""

    banded_amounts_checked: int = 0
    amounts_out_of_band: int = 0
    ratio_amounts_checked: int = 0
    ratios_out_of_range: int = 0


def money_out_of_band(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> MoneyBandCounts:
    """Measures 102 and 103 over ``rows`` (table -> rows; the seed by default)."""
    rows = spec.seed if rows is None else rows
    out = MoneyBandCounts()
    for finding in band_findings(spec, rows, "band"):
        out.banded_amounts_checked += 1
        out.amounts_out_of_band += finding.out
    for finding in band_findings(spec, rows, "ratio"):
        out.ratio_amounts_checked += 1
        out.ratios_out_of_range += finding.out
    return out
