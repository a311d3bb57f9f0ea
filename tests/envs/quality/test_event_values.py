"""Values an event makes, on rows whose status says they have not been through it (measure 90): score
recipients on an exam registration not scored; and the seed rule that keeps them
(``synthesis.domains.status_fields``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.event_values import event_values, values_before_event
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.status_fields import fit_status_fields
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_count_only_tools_past_the_event_move_is_read_with_the_value_it_is_made_with(domains):
    (rule,) = event_values(generated(domains, "standardized_exam_registration"))
    assert (rule.table, rule.column, rule.made, rule.reached) == ("registrations", "score_recipients", "0", {"scored"})
    assert rule.earlier == {"registered", "checked_in", "no_show", "cancelled"}


def test_a_count_any_tool_moves_says_nothing_of_the_event(domains):
    # seats left move on registering and cancelling, whatever the sitting's state
    assert all(r.column != "seats_left" for r in event_values(generated(domains, "standardized_exam_registration")))


def test_generated_seeds_make_no_value_before_its_event_and_a_drawn_one_is_reset(domains):
    spec = generated(domains, "standardized_exam_registration")
    counts = values_before_event(spec)
    assert counts.event_values_checked >= 10 and counts.values_before_event == 0
    rows = spec.seed["registrations"]
    missed = next(r for r in rows if r["status"] == "no_show")
    registered = next(r for r in rows if r["status"] == "registered")
    missed["score_recipients"], registered["score_recipients"] = 2, 4
    assert values_before_event(spec).values_before_event == 2
    assert fit_status_fields(spec) == 2
    assert missed["score_recipients"] == 0 and registered["score_recipients"] == 0
