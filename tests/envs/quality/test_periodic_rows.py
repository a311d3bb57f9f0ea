"""Periodic rows at the wrong spacing (measure 77): a lot's monthly dues due ten days apart; and the seed
rule that keeps them (``synthesis.domains.periodic_rows``)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.periodic_rows import Periodic, periodic_rows_off, periodic_tables, series, whole_periods
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.periodic_rows import rule_edges, settle_periodic_rows
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_row_says_its_period_by_its_table_or_by_the_amount_it_repeats(domains):
    # the invoice's amount repeats the lot's monthly dues; the payment's date is the payer's to pick
    assert periodic_tables(generated(domains, "hoa_dues_and_requests")) == [
        Periodic("dues_invoices", "due_date", ("lot_id",), "monthly", "amount", "lots", "monthly_dues")
    ]
    [weekly] = periodic_tables(generated(domains, "unemployment_weekly_claims"))
    assert (weekly.table, weekly.column, weekly.period, weekly.amount) == (
        "weekly_certifications",
        "week_ending",
        "weekly",
        None,
    )
    # no period named anywhere: nothing to read
    assert periodic_tables(generated(domains, "telehealth_consultations")) == []


@pytest.mark.parametrize(
    ("a", "b", "period", "whole"),
    [
        ("2026-01-07", "2026-02-07", "monthly", True),
        ("2026-01-07", "2026-04-07", "monthly", True),  # a month skipped is still whole months
        ("2026-01-07", "2026-01-17", "monthly", False),  # ten days apart
        ("2026-01-31", "2026-02-28", "monthly", True),  # the last days of a month read alike
        ("2026-01-07", "2026-01-07", "monthly", False),  # two due the same day
        ("2026-01-03", "2026-01-17", "weekly", True),
        ("2026-01-03", "2026-01-15", "weekly", False),
        ("2026-01-07", "2026-04-07", "quarterly", True),
        ("2026-01-07", "2026-03-07", "quarterly", False),
    ],
)
def test_whole_periods(a, b, period, whole):
    assert whole_periods(date.fromisoformat(a), date.fromisoformat(b), period) is whole


@pytest.mark.parametrize("name", ["hoa_dues_and_requests", "after_school_programs", "unemployment_weekly_claims"])
def test_generated_seeds_space_periodic_rows_by_their_period(domains, name):
    counts = periodic_rows_off(generated(domains, name))
    assert counts.periodic_rows_checked > 5  # the claims seed holds one claim per claimant, fewer weeks
    assert counts.periodic_rows_off == 0


def test_dues_ten_days_apart_are_counted_and_moved_onto_the_month_keeping_their_side_of_the_clock(domains):
    spec = generated(domains, "hoa_dues_and_requests")
    [rule] = periodic_tables(spec)
    group = next(g for g in series(rule, spec, spec.seed) if len(g) >= 2)
    (first, _), (_, row) = group[0], group[1]
    moved = date.fromordinal(first.toordinal() + 10)
    row["due_date"] = moved.isoformat()
    assert periodic_rows_off(spec).periodic_rows_off >= 1
    assert settle_periodic_rows(spec, rule_edges(domains["hoa_dues_and_requests"])) >= 1
    assert periodic_rows_off(spec).periodic_rows_off == 0
    today = spec.clock.date()
    assert (date.fromisoformat(row["due_date"]) < today) == (moved < today)
