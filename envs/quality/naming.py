"""How users name records: internal keys and generated titles in the user's words.

A customer names a record by a code the system gave them (a booking reference, an order number) or
by what it is and when, not by a table's internal key nor by a title a generator made up. Both are
read from the spec and its seed alone:

* an **internal key** is a value of a one-column text primary key whose table either has a
  customer handle besides its key (another unique column that a read tool takes as a parameter of
  the same name: ``find_booking_by_reference(reference)``), or holds customers' records (the user
  table, or a table with an owner path) and numbers them with a row counter (one prefix and dense
  numbers: ``BK0001``, ``BK0002``, …). Random keys (``#W2378156``, ``4WQ150``) and keys made of the
  customer's name (``noah_brown_6181``) are codes the system shows its customers, as tau2's are;
* a **generated title** is a value of a text column whose seed values are almost all (90 %, at
  least 5 values) two to four capitalized words from Faker's lorem vocabulary, the words the seed
  generator strings together for titles ("Two Account Worker"); it is found in the user's words as
  written, capitals included ("please also book" does not name the warehouse "Also Book").

Rules and calibration: docs/synthesis.md ("Quality report").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .spec import Ownership
from .text import mentions, normalize


@functools.cache
def _lorem() -> frozenset[str]:
    # Faker takes ~0.2 s to import: loaded when a quality measure first needs it, not by the CLI
    from faker.providers.lorem.en_US import Provider

    return frozenset(w.lower() for w in Provider.word_list)


_COUNTER = re.compile(r"^(\D*)(\d+)$")
_TOKEN = re.compile(r"[#\w][\w#\-]*")
MIN_TITLE_VALUES, TITLE_SHARE = 5, 0.9


def handles(spec: EnvSpec, table: TableSpec) -> list[str]:
    """Columns other than the key by which a read tool finds rows of ``table``: unique columns (or
    one-column unique constraints) that some read tool takes as a parameter of the same name."""
    unique = {c.name for c in table.columns if c.unique} | {u[0] for u in table.unique if len(u) == 1}
    unique -= set(table.primary_key)
    params = {p for t in spec.tools if t.kind == "read" for p in t.parameters.get("properties", {})}
    return sorted(unique & params)


def is_row_counter(keys: Iterable[Any]) -> bool:
    """Whether keys are a database counter: text of one prefix and a number, the numbers dense
    (their span at most twice their count), as ``BK0001``, ``BK0002``, … are."""
    prefixes, numbers = set(), []
    for key in keys:
        m = _COUNTER.match(key) if isinstance(key, str) else None
        if m is None:
            return False
        prefixes.add(m.group(1))
        numbers.append(int(m.group(2)))
    return len(prefixes) == 1 and bool(numbers) and max(numbers) - min(numbers) + 1 <= 2 * len(numbers)


def internal_keys(spec: EnvSpec, ownership: Ownership, rows: Mapping[str, list[dict[str, Any]]]) -> dict[str, str]:
    """Every internal key value of the seed (normalized) -> its table."""
    out: dict[str, str] = {}
    for table in spec.tables:
        if len(table.primary_key) != 1:
            continue
        key = table.column(table.primary_key[0])
        if key is None or key.type != "text":
            continue
        values = [r[key.name] for r in rows.get(table.name, []) if r.get(key.name) is not None]
        owned = table.name == ownership.users or bool(ownership.paths.get(table.name))
        if handles(spec, table) or (owned and is_row_counter(values)):
            out.update({normalize(str(v)): table.name for v in values})
    return out


def is_lorem_title(value: Any) -> bool:
    """Two to four capitalized words, every one from Faker's lorem vocabulary."""
    if not isinstance(value, str):
        return False
    words = value.split()
    return 2 <= len(words) <= 4 and all(w[:1].isupper() and w.lower() in _lorem() for w in words)


def generated_titles(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> dict[str, str]:
    """Every value of a generated-title column (as written) -> ``table.column``."""
    out: dict[str, str] = {}
    for table in spec.tables:
        for column in table.columns:
            if column.type != "text":
                continue
            values = [r[column.name] for r in rows.get(table.name, []) if isinstance(r.get(column.name), str)]
            if len(values) >= MIN_TITLE_VALUES and sum(map(is_lorem_title, values)) >= TITLE_SHARE * len(values):
                out.update({v: f"{table.name}.{column.name}" for v in values})
    return out


@dataclass
class Names:
    """The internal keys and generated titles of one environment's seed, to look for in user text."""

    keys: dict[str, str]
    titles: dict[str, str]

    @classmethod
    def of(cls, spec: EnvSpec, ownership: Ownership, rows: Mapping[str, list[dict[str, Any]]]) -> Names:
        return cls(internal_keys(spec, ownership, rows), generated_titles(spec, rows))

    def keys_in(self, text: str) -> list[str]:
        """Internal keys that normalized ``text`` names (whole tokens)."""
        return sorted({t for t in _TOKEN.findall(text) if t in self.keys})

    def titles_in(self, text: str) -> list[str]:
        """Generated titles that ``text`` names as written (capitals included, on word boundaries)."""
        return sorted(t for t in self.titles if t in text and mentions(text, t))


def is_verb_form(word: str) -> bool:
    """Whether a column's word is a verb's present form ("renews", "closes"), not a noun."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


#: Roles of people who issue what the record is (a prescriber writes a prescription).
_ISSUERS = frozenset({"prescriber", "author", "physician", "recommender", "referrer", "issuer", "sender"})
#: Roles of people the record is for (a pickup person, the name on a certificate).
_SERVED = frozenset({"person", "certificate", "beneficiary", "recipient", "holder", "guest", "child", "student"})


def person_role(column: str) -> str:
    """How a record is named by the person in ``column``: "from" its issuer ("my prescription from
    Stephanie Baker", for ``prescriber``), "with" one who serves it ("my repair with Sam Lee", for
    ``technician``), "for" one it is for ("my pickup pass for Sam Lee", ``pickup_person``)."""
    words = column.split("_")
    if words[-1] in _SERVED or words[0] in ("for", "name"):
        return "for"
    if set(words) & _ISSUERS:
        return "from"
    if words[-1].endswith(("er", "or", "ian", "ist")) or words[-1] in ("host", "contact"):
        return "with"
    return "for"
