"""The seed-89 review's correct refusals that did not say "can't": "is too old to dispute", "has to
wait", "over the 60-day limit" turn a request down; the same words in a claim do not."""

from __future__ import annotations

import pytest

from envs.grading.answers import says_no


@pytest.mark.parametrize(
    "answer",
    [
        "The Cove Inn University stay is too old to dispute: it checked out on 2025-11-25, more than 90 days ago.",
        "The Cohen and Sons charge is too old to dispute — it posted on 2025-11-04 and the window is 60 days.",
        "The Mitchell, Bates and Rivera one has to wait — its booking hasn't been confirmed by our team yet.",
        "That replacement was ordered on November 23, 2025, which is past the 60-day limit for activation.",
        "It happened too long ago for a dispute: the stay ended on November 25.",
    ],
)
def test_a_refusal_in_other_words_turns_the_request_down(answer: str) -> None:
    assert says_no(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "Done! You don't have to wait, your booking is confirmed.",
        "It's cancelled, no need to wait for anything else.",
        "Your dispute is filed; you're not over the limit.",
    ],
)
def test_the_same_words_in_a_claim_turn_nothing_down(answer: str) -> None:
    assert not says_no(answer)


def test_the_record_an_allowed_write_acts_on_is_named_by_its_parents_day() -> None:
    """car_wash_memberships-012: "I've withdrawn your damage claim for the basic wash on February 10 …
    I can't withdraw the claim for your January 6 visit: it's denied" read out the wash's day."""
    from envs.grading.unasked import unasked_figures

    user = {"customer_id": "U1", "email": "a@b.c", "date_of_birth": "1955-04-16"}
    wash = {"wash_visit_id": "W7", "customer_id": "U1", "visited_at": "2026-02-10 13:30:00"}
    claim = {"damage_claim_id": "D2", "wash_visit_id": "W7", "customer_id": "U1", "status": "submitted"}
    refused = {"damage_claim_id": "D1", "wash_visit_id": "W3", "status": "denied"}
    rules, key = ["Only submitted claims can be withdrawn."], ("damage_claim_id", "D1")
    reads = [user, wash, claim, refused]
    assert unasked_figures(["2026-02-10 13:30:00"], reads, rules, key, acted=["D2"]) == []
    assert unasked_figures(["2026-02-10 13:30:00"], reads, rules, key) == ["2026-02-10 13:30:00"]
    # the acted record names its owner too, but the owner's own particulars are still read out
    assert unasked_figures(["1955-04-16"], reads, rules, key, acted=["D2"]) == ["1955-04-16"]


def test_a_distractor_in_the_users_own_words_restated_is_not_stated() -> None:
    """ "The status of your order delivered on January 3 is placed." restates how the user named the
    order; the agent does not say it was delivered. Said in its own words, it does."""
    from envs.grading.labels import without_user_words

    user = "I just need to know the status of my order delivered on January 3 at 1:15 PM."
    kept = without_user_words("The status of your order delivered on January 3 is placed.", user)
    assert "delivered" not in kept and "placed" in kept
    assert "delivered" in without_user_words("It has been delivered, I checked.", user)


def test_the_seed_97_reviews_answers_in_other_words() -> None:
    """ "those are final, so it stays as it is" turns a reversal down; "gone through" is an approved
    claim, "refunded" a refund; "not a deposit or balance payment" states neither."""
    from envs.grading.everyday import EVERYDAY
    from envs.grading.labels import without_denied_lists

    assert says_no("It was paid with a voucher, and those are final, so it stays as it is.")
    assert not says_no("Your plan remains unchanged after the upgrade I made.")
    words = {w: named for named, _, said in EVERYDAY for w in said}
    assert "approved" in words["gone through"] and "refund" in words["refunded"]
    kept = without_denied_lists("It was a refund, not a deposit or balance payment.")
    assert "refund" in kept and "deposit" not in kept and "balance" not in kept
