"""Seed dates as the tool making their record writes them (measure 52): a 30-day guarantee 30 days
after the install, a 21-day loan due 21 days after it was lent (14 more per renewal), a three-year
road-hazard warranty made within 60 days after its order's install, glasses' warranty 30 days after
they are ready, an application made before its posting closed."""

from __future__ import annotations

import copy
from datetime import date, datetime, timedelta

import pytest

from envs.quality.terms import MadeCheck, Term, dates_against_terms, made_checks, terms
from synthesis.domains.terms import settle_terms

from .generated import generated_spec


def _day(value: str) -> date:
    return datetime.fromisoformat(value.replace(" ", "T")).date()


def test_the_create_tools_name_the_terms_and_the_checks_on_the_day_a_record_is_made():
    tires = generated_spec("tire_shop_installations")
    assert Term("tire_orders", "install_at", "guarantee_ends", 30) in terms(tires)
    assert Term("road_hazard_warranties", None, "expires_on", 1095) in terms(tires)
    assert MadeCheck(
        "road_hazard_warranties", "tire_order_id", "tire_orders", "tire_order_id", "install_at", ">=", -1440
    ) in made_checks(tires)
    loans = generated_spec("library_loans")
    assert terms(loans) == [Term("loans", "loaned_on", "due_date", 21, (14,))]  # a renewal adds 14 days
    glasses = terms(generated_spec("eyewear_prescription_orders"))
    assert Term("eyewear_orders", "ready_by", "warranty_until", 30) in glasses
    checks = made_checks(generated_spec("candidate_recruiting_pipeline"))
    assert [(c.table, c.column, c.op) for c in checks] == [("job_applications", "closes_on", ">")]


@pytest.mark.parametrize(
    ("domain_id", "least"),
    [
        ("tire_shop_installations", 150),  # 57 of 87 guarantees ended before the install
        ("library_loans", 30),  # a loan running 127 days under 21-day loans
        ("eyewear_prescription_orders", 60),  # a warranty ending before the glasses are ready
        ("candidate_recruiting_pipeline", 40),  # an application made after its posting closed
    ],
)
def test_generated_seeds_keep_the_dates_their_tools_set(domain_id, least):
    counts = dates_against_terms(generated_spec(domain_id))
    assert counts.term_dates_checked >= least
    assert counts.dates_against_their_terms == 0


def test_a_guarantee_runs_its_thirty_days_and_a_loan_its_weeks():
    tires = generated_spec("tire_shop_installations")
    for order in tires.seed["tire_orders"]:
        assert _day(order["guarantee_ends"]) - _day(order["install_at"]) == timedelta(days=30)
    orders = {o["tire_order_id"]: o for o in tires.seed["tire_orders"]}
    for warranty in tires.seed["road_hazard_warranties"]:
        made = _day(warranty["expires_on"]) - timedelta(days=1095)
        installed = _day(orders[warranty["tire_order_id"]]["install_at"])
        assert installed <= made <= installed + timedelta(days=60)
    for loan in generated_spec("library_loans").seed["loans"]:
        days = (_day(loan["due_date"]) - _day(loan["loaned_on"])).days
        assert days in (21, 35, 49, 63)


def test_the_measure_counts_dates_the_tool_would_not_have_set_and_the_seed_rule_moves_them():
    spec = copy.deepcopy(generated_spec("tire_shop_installations"))
    order = next(o for o in spec.seed["tire_orders"] if o["status"] == "installed")
    order["guarantee_ends"] = "2026-01-26 11:15:00"  # before its install, as TO0003 had it
    order["install_at"] = "2026-02-06 17:45:00"
    warranty = spec.seed["road_hazard_warranties"][0]
    warranty["expires_on"] = "2026-01-03"  # three years from a day long before its order was installed
    assert dates_against_terms(spec).dates_against_their_terms >= 2
    assert settle_terms(spec) >= 2
    assert dates_against_terms(spec).dates_against_their_terms == 0
    assert order["guarantee_ends"] == "2026-03-08 17:45:00"


def test_a_renewed_loan_is_not_counted_and_a_long_one_is():
    spec = copy.deepcopy(generated_spec("library_loans"))
    loan = spec.seed["loans"][0]
    loan.update(loaned_on="2026-01-10", due_date="2026-02-14")  # 21 days and one renewal of 14
    assert dates_against_terms(spec).dates_against_their_terms == 0
    loan.update(due_date="2026-05-17")  # 127 days
    assert dates_against_terms(spec).dates_against_their_terms == 1
