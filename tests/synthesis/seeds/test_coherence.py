"""Coherent seed data: references agree, statuses fit their dates, prices match their parents; the
spec's invariants catch a broken seed, and create tools refuse references that disagree."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from functools import cache
from typing import Any

import pytest

from envs import Environment, check_env
from envs.errors import StateError
from envs.formats.spec import EnvSpec
from synthesis.domains.coherence import price_links
from synthesis.domains.domain import Domain, Entity
from synthesis.domains.limits import limits
from synthesis.domains.ontology import load_ontology
from synthesis.domains.sqlgen import pk
from synthesis.domains.timing import timing
from synthesis.seeds.seedgen import generate_seed
from synthesis.tools.envgen import generate_env

from .generated import domain

CLOCK = datetime(2026, 3, 2, 9)
NOW = CLOCK.strftime("%Y-%m-%d %H:%M:%S")
# direct and owner-chain triangles, own and parent event dates, hour windows, prices
DOMAINS = (
    "airline_rebooking",
    "hotel_room_reservations",
    "library_loans",
    "pet_insurance_claims",
    "banquet_event_planning",
    "electronics_returns",
    "standardized_exam_registration",
    "restaurant_table_bookings",
)

Rows = dict[str, dict[str, dict[str, Any]]]


@cache
def _seed(domain_id: str) -> Rows:
    d = domain(domain_id)
    seed = generate_seed(d, seed=0, clock=CLOCK)
    return {e.name: {r[pk(e)]: r for r in seed[e.table]} for e in d.entities}


def _user_of(d: Domain, entity: Entity, row: dict[str, Any], rows: Rows) -> Any:
    """The user record a row belongs to, by its owner references (written independently of seedgen)."""
    for _ in range(6):
        if entity.name == d.user_entity:
            return row[pk(entity)]
        ref = next((r for r in entity.references if r.role == "owner"), None)
        if ref is None or row.get(ref.column) is None:
            return None
        entity = d.entity(ref.entity)
        row = rows[entity.name][row[ref.column]]
    return None


def _event_date(d: Domain, entity: Entity, row: dict[str, Any], rows: Rows) -> Any:
    tm = timing(d, entity)
    assert tm is not None
    if not tm.ref_name:
        return row.get(tm.column)
    ref = entity.reference(tm.ref_name)
    assert ref is not None
    parent = rows[ref.entity].get(row[ref.column]) if row.get(ref.column) is not None else None
    return parent.get(tm.column) if parent else None


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_every_record_a_row_points_at_belongs_to_the_rows_user(domain_id: str) -> None:
    d, rows = domain(domain_id), _seed(domain_id)
    checked = 0
    for e in d.entities:
        for row in rows[e.name].values():
            mine = _user_of(d, e, row, rows)
            for ref in e.references:
                if row.get(ref.column) is None or ref.entity == d.user_entity:
                    continue
                theirs = _user_of(d, d.entity(ref.entity), rows[ref.entity][row[ref.column]], rows)
                if mine is not None and theirs is not None:
                    checked += 1
                    assert theirs == mine, f"{e.name} {row[pk(e)]} of {mine} points at {ref.entity} of {theirs}"
            for a in e.references:  # E -> A, E -> B, B -> A: E's A is B's A
                for b in e.references:
                    direct = [r for r in d.entity(b.entity).references if r.entity == a.entity]
                    if a is b or len(direct) != 1 or row.get(a.column) is None or row.get(b.column) is None:
                        continue
                    checked += 1
                    assert rows[b.entity][row[b.column]][direct[0].column] == row[a.column]
    assert checked >= 10  # a loan holds a fine or two (seedgen caps children of a user's record)


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_statuses_agree_with_their_event_dates(domain_id: str) -> None:
    d, rows = domain(domain_id), _seed(domain_id)
    sides = {"before": 0, "after": 0, "due": 0}
    for e in d.entities:
        tm = timing(d, e)
        if tm is None or e.lifecycle is None:
            continue
        for row in rows[e.name].values():
            side = tm.state_class(row[e.lifecycle.field])
            date = _event_date(d, e, row, rows)
            if side == "any" or date is None:
                continue
            sides[side] += 1
            said = f"{e.name} {row[pk(e)]} is {row[e.lifecycle.field]} but its {tm.column} is {date}"
            if side == "before":
                assert date > NOW, said
            elif side == "after":
                assert date <= NOW, said
            else:  # ahead, or earlier today (a hotel guest may check in on the arrival day)
                assert date >= NOW[:10], said
    assert sum(sides.values()) >= 20


def test_the_lifecycle_classification_reads_the_guards_and_state_names() -> None:
    booking = timing(domain("airline_rebooking"), domain("airline_rebooking").entity("booking"))
    assert booking is not None
    assert booking.field == "via:flight.departs_at"
    assert booking.before == ("confirmed",)  # initial; check-in, cancel and upgrade need the flight ahead
    assert set(booking.after) == {"flown", "no_show"}  # named for the event; marked after a past guard
    assert booking.windows == (1, 3, 24)
    loan = timing(domain("library_loans"), domain("library_loans").entity("loan"))
    assert loan is not None and loan.field == "field:due_date"
    assert loan.before == ("active",)  # renewing needs the due date ahead
    assert loan.after == ()  # a deadline: a loan may be returned early; 'lost' says nothing either
    stay = timing(domain("hotel_room_reservations"), domain("hotel_room_reservations").entity("reservation"))
    assert stay is not None and stay.due == ("booked",)  # cancellable ahead, checked in on the day
    assert set(stay.after) == {"checked_in", "checked_out", "no_show"}


def test_due_states_are_ahead_or_earlier_today() -> None:
    d = domain("hotel_room_reservations")
    rows = generate_seed(d, seed=0, clock=CLOCK)["reservations"]
    booked = [r["check_in_date"] for r in rows if r["status"] == "booked"]
    today = NOW[:10]
    assert booked and all(day >= today for day in booked)
    assert today in booked and any(day > today for day in booked)  # checking in works for some, not all


def test_some_before_dates_fall_inside_the_guards_windows() -> None:
    d, rows = domain("airline_rebooking"), _seed("airline_rebooking")
    hours = []
    for b in rows["booking"].values():
        if b["status"] == "confirmed":
            departs = datetime.strptime(rows["flight"][b["flight_id"]]["departs_at"], "%Y-%m-%d %H:%M:%S")
            hours.append((departs - CLOCK) / timedelta(hours=1))
    assert all(h > 0 for h in hours)
    # each window of the time rules (check-in closes at departure, cancel 3 h, upgrade 24 h before) has rows
    assert any(h <= 1 for h in hours) and any(1 < h <= 3 for h in hours) and any(3 < h <= 24 for h in hours)
    inside = sum(h <= 24 for h in hours) / len(hours)
    assert 0.1 <= inside <= 0.3
    total = inside_all = 0
    for domain_id in DOMAINS:
        dom, seed = domain(domain_id), _seed(domain_id)
        for e in dom.entities:
            tm = timing(dom, e)
            if tm is None or not tm.windows or e.lifecycle is None:
                continue
            edge = (CLOCK + timedelta(hours=max(tm.windows))).strftime("%Y-%m-%d %H:%M:%S")
            for row in seed[e.name].values():
                date = _event_date(dom, e, row, seed)
                if tm.state_class(row[e.lifecycle.field]) == "before" and date is not None:
                    total += 1
                    inside_all += date <= edge
    assert total >= 100 and 0.12 <= inside_all / total <= 0.25
    assert d.id == "airline_rebooking"


def test_prices_start_equal_to_the_parent_price_they_name() -> None:
    rows = _seed("airline_rebooking")
    bookings = list(rows["booking"].values())
    assert bookings and all(b["fare_paid"] == rows["flight"][b["flight_id"]]["fare"] for b in bookings)

    def links(domain_id: str, entity: str) -> list[tuple[str, str, str]]:
        d = domain(domain_id)
        return [(p.attribute, p.ref.ref_name, p.parent_attribute) for p in price_links(d, d.entity(entity))]

    assert links("airline_rebooking", "booking") == [("fare_paid", "flight", "fare")]
    assert links("airline_rebooking", "credit_entry") == []  # an amount, not the fare: credits vary
    assert links("standardized_exam_registration", "registration") == [("fee_paid", "exam_sitting", "registration_fee")]
    assert links("podcast_ad_campaigns", "ad_spot") == [("price", "podcast_show", "spot_price")]
    assert links("lab_test_orders", "lab_payment") == [("amount", "lab_order", "price")]  # a payment settles it
    assert links("phone_bill_disputes", "bill_charge") == []  # one charge is not the bill's amount due
    exam = _seed("standardized_exam_registration")
    regs = list(exam["registration"].values())
    assert all(r["fee_paid"] == exam["exam_sitting"][r["exam_sitting_id"]]["registration_fee"] for r in regs)


def test_no_record_under_an_ended_parent_is_left_open() -> None:
    """A special service request of a cancelled booking is not waiting to be cancelled (read from the
    domain by a rule of the test's own: an open state is one a transition leaves)."""
    d = domain("airline_rebooking")
    rows = _seed("airline_rebooking")
    request = d.entity("special_service_request")
    assert request.lifecycle is not None
    open_states = {s for t in request.lifecycle.transitions for s in t.from_states}
    under_cancelled = [
        c for c in rows["special_service_request"].values() if rows["booking"][c["booking_id"]]["status"] == "cancelled"
    ]
    assert len(under_cancelled) >= 5
    assert all(c["status"] not in open_states for c in under_cancelled)
    assert any(c["status"] in open_states for c in rows["special_service_request"].values())  # others stay open


def test_times_of_day_fall_in_business_hours_where_they_can() -> None:
    """Over every domain (a lesson at 00:15 is no lesson): only a window with no business hours in it
    (due within the next three hours, tonight) leaves a time outside them."""
    times = [
        str(r[a.name])[11:16]
        for d in load_ontology()
        for e in d.entities
        for a in e.attributes
        if a.kind == "datetime"
        for r in _seed(d.id)[e.name].values()
        if r.get(a.name)
    ]
    assert len(times) >= 1000
    assert sum(not "08:00" <= t <= "18:45" for t in times) <= 0.02 * len(times)


def test_the_same_seed_gives_the_same_rows() -> None:
    d = domain("airline_rebooking")
    assert generate_seed(d, seed=5, clock=CLOCK) == generate_seed(d, seed=5, clock=CLOCK)
    assert generate_seed(d, seed=5, clock=CLOCK) != generate_seed(d, seed=6, clock=CLOCK)


def _broken(spec: EnvSpec, edit: Any) -> EnvSpec:
    data = spec.model_dump(mode="json")
    edit(data["seed"])
    return EnvSpec.model_validate(data)


def _invariant_failures(spec: EnvSpec) -> str:
    report = check_env(spec)
    return "\n".join(str(p) for p in report.problems if p.check == "invariant")


def test_check_env_reports_a_seed_that_breaks_coherence() -> None:
    spec = generate_env(domain("airline_rebooking"), seed=0).spec
    names = {i.name for i in spec.invariants}
    assert {
        "credit_entries_passenger_matches_booking",
        "bookings_before_departs_at",
        "bookings_after_departs_at",
    } <= names
    assert check_env(spec).ok
    flights = {f["flight_id"]: f["departs_at"] for f in spec.seed["flights"]}
    departed = next(k for k, v in flights.items() if v <= NOW)
    ahead = next(k for k, v in flights.items() if v > NOW)

    def other_passenger(seed: dict[str, Any]) -> None:
        entry = next(c for c in seed["credit_entries"] if c["booking_id"])
        entry["passenger_id"] = next(
            p["passenger_id"] for p in seed["passengers"] if p["passenger_id"] != entry["passenger_id"]
        )

    def departed_flight(seed: dict[str, Any]) -> None:
        next(b for b in seed["bookings"] if b["status"] == "confirmed")["flight_id"] = departed

    def early_no_show(seed: dict[str, Any]) -> None:
        booking = next(b for b in seed["bookings"] if b["status"] == "no_show")
        booking["flight_id"] = ahead

    assert "credit_entries_passenger_matches_booking" in _invariant_failures(_broken(spec, other_passenger))
    assert "bookings_before_departs_at" in _invariant_failures(_broken(spec, departed_flight))
    assert "bookings_after_departs_at" in _invariant_failures(_broken(spec, early_no_show))


def test_a_create_with_references_that_disagree_is_refused_and_changes_nothing() -> None:
    spec = generate_env(domain("bike_shop_repairs"), seed=0).spec
    env = Environment(spec)

    def takes_a_ticket(bike: dict[str, Any]) -> bool:  # no open ticket already
        trial = env.episode()
        try:
            trial.call_tool(
                "create_repair_ticket",
                {"rider_id": bike["rider_id"], "bicycle_id": bike["bicycle_id"], "service_level": "flat_fix"},
            )
            return True
        except StateError:
            return False
        finally:
            trial.close()

    bike = next(b for b in spec.seed["bicycles"] if takes_a_ticket(b))
    stranger = next(r["rider_id"] for r in spec.seed["riders"] if r["rider_id"] != bike["rider_id"])
    ep = env.episode()
    before = ep.serialize()
    with pytest.raises(StateError) as refused:
        ep.call_tool(
            "create_repair_ticket",
            {"rider_id": stranger, "bicycle_id": bike["bicycle_id"], "service_level": "flat_fix"},
        )
    assert str(refused.value) == (
        f"Bicycle {bike['bicycle_id']} belongs to rider {bike['rider_id']}, not rider {stranger}"
    )
    assert ep.serialize() == before
    made = ep.call_tool(
        "create_repair_ticket",
        {"rider_id": bike["rider_id"], "bicycle_id": bike["bicycle_id"], "service_level": "flat_fix"},
    ).content
    assert made["rider_id"] == bike["rider_id"] and made["bicycle_id"] == bike["bicycle_id"]
    assert not [i.name for i in spec.invariants if ep.query(i.violations)]
    ep.close()


def test_a_create_whose_records_start_before_their_date_needs_the_date_ahead() -> None:
    spec = generate_env(domain("airport_parking_reservations"), seed=0).spec
    tool = spec.tool("create_parking_reservation")
    assert tool is not None and "entry time must be in the future" in tool.description
    assert "parking_reservations_before_entry_at" in {i.name for i in spec.invariants}


def test_no_seed_starts_beyond_a_per_record_limit() -> None:
    """Every count_max rule with a literal bound holds in the seed of every built-in domain, and
    check_env reports a seed that breaks one the tools keep (a third disputed charge on a bill)."""
    over = []
    for d in load_ontology():
        seed = generate_seed(d, seed=0, clock=CLOCK)
        for limit in limits(d):
            e = d.entity(limit.entity)
            field = e.lifecycle.field if e.lifecycle else ""
            counts = Counter(r[limit.match] for r in seed[e.table] if limit.counts(r.get(field)))
            over += [(d.id, e.name, key) for key, n in counts.items() if n > limit.amount]
    assert over == []
    spec = generate_env(domain("phone_bill_disputes"), seed=0).spec
    assert "bill_charges_disputed_per_monthly_bill_id" in {i.name for i in spec.invariants}

    def third_dispute(seed: dict[str, Any]) -> None:
        bill = Counter(c["monthly_bill_id"] for c in seed["bill_charges"]).most_common(1)[0][0]
        for charge in [c for c in seed["bill_charges"] if c["monthly_bill_id"] == bill][:3]:
            charge["status"] = "disputed"

    assert "bill_charges_disputed_per_monthly_bill_id" in _invariant_failures(_broken(spec, third_dispute))
