"""A date a move fills, against the row's status (measure 97): a draft application with a submission
day, an offered one without; the seed rule that keeps it (``synthesis.domains.filled_dates``) and the
create that no longer fills it."""

from __future__ import annotations

import copy

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.filled_dates import dates_off_their_move, filled_dates
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.filled_dates import settle_filled_dates
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env

_DOMAINS = {d.id: d for d in load_ontology()}


def _spec(domain_id: str) -> EnvSpec:
    return generate_env(assign_enforcement(_DOMAINS[domain_id]), seed=0).spec


@pytest.fixture(scope="module")
def abroad() -> EnvSpec:
    return _spec("study_abroad_applications")


def _copy(spec: EnvSpec) -> EnvSpec:
    return spec.model_copy(update={"seed": copy.deepcopy(spec.seed)})


def test_submitting_fills_the_submission_day(abroad):
    (found,) = [f for f in filled_dates(abroad) if f.table == "applications"]
    assert found.column == "submitted_on" and found.moves_to == {"submitted"}
    assert found.empty == {"draft"}
    assert {"submitted", "offered", "confirmed", "rejected"} <= found.filled
    assert "withdrawn" not in found.empty | found.filled  # withdrawn from a draft or once submitted


def test_generated_applications_carry_the_day_only_once_submitted(abroad):
    counts = dates_off_their_move(abroad)
    assert counts.filled_dates_checked > 0
    assert counts.dates_off_their_move == 0


def test_a_draft_with_a_day_and_an_offer_without_are_counted_and_mended(abroad):
    spec = _copy(abroad)
    rows = spec.seed["applications"]
    draft = next(r for r in rows if r["status"] == "draft")
    offered = next(r for r in rows if r["status"] == "offered")
    draft["submitted_on"], offered["submitted_on"] = "2026-01-10", None
    assert dates_off_their_move(spec).dates_off_their_move == 2
    assert settle_filled_dates(spec) == 2
    assert draft["submitted_on"] is None
    assert offered["submitted_on"] is not None and offered["submitted_on"] < spec.clock.strftime("%Y-%m-%d")
    assert dates_off_their_move(spec).dates_off_their_move == 0


def test_a_new_application_is_made_without_a_submission_day(abroad):
    create = next(t for t in abroad.tools if t.name == "create_application")
    insert = next(s.sql for s in create.steps if s.sql and s.sql.startswith('INSERT INTO "applications"'))
    columns, values = insert.split(") VALUES (")
    names = [c.strip().strip('"') for c in columns.split("(", 1)[1].split(",")]
    assert values.split(",")[names.index("submitted_on")].strip() == "NULL"


def test_a_renewal_day_a_pause_moves_is_not_read():
    spec = _spec("coworking_space_memberships")
    assert not [f for f in filled_dates(spec) if f.column == "renews_on"]


def test_a_draft_expense_report_has_no_submission_day():
    spec = _spec("employee_expense_claims")
    (found,) = [f for f in filled_dates(spec) if f.column == "submitted_on"]
    assert found.nullable and found.empty == {"draft"}
    drafts = [r for r in spec.seed["expense_reports"] if r["status"] == "draft"]
    assert drafts and all(r["submitted_on"] is None for r in drafts)
    assert dates_off_their_move(spec).dates_off_their_move == 0
