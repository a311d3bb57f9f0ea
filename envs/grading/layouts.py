"""Values laid out as a markdown table, bullets or ``key: value`` lines, read as the sentences they stand for.

An agent that quotes a record's fields as a table ("| Status | active |"), as bullets ("- Status:
active") or as YAML ("status: active") says the same as one that writes "The status is active.": the
value is stated of the record, whether it is the reason, a status that would allow the action, or a
claim. The checks of a refusal read sentences, so each laid-out line is written as one
(docs/formats.md, "Answers", "Values laid out as a table, bullets or YAML"); prose is left as it is.
"""

from __future__ import annotations

import re

_TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE_ROW = re.compile(r"^[\s|:-]+$")  # "|---|:---:|": the line under a table's header
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+")
#: A field's name before its value: a few words, as a column or a YAML key is named.
_KEY_VALUE = re.compile(r"^\s*\**(?P<key>[A-Za-z][A-Za-z_ ]{0,40}?)\**\s*:\s+(?P<value>\S.*?)\s*$")
_MAX_KEY_WORDS = 4
_ENDS = (".", "!", "?", ":", ";")


def _clause(key: str, value: str) -> str:
    """``key`` and ``value`` as a person says them: "the status is active"."""
    value = value.strip().strip("*`").strip()
    key = key.strip().strip("*`").strip().replace("_", " ")
    return f"the {key.lower()} is {value}"


def _sentence(*clauses: str) -> str:
    said = ", ".join(clauses)
    return said[:1].upper() + said[1:] + ("" if said.endswith(_ENDS) else ".")


def _field(text: str) -> tuple[str, str] | None:
    """The (name, value) of a ``key: value`` line, or None where the line is prose."""
    m = _KEY_VALUE.match(text)
    if m is None or len(m["key"].split()) > _MAX_KEY_WORDS:
        return None
    return m["key"], m["value"]


def _cells(line: str) -> list[str] | None:
    m = _TABLE_ROW.match(line)
    return None if m is None else [c.strip() for c in m[1].split("|")]


def _table(rows: list[list[str]], headed: bool) -> list[str]:
    """A table's rows as sentences: a two-column one row by row ("| Status | active |"), its header
    ("| Field | Value |") left out, a wider one each cell under its header's name."""
    header, body = (rows[0], rows[1:]) if headed else ([], rows)
    header = header if len(header) > 2 else []
    out = []
    for row in body:
        if header and len(row) == len(header):
            out.append(_sentence(*(_clause(h, c) for h, c in zip(header, row, strict=True) if c)))
        elif len(row) == 2 and all(row):
            out.append(_sentence(_clause(row[0], row[1])))
        else:
            out.append(", ".join(c for c in row if c) + ".")
    return out


def as_sentences(answer: str) -> str:
    """``answer`` with each table row, bullet and ``key: value`` line written as a sentence.

    >>> as_sentences("I can't release it.\\n\\n| Field | Value |\\n|---|---|\\n| Status | active |")
    "I can't release it.\\n\\nThe status is active."
    >>> as_sentences("- Status: pending transfer\\n- Policy: only active shares can be released")
    'The status is pending transfer.\\nThe policy is only active shares can be released.'
    >>> as_sentences("status: closed\\nevent_date: 2025-12-01")
    'The status is closed.\\nThe event date is 2025-12-01.'
    >>> as_sentences("| Booking | Status | Time |\\n|---|---|---|\\n| BK1 | confirmed | 10:00 |")
    'The booking is BK1, the status is confirmed, the time is 10:00.'
    >>> as_sentences("Sorry, I can't cancel it: it is completed.")
    "Sorry, I can't cancel it: it is completed."
    """
    out: list[str] = []
    rows: list[list[str]] = []
    headed = False
    for line in [*answer.split("\n"), ""]:
        cells = _cells(line)
        if cells is not None:
            if not _RULE_ROW.match(line):
                rows.append(cells)
            else:
                headed = headed or len(rows) == 1
            continue
        if rows:
            out += _table(rows, headed)
            rows, headed = [], False
        bullet = _BULLET.match(line)
        text = line[bullet.end() :] if bullet else line
        field = _field(text)
        if field is not None:
            out.append(_sentence(_clause(*field)))
        elif bullet and text.strip():
            out.append(text.rstrip() + ("" if text.rstrip().endswith(_ENDS) else "."))
        else:
            out.append(line)
    return "\n".join(out[:-1])
