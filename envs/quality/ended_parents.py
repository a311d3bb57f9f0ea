"""Periodic rows still awaiting a step under a record that has ended (measure 116, docs/synthesis.md):
a weekly certification due on a benefit claim that closed, a monthly installment pending on a plan
paid off, a weekly box scheduled under a cancelled subscription.

A claim that closed takes no more certifications; a week it still calls due is one nobody will file.
Read by table, column and status words alone, so the measure runs on any catalog; the seed generator
keeps it (``synthesis.domains.ended_parents``):

* a *periodic* table is one whose rows come one per period: its name holds a period word
  (:data:`.periodic_rows.PERIODS`: ``weekly_certifications``, ``monthly_bills``) or names a recurring
  row (:data:`RECURRING`: an installment, a premium), or the date that schedules its rows
  (:func:`.periodic_rows.schedule_column`) names a period (``week_ending``, ``billing_period``);
* a row of it *waits* when its status says the step is still to come (:data:`WAITING`: due,
  pending, open, scheduled, not filed);
* its parent, a row it references through a single-column key, has *ended* when the parent's
  status is an end state (:data:`ENDED`: closed, cancelled, terminated, expired, paid off).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .periodic_rows import PERIODS, schedule_column
from .seed import status_columns
from .text import word_set

#: Statuses of a periodic row whose step (filing, paying, delivering) is still to come.
WAITING = word_set(
    """due pending open scheduled upcoming awaiting outstanding unpaid unfiled not_filed not_submitted
    not_yet_filed ready_to_file"""
)
#: Statuses of a record that has ended for good: no period follows.
ENDED = word_set(
    """closed cancelled canceled terminated ended expired lapsed paid_off discontinued deactivated
    disconnected completed exhausted"""
)
#: Last words of a table whose rows recur, one per period, whatever its date is called.
RECURRING = word_set("installment installments certification certifications premium premiums")
#: Words of a schedule column that name a period.
_PERIOD_DATE = word_set("week weekly ending period cycle billing statement month monthly")


@dataclass(frozen=True)
class WaitingRule:
    """Rows of ``table`` (status ``status``) under rows of ``parent`` (status ``parent_status``) by ``column``."""

    table: str
    status: str
    column: str
    parent: str
    parent_key: str
    parent_status: str


def _word(value: Any) -> str:
    return value.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else ""


def waiting(value: Any) -> bool:
    """Whether a status says a periodic row's step is still to come."""
    return _word(value) in WAITING


def ended(value: Any) -> bool:
    """Whether a status says its record has ended for good."""
    return _word(value) in ENDED


def periodic(table: TableSpec) -> bool:
    """Whether ``table``'s rows come one per period (see the module docstring)."""
    words = table.name.lower().split("_")
    if set(words) & set(PERIODS) or words[-1] in RECURRING:
        return True
    column = schedule_column(table)
    return column is not None and bool(set(column.lower().split("_")) & _PERIOD_DATE)


def waiting_rules(spec: EnvSpec) -> list[WaitingRule]:
    """Each periodic table with a status, and each parent with a status it references."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for table in spec.tables:
        statuses = status_columns(table)
        if not statuses or not periodic(table) or not any(waiting(v) for v in statuses[0].enum or ()):
            continue
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            if parent is None or parent.name == table.name or len(fk.columns) != 1:
                continue
            parent_statuses = status_columns(parent)
            if parent_statuses and any(ended(v) for v in parent_statuses[0].enum or ()):
                out.append(
                    WaitingRule(
                        table.name,
                        statuses[0].name,
                        fk.columns[0],
                        parent.name,
                        fk.references[0] if fk.references else parent.primary_key[0],
                        parent_statuses[0].name,
                    )
                )
    return out


def waiting_rows(
    rule: WaitingRule, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(row, parent) for each waiting row of ``rule``'s table under a parent in ``rows``."""
    parents = {p.get(rule.parent_key): p for p in rows.get(rule.parent, [])}
    for row in rows.get(rule.table, []):
        parent = parents.get(row.get(rule.column))
        if parent is not None and waiting(row.get(rule.status)):
            yield row, parent


@dataclass
class EndedParentCounts:
    """Waiting periodic rows under a parent, and those whose parent has ended (measure 116)."""

    periodic_waits_checked: int = 0
    waiting_under_ended: int = 0


def waiting_under_ended(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> EndedParentCounts:
    """Measure 116 over ``rows`` (table -> rows; the seed by default). A row under two parents is
    counted once."""
    rows = spec.seed if rows is None else rows
    checked: dict[int, bool] = {}
    for rule in waiting_rules(spec):
        for row, parent in waiting_rows(rule, rows):
            checked[id(row)] = checked.get(id(row), False) or ended(parent.get(rule.parent_status))
    return EndedParentCounts(periodic_waits_checked=len(checked), waiting_under_ended=sum(checked.values()))
