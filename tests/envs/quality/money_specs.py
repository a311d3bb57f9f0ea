"""A small rental shop in code for measure 108 and the seed rule that keeps it: patients rent equipment
(a start, an end, a status), each rental's money rows carry a kind and a day, and a solar project with
no date at all holds a deposit and a final payment."""

from __future__ import annotations

import copy
from typing import Any

from envs.formats.spec import EnvSpec

from ..specs import params, table, tool

RENTALS: dict[str, Any] = {
    "id": "rentals_shop",
    "name": "Rental shop",
    "sector": "healthcare",
    "description": "Equipment rentals and solar projects with their money rows.",
    "policy": "Be nice.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        table("patients", [("patient_id", "text"), ("email", "text")]),
        table(
            "rentals",
            [
                ("rental_id", "text"),
                ("patient_id", "text"),
                ("start_date", "date"),
                ("end_date", "date"),
                ("status", "text"),
            ],
            "patient",
            status=["reserved", "delivered", "returned", "cancelled"],
        ),
        table(
            "rental_charges",
            [
                ("rental_charge_id", "text"),
                ("patient_id", "text"),
                ("rental_id", "text"),
                ("amount", "real"),
                ("charge_type", "text"),
                ("method", "text"),
                ("charged_on", "date"),
            ],
            "patient",
            "rental",
            charge_type=["monthly_rent", "deposit_refund", "replacement_fee"],
            method=["card", "direct_deposit"],
        ),
        table(
            "solar_projects",
            [("solar_project_id", "text"), ("patient_id", "text"), ("status", "text")],
            "patient",
            status=["contracted", "installed"],
        ),
        table(
            "project_payments",
            [
                ("project_payment_id", "text"),
                ("patient_id", "text"),
                ("solar_project_id", "text"),
                ("amount", "real"),
                ("payment_type", "text"),
                ("paid_on", "date"),
            ],
            "patient",
            "solar_project",
            payment_type=["deposit", "installment", "final"],
        ),
    ],
    "seed": {
        "patients": [{"patient_id": "P1", "email": "ann@example.com"}, {"patient_id": "P2", "email": "bo@example.com"}],
        "rentals": [
            # returned in January; a rental still out until April; one cancelled before it started
            {"rental_id": "R1", "patient_id": "P1", "start_date": "2025-12-01", "end_date": "2026-01-05"}
            | {"status": "returned"},
            {"rental_id": "R2", "patient_id": "P1", "start_date": "2026-02-10", "end_date": "2026-04-10"}
            | {"status": "delivered"},
            {"rental_id": "R3", "patient_id": "P2", "start_date": "2026-03-20", "end_date": "2026-04-20"}
            | {"status": "cancelled"},
        ],
        "rental_charges": [],
        "solar_projects": [
            {"solar_project_id": "S1", "patient_id": "P1", "status": "installed"},
            {"solar_project_id": "S2", "patient_id": "P2", "status": "contracted"},
        ],
        "project_payments": [],
    },
    "tools": [
        tool(
            "find_patient",
            [{"kind": "return", "shape": "value", "sql": "SELECT patient_id FROM patients WHERE email = :email"}],
            kind="read",
            parameters=params(email={"type": "string"}),
            description="Find a patient by email.",
        )
    ],
}


def charge(key: str, rental: str, kind: str, day: str, method: str = "card") -> dict[str, Any]:
    patient = "P2" if rental == "R3" else "P1"
    return {"rental_charge_id": key, "patient_id": patient, "rental_id": rental, "amount": 50.0} | {
        "charge_type": kind,
        "method": method,
        "charged_on": day,
    }


def payment(key: str, project: str, kind: str, day: str) -> dict[str, Any]:
    patient = "P1" if project == "S1" else "P2"
    return {"project_payment_id": key, "patient_id": patient, "solar_project_id": project, "amount": 500.0} | {
        "payment_type": kind,
        "paid_on": day,
    }


def rental_shop(charges: list[dict[str, Any]] | None = None, payments: list[dict[str, Any]] | None = None) -> EnvSpec:
    spec = copy.deepcopy(RENTALS)
    spec["seed"]["rental_charges"] = charges or []
    spec["seed"]["project_payments"] = payments or []
    return EnvSpec.model_validate(spec)
