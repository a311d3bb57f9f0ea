"""One owner holding the same thing twice (measure 84): a player owning one game through two purchases;
and the seed rule that keeps it (``synthesis.domains.owned_twice``)."""

from __future__ import annotations

import copy

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.owned_twice import owned_twice, titles
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.owned_twice import settle_owned_twice
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def game_store() -> EnvSpec:
    domains = {d.id: d for d in load_ontology()}
    return generate_env(assign_enforcement(domains["game_store_refunds"]), seed=0).spec


def test_a_purchase_owned_records_a_players_title_to_a_game(game_store):
    [title] = titles(game_store)
    assert (title.table, title.person, title.thing, title.states) == (
        "game_purchases",
        "player_id",
        "game_id",
        frozenset({"owned"}),
    )


def test_generated_players_own_each_game_once(game_store):
    counts = owned_twice(game_store)
    assert counts.owned_rows_checked == sum(r["status"] == "owned" for r in game_store.seed["game_purchases"]) > 0
    assert counts.owned_twice == 0


def test_a_second_copy_is_counted_and_moved_to_a_game_not_owned(game_store):
    spec = game_store.model_copy(update={"seed": copy.deepcopy(game_store.seed)})
    owned = [r for r in spec.seed["game_purchases"] if r["status"] == "owned"]
    first, second = owned[0], next(r for r in owned[1:] if r["player_id"] != owned[0]["player_id"])
    second["player_id"], second["game_id"] = first["player_id"], first["game_id"]
    assert owned_twice(spec).owned_twice == 1
    assert settle_owned_twice(spec) == 1
    held = [r["game_id"] for r in spec.seed["game_purchases"] if r["player_id"] == first["player_id"]]
    assert second["status"] == "owned" and second["game_id"] != first["game_id"]
    assert owned_twice(spec).owned_twice == 0 and held.count(first["game_id"]) >= 1


def test_a_refunded_copy_leaves_room_for_another(game_store):
    spec = game_store.model_copy(update={"seed": copy.deepcopy(game_store.seed)})
    owned = [r for r in spec.seed["game_purchases"] if r["status"] == "owned"]
    first, second = owned[0], next(r for r in owned[1:] if r["player_id"] != owned[0]["player_id"])
    second["player_id"], second["game_id"], second["status"] = first["player_id"], first["game_id"], "refunded"
    assert owned_twice(spec).owned_twice == 0
