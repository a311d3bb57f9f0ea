"""The customer-voice scan (docs/synthesis.md, "Customer voice"): repeated questions, stock phrases
and openings, and "one of my …" said where fewer than two of the user's records could be acted on."""

from __future__ import annotations

import copy
from typing import Any

from envs import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.quality.customer_voice import (
    BARE_AMOUNT,
    actionable_records,
    customer_voice,
    opening,
    repeated_questions,
    unfounded,
)
from tests.envs.specs import params, tool

_ID = {"type": "string"}

#: A shopper with two layaways; paying one off needs it open.
LAYAWAYS: dict[str, Any] = {
    "id": "layaways",
    "name": "Tiny layaways",
    "sector": "retail",
    "description": "Layaways paid off, to count the ones a request could mean.",
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
                {"name": "status", "type": "text"},
            ],
            "foreign_keys": [{"columns": ["customer_id"], "table": "customers", "references": ["customer_id"]}],
        },
    ],
    "seed": {
        "customers": [{"customer_id": "C1", "email": "ann@example.com"}, {"customer_id": "C2", "email": "bo@x.com"}],
        "layaways": [
            {"layaway_id": "L1", "customer_id": "C1", "status": "open"},
            {"layaway_id": "L2", "customer_id": "C1", "status": "paid_off"},
            {"layaway_id": "L3", "customer_id": "C2", "status": "open"},
        ],
    },
    "tools": [
        tool(
            "pay_off_layaway",
            [
                {
                    "kind": "query",
                    "bind": "rec",
                    "sql": "SELECT * FROM layaways WHERE layaway_id = :layaway_id",
                    "message": "No such layaway",
                },
                {"kind": "require", "sql": "SELECT :rec.status = 'open'", "message": "Not open"},
                {"kind": "exec", "sql": "UPDATE layaways SET status = 'paid_off' WHERE layaway_id = :layaway_id"},
            ],
            parameters=params(layaway_id=_ID),
        ),
    ],
}


def _env(second_open: bool) -> Environment:
    spec = copy.deepcopy(LAYAWAYS)
    if second_open:
        spec["seed"]["layaways"][1]["status"] = "open"
    return Environment(EnvSpec.model_validate(spec))


def _task(instruction: str) -> Task:
    return Task.model_validate(
        {
            "id": "layaways-1",
            "env": "layaways",
            "instruction": instruction,
            "user": {"known_facts": ["My email is ann@example.com."]},
            "gold_actions": [{"tool": "pay_off_layaway", "arguments": {"layaway_id": "L1"}}],
        }
    )


def test_a_question_asked_twice_is_found_whatever_its_case_and_spacing() -> None:
    text = "Please pay it. Afterwards, what is my balance?  Thanks. afterwards, what is  my balance?"
    assert repeated_questions(text) == ["afterwards what is my balance"]
    assert repeated_questions("What is my balance? What is my due date?") == []
    told_twice = "Pay both. Afterwards, tell me my new balance due. Afterwards, tell me my new balance due."
    assert repeated_questions(told_twice) == ["afterwards tell me my new balance due"]
    assert repeated_questions("I paid it. I paid it.") == []  # said twice, but asks nothing


def test_the_opening_skips_the_greeting() -> None:
    assert opening("Hi there, my email is a@b.c. Please pay it.") == "my email is"
    assert opening("Good morning, I'm Ann Lee, zip 12345.") == "i'm ann lee"


def test_one_of_my_is_unfounded_where_only_one_record_could_take_the_write() -> None:
    task = _task("Please pay off one of my layaways.")
    env = _env(second_open=False)
    assert actionable_records(env, task, 0) == ("layaways", 1)  # L2 is paid off already; L3 is not hers
    assert unfounded(env, task)
    both_open = _env(second_open=True)
    assert actionable_records(both_open, task, 0) == ("layaways", 2)
    assert not unfounded(both_open, task)


def test_a_named_record_makes_no_claim() -> None:
    assert not unfounded(_env(second_open=False), _task("Please pay off my layaway L1."))


def test_the_scan_counts_phrases_openings_and_claims() -> None:
    env = _env(second_open=False)
    tasks = [
        _task("Hi, my email is ann@example.com. Please pay off one of my layaways."),
        _task("My email is ann@example.com. What is my balance? What is my balance?"),
        _task("Hello, you can find me under ann@example.com. Please pay off my layaway L1."),
    ]
    found = customer_voice(env, tasks)
    assert found.instructions == 3
    assert found.repeated_questions == 1
    assert found.several_claims == 1 and found.unfounded_several == 1
    summary = found.summary()
    assert summary["phrase_shares"]["one of my"] == round(1 / 3, 4)
    assert summary["top_openings"]["my email is"] == round(2 / 3, 4)
    assert summary["top_ngrams"]["my email is ann"] == round(2 / 3, 4)


def test_an_amount_without_its_currency_is_found_and_others_are_not() -> None:
    assert BARE_AMOUNT.search("For the estimate, it's 74.45.")
    assert BARE_AMOUNT.search("It comes to 1,204.50 in all.")
    said = ["It comes to $74.45.", "It is 12.5% off.", "Call +14529911437.", "At 10:30 AM.", "It's 74.4501."]
    assert not any(BARE_AMOUNT.search(s) for s in said)
