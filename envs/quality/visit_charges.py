"""Charges against their visit's status (measure 61, docs/synthesis.md): a no-show fee on a visit that
was completed, a copay or a service charge on one the client missed, a deposit refunded or a credit
given for a no-show, a cancellation fee on a booking still booked.

A visit is a row of a table whose status can say the person did not come (:data:`NO_SHOW`: no show,
missed); its charges are the rows of a table referencing it with a kind column (``charge_type``,
``entry_type``, ``payment_type``). A charge's kind is read by its words, and only where it names what
happened:

* a fee for not coming (``no_show_fee``) belongs to a visit in a no-show status;
* a kind named for a cancellation (``late_cancel_fee``, ``cancellation_refund``) to a visit called
  off (a status naming a cancellation);
* the charge for the visit itself (:data:`SERVICE`: a service, a copay, a night's charge) to a visit
  neither missed nor called off;
* a refund or credit (:data:`GIVEN_BACK`) to no visit missed: a no-show forfeits what it put down.

Other kinds (a deposit, a minibar charge, a registration fee) say nothing of the visit and are not
read. The seed generator keeps the rule (``synthesis.domains.visit_charges``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .seed import status_columns
from .text import word_set

#: Statuses of a visit the person did not come to.
NO_SHOW = word_set("no_show missed")
#: Kinds of a charge for the visit itself.
SERVICE = word_set("service copay night_charge session_fee visit_fee treatment")
#: Words of a kind that gives money back.
GIVEN_BACK = word_set("refund credit comp goodwill")
#: Last words of a charge's kind column.
_KIND_WORDS = word_set("type kind")


def _word(value: Any) -> str:
    return value.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else ""


def missed(status: Any) -> bool:
    return _word(status) in NO_SHOW


def called_off(status: Any) -> bool:
    return "cancel" in _word(status)


def kind_fits(kind: Any, status: Any) -> bool | None:
    """Whether a charge of ``kind`` fits a visit in ``status``; None where the kind says nothing of it."""
    word = _word(kind)
    if not word or not isinstance(status, str):
        return None
    if "no_show" in word or "missed" in word:
        return missed(status)
    if "cancel" in word:
        return called_off(status)
    if word in SERVICE:
        return not missed(status) and not called_off(status)
    if set(word.split("_")) & GIVEN_BACK:
        return not missed(status)
    return None


def kind_column(table: TableSpec) -> str | None:
    """The enum column naming what a charge is for (``charge_type``), if one."""
    found = [
        c.name
        for c in table.columns
        if c.type == "text" and c.enum and c.name.lower().split("_")[-1] in _KIND_WORDS and c.name != "status"
    ]
    return found[0] if len(found) == 1 else None


@dataclass(frozen=True)
class VisitCharges:
    """Charges (``table``.``kind`` through ``column``) of the visits in ``visits`` (status ``status``)."""

    visits: str
    key: str
    status: str
    table: str
    column: str
    kind: str


def visit_charges(spec: EnvSpec) -> list[VisitCharges]:
    """The (visit table, charge table) pairs of ``spec`` measure 61 reads."""
    out = []
    for visits in spec.tables:
        statuses = status_columns(visits)
        values = [v for v in (statuses[0].enum or []) if isinstance(v, str)] if statuses else []
        if not any(missed(v) for v in values) or len(visits.primary_key) != 1:
            continue
        for table in spec.tables:
            kind = kind_column(table)
            for fk in table.foreign_keys:
                if fk.table == visits.name and len(fk.columns) == 1 and kind is not None and table is not visits:
                    out.append(
                        VisitCharges(
                            visits.name, visits.primary_key[0], statuses[0].name, table.name, fk.columns[0], kind
                        )
                    )
    return out


def charge_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[VisitCharges, dict[str, Any], Any, bool]]:
    """(pair, charge row, its visit's status, whether it fits) for every charge whose kind is read."""
    for pair in visit_charges(spec):
        status = {r.get(pair.key): r.get(pair.status) for r in rows.get(pair.visits, [])}
        for row in rows.get(pair.table, []):
            visit = row.get(pair.column)
            if visit in status and (fits := kind_fits(row.get(pair.kind), status[visit])) is not None:
                yield pair, row, status[visit], fits


@dataclass
class VisitChargeCounts:
    """Charges whose kind names what happened at their visit, and those its status contradicts."""

    visit_charges_checked: int = 0
    charges_against_visit: int = 0


def charges_against_visit(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> VisitChargeCounts:
    """Measure 61 over ``rows`` (table -> rows; the seed by default)."""
    out = VisitChargeCounts()
    for _, _, _, fits in charge_findings(spec, spec.seed if rows is None else rows):
        out.visit_charges_checked += 1
        out.charges_against_visit += not fits
    return out
