"""Values a user gives: for a field of a new or changed record, or for a parameter of an action.

A structured field gets a realistic value of its kind, made as the seed rows' values are (the seed
generator's Faker values): a country is a country, a plate number a plate number, never "Call me
first". The kind is the attribute's (person_name, company, phone, zip, country, code, url ...); a
free-text attribute whose name says it holds a structured value (the quality report's column
kinds: ``destination_city``, ``new_carrier``, ``vehicle_model``) is taken as that kind. Only free
text (a reason, a note, a description) is in the user's own words (:meth:`.Phrasing.param_value`).
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from faker import Faker

from envs.quality.text import word_set
from envs.quality.values import name_kind

from ..domains.domain import Attribute, SemanticKind
from ..seeds.seedgen import attribute_value
from .phrasing import Phrasing

#: Kinds whose values the seed generator makes (dates and numbers have their own rules).
STRUCTURED = word_set("person_name first_name last_name company email phone street_address city zip country code url")
#: A name-kind column (quality report) by a word of its name -> the kind of value it holds.
_NAMED: list[tuple[frozenset[str], SemanticKind]] = [
    (frozenset({"country"}), "country"),
    (frozenset({"city", "town", "province"}), "city"),
    (frozenset({"street", "address"}), "street_address"),
    (
        frozenset({"company", "employer", "carrier", "insurer", "shop", "pharmacy", "bank", "vendor", "party"}),
        "company",
    ),
]
#: What a name carries that its owner's address does not: "John Smith MD" is john.smith@.
_SUFFIXES = frozenset({"md", "dds", "phd", "jr", "sr", "ii", "iii", "iv", "dvm", "pharmd"})
_MODEL_NAMES = ("One", "Pro", "Max", "Sport", "Lite", "Plus", "GT", "LX")


class UserValues:
    """Realistic values of structured kinds, drawn with the task generator's seeded RNG."""

    def __init__(self, rng: random.Random, say: Phrasing, clock: datetime) -> None:
        self.rng = rng
        self.say = say
        self.clock = clock
        self.fake = Faker("en_US")

    def email(self, person: str | None = None) -> str:
        """An address a person gives for someone: that person's name at a mail provider (never a
        made-up handle), a drawn name's when none is given."""
        self.fake.seed_instance(self.rng.randint(0, 2**31))
        named = [w for w in (person or self.fake.name()).split() if not w.endswith(".") and w.lower() not in _SUFFIXES]
        words = [w for w in ("".join(c for c in w.lower() if c.isalpha()) for w in named) if w]
        local = f"{words[0]}.{words[-1]}" if len(words) >= 2 else (words[0] if words else "contact")
        return f"{local}@{self.rng.choice(('example.org', 'example.net'))}"

    def kind_of(self, name: str, kind: str) -> str | None:
        """The structured kind of value a field takes: its own kind if structured; for free text and
        titles, the kind its name says (None: free text)."""
        if kind in STRUCTURED:
            return kind
        if kind not in ("text", "title"):
            return None
        said = name_kind(name)
        if said in STRUCTURED:
            return said
        if said == "name":
            words = set(name.split("_"))
            if "model" in words:
                return "model"
            found = next((k for names, k in _NAMED if words & names), None)
            return found or ("person_name" if kind == "text" else None)  # a title keeps its own words
        return None

    def text(
        self, name: str, kind: str, schema: dict[str, Any], attr: Attribute | None = None, verb: str | None = None
    ) -> Any:
        """A value for a string field without a format: realistic for a structured kind (made as the
        seed's values of ``attr`` are, with its code prefix), else in the user's own words (``verb``:
        the transition it is given to, whose reason a reason field holds)."""
        if attr is not None and attr.examples:  # the field's own kind of text, as the seed has it
            return self.rng.choice(attr.examples)
        structured = self.kind_of(name, kind)
        if structured is None:
            return self.say.param_value(name, schema, verb)
        self.fake.seed_instance(self.rng.randint(0, 2**31))
        if structured == "model":
            return f"{self.fake.last_name()} {self.rng.choice(_MODEL_NAMES)}"
        if attr is None or attr.kind != structured:
            attr = Attribute(name=name, kind=structured)
        return attribute_value(attr, self.fake, self.rng, self.clock)
