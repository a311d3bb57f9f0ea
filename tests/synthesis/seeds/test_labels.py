"""Labels that belong together (``Attribute.examples_by`` / ``values_by``): the spec's validation names
the field and value at fault, the seed draws a keyed value from its key's pool (of the same record or a
referenced one), the last pass keeps it after other rules, and a user's new record fits its key."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import ValidationError

from envs.quality.labels import labels_apart
from synthesis.domains.domain import Domain
from synthesis.domains.labels import fit_inputs, keeps_dependents, settle_labels
from synthesis.tools.envgen import generate_env
from tests.synthesis.domains import library_dict

TITLES = {
    "children": ["Small Wonders", "The Lantern Keeper"],
    "history": ["Echoes of the Empire", "The Salt Road"],
    "science": ["The Quiet Orbit", "How the Mountains Grew"],
}
FORMATS = {"children": ["picture_book"], "science": ["hardcover", "ebook"]}


def keyed_library(**changes: Any) -> dict[str, Any]:
    """The library with a book's title keyed by its genre and a loan's format by its book's genre."""
    data = library_dict()
    book = next(e for e in data["entities"] if e["name"] == "book")
    title = next(a for a in book["attributes"] if a["name"] == "title")
    title["examples_by"] = {"genre": TITLES}
    loan = next(e for e in data["entities"] if e["name"] == "loan")
    fmt = {"name": "format", "kind": "enum", "values": ["hardcover", "ebook", "audiobook", "picture_book"]}
    loan["attributes"].append({**fmt, "values_by": {"book.genre": FORMATS}, **changes})
    return data


def entity(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in data["entities"] if e["name"] == name)


def test_a_keyed_library_validates_and_its_spec_carries_the_pools():
    spec = generate_env(Domain.model_validate(keyed_library()), seed=0).spec
    loans = spec.table("loans")
    fmt = next(c for c in loans.columns if c.name == "format")
    assert fmt.pools is not None and fmt.pools.by == "book_id.genre" and fmt.pools.values == FORMATS
    title = next(c for c in spec.table("books").columns if c.name == "title")
    assert title.pools is not None and title.pools.by == "genre"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"values_by": {"book.shelf": FORMATS}}, "values_by key 'book.shelf' names no attribute"),
        ({"values_by": {"shelf.genre": FORMATS}}, "values_by key 'shelf.genre' names no attribute"),
        ({"values_by": {"book.genre": {"poetry": ["ebook"]}}}, "values_by key 'book.genre' has no value(s) ['poetry']"),
        ({"values_by": {"book.genre": {"science": []}}}, "values_by 'book.genre' value 'science' has an empty pool"),
        ({"values_by": {"book.genre": {"science": ["scroll"]}}}, "value 'science' allows ['scroll']"),
        ({"values_by": {"book.genre": FORMATS, "book.title": {}}}, "values_by names one key attribute, not 2"),
        ({"values_by": {"format": FORMATS}}, "values_by key 'format' is the attribute itself"),
        ({"values_by": {"book.isbn": {"X": ["ebook"]}}}, "values_by key 'book.isbn' is a code"),
        ({"examples_by": {"book.genre": {"science": ["x"]}}}, "has examples_by but kind 'enum' is not text or title"),
    ],
)
def test_bad_keys_are_refused_naming_the_field_and_value(change, message):
    with pytest.raises(ValidationError) as err:
        Domain.model_validate(keyed_library(**change))
    assert message in str(err.value)
    assert "format" in str(err.value)  # the attribute at fault


def test_a_values_by_on_a_text_attribute_is_refused():
    data = library_dict()
    title = next(a for a in entity(data, "book")["attributes"] if a["name"] == "title")
    title["values_by"] = {"genre": {"science": ["The Quiet Orbit"]}}
    with pytest.raises(ValidationError, match="attribute 'title' has values_by but is not an enum"):
        Domain.model_validate(data)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seeds_draw_a_keyed_value_from_its_keys_pool(seed):
    spec = generate_env(Domain.model_validate(keyed_library()), seed=seed).spec
    books = {b["book_id"]: b for b in spec.seed["books"]}
    keyed_books = [b for b in books.values() if b["genre"] in TITLES and b["title"] is not None]
    assert keyed_books and all(b["title"] in TITLES[b["genre"]] for b in keyed_books)
    loans = [x for x in spec.seed["loans"] if books[x["book_id"]]["genre"] in FORMATS and x["format"] is not None]
    assert loans and all(x["format"] in FORMATS[books[x["book_id"]]["genre"]] for x in loans)
    # the genres the pools leave out still draw from every value: fiction books and their loans vary
    free = {x["format"] for x in spec.seed["loans"] if books[x["book_id"]]["genre"] == "fiction"}
    assert len(free) > 1
    counts = labels_apart(spec)
    assert counts.keyed_labels_checked == len(keyed_books) + len(loans) and counts.labels_off_their_pool == 0


def test_the_last_pass_puts_back_a_value_another_rule_moved_off_its_pool():
    domain = Domain.model_validate(keyed_library())
    spec = generate_env(domain, seed=0).spec
    books = {b["book_id"]: b for b in spec.seed["books"]}
    loan = next(x for x in spec.seed["loans"] if books[x["book_id"]]["genre"] == "children")
    loan["format"] = "audiobook"
    book = next(b for b in books.values() if b["genre"] == "science")
    book["title"] = "Small Wonders"
    assert labels_apart(spec).labels_off_their_pool == 2
    assert settle_labels(domain, spec) == 2
    assert loan["format"] == "picture_book" and book["title"] in TITLES["science"]


def test_a_new_record_takes_a_value_its_parent_allows():
    domain = Domain.model_validate(keyed_library())
    loan = domain.entity("loan")
    books = {"B1": {"genre": "children"}, "B2": {"genre": "fiction"}}

    def parent(name: str, key: Any) -> dict[str, Any] | None:
        return books.get(key) if name == "book" else None

    rng = random.Random(3)
    fitted = fit_inputs(domain, loan, {"book_id": "B1"}, {"format": "ebook"}, parent, rng)
    assert fitted == {"format": "picture_book"}
    kept = fit_inputs(domain, loan, {"book_id": "B2"}, {"format": "ebook"}, parent, rng)
    assert kept == {"format": "ebook"}  # fiction has no pool: any format fits


def test_a_key_changed_by_a_task_keeps_the_values_keyed_by_it():
    domain = Domain.model_validate(keyed_library())
    book, loan = domain.entity("book"), domain.entity("loan")
    row = {"book_id": "B1", "genre": "children", "title": "Small Wonders"}
    loans = [{"loan_id": "L1", "book_id": "B1", "format": "picture_book"}, {"loan_id": "L2", "book_id": "B2"}]

    def rows(e: Any) -> list[dict[str, Any]]:
        return loans if e is loan else []

    # a children's book made history: its own title and its loan's picture-book format no longer fit
    assert not keeps_dependents(domain, book, {**row, "title": "The Salt Road"}, {"genre": "children"}, rows)
    assert not keeps_dependents(domain, book, {**row, "title": "The Salt Road"}, {"genre": "science"}, lambda e: [])
    assert not keeps_dependents(domain, book, row, {"genre": "science"}, rows)
    assert keeps_dependents(domain, book, {**row, "title": "The Salt Road"}, {"genre": "history"}, lambda e: [])
    assert keeps_dependents(domain, book, row, {"genre": "fiction"}, rows)  # fiction allows any format
    assert keeps_dependents(domain, book, row, {"copies_available": 3}, rows)  # no key changed
