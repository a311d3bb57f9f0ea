"""A status against its own row (measure 59): a layaway paid off that still owes its price, an account
`active` with a disconnect date while the pending one has none, a quote carrying the deposit its
signing adds, available credit that is not the limit less the balance; the seed rule that keeps them;
and a check-in for a sitting still ahead (measure 10's after-event statuses)."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.own_row import own_row_findings, states_against_own_row
from envs.quality.seed import status_date_contradictions
from envs.quality.spec import Ownership
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.own_row import fit_own_rows
from synthesis.tools.envgen import generate_env

from ..specs import SHOP


def table(name: str, columns: dict[str, str], statuses: list[str] | None = None) -> dict[str, Any]:
    key = name.removesuffix("s") + "_id"
    status = [{"name": "status", "type": "text", "enum": statuses}] if statuses else []
    return {
        "name": name,
        "primary_key": [key],
        "columns": [{"name": key, "type": "text"}]
        + [{"name": n, "type": t, "nullable": True} for n, t in columns.items()]
        + status,
    }


TABLES = [
    table(
        "layaways", {"total_price": "real", "amount_paid": "real", "balance_remaining": "real"}, ["open", "paid_off"]
    ),
    table("service_accounts", {"disconnect_date": "date"}, ["active", "disconnect_pending"]),
    table("card_accounts", {"credit_limit": "real", "available_credit": "real", "current_balance": "real"}),
    table("solar_projects", {"deposit_paid": "real"}, ["quoted", "contracted"]),
]
SIGN = {
    "name": "sign_contract_solar_project",
    "description": "Sign a quote: the 500.00 deposit is taken.",
    "kind": "write",
    "parameters": {
        "type": "object",
        "properties": {"solar_project_id": {"type": "string"}},
        "required": ["solar_project_id"],
    },
    "steps": [
        {
            "kind": "query",
            "sql": "SELECT * FROM solar_projects WHERE solar_project_id = :solar_project_id",
            "bind": "rec",
        },
        {"kind": "require", "sql": "SELECT :rec.status IN ('quoted')", "message": "not quoted"},
        {
            "kind": "exec",
            "sql": 'UPDATE "solar_projects" SET "deposit_paid" = round("deposit_paid" + 500, 2) '
            "WHERE solar_project_id = :solar_project_id",
        },
        {
            "kind": "exec",
            "sql": "UPDATE \"solar_projects\" SET status = 'contracted' WHERE solar_project_id = :solar_project_id",
        },
    ],
}


def seed() -> dict[str, list[dict[str, Any]]]:
    return {
        "layaways": [
            {
                "layaway_id": "L1",
                "total_price": 620.73,
                "amount_paid": 0.0,
                "balance_remaining": 620.73,
                "status": "paid_off",
            },
            {
                "layaway_id": "L2",
                "total_price": 80.0,
                "amount_paid": 80.0,
                "balance_remaining": 0.0,
                "status": "paid_off",
            },
            {"layaway_id": "L3", "total_price": 90.0, "amount_paid": 10.0, "balance_remaining": 80.0, "status": "open"},
        ],
        "service_accounts": [
            {"service_account_id": "A1", "disconnect_date": "2026-06-19", "status": "active"},  # against
            {"service_account_id": "A2", "disconnect_date": None, "status": "disconnect_pending"},  # against
            {"service_account_id": "A3", "disconnect_date": "2026-03-20", "status": "disconnect_pending"},
            {"service_account_id": "A4", "disconnect_date": None, "status": "active"},
        ],
        "card_accounts": [
            {"card_account_id": "C1", "credit_limit": 8879.75, "available_credit": 0.0, "current_balance": 3166.84},
            {"card_account_id": "C2", "credit_limit": 1000.0, "available_credit": 600.0, "current_balance": 400.0},
        ],
        "solar_projects": [
            {"solar_project_id": "P1", "deposit_paid": 1086.08, "status": "quoted"},  # against
            {"solar_project_id": "P2", "deposit_paid": 0.0, "status": "quoted"},
            {"solar_project_id": "P3", "deposit_paid": 500.0, "status": "contracted"},  # past the step: not read
        ],
    }


def spec_with(rows: dict[str, list[dict[str, Any]]]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"] += copy.deepcopy(TABLES)
    spec["tools"] = [*spec["tools"], copy.deepcopy(SIGN)]
    spec["seed"] |= rows
    return EnvSpec.model_validate(spec)


def test_statuses_against_their_own_row_are_counted_by_shape():
    found: Counter[str] = Counter()
    read: Counter[str] = Counter()
    spec = spec_with(seed())
    for shape, against in own_row_findings(spec, spec.seed):
        read[shape] += 1
        found[shape] += against
    assert read == {"paid": 2, "named date": 4, "limit": 2, "step": 2}
    assert found == {"paid": 1, "named date": 2, "limit": 1, "step": 1}
    counts = states_against_own_row(spec)
    assert (counts.own_row_states_checked, counts.states_against_own_row) == (10, 5)


def test_the_seed_rule_sets_each_column_by_its_status():
    spec = spec_with(seed())
    assert fit_own_rows(spec) == 5
    assert states_against_own_row(spec).states_against_own_row == 0
    rows = {t: {next(iter(r.values())): r for r in rs} for t, rs in spec.seed.items()}
    assert rows["layaways"]["L1"]["amount_paid"] == 620.73 and rows["layaways"]["L1"]["balance_remaining"] == 0
    assert rows["layaways"]["L3"]["balance_remaining"] == 80.0  # open: still owed
    assert rows["service_accounts"]["A1"]["disconnect_date"] is None
    assert rows["service_accounts"]["A2"]["disconnect_date"] > spec.clock.strftime("%Y-%m-%d")  # still ahead
    assert rows["card_accounts"]["C1"]["available_credit"] == 5712.91
    assert rows["solar_projects"]["P1"]["deposit_paid"] == 0 and rows["solar_projects"]["P3"]["deposit_paid"] == 500


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


@pytest.mark.parametrize(
    "name",
    ["electricity_utility_billing", "credit_card_disputes", "residential_solar_installs", "cruise_cabin_bookings"],
)
def test_generated_seeds_keep_statuses_with_their_own_row(domains, name):
    spec = generate_env(assign_enforcement(domains[name]), seed=0).spec
    counts = states_against_own_row(spec)
    assert counts.own_row_states_checked > 10
    assert counts.states_against_own_row == 0


def test_a_check_in_for_a_sitting_still_ahead_is_counted_and_the_seed_keeps_none(domains):
    # seed 1: seed 0 now draws no check-in (fewer rows since each test centre is named once)
    spec = generate_env(assign_enforcement(domains["standardized_exam_registration"]), seed=1).spec
    state = Ownership.of(spec).state(spec.seed)
    checked_in = sum(r["status"] == "checked_in" for r in spec.seed["registrations"])
    dates = status_date_contradictions(spec, state, spec.clock)
    assert checked_in and dates.after_checked >= checked_in
    assert dates.after_in_future == 0
    sittings = {r["exam_sitting_id"]: r for r in spec.seed["exam_sittings"]}
    ahead = next(
        r for r in spec.seed["registrations"] if sittings[r["exam_sitting_id"]]["sitting_at"][:10] > "2026-03-02"
    )
    ahead["status"] = "checked_in"
    assert status_date_contradictions(spec, Ownership.of(spec).state(spec.seed), spec.clock).after_in_future == 1


def test_a_completed_arrangement_with_installments_left_is_counted_and_cleared(domains):
    spec = generate_env(assign_enforcement(domains["electricity_utility_billing"]), seed=0).spec
    done = [r for r in spec.seed["payment_arrangements"] if r["status"] == "completed"]
    assert done and all(r["installments_left"] == 0 for r in done)
    done[0]["installments_left"] = 5
    active = next(r for r in spec.seed["payment_arrangements"] if r["status"] == "active")
    assert active["installments_left"] > 0  # still to come on a running arrangement: not read
    assert states_against_own_row(spec).states_against_own_row == 1
    assert fit_own_rows(spec) >= 1
    assert done[0]["installments_left"] == 0
