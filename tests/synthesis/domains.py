"""Small domains built in code for synthesis tests."""

from __future__ import annotations

import copy
import json
from typing import Any

from synthesis.domains.domain import Domain
from synthesis.domains.ontology import ONTOLOGY_DIR


def library_dict() -> dict[str, Any]:
    """The worked example of the ontology (library loans), as a fresh dict."""
    data = json.loads((ONTOLOGY_DIR / "education.json").read_text())
    domain = copy.deepcopy(next(d for d in data["domains"] if d["id"] == "library_loans"))
    # The ontology makes the desk return a staff action; the tests keep it an agent tool, as the
    # example's one transition that changes a referenced record (a book's free copies).
    transition(domain, "loan", "return").pop("actor", None)
    return domain


def library() -> Domain:
    return Domain.model_validate(library_dict())


def transition(data: dict[str, Any], entity: str, name: str) -> dict[str, Any]:
    e = next(x for x in data["entities"] if x["name"] == entity)
    return next(t for t in e["lifecycle"]["transitions"] if t["name"] == name)
