"""Free text that contradicts its row's status (measure 89, docs/synthesis.md): a damage claim
``denied`` whose decision note reads "Approved, damage consistent with the brush fault logged that
day", one ``approved`` whose note says the desk is "waiting on photos from the member before deciding".

Read from status words alone, so the measure runs on any catalog; the seed generator keeps it
(``synthesis.domains.status_notes``). A status value belongs to a verdict (granted, refused, waiting,
settled, called off) by its word; a note, reason or decision beside it names a verdict by the words a
person writes for it ("approved", "denial", "waiting on", "before deciding"), unless negated ("not
approved"). A note names its row's status against it where it names a verdict the table's status
column can hold, the row's status has a verdict, and the note names none of the row's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import ColumnSpec, EnvSpec, TableSpec
from .seed import status_columns
from .state_words import event_of
from .text import word_set

#: Each verdict: the status values that hold it, and the words (or phrases) a note names it by.
VERDICTS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "granted": (
        word_set("approved accepted granted authorized authorised paid_out honored honoured"),
        ("approved", "approve", "approval", "accepted", "granted", "authorized", "authorised"),
    ),
    "refused": (
        word_set("denied rejected declined refused disallowed"),
        ("denied", "deny", "denial", "rejected", "reject", "rejection", "declined", "refused", "refusal"),
    ),
    "waiting": (
        word_set("pending submitted requested awaiting under_review in_review pending_review pending_approval"),
        ("pending", "waiting on", "waiting for", "awaiting", "before deciding", "under review", "not yet decided"),
    ),
    "settled": (
        word_set("resolved fixed"),
        ("resolved", "resolution", "fixed"),
    ),
    "called_off": (
        word_set("withdrawn cancelled canceled"),
        ("withdrawn", "withdrew", "cancelled", "canceled", "cancellation"),
    ),
}
#: Words of a text column's name saying someone wrote it about the record's standing.
NOTE_WORDS = word_set("note notes reason decision comment comments remark remarks outcome response explanation")
_NEGATED = re.compile(r"\b(?:not|no|never|cannot|can't|isn't|wasn't|won't)\s+(?:\w+\s+)?$")


def verdict_of(status: object) -> str | None:
    """The verdict a status value holds (None: it holds none of them)."""
    if not isinstance(status, str):
        return None
    word = re.sub(r"[\s\-]+", "_", status.strip().lower())
    return next((v for v, (states, _) in VERDICTS.items() if word in states), None)


def verdicts_named(text: object) -> set[str]:
    """The verdicts ``text`` names, each by a word not negated before it.

    >>> sorted(verdicts_named("Approved, damage consistent with the brush fault logged that day"))
    ['granted']
    >>> sorted(verdicts_named("Claim not approved, waiting on photos"))
    ['waiting']
    >>> verdicts_named("Chip visible in entry photos, pre-existing")
    set()
    """
    if not isinstance(text, str):
        return set()
    low = text.lower()
    out = set()
    for verdict, (_, forms) in VERDICTS.items():
        for form in forms:
            for m in re.finditer(rf"\b{re.escape(form)}\b", low):
                if not _NEGATED.search(low[: m.start()]):
                    out.add(verdict)
    return out


def note_columns(table: TableSpec) -> list[ColumnSpec]:
    """Free-text columns a person writes about the record's standing (a decision note, a reason).
    One named for an event (a rejection reason) explains that event whatever it names: a port
    rejected because the customer cancelled with the carrier."""
    return [
        c
        for c in table.columns
        if c.type == "text"
        and not c.enum
        and set(c.name.split("_")) & NOTE_WORDS
        and event_of(c.name) is None
        and c not in status_columns(table)
    ]


def held_verdicts(table: TableSpec) -> set[str]:
    """The verdicts the table's first status column can hold."""
    statuses = status_columns(table)
    return {v for s in statuses[:1] for value in s.enum or () if (v := verdict_of(value))}


def against_status(text: object, status: object, held: Iterable[str]) -> bool:
    """Whether ``text`` names a verdict ``held`` against ``status``'s, and none of that status's own."""
    own = verdict_of(status)
    named = verdicts_named(text) & set(held)
    return own is not None and bool(named) and own not in named


def status_note_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[TableSpec, ColumnSpec, dict[str, Any], bool]]:
    """(table, column, row, against its status) for every filled note beside a status with a verdict."""
    for table in spec.tables:
        statuses = status_columns(table)
        held = held_verdicts(table)
        if not statuses or len(held) < 2:
            continue
        for column in note_columns(table):
            for row in rows.get(table.name, []):
                value, status = row.get(column.name), row.get(statuses[0].name)
                if isinstance(value, str) and value.strip() and verdict_of(status) is not None:
                    yield table, column, row, against_status(value, status, held)


@dataclass
class StatusNoteCounts:
    """Filled notes beside a status with a verdict, and those naming a verdict against it."""

    status_notes_checked: int = 0
    notes_against_status: int = 0


def notes_against_status(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> StatusNoteCounts:
    """Measure 89 over ``rows`` (table -> rows; the seed by default)."""
    out = StatusNoteCounts()
    for _, _, _, against in status_note_findings(spec, spec.seed if rows is None else rows):
        out.status_notes_checked += 1
        out.notes_against_status += against
    return out
