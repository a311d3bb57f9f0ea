"""A request names a record as its owner would, not by the generator's rank (measure 111; the seed-107
review read "extend my most expensive rental" and "the most expensive oxygen concentrator equipment
model" in medical_equipment_rentals-024 as the generator's selector)."""

from __future__ import annotations

from datetime import date

import pytest

from envs import Environment, check_env
from envs.quality.everyday_ranks import everyday_rank
from envs.quality.rank_names import rank_name_counts
from envs.quality.spec import Ownership
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.criteria import own_rank_phrase, unique_label
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

from ..seeds.generated import domain


def test_only_recency_ranks_a_users_own_record() -> None:
    entity = domain("medical_equipment_rentals").entity("rental")
    recent = everyday_rank("purchase_date", True, True)
    oldest = everyday_rank("purchase_date", True, False)
    dearest = everyday_rank("price", False, True)
    rows: list[dict[str, object]] = [{}, {}]
    today = date(2026, 3, 2)
    assert recent is not None and own_rank_phrase(entity, recent, rows, today) == f"my most recent {entity.human}"
    assert oldest is not None and own_rank_phrase(entity, oldest, rows, today) is None
    assert dearest is not None and own_rank_phrase(entity, dearest, rows, today) is None


def test_the_earliest_of_records_all_ahead_is_the_next_one() -> None:
    """ "my next appointment" where every one is still to come; "my earliest" of past and
    future ones says nothing a person would, so the record is named by what it is instead."""
    entity = domain("car_service_booking").entity("service_appointment")
    earliest = everyday_rank("scheduled_at", True, False)
    assert earliest is not None
    ahead = [{"scheduled_at": "2026-03-04 10:00:00"}, {"scheduled_at": "2026-03-09 14:30:00"}]
    today = date(2026, 3, 2)
    assert own_rank_phrase(entity, earliest, ahead, today) == "my next appointment"
    behind = [{"scheduled_at": "2026-02-20 09:00:00"}, *ahead]
    assert own_rank_phrase(entity, earliest, behind, today) is None
    loan = domain("library_loans").entity("loan")
    due_first = everyday_rank("due_date", True, False)  # a due date ahead is no event: no "my next loan"
    due = [{"loaned_on": "2026-02-20", "due_date": "2026-03-06"}, {"loaned_on": "2026-02-24", "due_date": "2026-03-10"}]
    assert due_first is not None and own_rank_phrase(loan, due_first, due, today) is None
    latest = everyday_rank("scheduled_at", True, True)
    assert latest is not None and own_rank_phrase(entity, latest, ahead, today) is None


def test_a_public_record_is_named_by_a_label_none_of_those_listed_shares() -> None:
    d = next(x for x in load_ontology() if x.id == "dealership_test_drives")
    vehicle = next(e for e in d.entities if any(a.kind in ("title", "name") for a in e.attributes))
    label = next(a.name for a in vehicle.attributes if a.kind in ("title", "name"))
    listed = [{label: "Honda CR-V EX"}, {label: "Honda Odyssey EX-L"}, {label: "Honda CR-V EX"}]
    assert unique_label(vehicle, listed[1], listed) == label
    assert unique_label(vehicle, listed[0], listed) is None  # two CR-Vs: only a rank tells them apart
    assert unique_label(vehicle, {label: None}, [*listed, {label: None}]) is None


@pytest.mark.parametrize("domain_id", ["medical_equipment_rentals", "dealership_test_drives", "car_wash_memberships"])
def test_no_request_ranks_a_record_a_name_tells_apart(domain_id: str) -> None:
    d = assign_enforcement(domain(domain_id))
    served = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, served.spec, served.meta, count=30, seed=0, twin=twin.spec)
    episode = Environment(served.spec).episode()
    try:
        rows = {t.name: episode.dump(t.name) for t in served.spec.tables}
    finally:
        episode.close()
    counts = rank_name_counts(served.spec, tasks, Ownership.of(served.spec).state(rows))
    assert counts.rank_named_with_name == 0  # 9, 8 and 7 of 30 before
    assert check_env(served.spec, tasks).ok
