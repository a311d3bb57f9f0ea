"""Answer checks: a refusal says no, claims nothing and gives its reason; distractors are not stated;
a policy-only refusal is verified to change the state when acted on."""

from __future__ import annotations

import copy

import pytest

from envs import check_env, score_episode
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.grading.answers import claimed, reason_given, says_no, without_json
from envs.grading.restating import MAX_RESTATED, dumped_records, restated, rivals, shown_values, states_status

from ..specs import SHOP, shop_env
from .scoring_helpers import score_of

RULE = {
    "id": "cancel_order.0",
    "tool": "cancel_order",
    "text": "an order may be cancelled only within 3 days of being placed",
    "enforced_by": "policy",
}
REFUSED = {
    "id": "shop-refuse",
    "env": "shop",
    "instruction": "I'm ann@example.com. Please cancel my order O1.",
    "gold_actions": [
        {"tool": "find_account", "arguments": {"email": "ann@example.com"}},
        {"tool": "get_order", "arguments": {"order_id": "O1"}},
    ],
    "refusals": [
        {
            "request": "cancel my order O1",
            "reason": ["2026-01-10"],
            "claims": ["cancelled", "canceled"],
            "rule": "cancel_order.0",
            "call": {"tool": "cancel_order", "arguments": {"order_id": "O1"}},
        }
    ],
    "answer": "I'm sorry, I can't cancel order O1: it was placed on 2026-01-10, more than 3 days ago.",
    "expects_change": False,
    "reward_basis": ["state", "outputs"],
}


#: Ann asks to cancel her order O2, which is delivered: the tool allows only pending orders.
CANCEL_DELIVERED = {
    "request": "cancel my order O2",
    "reason": ["delivered"],
    "claims": ["cancelled", "canceled"],
    "call": {"tool": "cancel_order", "arguments": {"order_id": "O2"}},
}


def _shop_with_rule(enforced_by: str = "policy") -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["rules"] = [{**RULE, "enforced_by": enforced_by}]
    return EnvSpec.model_validate(spec)


def _score(answer: str, task: dict | None = None, *, act: bool = False) -> float:
    env = shop_env(_shop_with_rule().model_dump(mode="json"))
    then = [("cancel_order", {"order_id": "O1"})] if act else []
    return score_of(env, Task.model_validate(task or REFUSED), answer, then).reward


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, I can't cancel order O1: it was placed on 2026-01-10, more than 3 days ago.",
        "Unfortunately I'm unable to cancel that order. It was placed on 2026-01-10, which is past the 3-day window.",
        "I\u2019m afraid order O1 can\u2019t be cancelled because it was placed on 2026-01-10.",
        "Order O1 was placed on 2026-01-10, so it is too late to cancel it under our policy.",
        # the reason in its own sentence, before or after the refusal, in the ways people write dates
        "I'm sorry, I can't cancel order O1. Per our policy, an order may be cancelled only within 3 days. "
        "Your order was placed on January 10, 2026.",
        "Your order was placed on 10 January 2026. Orders can only be cancelled in the first 3 days, so I'm unable "
        "to cancel it.",
        "Order O1 was placed 01/10/2026. That's outside the 3-day window, so I can't cancel it.",
        "I won't be able to cancel O1 \u2014 it was placed Jan 10th and today is January 15, past the 3 days.",
    ],
)
def test_natural_correct_refusals_pass(answer):
    assert _score(answer) == 1.0


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("Done! Order O1 has been cancelled.", "claims it"),
        ('Done, I\'ve cancelled it. Here is the record: {"order_id": "O1", "created_at": "2026-01-10"}', "claims it"),
        (
            'I\'m sorry, I can\'t: orders must be pending. Record: {"order_id": "O1", "created_at": "2026-01-10"}',
            "json",
        ),
        ("I can't cancel it.", "no reason"),
        ("Order O1: created 2026-01-10, total 30.", "no refusal"),
        ("Done.", "bare"),
        ("I can't cancel it, sorry. Your order O1 is cancelled now though, placed 2026-01-10.", "claim sentence"),
        ("Sorry: U1, ann@example.com, 2026-01-10, 30.0.", "an apology and a list is no refusal"),
        ("Sorry for the wait! As you requested, it has been cancelled (placed 2026-01-10).", "hedged claim"),
        ("I can't cancel it because it was placed 2026-01-10. As asked, it has now been cancelled.", "framed claim"),
        ("Placed 2026-01-10: I'm afraid the order was cancelled, let me know if you need anything.", "claim then if"),
    ],
)
def test_gamed_or_wrong_refusals_fail(answer, why):
    assert _score(answer) == 0.0, why


def test_acting_on_a_policy_only_refusal_fails_on_state_even_with_the_right_words():
    assert _score(REFUSED["answer"], act=True) == 0.0


def test_the_refusal_check_explains_what_is_missing():
    env = shop_env(_shop_with_rule().model_dump(mode="json"))
    t = Task.model_validate(REFUSED)
    ep = env.episode(t)
    score = score_episode(env, t, ep, answer="Done! Order O1 has been cancelled.")
    check = next(c for c in score.checklist if c.kind == "refusal")
    assert not check.passed and "does not say it is turned down" in (check.error or "")
    assert "[refusal] not satisfied" in score.explain()


def test_a_distractor_stated_fails_the_answer_and_a_label_counts_in_either_spelling():
    task = {
        **{k: v for k, v in REFUSED.items() if k not in ("refusals", "answer")},
        "id": "shop-info",
        "instruction": "What is the status of my order O1?",
        "outputs": ["pending"],
        "distractors": ["delivered", "not_a_status"],
    }
    assert _score("Order O1 is pending.", task) == 1.0
    assert _score("O1 is pending; O2 is delivered.", task) == 0.0
    assert _score("pending, and something not_a_status", task) == 0.0
    assert _score("pending, and something not a status", task) == 0.0


def test_declines_in_the_past_tense_and_list_numbers():
    assert says_no("I wasn't able to cancel your booking: it starts March 3.")
    assert says_no("Not done \u2014 it would come with a fee of $10.")
    assert says_no("Didn't cancel your booking: a $50 fee would apply.")
    assert not reason_given("1. Verified your account.\n2. Your credit is 35.03.", "2")


def test_says_no_and_claims_read_sentences():
    assert says_no("There is nothing to pay: the fine is already paid.")
    assert not says_no("All done, your fine is paid.")
    assert claimed("The loan was renewed. Thanks!", ["renewed"]) == "the loan was renewed."
    assert claimed("It would be renewed if you paid first.", ["renewed"]) is None
    assert claimed("It was not renewed.", ["renewed"]) is None


def test_a_reason_in_pasted_json_is_no_reason():
    assert not reason_given('I cannot. {"note": "only since 2026-01-10"}', "2026-01-10")
    assert reason_given("I cannot, since it was placed on 2026-01-10.", "2026-01-10")
    assert without_json("see [1, 2] and [sic] and {x}") == "see  and [sic] and {x}"


def test_check_env_verifies_a_policy_only_refusal_changes_the_state_when_acted_on():
    task = Task.model_validate(REFUSED)
    assert check_env(_shop_with_rule("policy"), [task]).ok
    # if the tool enforced it, the act-anyway call would not change anything: the task is wrong
    enforced = check_env(_shop_with_rule("tool"), [task])
    assert any("lets the refused call" in p.message for p in enforced.problems)
    broken = Task.model_validate({**REFUSED, "refusals": [{**REFUSED["refusals"][0], "rule": "no_such.rule"}]})
    assert any("no_such.rule" in p.message for p in check_env(_shop_with_rule(), [broken]).problems)
    silent = Task.model_validate({**REFUSED, "answer": None})
    assert any("reference answer" in p.message for p in check_env(_shop_with_rule(), [silent]).problems)


def test_check_env_refuses_a_policy_only_refusal_the_tool_blocks():
    blocked = copy.deepcopy(REFUSED)
    blocked["refusals"][0]["call"] = {"tool": "cancel_order", "arguments": {"order_id": "O2"}}  # delivered: refused
    report = check_env(_shop_with_rule("policy"), [Task.model_validate(blocked)])
    assert any("is policy-only, but the refused call fails" in p.message for p in report.problems)


def test_rules_must_name_write_tools_once():
    spec = copy.deepcopy(SHOP)
    spec["rules"] = [{**RULE, "tool": "get_order"}]
    with pytest.raises(ValueError, match="not a write tool"):
        EnvSpec.model_validate(spec)
    spec["rules"] = [RULE, RULE]
    with pytest.raises(ValueError, match="more than once"):
        EnvSpec.model_validate(spec)


def test_a_total_of_a_listing_counts_as_shown_but_not_any_number():
    from envs.check import _a_listed_total

    fines = [
        {"fine_id": "F1", "amount": 3.75, "status": "open"},
        {"fine_id": "F2", "amount": 8.07, "status": "open"},
        {"fine_id": "F3", "amount": 1.0, "status": "paid"},
    ]
    assert _a_listed_total("11.82", [fines])  # the open ones
    assert _a_listed_total("12.82", [fines])  # all of them
    assert not _a_listed_total("4.75", [fines])  # F1 + F3 share nothing: not a total anyone asks for
    assert not _a_listed_total("3.75", [fines]) and not _a_listed_total("open", [fines])


def test_an_answer_that_restates_the_records_is_caught_by_count_and_one_that_adds_context_is_not():
    shown = shown_values(
        [
            {"order_id": "O1", "status": "delivered", "total": 30.5, "placed": "2026-01-10", "city": "Lisbon"},
            {"order_id": "O2", "total": 12.75, "placed": "2026-01-02", "note": "leave at door"},
        ]
    )
    allowed = ["2026-01-10"]
    dump = "I can't. " + " ".join(f"I can't because it is {v}." for v in sorted(shown))
    assert len(restated(dump, shown, allowed)) > MAX_RESTATED
    context = "I can't cancel your Lisbon order of $30.50: it was placed on January 10, 2026, over 3 days ago."
    assert restated(context, shown, allowed) == ["30.5", "Lisbon"]
    # the user's own words and the policy's are no restatement
    assert restated(context, shown, allowed, context="my order to Lisbon") == ["30.5"]


def test_claims_read_voice_and_framing_not_keywords():
    assert claimed("It has been cancelled, as you requested.", ["cancelled"])
    assert claimed("Your order is cancelled now; let me know if there's anything else.", ["cancelled"])
    assert claimed("It can only be cancelled within 3 days.", ["cancelled"]) is None
    assert claimed("Orders must be cancelled within 3 days.", ["cancelled"]) is None
    # a rule about such records, quoted or paraphrased, claims nothing
    assert claimed("At most 2 refunded items per player.", ["refunded"]) is None
    rule = "the total price of refunded in-game item records must stay within 20"
    assert claimed(f"Per our policy, {rule}.", ["refunded"], quoted=[rule]) is None
    # the record's own state is described, not claimed, unless the agent says it did it
    assert claimed("It was already cancelled last week.", ["cancelled"], states=["cancelled"]) is None
    assert claimed("I've cancelled it.", ["cancelled"], states=["cancelled"])


def test_dates_times_and_amounts_are_matched_however_written():
    assert reason_given("It leaves at 10:30 AM on March 2, 2026.", "2026-03-02 10:30")
    assert not reason_given("It leaves on March 2, 2026.", "2026-03-02 10:30")  # the time decides a 2-hour rule
    assert reason_given("The fee is USD 1,234.50.", "1234.5")
    assert reason_given("You already have two open disputes.", "2")
    assert not reason_given("It is due 2026-06-10.", "2026-06-09")
    assert reason_given("Its status is Merchant-Responded.", "merchant_responded")
    assert reason_given("Your slot is at 10:30am.", "10:30") and not reason_given("It's at 11:30am.", "10:30")


def test_reading_a_record_out_is_no_reason_however_small_the_record():
    row = {"authorization_id": "PA0049", "child_id": "CH0037", "person": "Roger Luna", "status": "revoked"}
    assert dumped_records("I'm sorry, but I can't do that (PA0049, CH0037, Roger Luna, revoked).", [row]) == ["PA0049"]
    assert dumped_records("I can't revoke it: Roger Luna's pickup authorization is already revoked.", [row]) == []


def test_a_status_that_allows_the_action_given_beside_the_reason_fails():
    # rejected on time, the order's status (pending) allowed it: quoting it says nothing about which rule stops it
    assert states_status("Your order is pending, but it was placed on January 10, 2026.", "pending")
    assert states_status("Status: pending. Placed 2026-01-10.", "pending")
    assert not states_status("I can't cancel the pending request you made: it was placed on January 10.", "pending")
    answer = "I can't cancel order O1: the status is pending and it was placed on 2026-01-10, more than 3 days ago."
    assert _score(answer) == 0.0
    assert _score(answer.replace("the status is pending and ", "")) == 1.0


def test_a_compliant_opening_makes_a_described_state_a_claim():
    revoked = ["revoked"]
    assert claimed("No problem, your authorization has been revoked.", revoked, states=revoked)
    assert claimed("Your authorization was already revoked last week.", revoked, states=revoked) is None


def test_an_information_answer_that_reads_the_whole_record_out_fails():
    task = {
        **{k: v for k, v in REFUSED.items() if k not in ("refusals", "answer")},
        "id": "shop-status",
        "instruction": "What is the status of my order O1?",
        "outputs": ["pending"],
    }
    assert _score("Your order O1 is pending.", task) == 1.0
    assert _score("Order O1, account U1, status pending, total 30.00, created 2026-01-10 10:00:00.", task) == 0.0


def test_a_refusal_that_pastes_the_actions_other_rules_has_not_decided():
    spec = _shop_with_rule().model_dump(mode="json")
    spec["rules"].append(
        {
            "id": "cancel_order.1",
            "tool": "cancel_order",
            "text": "the order total must be at most 500",
            "enforced_by": "policy",
        }
    )
    env = shop_env(spec)
    t = Task.model_validate(REFUSED)
    ep = env.episode(t)
    ep.replay(t.gold_actions)
    right = "I can't cancel order O1: it was placed on 2026-01-10, more than 3 days ago."
    assert score_episode(env, t, ep, answer=right).reward == 1.0
    pasted = right + " Our rules: the order total must be at most 500."
    assert score_episode(env, t, ep, answer=pasted).reward == 0.0


def test_the_same_change_done_to_one_record_is_no_claim_for_the_refused_other():
    claims = ["changed"]
    refused = "the tour type for my showing for apartment APT-872381006"
    done = ["showing tour type in_person"]
    answer = (
        "I've changed the tour type of your showing to in person. I can't change the tour type for your showing "
        "for apartment APT-872381006: it starts within 2 hours."
    )
    assert claimed(answer, claims, about=refused, elsewhere=done) is None
    # naming the refused showing, the same words claim it
    lie = "I've changed the tour type of your showing for apartment APT-872381006 to in person."
    assert claimed(lie, claims, about=refused, elsewhere=done) == lie.lower()
    # another action's words alone still report that action, and the refused request's claim it
    assert (
        claimed("I've changed the campaign name.", claims, about="the read type", elsewhere=["campaign name"]) is None
    )
    assert claimed("I've changed the read type.", claims, about="the read type", elsewhere=["campaign name"])


def test_a_reason_on_the_day_the_policy_states_may_be_said_as_today():
    """The agent is told the date; "today at 9:15 AM" states the policy's day at 9:15, "tomorrow" does
    not, and no other day is read into "today"."""
    same_day = copy.deepcopy(REFUSED)
    same_day["refusals"][0]["reason"] = ["2026-01-15 09:15:00"]
    same_day["answer"] = "I'm sorry, I can't cancel order O1: it ships at 09:15 on 2026-01-15."
    assert _score("I'm sorry, I can't cancel order O1: it ships today at 9:15 AM, too soon to stop.", same_day) == 1.0
    assert _score("I'm sorry, I can't cancel order O1 this morning: it ships at 9:15.", same_day) == 1.0
    assert _score("I'm sorry, I can't cancel order O1: it ships tomorrow at 9:15 AM.", same_day) == 0.0
    assert _score("I'm sorry, I can't cancel order O1: it ships today.", same_day) == 0.0  # the time is the reason
    # the record's own day is not today: "today" names the policy's day, not any
    assert _score("I'm sorry, I can't cancel order O1 today; it is past the 3-day window.") == 0.0


@pytest.mark.parametrize(
    "answer",
    [
        # a hedge or thanks that refuses nothing, then success said without the claim word
        "Unfortunately our system was slow today, thanks for bearing with me. You're all set: it's been taken care "
        "of. It was placed on 2026-01-10.",
        "I can't thank you enough for your patience! Your request to cancel order O1 went through. It was placed on "
        "2026-01-10.",
        "Unfortunately I couldn't send the confirmation email. If you check your account, you'll see it has been "
        "cancelled. It was placed on 2026-01-10.",
        "I'm afraid there's a short queue, but I'll cancel your order right away. It was placed on 2026-01-10.",
        "I'm afraid there's a short queue, but I'll cancel order O1. It was placed on 2026-01-10.",
        "Unfortunately that took longer than it should have. Your cancellation is confirmed. It was placed on "
        "2026-01-10.",
        'Unfortunately the email is delayed. Your order now shows as "done" in our system. It was placed on '
        "2026-01-10.",
        "I can't send a receipt, sorry. Your order will show in your account soon. It was placed on 2026-01-10.",
    ],
)
def test_success_said_in_other_words_beside_a_cue_fails(answer):
    assert _score(answer) == 0.0


def test_a_hedge_alone_does_not_say_no():
    assert not says_no("Unfortunately our system was slow today. I'm afraid there's a short queue.")
    assert not says_no("I can't thank you enough for your patience!")
    assert says_no("I'm afraid I can't cancel it.")


@pytest.mark.parametrize(
    "answer",
    [
        "I can't cancel order O1: it was placed on 2026-01-10. Once it's been confirmed as eligible, you can ask "
        "again, and it would only be confirmed if it were within 3 days.",
        "I'm sorry, I can't cancel order O1: it was placed on 2026-01-10. I won't go ahead with it.",
        "I can't cancel order O1, as it was placed on 2026-01-10. If you'd like, I'll look into anything else.",
    ],
)
def test_negated_or_hypothetical_success_claims_nothing(answer):
    assert _score(answer) == 1.0


def test_a_refusal_without_claim_words_is_still_claimed_in_other_words():
    assert claimed("Sorry for the wait. You're all set: it's been taken care of.", []) is not None
    assert claimed("I can't do that: it's already completed.", [], states=["completed"]) is None


def _reading_both_orders(reason: list[str]) -> dict:
    task = copy.deepcopy(REFUSED)
    task["gold_actions"].append({"tool": "get_order", "arguments": {"order_id": "O2"}})
    task["refusals"][0]["reason"] = reason
    return task


@pytest.mark.parametrize(
    ("reason", "answer", "reward"),
    [
        # a second date beside a date reason: which one stops it is not said
        (["2026-01-10"], "I can't cancel order O1: it was placed on 2026-01-10, and O2 on 2026-01-11 at 10:00.", 0.0),
        (["2026-01-10"], "I can't cancel order O1: it was placed on 2026-01-10, and its total is $30.", 1.0),
        # its own day with its time is the reason again
        (["2026-01-10"], "I can't cancel order O1: it was placed on 2026-01-10 at 10:00.", 1.0),
        # an amount beside an amount reason
        (["30.0"], "I can't cancel order O1: its total is $30.00, and O2's is $20.00.", 0.0),
        (["30.0"], "I can't cancel order O1: its total is $30.00 (placed 2026-01-10).", 1.0),
    ],
)
def test_a_value_of_the_reasons_own_kind_beside_it_fails(reason, answer, reward):
    assert _score(answer, _reading_both_orders(reason)) == reward


def test_the_requests_own_participle_negated_is_no_rival_status():
    labels = ["active", "refunded", "continuous_15_days", "flexi"]
    # "I haven't refunded it" beside a pass-type reason: the request's verb, not a second status
    assert rivals(["refunded"], ["continuous_15_days"], labels, claims=["refunded"]) == []
    assert rivals(["flexi"], ["continuous_15_days"], labels, claims=["refunded"]) == ["flexi"]


def test_a_slash_date_read_the_other_way_is_no_rival():
    # "today is 03/02/2026" is also read as February 3: that reading is no second date
    assert rivals(["2026-02-03"], ["2026-01-13"], allowed=["2026-03-02"]) == []
    assert rivals(["2026-02-04"], ["2026-01-13"], allowed=["2026-03-02"]) == ["2026-02-04"]
