"""A unique name drawn from few examples is numbered once the examples run out, as people number a
taken handle ("TacoTuesday2", "NightOwl_92_2"), and no two rows share one (a reviewer found one
handle used by three players)."""

from __future__ import annotations

from collections import Counter

from .generated import domain, generated_spec


def test_no_two_players_share_a_display_name() -> None:
    players = generated_spec("game_store_refunds").seed["players"]
    names = Counter(p["display_name"] for p in players)
    examples = domain("game_store_refunds").entities[0].attributes[3].examples or []
    assert len(players) > len(examples)  # the examples run out, so numbering is exercised
    assert max(names.values()) == 1
    numbered = [n for n in names if n not in examples]
    assert numbered and all(" " not in n and n[-1].isdigit() for n in numbered)
    # a handle already ending in a digit keeps its own digits apart from the number ("NightOwl_92_2")
    digit_ended = [e for e in examples if e[-1].isdigit()]
    assert digit_ended
    for example in digit_ended:
        again = [n for n in numbered if n.startswith(example)]
        assert again and all(n[len(example)] == "_" for n in again)
