"""Measures 43 and 44: dates a gold write sets that no person would believe, and chains that amend a
record after filing it; both read off the gold calls replayed on the engine."""

from __future__ import annotations

from typing import Any

from envs.catalog import CatalogEntry
from envs.check import check_env
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.quality import env_quality
from envs.quality.counts import QualityCounts
from tests.envs.specs import params, tool

_STR = {"type": "string"}
_ID = {"type": "string"}


def _find(table: str, key: str) -> dict[str, Any]:
    return {"kind": "query", "bind": "rec", "sql": f"SELECT * FROM {table} WHERE {key} = :{key}"}


#: A viewer's subscriptions, permit applications and weekly certifications, on the clock 2026-03-02.
OFFICE: dict[str, Any] = {
    "id": "office",
    "name": "Tiny office",
    "sector": "government",
    "description": "Subscriptions, permits and weekly certifications, built to trigger measures 43 and 44.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        {
            "name": "people",
            "primary_key": ["person_id"],
            "columns": [
                {"name": "person_id", "type": "text"},
                {"name": "email", "type": "text", "unique": True},
            ],
        },
        {
            "name": "subscriptions",
            "primary_key": ["subscription_id"],
            "columns": [
                {"name": "subscription_id", "type": "text"},
                {"name": "person_id", "type": "text"},
                {"name": "next_billing_date", "type": "date"},
                {"name": "status", "type": "text"},
            ],
            "foreign_keys": [{"columns": ["person_id"], "table": "people", "references": ["person_id"]}],
        },
        {
            "name": "permits",
            "primary_key": ["permit_id"],
            "columns": [
                {"name": "permit_id", "type": "text"},
                {"name": "person_id", "type": "text"},
                {"name": "permit_expires", "type": "date", "nullable": True},
                {"name": "status", "type": "text"},
            ],
            "foreign_keys": [{"columns": ["person_id"], "table": "people", "references": ["person_id"]}],
        },
        {
            "name": "certifications",
            "primary_key": ["certification_id"],
            "columns": [
                {"name": "certification_id", "type": "text"},
                {"name": "person_id", "type": "text"},
                {"name": "hours_worked", "type": "integer"},
                {"name": "status", "type": "text"},
            ],
            "foreign_keys": [{"columns": ["person_id"], "table": "people", "references": ["person_id"]}],
        },
    ],
    "seed": {
        "people": [{"person_id": "P1", "email": "ann@example.com"}],
        "subscriptions": [
            {"subscription_id": "S1", "person_id": "P1", "next_billing_date": "2026-01-22", "status": "past_due"},
            {"subscription_id": "S2", "person_id": "P1", "next_billing_date": "2026-03-20", "status": "past_due"},
        ],
        "permits": [],
        "certifications": [
            {"certification_id": "W1", "person_id": "P1", "hours_worked": 11, "status": "due"},
            {"certification_id": "W2", "person_id": "P1", "hours_worked": 11, "status": "due"},
        ],
    },
    "tools": [
        tool(
            "retry_payment",  # "active for another 30 days", counted from the old date
            [
                _find("subscriptions", "subscription_id"),
                {
                    "kind": "exec",
                    "sql": "UPDATE subscriptions SET status = 'active', "
                    "next_billing_date = date(next_billing_date, '+30 days') WHERE subscription_id = :subscription_id",
                },
            ],
            parameters=params(subscription_id=_ID),
        ),
        tool(
            "apply_for_permit",  # a new application, dated today in its expiry
            [
                {"kind": "query", "bind": "new", "sql": "SELECT new_id('PA') AS id"},
                {
                    "kind": "exec",
                    "sql": "INSERT INTO permits (permit_id, person_id, permit_expires, status) "
                    "VALUES (:new.id, :person_id, :permit_expires_or_today, 'submitted')",
                },
            ],
            parameters=params(required=["person_id"], person_id=_ID, permit_expires_or_today=_STR),
        ),
        tool(
            "submit_certification",
            [
                _find("certifications", "certification_id"),
                {
                    "kind": "exec",
                    "sql": "UPDATE certifications SET status = 'submitted' WHERE certification_id = :certification_id",
                },
            ],
            parameters=params(certification_id=_ID),
        ),
        tool(
            "update_hours_worked",
            [
                _find("certifications", "certification_id"),
                {
                    "kind": "exec",
                    "sql": "UPDATE certifications SET hours_worked = :hours_worked "
                    "WHERE certification_id = :certification_id",
                },
            ],
            parameters=params(certification_id=_ID, hours_worked={"type": "integer"}),
        ),
    ],
}


def _task(n: int, calls: list[tuple[str, dict[str, Any]]]) -> Task:
    gold = [{"tool": name, "arguments": args} for name, args in calls]
    return Task.model_validate(
        {
            "id": f"office-{n}",
            "env": "office",
            "instruction": "Please help with my account.",
            "user": {"known_facts": ["My email is ann@example.com."]},
            "gold_actions": gold,
        }
    )


def _measured(*tasks: Task) -> QualityCounts:
    entry = CatalogEntry(spec=EnvSpec.model_validate(OFFICE), tasks=list(tasks))
    report = check_env(entry.spec, entry.tasks)
    assert report.ok, "\n".join(map(str, report.problems))
    return env_quality(entry).counts


def test_a_next_billing_date_a_write_leaves_in_the_past_is_counted() -> None:
    counts = _measured(
        _task(1, [("retry_payment", {"subscription_id": "S1"})]),  # 2026-01-22 + 30 days: still February
        _task(2, [("retry_payment", {"subscription_id": "S2"})]),  # 2026-04-19: ahead, as a person expects
    )
    assert (counts.written_dates_implausible, counts.written_dates_checked) == (1, 2)


def test_an_expiry_on_a_new_record_not_yet_granted_is_counted_unless_the_user_gave_it() -> None:
    counts = _measured(
        # the tool dates the expiry of a submitted application on its own
        _task(1, [("apply_for_permit", {"person_id": "P1", "permit_expires_or_today": "2026-06-01"})]),
        _task(2, [("apply_for_permit", {"person_id": "P1"})]),
    )
    # task 1: the user's own date is the request's term; task 2: NULL, nothing set
    assert (counts.written_dates_implausible, counts.written_dates_checked) == (0, 1)
    spec = dict(OFFICE, tools=[dict(t) for t in OFFICE["tools"]])
    spec["tools"][1] = tool(
        "apply_for_permit",
        [
            {"kind": "query", "bind": "new", "sql": "SELECT new_id('PA') AS id"},
            {
                "kind": "exec",
                "sql": "INSERT INTO permits (permit_id, person_id, permit_expires, status) "
                "VALUES (:new.id, :person_id, date(:today, '+180 days'), 'submitted')",
            },
        ],
        parameters=params(person_id=_ID),
    )
    entry = CatalogEntry(
        spec=EnvSpec.model_validate(spec), tasks=[_task(3, [("apply_for_permit", {"person_id": "P1"})])]
    )
    counts = env_quality(entry).counts
    assert (counts.written_dates_implausible, counts.written_dates_checked) == (1, 1)


def test_an_edit_after_filing_the_same_record_is_counted_and_before_it_is_not() -> None:
    counts = _measured(
        _task(
            1,
            [
                ("submit_certification", {"certification_id": "W1"}),
                ("update_hours_worked", {"certification_id": "W1", "hours_worked": 1}),
            ],
        ),
        _task(
            2,
            [
                ("update_hours_worked", {"certification_id": "W1", "hours_worked": 1}),
                ("submit_certification", {"certification_id": "W1"}),
            ],
        ),
        # another record's edit after filing one is no amendment
        _task(
            3,
            [
                ("submit_certification", {"certification_id": "W1"}),
                ("update_hours_worked", {"certification_id": "W2", "hours_worked": 1}),
            ],
        ),
    )
    assert counts.amended_after_filing == 1
