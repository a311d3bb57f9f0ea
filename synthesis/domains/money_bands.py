"""Money amounts in bands by kind and in ratio to what they are a share of.

An amount drawn from one range for every row reads as generated: a basic wash plan at the ultimate
plan's fee, a 5x5 unit at a 10x20's rent, a tip larger than the bill. A domain says what an amount
depends on: ``Attribute.range_by`` gives its range by the value of another attribute (of the same
record or, as ``ref.attr``, of the record a reference points to), ``Attribute.ratio_of`` makes it a
share of another amount (a tip of the basket, a deposit of the rent) or a price per unit of a quantity
(a bill of 0.12–0.22 a kWh used, a fuel package of 3.20–4.60 a gallon). The spec carries both
(``ColumnSpec.bands``, ``ColumnSpec.ratio``) for the quality report (measures 102 and 103,
``envs.quality.money_bands``); the seed draws each amount inside its band as its row is drawn
(:class:`MoneyBands`), so amounts copied from it later follow, and :func:`settle_money_bands` brings
back any amount a later rule moved out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.money_bands import band_findings, band_for, inside, share_band

from .domain import Attribute, Domain, Entity, Reference, key_attribute

#: The kinds an amount may be in ratio to: another amount (a share) or a count of units (a rate per unit).
RATIO_BASES = frozenset({"money", "quantity"})


@dataclass(frozen=True)
class Related:
    """The value an amount depends on: ``key`` of the same record, or of the record ``ref`` points to."""

    ref: Reference | None
    key: str

    @property
    def spec_key(self) -> str:
        """As ``ColumnSpec.bands.by`` names it: a column, or ``<fk column>.<column>``."""
        return f"{self.ref.column}.{self.key}" if self.ref is not None else self.key

    def value(self, row: Mapping[str, Any], parent: Callable[[str, Any], Mapping[str, Any] | None]) -> Any:
        if self.ref is None:
            return row.get(self.key)
        parent_id = row.get(self.ref.column)
        found = parent(self.ref.entity, parent_id) if parent_id is not None else None
        return found.get(self.key) if found is not None else None


def _related(domain: Domain, entity: Entity, key: str) -> Related | None:
    ref, target = key_attribute(domain, entity, key)
    return Related(ref, target.name) if target is not None else None


def band_problems(domain: Domain) -> list[str]:
    """What is wrong with the domain's ``range_by`` and ``ratio_of`` (empty: nothing)."""
    out = []
    for entity in domain.entities:
        for attr in entity.attributes:
            where = f"{entity.name}.{attr.name}"
            for field, table in (("range_by", attr.range_by), ("ratio_of", attr.ratio_of)):
                if table is None:
                    continue
                if attr.kind != "money":
                    out.append(f"{where}: {field} is for money, not a {attr.kind}")
                if len(table) != 1:
                    out.append(f"{where}: {field} names one key, not {len(table)}")
                    continue
                key = next(iter(table))
                ref, target = key_attribute(domain, entity, key)
                if target is None or (ref is None and target.name == attr.name):
                    out.append(f"{where}: {field} key '{key}' names no other attribute")
                elif field == "ratio_of" and target.kind not in RATIO_BASES:
                    out.append(f"{where}: ratio_of '{key}' is a {target.kind}, not money or a quantity")
            bands = [*(attr.range_by or {}).values()]
            for lo, hi in [b for pools in bands for b in pools.values()] + [*(attr.ratio_of or {}).values()]:
                if not 0 <= lo <= hi:
                    out.append(f"{where}: band ({lo}, {hi}) is not 0 <= low <= high")
            for lo, hi in [b for pools in bands for b in pools.values()]:
                if attr.range is not None and not attr.range[0] <= lo <= hi <= attr.range[1]:
                    out.append(f"{where}: band ({lo}, {hi}) is outside its range {attr.range}")
    return out


def column_terms(domain: Domain, entity: Entity, attr: Attribute) -> dict[str, Any]:
    """``attr``'s ``bands`` and ``ratio`` as its ``ColumnSpec`` carries them (empty: it has neither)."""
    out: dict[str, Any] = {}
    if attr.range_by and (related := _related(domain, entity, next(iter(attr.range_by)))):
        out["bands"] = {"by": related.spec_key, "values": next(iter(attr.range_by.values()))}
    if attr.ratio_of and (related := _related(domain, entity, next(iter(attr.ratio_of)))):
        out["ratio"] = {"of": related.spec_key, "share": next(iter(attr.ratio_of.values()))}
    return out


def draw_in(band: tuple[float, float], rng: random.Random) -> float:
    """An amount inside ``band`` to the cent, kept off its very edges (a fee at the band's floor to
    the cent reads as a limit, not a price)."""
    lo, hi = band
    span = hi - lo
    return round(rng.uniform(lo + span * 0.05, hi - span * 0.05), 2)


class MoneyBands:
    """Keeps one entity's amounts in their band and share as its seed rows are drawn."""

    def __init__(self, domain: Domain, entity: Entity, rng: random.Random) -> None:
        self.rng = rng  # its own draws: the rows' other values stay as they were
        self.banded = [
            (a, r, pools)
            for a in entity.attributes
            if a.range_by and (r := _related(domain, entity, next(iter(a.range_by))))
            for pools in [next(iter(a.range_by.values()))]
        ]
        self.ratioed = [
            (a, r, share)
            for a in entity.attributes
            if a.ratio_of and (r := _related(domain, entity, next(iter(a.ratio_of))))
            for share in [next(iter(a.ratio_of.values()))]
        ]

    def fit(self, row: dict[str, Any], parent: Callable[[str, Any], Mapping[str, Any] | None]) -> int:
        """Redraw ``row``'s amounts outside their band, then those outside their share; how many moved."""
        moved = 0
        for attr, related, pools in self.banded:
            value, band = row.get(attr.name), band_for(related.value(row, parent), pools)
            if isinstance(value, int | float) and band is not None and not inside(value, band):
                row[attr.name], moved = draw_in(band, self.rng), moved + 1
        for attr, related, share in self.ratioed:
            value, base = row.get(attr.name), related.value(row, parent)
            if not isinstance(value, int | float) or not isinstance(base, int | float) or value <= 0 or base <= 0:
                continue
            if not inside(value, band := share_band(base, share)):
                row[attr.name], moved = draw_in(band, self.rng), moved + 1
        return moved


def settle_money_bands(spec: EnvSpec, seed: int = 0) -> int:
    """Redraw the seed's amounts a later rule left outside their band or share (in place; bands
    first, so a share follows the amount it is of); how many moved."""
    rng = random.Random(f"{spec.id}:{seed}:money-bands")
    moved = 0
    for kind in ("band", "ratio"):
        for finding in band_findings(spec, spec.seed, kind):
            if finding.out:
                finding.row[finding.column.name] = draw_in(finding.band, rng)
                moved += 1
    return moved


def fit_new_amounts(
    domain: Domain,
    entity: Entity,
    args: Mapping[str, Any],
    given: dict[str, Any],
    parent: Callable[[str, Any], Mapping[str, Any] | None],
) -> dict[str, Any]:
    """A new record's inputs with each amount the user gives inside its band and share (the value it
    depends on given too, or the parent record's). Drawn with a generator of their own, so the task
    generator's draws stay as they were."""
    row = {**args, **given}
    MoneyBands(domain, entity, random.Random(f"{entity.name}:{sorted(row.items(), key=str)}")).fit(row, parent)
    return {name: row[name] for name in given}
