"""The built-in domain ontology: ``synthesis/domains/ontology/<sector>.json`` files, validated strictly."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from envs.errors import SpecError

from .domain import Domain

ONTOLOGY_DIR = Path(__file__).resolve().parent / "ontology"


def load_ontology(root: Path = ONTOLOGY_DIR) -> list[Domain]:
    """Every built-in domain, sorted by id (errors name the file and the domain's index).

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
            domains[domain.id] = domain
    return [domains[k] for k in sorted(domains)]
