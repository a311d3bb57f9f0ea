"""The words of a domain description: identifiers and the semantic kinds of attributes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import StringConstraints

Identifier = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=40)]
SemanticKind = Literal[
    "person_name",
    "first_name",
    "last_name",
    "company",
    "email",
    "phone",
    "street_address",
    "city",
    "zip",
    "country",
    "code",
    "title",
    "text",
    "enum",
    "money",
    "quantity",
    "integer",
    "percent",
    "rating",
    "date",
    "datetime",
    "boolean",
    "url",
]
NUMERIC_KINDS = frozenset({"money", "quantity", "integer", "percent", "rating"})
