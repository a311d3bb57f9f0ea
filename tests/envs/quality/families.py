"""A small spec of families for the kinship measures and their seed fixers: employees and their
dependents (a stated relationship, birth dates, a verification document), a certificate's
beneficiaries two keys from the depositor, and a guardian's children (a relationship implied)."""

from __future__ import annotations

import copy
from typing import Any

from envs.formats.spec import EnvSpec


def _table(name: str, key: str, columns: list[tuple[str, str]], parent: str | None = None) -> dict[str, Any]:
    table: dict[str, Any] = {
        "name": name,
        "primary_key": [key],
        "columns": [{"name": key, "type": "text"}, *({"name": n, "type": t, "nullable": True} for n, t in columns)],
    }
    if parent is not None:
        column = parent[:-1] + "_id"
        table["columns"].insert(1, {"name": column, "type": "text"})
        table["foreign_keys"] = [{"columns": [column], "table": parent, "references": [column]}]
    return table


FAMILIES: dict[str, Any] = {
    "id": "families",
    "name": "Families",
    "sector": "hr",
    "description": "Employees, their dependents and beneficiaries; guardians and their children.",
    "policy": "Be kind.",
    "clock": "2026-03-01T09:00:00",
    "tables": [
        _table("employees", "employee_id", [("full_name", "text"), ("email", "text"), ("date_of_birth", "date")]),
        _table(
            "dependents",
            "dependent_id",
            [
                ("full_name", "text"),
                ("date_of_birth", "date"),
                ("relationship", "text"),
                ("verification_document", "text"),
            ],
            parent="employees",
        ),
        _table("certificates", "certificate_id", [("plan_name", "text")], parent="employees"),
        _table(
            "beneficiaries",
            "beneficiary_id",
            [("beneficiary_name", "text"), ("relationship", "text")],
            parent="certificates",
        ),
        _table("guardians", "guardian_id", [("full_name", "text")]),
        _table("children", "child_id", [("child_name", "text"), ("email", "text")], parent="guardians"),
    ],
    "seed": {
        "employees": [
            {"employee_id": "E1", "full_name": "Mark Medina", "date_of_birth": "1966-06-01"},
            {"employee_id": "E2", "full_name": "Nicole Wood Jr.", "date_of_birth": "1990-04-10"},
        ],
        "dependents": [
            # a "child" born before the employee, with a partnership affidavit
            {
                "dependent_id": "D1",
                "employee_id": "E1",
                "full_name": "Ernest Moore",
                "date_of_birth": "1953-04-09",
                "relationship": "child",
                "verification_document": "partnership_affidavit",
            },
            # a spouse who is a minor
            {
                "dependent_id": "D2",
                "employee_id": "E1",
                "full_name": "Diana Rogers",
                "date_of_birth": "2012-08-03",
                "relationship": "spouse",
                "verification_document": "marriage_certificate",
            },
            # a believable son, already the employee's surname
            {
                "dependent_id": "D3",
                "employee_id": "E1",
                "full_name": "Oscar Medina",
                "date_of_birth": "1995-02-13",
                "relationship": "Son",
                "verification_document": "birth_certificate",
            },
            # a domestic partner of about the employee's age, with no document yet
            {
                "dependent_id": "D4",
                "employee_id": "E2",
                "full_name": "Luis Black",
                "date_of_birth": "1988-03-31",
                "relationship": "domestic_partner",
                "verification_document": None,
            },
        ],
        "certificates": [{"certificate_id": "C1", "employee_id": "E2", "plan_name": "Core Plan"}],
        "beneficiaries": [
            {
                "beneficiary_id": "B1",
                "certificate_id": "C1",
                "beneficiary_name": "Rachel Murray",
                "relationship": "child",
            },
            {
                "beneficiary_id": "B2",
                "certificate_id": "C1",
                "beneficiary_name": "Randy Perry",
                "relationship": "parent",
            },
            {"beneficiary_id": "B3", "certificate_id": "C1", "beneficiary_name": "Ann Lee", "relationship": "neighbor"},
        ],
        "guardians": [{"guardian_id": "G1", "full_name": "Eileen Logan"}],
        "children": [
            {"child_id": "K1", "guardian_id": "G1", "child_name": "Thomas James", "email": "thomas.james3@example.com"},
            {"child_id": "K2", "guardian_id": "G1", "child_name": "Andrew Gilbert", "email": None},
            {"child_id": "K3", "guardian_id": "G1", "child_name": "Eileen Parker", "email": None},
        ],
    },
    "tools": [
        {
            "name": "find_employee",
            "description": "Find an employee by email.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]},
            "steps": [{"kind": "return", "sql": "SELECT * FROM employees WHERE email = :email"}],
        }
    ],
}


def families(**changes: Any) -> EnvSpec:
    """The families spec, with top-level fields changed (the policy, the seed ...)."""
    return EnvSpec.model_validate({**copy.deepcopy(FAMILIES), **changes})
