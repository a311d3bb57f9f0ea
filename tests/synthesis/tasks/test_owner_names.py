"""How a request names a record picked by a rank: one of the user's own in the rank's words ("my most
recent order"), "my next" where every one is still ahead; one nobody owns, found by a label, by a
label none of those listed shares."""

from __future__ import annotations

from datetime import date

from envs.quality.everyday_ranks import everyday_rank
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.criteria import own_rank_phrase, unique_label

from ..seeds.generated import domain


def test_a_users_own_record_is_ranked_in_the_ranks_own_words() -> None:
    entity = domain("medical_equipment_rentals").entity("rental")
    recent = everyday_rank("purchase_date", True, True)
    dearest = everyday_rank("price", False, True)
    rows: list[dict[str, object]] = [{}, {}]
    today = date(2026, 3, 2)
    assert recent is not None and own_rank_phrase(entity, recent, rows, today) == f"my most recent {entity.human}"
    assert dearest is not None and own_rank_phrase(entity, dearest, rows, today) == dearest.name(entity.human, "my")


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
    assert own_rank_phrase(entity, earliest, behind, today) == earliest.name(entity.human, "my")
    loan = domain("library_loans").entity("loan")
    due_first = everyday_rank("due_date", True, False)  # a due date ahead is no event: no "my next loan"
    due = [{"loaned_on": "2026-02-20", "due_date": "2026-03-06"}, {"loaned_on": "2026-02-24", "due_date": "2026-03-10"}]
    assert due_first is not None and own_rank_phrase(loan, due_first, due, today) == due_first.name(loan.human, "my")
    latest = everyday_rank("scheduled_at", True, True)
    assert latest is not None and own_rank_phrase(entity, latest, ahead, today) == latest.name(entity.human, "my")


def test_a_public_record_is_named_by_a_label_none_of_those_listed_shares() -> None:
    d = next(x for x in load_ontology() if x.id == "dealership_test_drives")
    vehicle = next(e for e in d.entities if any(a.kind in ("title", "name") for a in e.attributes))
    label = next(a.name for a in vehicle.attributes if a.kind in ("title", "name"))
    listed = [{label: "Honda CR-V EX"}, {label: "Honda Odyssey EX-L"}, {label: "Honda CR-V EX"}]
    assert unique_label(vehicle, listed[1], listed) == label
    assert unique_label(vehicle, listed[0], listed) is None  # two CR-Vs: only a rank tells them apart
    assert unique_label(vehicle, {label: None}, [*listed, {label: None}]) is None
