"""Codes drawn in their trade's notation (``Attribute.format``) and names from a pool of real ones
(``Attribute.pool``): every value fits its form, the seed stays deterministic, and no other value moves."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import pytest
from pydantic import ValidationError

from synthesis.domains.domain import Attribute, Domain
from synthesis.domains.forms import FormDraws, FormError, draw_form, form_pattern, parse_form
from synthesis.domains.ontology import load_ontology
from synthesis.seeds.seedgen import attribute_value, generate_seed
from tests.measured import MEASURED

CLOCK = datetime(2026, 3, 2, 9, 0)


@pytest.fixture(scope="module")
def domains() -> dict[str, Domain]:
    return {d.id: d for d in load_ontology()}


def formed(domain: Domain) -> list[tuple[str, Attribute]]:
    return [(e.table, a) for e in domain.entities for a in e.attributes if a.format or a.pool]


def test_the_notation_reads_classes_choices_and_escapes():
    assert parse_form(r"{P|LT}9\9N") == [["P", "LT"], "9", ["9"], "N"]
    pattern = form_pattern("NAAA999")
    assert pattern.fullmatch("7KDL214") and not pattern.fullmatch("1KDL214") and not pattern.fullmatch("7KOL214")
    rng = random.Random(5)
    assert all(
        form_pattern("1ZXXXXXX{01|02}99999999").fullmatch(draw_form("1ZXXXXXX{01|02}99999999", rng)) for _ in range(50)
    )
    for bad in ("{A|B", "{A||B}", "AB\\", ""):
        with pytest.raises(FormError):
            parse_form(bad)


def test_an_attribute_with_a_format_of_the_wrong_kind_or_unreadable_is_refused():
    with pytest.raises(ValidationError, match="not code, phone or zip"):
        Attribute(name="note", kind="text", format="999")
    with pytest.raises(ValidationError, match="does not close"):
        Attribute(name="tire_size", kind="code", format="{205|215/55R16")
    with pytest.raises(ValidationError, match="pool"):
        Attribute(name="model", kind="title", pool=["Ascent GT"])
    assert Attribute(name="brand", kind="company", pool=["Michelin"]).pool == ["Michelin"]


def test_every_measured_domain_declares_forms_and_its_phones_are_formed(domains):
    for name in MEASURED:
        declared = formed(domains[name])
        assert declared, name
        phones = [a for e in domains[name].entities for a in e.attributes if a.kind == "phone"]
        assert phones and all(a.format for a in phones), name


def test_every_declared_attribute_draws_values_of_its_form_or_pool(domains):
    checked = 0
    for domain in domains.values():
        if not formed(domain):
            continue
        seed = generate_seed(domain, seed=1, clock=CLOCK)
        for table, attr in formed(domain):
            values = [r[attr.name] for r in seed[table] if r.get(attr.name) is not None]
            assert values, (domain.id, attr.name)
            for value in values:
                if attr.format:
                    assert form_pattern(attr.format).fullmatch(value), (domain.id, attr.name, value)
                else:
                    assert value in (attr.pool or []), (domain.id, attr.name, value)
                checked += 1
            if attr.unique:
                assert len(set(values)) == len(values), (domain.id, attr.name)
            if attr.pool and len(values) <= len(attr.pool):  # a name once before any twice
                assert len(set(values)) == len(values), (domain.id, attr.name)
    assert checked > 300


def without_forms(domain: Domain) -> Domain:
    entities = [
        e.model_copy(update={"attributes": [a.model_copy(update={"format": None, "pool": None}) for a in e.attributes]})
        for e in domain.entities
    ]
    return domain.model_copy(update={"entities": entities})


@pytest.mark.parametrize("name", ["tire_shop_installations", "parcel_delivery_exceptions", "lab_test_orders"])
def test_the_seed_is_deterministic_and_forms_move_no_other_value(domains, name):
    domain = domains[name]
    first, again = generate_seed(domain, seed=3, clock=CLOCK), generate_seed(domain, seed=3, clock=CLOCK)
    assert first == again
    plain = generate_seed(without_forms(domain), seed=3, clock=CLOCK)
    shaped = {(table, a.name) for table, a in formed(domain)}
    changed: set[tuple[str, str]] = set()
    for table, rows in first.items():
        assert len(rows) == len(plain[table])
        for row, other in zip(rows, plain[table], strict=True):
            moved = {(table, c) for c in row if row[c] != other[c]}
            if (table, "make") in moved or (table, "vin") in moved:
                continue
            changed |= moved
    assert changed and changed <= shaped, changed - shaped


def test_a_value_a_user_gives_fits_the_form_and_repeats_with_the_stream(domains):
    from faker import Faker

    phone = next(a for e in domains["self_storage_rentals"].entities for a in e.attributes if a.kind == "phone")
    values: list[Any] = []
    for _ in range(2):
        fake, rng = Faker("en_US"), random.Random(9)
        fake.seed_instance(9)
        values.append([attribute_value(phone, fake, rng, CLOCK) for _ in range(20)])
    assert values[0] == values[1]
    assert all(form_pattern(phone.format or "").fullmatch(v) for v in values[0])


def test_a_unique_form_draws_again_until_unused():
    draws = FormDraws(random.Random(0))
    values = [draws.value("unit.code", "{A|B}9", None, unique=True) for _ in range(20)]
    assert sorted(values) == sorted(f"{letter}{d}" for letter in "AB" for d in range(10))
