"""Multi-row effects: cancelling a record moves its open children in the same transaction."""

from __future__ import annotations

from typing import Any

from envs import Environment, check_env
from envs.errors import StateError
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


def _airline() -> Any:
    domain = next(d for d in load_ontology() if d.id == "airline_rebooking")
    return domain, generate_env(domain, seed=0)


def test_cancelling_a_booking_withdraws_its_open_requests_only():
    _, g = _airline()
    requests = g.spec.seed["special_service_requests"]
    bookings = {b["booking_id"]: b for b in g.spec.seed["bookings"]}
    env = Environment(g.spec)
    for booking_id in dict.fromkeys(r["booking_id"] for r in requests):
        booking = bookings[booking_id]
        ep = env.episode()
        try:
            ep.call_tool(
                "cancel_booking", {"booking_id": booking_id, "passenger_id": booking["passenger_id"], "confirm": True}
            )
        except StateError:  # a rule refuses this booking: try another
            continue
        after = {r["special_service_request_id"]: r for r in ep.dump("special_service_requests")}
        mine = [r for r in requests if r["booking_id"] == booking_id]
        for r in mine:
            expected = "withdrawn" if r["status"] in ("requested", "confirmed") else r["status"]
            assert after[r["special_service_request_id"]]["status"] == expected
        others = [r for r in requests if r["booking_id"] != booking_id]
        assert all(after[r["special_service_request_id"]]["status"] == r["status"] for r in others)
        return
    raise AssertionError("no cancellable booking with service requests in the seed")


def test_tasks_check_the_cascade_in_their_checklist():
    domain, g = _airline()
    tasks, _ = generate_tasks(domain, g.spec, g.meta, count=30, seed=0)
    assert check_env(g.spec, tasks).ok
    cascading = [t for t in tasks if any(a.description.startswith("Special service request") for a in t.assertions)]
    assert cascading, "no task cancels a booking that has open service requests"


def test_a_fee_applies_only_inside_its_window():
    """airline_rebooking: a cancellation credits the fare, less a 50.00 fee within 24 hours of departure."""
    from datetime import timedelta

    from envs.formats.spec import EnvSpec

    _, g = _airline()
    clock = g.spec.clock
    data = g.spec.model_dump(mode="json")
    flight = data["seed"]["flights"][0]
    booking = next(b for b in data["seed"]["bookings"] if b["status"] == "confirmed")
    booking["flight_id"] = flight["flight_id"]
    passenger = next(p for p in data["seed"]["passengers"] if p["passenger_id"] == booking["passenger_id"])
    credits = {}
    for hours in (12, 48):  # inside and outside the fee window, both cancellable (more than 3 hours ahead)
        flight["departs_at"] = (clock + timedelta(hours=hours)).strftime("%Y-%m-%d %H:%M:%S")
        ep = Environment(EnvSpec.model_validate(data)).episode()
        ep.call_tool(
            "cancel_booking",
            {"booking_id": booking["booking_id"], "passenger_id": booking["passenger_id"], "confirm": True},
        )
        after = ep.rows_by_key("passengers", [(passenger["passenger_id"],)])[(passenger["passenger_id"],)]
        assert after is not None
        credits[hours] = round(after["travel_credit"] - passenger["travel_credit"], 2)
    assert credits[48] == booking["fare_paid"] and credits[12] == round(booking["fare_paid"] - 50, 2)
