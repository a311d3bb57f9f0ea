"""Measure 65: requests no customer makes in one conversation, where a later write makes an earlier
one pointless (extend a layaway, then pay it off; start one, then extend it). Read off the gold
calls replayed on the engine, and kept out of chains by the task generator."""

from __future__ import annotations

from typing import Any

import pytest

from envs import Environment
from envs.catalog import CatalogEntry
from envs.check import check_env
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.quality import env_quality
from synthesis.tasks.chain import Chain, ChainBroken
from tests.envs.specs import params, tool

_ID = {"type": "string"}


def _find() -> dict[str, Any]:
    return {"kind": "query", "bind": "rec", "sql": "SELECT * FROM layaways WHERE layaway_id = :layaway_id"}


def _update(sql: str) -> dict[str, Any]:
    return {"kind": "exec", "sql": f"UPDATE layaways SET {sql} WHERE layaway_id = :layaway_id"}


#: A shopper's layaways on the clock 2026-03-02: one open, due 2026-03-20.
LAYAWAYS: dict[str, Any] = {
    "id": "layaways",
    "name": "Tiny layaways",
    "sector": "retail",
    "description": "Layaways started, extended, moved and paid off, built to trigger measure 65.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        {
            "name": "customers",
            "primary_key": ["customer_id"],
            "columns": [{"name": "customer_id", "type": "text"}, {"name": "email", "type": "text", "unique": True}],
        },
        {
            "name": "layaways",
            "primary_key": ["layaway_id"],
            "columns": [
                {"name": "layaway_id", "type": "text"},
                {"name": "customer_id", "type": "text"},
                {"name": "final_due_date", "type": "date"},
                {"name": "last_paid_on", "type": "date", "nullable": True},
                {"name": "balance", "type": "real"},
                {"name": "status", "type": "text"},
            ],
            "foreign_keys": [{"columns": ["customer_id"], "table": "customers", "references": ["customer_id"]}],
        },
    ],
    "seed": {
        "customers": [{"customer_id": "C1", "email": "ann@example.com"}],
        "layaways": [
            {
                "layaway_id": "L1",
                "customer_id": "C1",
                "final_due_date": "2026-03-20",
                "balance": 90.0,
                "status": "open",
            },
            {
                "layaway_id": "L2",
                "customer_id": "C1",
                "final_due_date": "2026-03-25",
                "balance": 60.0,
                "status": "open",
            },
        ],
    },
    "tools": [
        tool(
            "create_layaway",
            [
                {"kind": "query", "bind": "new", "sql": "SELECT new_id('LA') AS id"},
                {
                    "kind": "exec",
                    "sql": "INSERT INTO layaways (layaway_id, customer_id, final_due_date, balance, status) "
                    "VALUES (:new.id, :customer_id, date(:today, '+60 days'), 80.0, 'open')",
                },
            ],
            parameters=params(customer_id=_ID),
        ),
        tool(
            "extend_due_date_layaway",
            [_find(), _update("final_due_date = date(final_due_date, '+30 days')")],
            parameters=params(layaway_id=_ID),
        ),
        tool(
            "move_due_date_layaway",  # to the day the shopper names: a reschedule, no extension
            [_find(), _update("final_due_date = :final_due_date")],
            parameters=params(layaway_id=_ID, final_due_date={"type": "string"}),
        ),
        tool(
            "make_payment_layaway",  # dates the payment today: no extension of anything
            [_find(), _update("balance = balance - 10, last_paid_on = :today")],
            parameters=params(layaway_id=_ID),
        ),
        tool("hold_at_desk_layaway", [_find(), _update("status = 'at_desk'")], parameters=params(layaway_id=_ID)),
        tool(
            "prepay_month_layaway",  # pays for a month more: money moves, so no extension
            [_find(), _update("balance = balance - 10, final_due_date = date(final_due_date, '+30 days')")],
            parameters=params(layaway_id=_ID),
        ),
        tool(
            "pay_off_layaway", [_find(), _update("balance = 0, status = 'paid_off'")], parameters=params(layaway_id=_ID)
        ),
    ],
}


def _task(n: int, calls: list[tuple[str, dict[str, Any]]]) -> Task:
    gold = [{"tool": name, "arguments": args} for name, args in calls]
    return Task.model_validate(
        {
            "id": f"layaways-{n}",
            "env": "layaways",
            "instruction": "Please help with my layaways.",
            "user": {"known_facts": ["My email is ann@example.com."]},
            "gold_actions": gold,
        }
    )


EXTEND_L1 = ("extend_due_date_layaway", {"layaway_id": "L1"})
PAY_OFF_L1 = ("pay_off_layaway", {"layaway_id": "L1"})


def test_extend_then_pay_off_and_start_then_extend_are_counted_and_sensible_pairs_are_not() -> None:
    tasks = [
        _task(1, [EXTEND_L1, PAY_OFF_L1]),  # the extension did nothing
        _task(2, [("create_layaway", {"customer_id": "C1"}), ("extend_due_date_layaway", {"layaway_id": "LA1001"})]),
        _task(3, [PAY_OFF_L1, ("extend_due_date_layaway", {"layaway_id": "L2"})]),  # two layaways
        _task(4, [("make_payment_layaway", {"layaway_id": "L1"}), PAY_OFF_L1]),  # a payment dated today
        _task(5, [("move_due_date_layaway", {"layaway_id": "L1", "final_due_date": "2026-04-02"}), PAY_OFF_L1]),
        _task(6, [EXTEND_L1, ("make_payment_layaway", {"layaway_id": "L1"})]),  # still open after
        _task(7, [EXTEND_L1, ("hold_at_desk_layaway", {"layaway_id": "L1"})]),  # moved on, its term not over
        _task(8, [("create_layaway", {"customer_id": "C1"}), ("prepay_month_layaway", {"layaway_id": "LA1001"})]),
    ]
    entry = CatalogEntry(spec=EnvSpec.model_validate(LAYAWAYS), tasks=tasks)
    report = check_env(entry.spec, entry.tasks)
    assert report.ok, "\n".join(map(str, report.problems))
    assert env_quality(entry).counts.pointless_write_chains == 2


def test_the_generator_keeps_both_shapes_out_of_a_chain() -> None:
    env = Environment(EnvSpec.model_validate(LAYAWAYS))
    chain = Chain.start(env, "C1")
    try:
        chain.call(*EXTEND_L1[:1], **EXTEND_L1[1])
        with pytest.raises(ChainBroken, match="paid_off after this task extended it"):
            chain.call(*PAY_OFF_L1[:1], **PAY_OFF_L1[1])
        chain.call("create_layaway", customer_id="C1")
        with pytest.raises(ChainBroken, match="extended right after this task made it"):
            chain.call("extend_due_date_layaway", layaway_id="LA1001")
    finally:
        chain.close()
