"""Reference rows that repeat (measure 71): two "Canadian Dollar" rows among an exchange desk's
currencies; and the seed rule that names each thing once (``synthesis.domains.catalog_names``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.catalog_names import CatalogNames, catalog_names, catalog_names_repeated, names_thing, repeated
from synthesis.domains.catalog_names import catalog_name
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


@pytest.mark.parametrize(
    ("table", "column", "names"),
    [
        ("currencies", "currency_name", True),
        ("branches", "branch_name", True),
        ("books", "title", True),
        ("meeting_rooms", "room_name", True),
        ("vessel_voyages", "vessel_name", False),  # voyages of one vessel share its name
        ("course_sections", "course_title", False),
        ("classes", "instructor_name", False),
    ],
)
def test_a_name_column_names_the_thing_its_table_lists(table, column, names):
    assert names_thing(table, column) is names


def test_public_tables_with_a_name_are_read_and_owned_ones_are_not(domains):
    found = catalog_names(generated(domains, "currency_exchange_orders"))
    assert found == [
        CatalogNames("currencies", "currency_name", None),
        CatalogNames("branches", "branch_name", None),
    ]


def test_a_name_repeats_only_among_rows_of_one_parent():
    names = CatalogNames("room_types", "room_name", "hotel_id")
    rows = [
        {"hotel_id": "H1", "room_name": "Deluxe King"},
        {"hotel_id": "H2", "room_name": "Deluxe King"},
        {"hotel_id": "H1", "room_name": "deluxe king "},
    ]
    assert repeated(names, rows) == [rows[2]]


def test_a_repeated_currency_is_counted(domains):
    spec = generated(domains, "currency_exchange_orders")
    currencies = spec.seed["currencies"]
    assert catalog_names_repeated(spec).catalog_names_repeated == 0
    currencies[1]["currency_name"] = currencies[0]["currency_name"]
    assert catalog_names_repeated(spec).catalog_names_repeated == 1


# the last three draw their names from pools keyed by the row's own category (a television's names
# among televisions): the name sets its key, so the pool's rule does not draw it again
@pytest.mark.parametrize(
    "name",
    [
        "currency_exchange_orders",
        "hotel_room_reservations",
        "library_loans",
        "electronics_returns",
        "layaway_plans",
        "hotel_room_service",
    ],
)
def test_generated_seeds_name_each_reference_row_once(domains, name):
    domain = domains[name]
    named = [e for e in domain.entities if catalog_name(domain, e) is not None]
    assert named
    counts = catalog_names_repeated(generated(domains, name))
    assert counts.catalog_names_checked >= 10
    assert counts.catalog_names_repeated == 0


def test_an_owned_entity_is_not_read_as_a_reference_list(domains):
    domain = domains["currency_exchange_orders"]
    assert catalog_name(domain, domain.entity(domain.user_entity)) is None
    assert catalog_name(domain, domain.entity("currency")).name == "currency_name"
