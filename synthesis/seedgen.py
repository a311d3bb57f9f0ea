"""Referentially consistent seed rows for a domain (Faker, seeded: same seed, same rows).

Parents are generated before children; every reference picks an existing parent row. Status
values are spread so that every transition has rows it applies to and rows it refuses, which the
procedural tests and the task generator both need.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from faker import Faker

from .domain import Attribute, Domain, Entity
from .sqlgen import DomainError, pk

DEFAULT_ROWS = (20, 200)
_MAX_ROWS = 900  # ids of seed rows stay below the first generated id (prefix + 1001)


def entity_order(domain: Domain) -> list[Entity]:
    """Entities with every referenced entity before its referrers (DomainError on a cycle)."""
    done: list[Entity] = []
    seen: set[str] = set()
    visiting: set[str] = set()

    def visit(e: Entity) -> None:
        if e.name in seen:
            return
        if e.name in visiting:
            raise DomainError(f"entities reference each other in a cycle through '{e.name}'")
        visiting.add(e.name)
        for r in e.references:
            if r.entity != e.name:
                visit(domain.entity(r.entity))
        visiting.discard(e.name)
        seen.add(e.name)
        done.append(e)

    for e in domain.entities:
        visit(e)
    return done


def _row_count(domain: Domain, entity: Entity, rng: random.Random, rows: tuple[int, int]) -> int:
    lo, hi = entity.rows or rows
    referenced = any(r.entity == entity.name for e in domain.entities for r in e.references)
    if entity.rows is None:
        if entity.name == domain.user_entity:
            lo, hi = max(lo, 25), max(lo, min(hi, 60))
        elif not entity.references and referenced:
            lo, hi = lo, max(lo, min(hi, 40))
        else:
            lo, hi = max(lo, 30), max(lo, min(hi, 120))
    return min(rng.randint(lo, max(lo, hi)), _MAX_ROWS)


def _value(attr: Attribute, fake: Faker, rng: random.Random, clock: datetime, row: dict[str, Any], index: int) -> Any:
    k = attr.kind
    name = attr.name
    if k == "person_name":
        return f"{fake.first_name()} {fake.last_name()}"
    if k == "first_name":
        return fake.first_name()
    if k == "last_name":
        return fake.last_name()
    if k == "company":
        return fake.company()
    if k == "email":
        person = next((v for v in row.values() if isinstance(v, str) and " " in v and v.istitle()), None)
        local = (person or fake.user_name()).lower().replace(" ", ".").replace("'", "")
        return f"{local}{index}@example.com" if attr.unique else f"{local}@example.com"
    if k == "phone":
        return "+1" + "".join(str(rng.randint(0, 9)) for _ in range(10))
    if k == "street_address":
        return fake.street_address()
    if k == "city":
        return fake.city()
    if k == "zip":
        return fake.postcode()
    if k == "country":
        return fake.country()
    if k == "code":
        return (
            f"{attr.prefix or ''}{rng.randint(100000, 999999)}{index:03d}"
            if attr.unique
            else (f"{attr.prefix or ''}{rng.randint(1000, 9999)}")
        )
    if k == "title":
        return " ".join(w.capitalize() for w in fake.words(rng.randint(2, 4)))
    if k == "text":
        return fake.sentence(nb_words=8)
    if k == "enum":
        return rng.choice(attr.values or [""])
    if k == "boolean":
        return rng.random() < 0.5
    if k == "url":
        return f"https://{fake.domain_name()}/{fake.slug()}"
    if k in ("money", "quantity", "integer", "percent", "rating"):
        default = {
            "money": (5.0, 500.0),
            "quantity": (0, 20),
            "integer": (1, 100),
            "percent": (0, 100),
            "rating": (1, 5),
        }
        lo, hi = attr.range or default[k]
        if k == "money":
            if lo <= 0 and rng.random() < 0.15:  # settled balances: guards like "balance equals 0" need some
                return 0.0
            return round(rng.uniform(lo, hi), 2)
        return rng.randint(int(lo), int(hi))
    if k == "date":
        if "birth" in name or name in ("dob",):
            return (clock - timedelta(days=rng.randint(18 * 365, 80 * 365))).strftime("%Y-%m-%d")
        return (clock + timedelta(days=rng.randint(-120, 120))).strftime("%Y-%m-%d")
    if k == "datetime":
        day = clock + timedelta(days=rng.randint(-60, 60))
        return day.replace(hour=rng.randint(8, 18), minute=rng.choice((0, 15, 30, 45)), second=0).strftime(
            "%Y-%m-%d %H:%M:%S"
        )
    raise DomainError(f"attribute '{name}': unknown kind '{k}'")


def _state_weights(entity: Entity) -> list[float]:
    assert entity.lifecycle is not None
    lc = entity.lifecycle
    return [1.0 + 2 * sum(s in t.from_states for t in lc.transitions) for s in lc.states]


def generate_seed(
    domain: Domain, *, seed: int, clock: datetime, rows: tuple[int, int] = DEFAULT_ROWS
) -> dict[str, list[dict[str, Any]]]:
    """Seed rows per table for ``domain``."""
    rng = random.Random(f"{domain.id}:{seed}")
    fake = Faker("en_US")
    fake.seed_instance(rng.randint(0, 2**31))
    out: dict[str, list[dict[str, Any]]] = {}
    ids: dict[str, list[str]] = {}
    for entity in entity_order(domain):
        n = _row_count(domain, entity, rng, rows)
        table_rows = []
        for i in range(1, n + 1):
            row: dict[str, Any] = {pk(entity): f"{entity.id_prefix}{i:04d}"}
            for ref in entity.references:
                parents = ids.get(ref.entity, [])
                if ref.nullable and (not parents or rng.random() < 0.15):
                    row[ref.column] = None
                elif not parents:
                    raise DomainError(f"entity '{entity.name}' references '{ref.entity}', which has no rows")
                else:
                    row[ref.column] = rng.choice(parents)
            for attr in entity.attributes:
                if attr.nullable and rng.random() < 0.15:
                    row[attr.name] = None
                else:
                    row[attr.name] = _value(attr, fake, rng, clock, row, i)
            if entity.lifecycle:
                row[entity.lifecycle.field] = rng.choices(entity.lifecycle.states, _state_weights(entity))[0]
            table_rows.append(row)
        out[entity.table] = table_rows
        ids[entity.name] = [r[pk(entity)] for r in table_rows]
    return out
