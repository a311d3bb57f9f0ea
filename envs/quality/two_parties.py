"""One row naming one party twice (measure 87, docs/synthesis.md): a money request whose requester is
its payer, a payment sent to the sender's own wallet.

Read from foreign keys alone, so the measure runs on any catalog; the seed generator keeps the rule
(``synthesis.domains.two_parties``). Two columns of one table that reference the same table name two
roles of the row (sender and recipient, requester and payer): a domain that meant one party would
keep one column, so a row whose two roles hold the same record describes a request to oneself, which
no one makes and which the policy of a payment service forbids outright.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec


@dataclass(frozen=True)
class Parties:
    """``columns`` of ``table`` (in spec order) each reference a row of ``referenced``."""

    table: str
    referenced: str
    columns: tuple[str, ...]


def party_columns(spec: EnvSpec) -> list[Parties]:
    """Per table, each referenced table that two or more single-column references of it point at."""
    out = []
    for table in spec.tables:
        by_parent: dict[str, list[str]] = {}
        for fk in table.foreign_keys:
            if len(fk.columns) == 1 and fk.table != table.name:
                by_parent.setdefault(fk.table, []).append(fk.columns[0])
        out += [Parties(table.name, parent, tuple(cols)) for parent, cols in by_parent.items() if len(cols) > 1]
    return out


def repeated_parties(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[Parties, dict[str, Any], str | None]]:
    """(parties, row, the first column repeating an earlier one's record, or None) for every row
    whose party columns hold at least two values."""
    for parties in party_columns(spec):
        for row in rows.get(parties.table, []):
            named = [(c, row.get(c)) for c in parties.columns if row.get(c) is not None]
            if len(named) < 2:
                continue
            seen: set[Any] = set()
            again = None
            for column, value in named:
                if value in seen and again is None:
                    again = column
                seen.add(value)
            yield parties, row, again


@dataclass
class TwoPartiesCounts:
    """Rows naming two parties of one table, and those naming one record in both roles (measure 87)."""

    party_rows_checked: int = 0
    one_party_twice: int = 0


def one_party_twice(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> TwoPartiesCounts:
    """Measure 87 over ``rows`` (table -> rows; the seed by default)."""
    out = TwoPartiesCounts()
    for _, _, again in repeated_parties(spec, spec.seed if rows is None else rows):
        out.party_rows_checked += 1
        out.one_party_twice += again is not None
    return out
