"""A refusal that reads out figures no rule of the request names fails: the user's own particulars
(a date of birth beside a refused order's status), a figure only another row holds (another
order's day), or two of the refused record's own; one of the record's own dates naming it passes, as does
any figure a rule or the refused tool names (docs/formats.md, "Answers", check 4)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task, ToolCall
from envs.grading.unasked import refused_key, unasked_figures

from ..specs import SHOP
from .scoring_helpers import score_of
from .test_answers import CANCEL_DELIVERED, RULE

#: Ann asks to cancel O2, which is delivered: the tool allows only pending orders.
DELIVERED: dict[str, Any] = {
    "id": "shop-delivered",
    "env": "shop",
    "instruction": "I'm ann@example.com. Please cancel my order O2.",
    "gold_actions": [
        {"tool": "find_account", "arguments": {"email": "ann@example.com"}},
        {"tool": "get_account", "arguments": {"account_id": "U1"}},
        {"tool": "get_order", "arguments": {"order_id": "O1"}},
        {"tool": "get_order", "arguments": {"order_id": "O2"}},
    ],
    "refusals": [CANCEL_DELIVERED],
    "answer": "I'm sorry, I can't cancel order O2: it is delivered.",
    "expects_change": False,
    "reward_basis": ["state", "outputs"],
}
REASON = "I'm sorry, I can't cancel order O2: it is delivered."


def _shop() -> Environment:
    """The shop with a birth date on the account and a promised day and points on each order: fields
    no rule of cancelling names; and a read of the whole account."""
    spec = copy.deepcopy(SHOP)
    tables = {t["name"]: t for t in spec["tables"]}
    tables["accounts"]["columns"].append({"name": "date_of_birth", "type": "date"})
    tables["orders"]["columns"] += [{"name": "promised_on", "type": "date"}, {"name": "points", "type": "integer"}]
    for account, born in zip(spec["seed"]["accounts"], ("1980-05-02", "1975-09-30"), strict=True):
        account["date_of_birth"] = born
    for order, day, points in zip(spec["seed"]["orders"], ("2026-01-20", "2026-01-21"), (45, 12), strict=True):
        order.update(promised_on=day, points=points)
    spec["tools"].append(
        {
            "name": "get_account",
            "description": "An account.",
            "kind": "read",
            "parameters": {
                "type": "object",
                "required": ["account_id"],
                "additionalProperties": False,
                "properties": {"account_id": {"type": "string"}},
            },
            "steps": [
                {"kind": "return", "shape": "one", "sql": "SELECT * FROM accounts WHERE account_id = :account_id"}
            ],
        }
    )
    spec["rules"] = [RULE]
    return Environment(EnvSpec.model_validate(spec))


def _score(answer: str) -> tuple[float, list[str | None]]:
    score = score_of(_shop(), Task.model_validate(DELIVERED), answer)
    return score.reward, [c.error for c in score.checklist if not c.passed]


@pytest.mark.parametrize(
    "answer",
    [
        REASON,
        # the record named by one of its own dates, the user greeted by name
        "Hi Ann, I'm sorry, but your order O2 promised for January 21, 2026 can't be cancelled: it is delivered.",
        f"{REASON} That's the order due on 2026-01-21.",
        # figures a rule or the refused tool names (the total it refunds, the account's balance)
        f"{REASON} Its $20.00 total stays as it is, and your balance is still $100.00.",
    ],
)
def test_a_reason_with_the_records_name_or_a_ruled_figure_passes(answer):
    assert _score(answer) == (1.0, [])


@pytest.mark.parametrize(
    ("answer", "figures"),
    [
        # the user's own particulars: no rule of cancelling reads a birth date
        (f"{REASON} Your date of birth is 1980-05-02.", "1980-05-02"),
        (
            "I'm sorry, I can't cancel your order. The status is delivered. The date of birth is 1980-05-02.",
            "1980-05-02",
        ),
        # a figure only another row holds: the other order's promised day
        (f"{REASON} Your other order, O1, is due 2026-01-20.", "2026-01-20"),
        # two of the order's own figures no rule names: read out, not named
        (f"{REASON} The promised on is 2026-01-21. The points is 12.", "12, 2026-01-21"),
    ],
)
def test_figures_no_rule_names_fail(answer, figures):
    assert _score(answer) == (0.0, [f"the answer reads out {figures}, of fields no rule of the request names"])


def test_the_refused_record_is_the_one_its_tool_is_named_for():
    call = ToolCall(tool="approve_part_line", arguments={"repair_ticket_id": "RT1", "part_line_id": "PL4"})
    assert refused_key(call) == ("part_line_id", "PL4")
    assert refused_key(ToolCall(tool="dispatch", arguments={"offer_id": "LO1", "note": "x"})) == ("offer_id", "LO1")
    assert refused_key(None) is None


def test_a_figure_a_rule_names_is_no_unasked_figure():
    line = {"part_line_id": "PL4", "repair_ticket_id": "RT1", "line_price": 261.01}
    ticket = {"repair_ticket_id": "RT1", "labor_estimate": 155.64, "status": "ready"}
    rules = ["the approved part lines of one repair ticket may total at most 400 in line price"]
    key = ("part_line_id", "PL4")
    assert unasked_figures(["261.01"], [ticket, line], rules, key) == []
    # the parent ticket's labour estimate: another row's figure that no rule names
    assert unasked_figures(["261.01", "155.64"], [ticket, line], rules, key) == ["155.64"]


def test_a_field_named_by_its_kind_alone_is_named_by_that_word():
    charge = {"charge_id": "CH1", "amount": 25.69, "posted_on": "2026-02-01"}
    key = ("charge_id", "CH1")
    assert unasked_figures(["25.69"], [charge], ["the amount may be at most 20"], key) == []
    assert unasked_figures(["25.69", "2026-02-01"], [charge], ["only pending charges"], key) == ["2026-02-01", "25.69"]


def test_a_slash_date_read_the_other_way_round_is_no_figure():
    order = {"order_id": "O1", "placed_on": "2025-11-03", "shipped_on": "2026-02-03"}
    key = ("order_id", "O1")
    # "today is 03/02/2026" (March 2) also reads as February 3, the day the order shipped
    assert unasked_figures(["2026-02-03"], [order], [], key, ["2026-03-02", "2025-11-03"]) == []
    assert unasked_figures(["2026-02-03", "2025-11-03"], [order], [], key) == ["2025-11-03", "2026-02-03"]


def test_a_value_of_a_record_the_allowed_writes_changed_is_reported_not_read_out():
    """telehealth_consultations_kb-008 (seed 79): "I moved your heartburn consultation from April 18 to
    April 21. I cannot change the pharmacy …" read the moved visit's old time as a figure."""
    user = {"user_id": "U1", "email": "a@b.c", "date_of_birth": "1955-04-16"}
    refused = {"prescription_id": "P1", "status": "pending", "consultation_id": "C1"}
    moved = {"consultation_id": "C2", "starts_at": "2026-04-18 12:15:00"}
    rules, key = ["A pharmacy can be changed only once the consultation is completed."], ("prescription_id", "P1")
    reads = [user, refused, moved]
    assert unasked_figures(["2026-04-18 12:15:00"], reads, rules, key) == ["2026-04-18 12:15:00"]
    assert unasked_figures(["2026-04-18 12:15:00"], reads, rules, key, acted=["C2"]) == []
    # the user's own particulars stay unasked whatever the writes did
    assert unasked_figures(["1955-04-16"], reads, rules, key, acted=["C2"]) == ["1955-04-16"]


def test_a_birth_date_counted_in_days_from_today_is_read_as_that_day():
    """The held agent refuse-all-relative-days said every date as a count of days ("The date of birth
    is 13679 days ago."), which no reading took for a day, so the user's particulars passed unseen."""
    relative = "I'm sorry, I can't cancel your order. Today is January 15. The date of birth is 16694 days ago. The status is delivered."
    assert _score(relative)[0] == 0.0
    assert _score("Your order O2 was delivered, so I'm sorry, I can't cancel it.")[0] == 1.0


@pytest.mark.parametrize(
    "answer", ["I'm sorry, I can't do that. delivered", "I'm sorry, I can't do that. Delivered.", "Can't. delivered"]
)
def test_the_reasons_label_dropped_after_a_refusal_gives_no_reason(answer):
    """Seeds 73 and 79: "I'm sorry, I can't do that. extended" passed wherever the reason was a status."""
    assert _score(answer)[0] == 0.0


def test_the_reasons_label_in_a_sentence_gives_it():
    assert _score("I'm sorry, I can't cancel that order. It's delivered.")[0] == 1.0
    assert _score("I'm sorry, I can't do that: your order O2 is delivered.")[0] == 1.0
