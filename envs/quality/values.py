"""The kind of value a column holds, read from its name and type, and whether a value is of that kind.

A spec has no semantic kinds, only names and SQL types; but a column called ``country`` or
``phone`` holds a country or a phone number whatever wrote the spec. The filler-value measure
uses this to find words that are no value of their column's kind ("Call me first" as a country).
Rules: docs/synthesis.md ("Quality report", filler values).
"""

from __future__ import annotations

import re

from ..formats.spec import ColumnSpec, TableSpec
from .text import word_set

#: Kinds by a word of the column name (its words are split at ``_``), tried in this order.
_KIND_WORDS: list[tuple[str, frozenset[str]]] = [
    ("email", word_set("email")),
    ("phone", word_set("phone mobile telephone tel fax")),
    ("zip", word_set("zip zipcode postcode postal")),
    ("url", word_set("url website homepage link")),
    # as the last word only: ``booking_reference``, ``member_id``, ``payout_account``
    ("code", word_set("code number no id ref reference plate vin sku isbn iban serial tag pin account")),
    (
        "name",
        word_set(
            """name country city town province street address company employer carrier insurer shop
            pharmacy bank vendor party model"""
        ),
    ),
]
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_PHONE = re.compile(r"^\+?[\d\s().\-/]+$")
_ZIP = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 \-]{1,9}$")
_URL = re.compile(r"^https?://\S+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_CODE = re.compile(r"^[#A-Za-z0-9][\w#./\-]*$")
#: Lower-case words a proper name may hold: "Bosnia and Herzegovina", "Isle of Man", "van Dijk".
_NAME_PARTICLES = word_set("and of the de del da di la le du van von der den upon on in at y e st")


def column_kind(table: TableSpec, column: ColumnSpec) -> str | None:
    """The structured kind of a column (email, phone, zip, url, code, name, date), or None for free
    text, numbers, enums and keys (a key or foreign key names a row, whatever its name says).
    ``date`` comes from the type; the others from a word of the name: ``code`` only from the last
    word (``booking_reference``, ``plate_number``), the rest from any word (``contact_phone``,
    ``billing_city``); ``name`` covers names of people, places, companies and products."""
    keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
    if column.name in keys:
        return None
    if column.type in ("date", "datetime"):
        return "date"
    if column.type != "text" or column.enum:
        return None
    return name_kind(column.name)


def name_kind(name: str) -> str | None:
    """The structured kind a text column's name says it holds (see :func:`column_kind`), or None."""
    words = name.split("_")
    for kind, names in _KIND_WORDS:
        if kind == "code":
            if words[-1] in names:
                return kind
        elif any(w in names for w in words):
            return kind
    return None


def fits_kind(kind: str, value: object) -> bool:
    """Whether ``value`` can be a value of ``kind``: an email has one @ and a domain; a phone number
    seven or more digits and nothing but separators; a zip code up to 10 letters and digits with a
    digit; a url a scheme; a date an ISO date; a code is one token with a digit or in capitals; a
    name (a person, place or company) has no lower-case word of three letters or more except the
    particles of names ("Isle of Man"), and no sentence punctuation."""
    if not isinstance(value, str):
        return kind != "date" and not isinstance(value, bool)
    text = value.strip()
    if not text:
        return False
    if kind == "email":
        return bool(_EMAIL.match(text))
    if kind == "phone":
        return bool(_PHONE.match(text)) and sum(ch.isdigit() for ch in text) >= 7
    if kind == "zip":
        return bool(_ZIP.match(text)) and any(ch.isdigit() for ch in text)
    if kind == "url":
        return bool(_URL.match(text))
    if kind == "date":
        return bool(_DATE.match(text))
    if kind == "code":
        return bool(_CODE.match(text)) and (any(ch.isdigit() for ch in text) or text.isupper())
    if any(ch in text for ch in "!?;:"):
        return False
    words = re.findall(r"[^\W\d_]+", text)
    return bool(words) and not any(w.islower() and len(w) >= 3 and w not in _NAME_PARTICLES for w in words)
