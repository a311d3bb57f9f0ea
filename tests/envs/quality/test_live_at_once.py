"""More records live at once than a person holds (measure 60): a guest in house in two rooms, a tenant
with two leases running, two open tickets for one bike, a ticket still open on a lease that ended;
and the seed rules that keep one of each (the others over, not left out)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.live_at_once import live_at_once, live_findings
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


def table(name: str, columns: dict[str, str], refs: dict[str, str], statuses: list[str] | None = None) -> dict:
    key = name.removesuffix("s") + "_id"
    status = [{"name": "status", "type": "text", "enum": statuses}] if statuses else []
    return {
        "name": name,
        "primary_key": [key],
        "columns": [{"name": key, "type": "text"}]
        + [{"name": c, "type": "text"} for c in refs]
        + [{"name": n, "type": t, "nullable": True} for n, t in columns.items()]
        + status,
        "foreign_keys": [
            {"columns": [c], "table": t, "references": [t.removesuffix("s") + "_id"]} for c, t in refs.items()
        ],
    }


def spec_with(rows: dict[str, list[dict[str, Any]]]) -> EnvSpec:
    return EnvSpec.model_validate(
        {
            "id": "town",
            "name": "Town",
            "sector": "services",
            "description": "Guests, tenants and riders.",
            "policy": "Be nice.",
            "clock": "2026-03-02T09:00:00",
            "tables": [
                table("guests", {"email": "text"}, {}),
                table("stays", {"checkout_date": "date"}, {"guest_id": "guests"}, ["in_house", "checked_out"]),
                table("leases", {"lease_end": "date"}, {"guest_id": "guests"}),
                table("box_leases", {"lease_end": "date"}, {"guest_id": "guests"}),
                table("maintenance_tickets", {}, {"guest_id": "guests", "lease_id": "leases"}, ["open", "closed"]),
                table("bicycles", {}, {"guest_id": "guests"}),
                table(
                    "repair_tickets",
                    {},
                    {"guest_id": "guests", "bicycle_id": "bicycles"},
                    ["checked_in", "in_repair", "collected", "cancelled"],
                ),
            ],
            "seed": rows,
            "tools": [
                {
                    "name": "get_stay",
                    "description": "Look up a stay.",
                    "kind": "read",
                    "parameters": {"type": "object", "properties": {"stay_id": {"type": "string"}}},
                    "steps": [{"kind": "return", "sql": "SELECT * FROM stays WHERE stay_id = :stay_id"}],
                }
            ],
        }
    )


def rows() -> dict[str, list[dict[str, Any]]]:
    return {
        "guests": [{"guest_id": g, "email": f"{g}@x.org"} for g in ("G1", "G2")],
        "stays": [
            {"stay_id": "S1", "guest_id": "G1", "checkout_date": "2026-03-06", "status": "in_house"},
            {"stay_id": "S2", "guest_id": "G1", "checkout_date": "2026-04-20", "status": "in_house"},  # against
            {"stay_id": "S3", "guest_id": "G2", "checkout_date": "2026-03-05", "status": "in_house"},
            {"stay_id": "S4", "guest_id": "G2", "checkout_date": "2026-01-05", "status": "checked_out"},
        ],
        "leases": [
            {"lease_id": "L1", "guest_id": "G1", "lease_end": "2026-09-30"},
            {"lease_id": "L2", "guest_id": "G1", "lease_end": "2026-06-30"},  # against
            {"lease_id": "L3", "guest_id": "G2", "lease_end": "2026-08-31"},
            {"lease_id": "L4", "guest_id": "G2", "lease_end": "2025-12-31"},  # ended: a home left
        ],
        "box_leases": [  # a safe deposit box is no home: two at once is no finding
            {"box_lease_id": "B1", "guest_id": "G1", "lease_end": "2026-09-30"},
            {"box_lease_id": "B2", "guest_id": "G1", "lease_end": "2026-09-30"},
        ],
        "maintenance_tickets": [
            {"maintenance_ticket_id": "M1", "guest_id": "G2", "lease_id": "L4", "status": "open"},  # against
            {"maintenance_ticket_id": "M2", "guest_id": "G2", "lease_id": "L4", "status": "closed"},
            {"maintenance_ticket_id": "M3", "guest_id": "G2", "lease_id": "L3", "status": "open"},
        ],
        "bicycles": [{"bicycle_id": b, "guest_id": "G1"} for b in ("K1", "K2")],
        "repair_tickets": [
            {"repair_ticket_id": "R1", "guest_id": "G1", "bicycle_id": "K1", "status": "checked_in"},
            {"repair_ticket_id": "R2", "guest_id": "G1", "bicycle_id": "K1", "status": "in_repair"},  # against
            {"repair_ticket_id": "R3", "guest_id": "G1", "bicycle_id": "K2", "status": "in_repair"},
            {"repair_ticket_id": "R4", "guest_id": "G1", "bicycle_id": "K2", "status": "collected"},
        ],
    }


def test_records_live_at_once_are_counted_per_person_or_thing():
    spec = spec_with(rows())
    found = {(shape, key): n for shape, key, n in live_findings(spec, spec.seed)}
    assert found == {
        ("present", "G1"): 2,
        ("present", "G2"): 1,
        ("home", "G1"): 2,
        ("home", "G2"): 1,
        ("job", "K1"): 2,
        ("job", "K2"): 1,
    }
    counts = live_at_once(spec)
    assert (counts.live_groups_checked, counts.live_beyond_one) == (6, 3)
    assert (counts.home_jobs_checked, counts.jobs_open_after_home_ended) == (3, 1)


def test_one_live_record_each_is_no_finding():
    fixed = rows()
    fixed["stays"][1]["status"] = "checked_out"
    fixed["leases"][1]["lease_end"] = "2025-06-30"
    fixed["repair_tickets"][1]["status"] = "collected"
    fixed["maintenance_tickets"][0]["status"] = "closed"
    counts = live_at_once(spec_with(fixed))
    assert (counts.live_beyond_one, counts.jobs_open_after_home_ended) == (0, 0)


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


@pytest.mark.parametrize(
    "name", ["hotel_room_service", "rental_maintenance_tickets", "campground_site_reservations", "bike_shop_repairs"]
)
def test_generated_seeds_keep_one_live_record_each(domains, name):
    spec = generate_env(assign_enforcement(domains[name]), seed=0).spec
    counts = live_at_once(spec)
    assert counts.live_groups_checked > 10
    assert counts.live_beyond_one == 0
    assert counts.jobs_open_after_home_ended == 0


def test_extra_records_are_kept_as_past_ones(domains):
    """The guests keep their other stays (checked out) and the tenants their other leases (ended), so
    tasks still choose among a person's records."""
    hotel = generate_env(assign_enforcement(domains["hotel_room_service"]), seed=0).spec.seed
    stays = Counter(s["hotel_guest_id"] for s in hotel["stays"])
    in_house = Counter(s["hotel_guest_id"] for s in hotel["stays"] if s["status"] == "in_house")
    assert sum(n > 1 for n in stays.values()) > 10  # guests with several stays
    assert any(stays[g] > 1 for g in in_house)  # one in house, the others past
    rent = generate_env(assign_enforcement(domains["rental_maintenance_tickets"]), seed=0)
    leases = Counter(x["tenant_id"] for x in rent.spec.seed["leases"])
    assert sum(n > 1 for n in leases.values()) > 5
    assert len(rent.spec.seed["maintenance_tickets"]) > 100
    open_tickets = [
        t for t in rent.spec.seed["maintenance_tickets"] if t["status"] in ("open", "escalated", "scheduled")
    ]
    assert len(open_tickets) > 15
