"""The built-in domain ontology: ``synthesis/domains/ontology/<sector>.json`` files, validated strictly."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from envs.errors import SpecError

from .carried import carry_children
from .domain import Domain
from .flag_rows import check_flagged_rows
from .money_bands import band_problems
from .whole_payments import ask_something_left

ONTOLOGY_DIR = Path(__file__).resolve().parent / "ontology"


def derive_rules(domain: Domain) -> Domain:
    """The rules a domain implies besides those it states: a check on a flag also counts the rows the
    flag stands for, a cancel carries the children it would leave live, a payment of the whole asks
    that something is left (``flag_rows``, ``carried``, ``whole_payments``)."""
    return ask_something_left(carry_children(check_flagged_rows(domain)))


def load_ontology(root: Path = ONTOLOGY_DIR) -> list[Domain]:
    """Every built-in domain with the rules it implies (:func:`derive_rules`), sorted by id (errors
    name the file and the domain's index).

    >>> len(load_ontology()) >= 1
    True
    """
    files = sorted(root.glob("*.json"))
    if not files:  # an install without its data files would otherwise "generate" an empty catalog
        raise SpecError("no domain files (*.json) found: the ontology is missing from this install", source=str(root))
    domains: dict[str, Domain] = {}
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise SpecError(f"invalid JSON: {exc.msg} (line {exc.lineno})", source=str(path)) from None
        if not isinstance(data, dict) or not isinstance(data.get("domains"), list):
            raise SpecError('expected {"sector": ..., "domains": [...]}', source=str(path))
        for i, raw in enumerate(data["domains"]):
            try:
                domain = Domain.model_validate(raw)
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = ".".join(str(p) for p in err["loc"])
                raise SpecError(err["msg"], source=str(path), location=f"domains[{i}].{loc}") from None
            if domain.id in domains:
                raise SpecError(
                    f"domain id '{domain.id}' is defined twice", source=str(path), location=f"domains[{i}].id"
                )
            if problems := band_problems(domain):
                raise SpecError(problems[0], source=str(path), location=f"domains[{i}]")
            domains[domain.id] = derive_rules(domain)
    return [domains[k] for k in sorted(domains)]
