"""A request carries the user's reason for it, as every user scenario of tau2-bench does: fitting the
action, free of values, and never claiming the record's state on a request the agent must refuse."""

from __future__ import annotations

import random
import re

import pytest

from envs import Task, check_env
from envs.catalog import CatalogEntry
from envs.formats.spec import EnvSpec
from envs.quality import env_quality
from envs.quality.requests import dictates_form, has_motive
from synthesis.domains.ontology import load_ontology
from synthesis.tasks import kind_motives, motives, record_motives, timed_motives
from synthesis.tasks.motives import Motive, family, transition_motive
from synthesis.tasks.phrasing import Phrasing
from synthesis.tasks.record_motives import create_motive, update_motive
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env
from tests.synthesis.tasks.generated import generated_tasks


def _every_motive() -> set[Motive]:
    tables = [*vars(motives).values(), *vars(record_motives).values()]
    tables += [*vars(kind_motives).values(), *vars(timed_motives).values()]
    found = {m for v in tables if isinstance(v, tuple) for m in v if isinstance(m, Motive)}
    found |= {m for fam in motives._NAMED.values() for m in fam}
    return found


def test_every_motive_reads_as_a_reason_and_carries_no_value() -> None:
    every = _every_motive()
    assert len(every) >= 100  # enough variants that thousands of tasks do not repeat one hundreds of times
    for m in every:
        assert has_motive(m.text), m.text
        assert not dictates_form(m.text), m.text  # "that's what the cover is for." read as a field's value
        assert not re.search(r"[\d$@]", m.text), m.text  # no id, date or amount for an answer to restate


@pytest.mark.parametrize(
    ("verb", "example"),
    [
        ("cancel", "My plans have changed, so I won't need it."),
        ("request_refund", "I think I was charged twice."),
        ("report_lost", "I've looked everywhere and can't find it."),
        ("make_payment", "I just got paid, so I can clear it now."),
        ("put_on_hold", "I'm travelling for a few weeks."),
        ("pause", "I'm travelling for a few weeks."),
        ("close", "It's working again, so I don't need it open anymore."),
        ("withdraw", "It fell through on my end, so there's no point going ahead."),
        ("reschedule", "Something came up and I have a conflict then."),
        ("change_dining_time", "Something came up and I have a conflict then."),
        ("change_rate_plan", "My needs have changed since I set it up."),
        ("extend", "I need a bit more time."),
        ("dispute", "There's a charge on it I don't recognise."),
    ],
)
def test_a_motive_fits_the_action(verb: str, example: str) -> None:
    options = family(verb)
    assert options is not None and example in {m.text for m in options}


def test_a_refused_request_gets_no_motive_that_claims_the_records_state() -> None:
    """ "Retry the payment" on an active subscription: "my card was declined last week" would say the
    record is what it is not; "I've updated my card details" says only the user's side."""
    presuming = {m.text for m in family("retry_payment") or () if m.presumes}
    assert presuming
    asked = {transition_motive("retry_payment", f"user{i}", refused=False) for i in range(200)}
    refused = {transition_motive("retry_payment", f"user{i}", refused=True) for i in range(200)}
    assert asked & presuming  # the rule bites: unrefused requests do get them
    assert not refused & presuming


def test_the_same_request_gets_the_same_motive_and_others_vary() -> None:
    assert transition_motive("cancel", "U1|my booking") == transition_motive("cancel", "U1|my booking")
    assert len({transition_motive("cancel", f"U{i}|my booking") for i in range(100)}) >= 6
    assert update_motive("address", "U1|my account") in {
        "I've just moved.",
        "We moved house last month.",
        "I've moved to a new place.",
    }
    assert create_motive("Book a tour of an apartment", "U1") and create_motive("File a claim", "U1")
    assert create_motive("Ask for a room arrangement", "U1", follows=True) is None  # its request gave the reason


def test_two_requests_of_one_task_are_not_given_the_same_words() -> None:
    """Two withdrawals in one task both said "The project fell through …" (hotel_loyalty_points-002)."""
    first = transition_motive("withdraw", "U1|my claim for Aster Hotel")
    assert first is not None
    for i in range(50):
        assert transition_motive("withdraw", f"U1|claim {i}", said=frozenset({first})) != first


def test_a_reason_a_user_dictates_fits_the_action() -> None:
    """The appeal of a ban once carried the reason "Plans changed"."""
    say = Phrasing(random.Random(0))
    schema = {"type": "string"}
    appeal = {m.text for m in family("appeal") or ()}
    assert all(say.param_value("appeal_statement_reason", schema, "appeal") in appeal for _ in range(10))
    assert say.param_value("reason", schema) in (
        "Plans changed",
        "No longer needed",
        "Found a better option",
        "Moving away",
    )


_DOMAINS = ("streaming_subscriptions", "building_permit_applications", "game_store_refunds")


@pytest.fixture(scope="module")
def generated() -> list[tuple[EnvSpec, list[Task]]]:
    return generated_tasks(_DOMAINS)


def test_every_generated_request_says_why_in_a_persons_words(generated: list[tuple[EnvSpec, list[Task]]]) -> None:
    for spec, tasks in generated:
        assert check_env(spec, tasks).ok
        counts = env_quality(CatalogEntry(spec=spec, tasks=tasks)).counts
        assert counts.motive_requests >= 15, spec.id
        assert counts.requests_without_motive == 0, spec.id
        # a record named by a column ("my permit with valuation 21831.39") is left in about 2 % of the
        # catalog's tasks (measure 44), where nothing else tells the user's records apart
        assert (counts.form_dictated_tasks, counts.ambiguous_goals) == (0, 0), spec.id
        assert counts.column_named_tasks <= 2, spec.id
        for task in tasks:
            if task.expects_change or task.refusals:
                assert any(f.startswith("Why I") for f in task.user.known_facts), task.id  # the simulator can say it
            assert not dictates_form(task.instruction), task.instruction


def test_a_payment_the_user_receives_is_waited_for_not_paid_from_savings():
    """currency_exchange_orders-011 (seed 73): "please pay my buyback … I have the money set aside"."""
    from synthesis.tasks.motives import PAYOUT_VERB, family

    payout = family(PAYOUT_VERB)
    assert payout is not None
    texts = {m.text for m in payout}
    assert texts and not texts & {m.text for m in family("pay") or ()}
    assert not any("set aside" in t or "settled" in t for t in texts)


def test_a_buyback_the_bank_pays_is_asked_for_as_money_awaited():
    from synthesis.domains.enforcement import assign_enforcement
    from synthesis.tasks.motives import PAYOUT_VERB, family

    d = assign_enforcement(next(x for x in load_ontology() if x.id == "currency_exchange_orders"))
    served = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, served.spec, served.meta, count=30, seed=0, twin=twin.spec)
    paying = {m.text for m in family("pay") or ()}
    awaited = {m.text for m in family(PAYOUT_VERB) or ()}
    asked = [t for t in tasks if "pay my buyback" in t.instruction or "pay one of my buyback" in t.instruction]
    assert asked  # two of the 30 at seed 0
    for t in asked:
        assert not any(m in t.instruction for m in paying), t.instruction
        assert any(m in t.instruction for m in awaited), t.instruction


def test_a_document_withdrawn_was_sent_by_mistake_and_a_trade_name_changes_with_the_business() -> None:
    """The seed-83 review: a document uploaded by mistake withdrawn with "It fell through on my end, so
    there's no point going ahead"; a business's trade name renamed "so I can find it straight away"."""
    for i in range(30):
        said = transition_motive("withdraw", f"U{i}|one of my entry documents for the olive oil entry")
        assert said is not None and "mistake" in said
        plan = transition_motive("withdraw", f"U{i}|my permit application")
        assert plan is not None and "mistake" not in plan
        renamed = update_motive("dba_name", f"U{i}|my business")
        assert "name" in renamed and "find it" not in renamed
    assert "find it" in " ".join(update_motive("nickname", f"U{i}|my card") for i in range(30))


def test_a_prepayment_is_paying_ahead_not_a_debt_cleared() -> None:
    """self_storage_rentals-021 (seed 83): a month prepaid "so it isn't hanging over me"."""
    said = {transition_motive("prepay", f"U{i}|my unit rental") for i in range(40)}
    assert None not in said and all("ahead" in str(s) or "next month" in str(s) for s in said)
    assert any("hanging over" in str(transition_motive("pay", f"U{i}|my bill")) for i in range(40))


@pytest.mark.parametrize(
    ("verb", "never_said"),
    [
        ("report_missing_items", "I can't find it anywhere and I'm getting worried."),
        ("hold_at_pickup_point", "I'm taking a short break while things settle down at home."),
        ("waive_signature", "It was an honest mistake and the first time it's happened."),
        ("return_under_guarantee", "It isn't as described."),
        ("mail_result_copy", "I'd rather get it in before I forget."),
        ("schedule_move_out", "I'm ready to get started now that my schedule has cleared."),
        ("schedule_redelivery", "I'm ready to get started now that my schedule has cleared."),
        ("request_makegood", "I've finished going through it and want to get it in."),
        ("release_results", "I won't be using it after all."),
    ],
)
def test_a_name_that_says_more_than_its_head_verb_gets_its_own_reasons(verb: str, never_said: str) -> None:
    """The eight-domain sample's: a short grocery order is not lost, a parcel held is not paused for
    a trip, a signature waived is no fee forgiven, a move-out is not "started"."""
    options = family(verb)
    assert options is not None
    assert never_said not in {m.text for m in options}
    said = {transition_motive(verb, f"user-{i}|my record") for i in range(40)}
    assert never_said not in said


def test_a_phone_number_is_not_changed_because_of_a_new_provider() -> None:
    phones = {update_motive("phone", f"u{i}|my account") for i in range(60)}
    emails = {update_motive("email", f"u{i}|my account") for i in range(60)}
    assert not any("provider" in m for m in phones)
    assert any("provider" in m for m in emails)


def test_a_one_off_is_paid_ahead_without_a_next_stretch_and_free_costs_nothing_more() -> None:
    from datetime import date

    from synthesis.tasks.motive_fit import RecordFacts

    today = date(2026, 3, 2)
    lab = RecordFacts.of_row("my lab order", {"lab_order_id": "L1", "price": 80.0, "status": "scheduled"}, today)
    rent = RecordFacts.of_row("my unit rental", {"unit_rental_id": "U1", "paid_through": "2026-03-31"}, today)
    said_lab = {transition_motive("prepay", f"u{i}|my lab order", record=lab) for i in range(40)}
    said_rent = {transition_motive("prepay", f"u{i}|my unit rental", record=rent) for i in range(40)}
    assert not any("next" in m for m in said_lab if m)
    assert any("next" in m for m in said_rent if m)
    free = RecordFacts.of_row("my substitution", {"substitution_id": "S1", "price_difference": 0.0}, today)
    said = {transition_motive("decline", f"u{i}|my substitution", record=free) for i in range(60)}
    assert "It costs more than I'm willing to spend." not in said
    assert not any("calendar" in (transition_motive("accept", f"u{i}|my substitution") or "") for i in range(60))


def test_a_reason_fits_where_the_records_status_stands() -> None:
    """A waitlisted registration was not booked by mistake, a denied application is withdrawn to clear
    the record, an installed box reported lost did turn up once, a lost box is returned because it
    turned up again."""
    from datetime import date

    from synthesis.tasks.motive_fit import RecordFacts

    def said(verb: str, phrase: str, status: str) -> set[str | None]:
        row = {f"{phrase.split()[-1]}_id": "X1", "status": status}
        facts = RecordFacts.of_row(f"my {phrase}", row, date(2026, 3, 2))
        return {transition_motive(verb, f"u{i}|my {phrase}", refused=True, record=facts) for i in range(60)}

    assert "I booked it by mistake and don't need it." not in said("cancel", "appointment", "waitlisted")
    assert "I booked it by mistake and don't need it." in said("cancel", "appointment", "booked")
    denied = said("withdraw", "application", "denied")
    assert denied and not any("ahead" in str(m) or "pursu" in str(m) for m in denied)
    assert "It never turned up on my end." not in said("report_lost", "box", "installed")
    assert not {"It stopped working after a few days.", "It isn't as described."} & said("return", "box", "lost")
