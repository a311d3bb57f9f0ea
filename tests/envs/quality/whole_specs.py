"""A small tour operator in code for measure 113 and the seed rule that keeps it: tours priced per
person, bookings of a party owing a balance, payments of a booking (one refunded), and optical orders
with a price of their own paid in parts."""

from __future__ import annotations

import copy
from typing import Any

from envs.formats.spec import EnvSpec

from ..specs import params, table, tool

TOURS: dict[str, Any] = {
    "id": "tour_shop",
    "name": "Tour shop",
    "sector": "travel",
    "description": "Guided tours booked by parties, and glasses ordered by the same customers.",
    "policy": "Be nice.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        table("travelers", [("traveler_id", "text"), ("email", "text")]),
        table(
            "tours",
            [("tour_id", "text"), ("price_per_person", "real"), ("seats_left", "integer")],
        ),
        table(
            "tour_bookings",
            [
                ("tour_booking_id", "text"),
                ("traveler_id", "text"),
                ("tour_id", "text"),
                ("party_size", "integer"),
                ("balance_due", "real"),
                ("status", "text"),
            ],
            "traveler",
            "tour",
            status=["reserved", "deposit_paid", "fully_paid"],
        ),
        table(
            "tour_payments",
            [
                ("tour_payment_id", "text"),
                ("tour_booking_id", "text"),
                ("amount", "real"),
                ("kind", "text"),
            ],
            "tour_booking",
            kind=["deposit", "balance", "refund"],
        ),
        table(
            "eyewear_orders",
            [("eyewear_order_id", "text"), ("traveler_id", "text"), ("total_price", "real"), ("status", "text")],
            "traveler",
            status=["ordered", "ready"],
        ),
        table(
            "eyewear_payments",
            [("eyewear_payment_id", "text"), ("eyewear_order_id", "text"), ("amount", "real")],
            "eyewear_order",
        ),
    ],
    "seed": {
        "travelers": [{"traveler_id": "T1", "email": "ann@example.com"}],
        "tours": [{"tour_id": "R1", "price_per_person": 2445.20, "seats_left": 9}],
        "tour_bookings": [
            # a party of one owing more than the trip costs; a party of three owing part of 7,335.60
            {"tour_booking_id": "B1", "traveler_id": "T1", "tour_id": "R1", "party_size": 1}
            | {"balance_due": 6473.45, "status": "deposit_paid"},
            {"tour_booking_id": "B2", "traveler_id": "T1", "tour_id": "R1", "party_size": 3}
            | {"balance_due": 5000.00, "status": "deposit_paid"},
        ],
        "tour_payments": [
            # B2: a deposit and a final payment of 20,872.00 on a trip of 7,335.60; a refund not counted
            {"tour_payment_id": "P1", "tour_booking_id": "B2", "amount": 200.0, "kind": "deposit"},
            {"tour_payment_id": "P2", "tour_booking_id": "B2", "amount": 20872.0, "kind": "balance"},
            {"tour_payment_id": "P3", "tour_booking_id": "B1", "amount": 9000.0, "kind": "refund"},
        ],
        "eyewear_orders": [
            {"eyewear_order_id": "E1", "traveler_id": "T1", "total_price": 200.71, "status": "ready"},
            {"eyewear_order_id": "E2", "traveler_id": "T1", "total_price": 130.55, "status": "ready"},
        ],
        "eyewear_payments": [
            # E1: three payments of about the same size, each below the price, adding up to 1,526.77
            {"eyewear_payment_id": "Y1", "eyewear_order_id": "E1", "amount": 500.00},
            {"eyewear_payment_id": "Y2", "eyewear_order_id": "E1", "amount": 510.00},
            {"eyewear_payment_id": "Y3", "eyewear_order_id": "E1", "amount": 516.77},
            # E2: paid in full in two parts
            {"eyewear_payment_id": "Y4", "eyewear_order_id": "E2", "amount": 30.55},
            {"eyewear_payment_id": "Y5", "eyewear_order_id": "E2", "amount": 100.00},
        ],
    },
    "tools": [
        tool(
            "find_traveler",
            [{"kind": "return", "shape": "value", "sql": "SELECT traveler_id FROM travelers WHERE email = :email"}],
            kind="read",
            parameters=params(email={"type": "string"}),
            description="Find a traveler by email.",
        )
    ],
}


def tour_shop() -> EnvSpec:
    return EnvSpec.model_validate(copy.deepcopy(TOURS))
