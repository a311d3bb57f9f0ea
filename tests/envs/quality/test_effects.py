"""Measure 48: tools whose effect or check disagrees with the environment's rules, counted on the engine
for the domains the seed-59 review read, as the ontology states them and with the rules it implies."""

from __future__ import annotations

import json

import pytest

from envs import Environment
from envs.quality.effects import EffectCounts, effect_counts
from synthesis.domains.domain import Domain
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import ONTOLOGY_DIR, derive_rules
from synthesis.tools.envgen import generate_env


def _stated(domain_id: str) -> Domain:
    """The domain as its file states it, without the rules it implies."""
    for path in sorted(ONTOLOGY_DIR.glob("*.json")):
        for raw in json.loads(path.read_text())["domains"]:
            if raw["id"] == domain_id:
                return Domain.model_validate(raw)
    raise KeyError(domain_id)


def _counts(domain: Domain) -> EffectCounts:
    return effect_counts(Environment(generate_env(assign_enforcement(domain), seed=0).spec))


@pytest.mark.parametrize(
    ("domain_id", "checked", "broken"),
    [
        ("banquet_event_planning", "parent_moves_checked", "parent_moves_leaving_children_live"),
        ("dealership_test_drives", "flag_checks", "flag_checks_without_rows"),
        ("phone_bill_disputes", "whole_payments_checked", "whole_payments_of_nothing"),
    ],
)
def test_the_review_s_defects_are_counted_before_and_gone_after(domain_id, checked, broken):
    stated = _stated(domain_id)
    before, after = _counts(stated), _counts(derive_rules(stated))
    assert getattr(before, broken) >= 1 and getattr(before, checked) >= getattr(before, broken)
    assert getattr(after, checked) >= 1 and getattr(after, broken) == 0


def test_children_left_live_are_counted_row_by_row():
    """Cancelling each cancellable event of the seed leaves its submitted orders with the kitchen."""
    before = _counts(_stated("banquet_event_planning"))
    assert before.children_left_live >= before.parent_moves_leaving_children_live
    assert _counts(derive_rules(_stated("banquet_event_planning"))).children_left_live == 0


def test_a_refund_of_a_deposit_is_no_payment_of_nothing():
    """The cancel refunds the whole deposit and sets it to 0; a cancel with no deposit is still a cancel."""
    assert _counts(derive_rules(_stated("banquet_event_planning"))).whole_payments_checked == 0
