"""Statuses against the day named for them (measure 109): glasses ready for pickup before their ready
day, an order still at the lab a month after it; and the seed rule that keeps them
(``synthesis.domains.status_dates``)."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.status_dates import named_status, status_dates, statuses_against_own_dates
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.status_dates import settle_status_dates
from synthesis.tools.envgen import generate_env
from tests.measured import none_found, written_against

_DOMAINS = {d.id: d for d in load_ontology()}


def _spec(domain_id: str) -> EnvSpec:
    return generate_env(assign_enforcement(_DOMAINS[domain_id]), seed=0).spec


@pytest.fixture(scope="module")
def eyewear() -> EnvSpec:
    return _spec("eyewear_prescription_orders")


def _copy(spec: EnvSpec) -> EnvSpec:
    return spec.model_copy(update={"seed": copy.deepcopy(spec.seed)})


def _plus(day: str, days: int) -> str:
    return (datetime.strptime(day, "%Y-%m-%d") + timedelta(days=days)).strftime("%Y-%m-%d")


def test_a_date_is_named_for_the_status_whose_event_it_dates():
    assert named_status("ready_by", ["placed", "lab_processing", "ready_for_pickup", "picked_up"]) == (
        "ready_for_pickup"
    )
    assert named_status("ready_date", ["queued", "ready", "picked_up"]) == "ready"
    assert named_status("picked_up_at", ["ready", "picked_up"]) == "picked_up"
    assert named_status("hearing_date", ["submitted", "hearing", "upheld"]) is None  # a hearing ahead
    assert named_status("requested_date", ["requested", "passed"]) is None  # the day asked for
    assert named_status("checked_on", ["checked_in", "checked_out"]) is None  # which of the two


def test_ready_glasses_are_read_against_their_ready_day(eyewear):
    (found,) = [f for f in status_dates(eyewear) if f.table == "eyewear_orders"]
    assert (found.column, found.status) == ("ready_by", "ready_for_pickup")
    assert found.done == {"ready_for_pickup", "picked_up", "remake_requested"}
    assert found.waiting == {"placed", "lab_processing"} and found.waiting_read
    assert "cancelled" not in found.done | found.waiting  # called off before the lab: its day says nothing


@pytest.mark.parametrize(
    "name",
    written_against(
        "eyewear_prescription_orders",
        "pharmacy_prescription_refills",
        "click_and_collect_pickups",
        "collision_repair_shop",
    ),
)
def test_generated_statuses_agree_with_their_own_dates(name):
    counts = statuses_against_own_dates(_spec(name))
    assert none_found(name, counts.statuses_against_own_dates, counts.status_dates_checked), counts


def test_glasses_ready_before_their_day_and_an_order_late_at_the_lab_are_counted_and_mended(eyewear):
    spec = _copy(eyewear)
    rows = spec.seed["eyewear_orders"]
    ready = next(r for r in rows if r["status"] == "ready_for_pickup")
    placed = next(r for r in rows if r["status"] == "placed")
    ready["ready_by"], placed["ready_by"] = "2026-03-10", "2026-02-02"
    ready_warranty = ready["warranty_until"] = "2026-04-09"  # 30 days after the ready day
    assert statuses_against_own_dates(spec).statuses_against_own_dates == 2
    assert settle_status_dates(spec) == 2
    assert "2026-02-24" <= ready["ready_by"] <= "2026-03-02"
    assert "2026-03-03" <= placed["ready_by"] <= "2026-03-12"
    # the warranty counted from the ready day keeps its 30 days
    assert ready["warranty_until"] < ready_warranty
    assert ready["warranty_until"] == _plus(ready["ready_by"], 30)
    assert statuses_against_own_dates(spec).statuses_against_own_dates == 0


def test_an_order_a_few_days_late_is_still_believed(eyewear):
    spec = _copy(eyewear)
    placed = next(r for r in spec.seed["eyewear_orders"] if r["status"] == "placed")
    placed["ready_by"] = "2026-02-26"  # four days late
    assert statuses_against_own_dates(spec).statuses_against_own_dates == 0


def test_an_order_long_late_on_a_prescription_expired_since_is_called_off(eyewear):
    """Moving its ready day ahead would have the glasses ordered on an expired prescription (measure 52),
    so the order placed a month ago and never made is cancelled."""
    spec = _copy(eyewear)
    paid = {p["eyewear_order_id"] for p in spec.seed["eyewear_payments"]}
    placed = next(
        r for r in spec.seed["eyewear_orders"] if r["status"] == "placed" and r["eyewear_order_id"] not in paid
    )
    prescription = next(p for p in spec.seed["prescriptions"] if p["prescription_id"] == placed["prescription_id"])
    prescription["expires_on"], placed["ready_by"] = "2026-01-20", "2026-01-25"
    assert statuses_against_own_dates(spec).statuses_against_own_dates >= 1
    settle_status_dates(spec)
    assert (placed["status"], placed["ready_by"]) == ("cancelled", "2026-01-25")
    assert statuses_against_own_dates(spec).statuses_against_own_dates == 0
