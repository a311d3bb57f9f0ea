"""Seeds that record one real thing once (measure 45): one live return of a purchase, one refund of a
return, one active unemployment claim per claimant, one live subscription per viewer; purchases left
with no return for tasks that file the first; and a task's write that would record a thing again is
not clean, so the task generator chooses a record with room."""

from __future__ import annotations

import pytest

from envs import Environment
from envs.quality.chains import WriteVerdict
from envs.quality.one_off import OneOffRules, called_off, held, recorded_many_times
from synthesis.domains.one_off import holds_once_in_seed
from synthesis.tasks.chain import Chain
from synthesis.tasks.checklist import Checklist
from synthesis.tasks.taskgen import TaskGenerator
from synthesis.tools.envgen import generate_env

from .generated import domain, generated_spec


@pytest.mark.parametrize(
    "domain_id",
    ["electronics_returns", "unemployment_weekly_claims", "streaming_subscriptions", "grocery_delivery"],
)
def test_generated_seeds_record_one_thing_once(domain_id):
    counts = recorded_many_times(generated_spec(domain_id))
    # enough groups to mean something: grocery_delivery holds 13 since missing-item reports hang only
    # under orders already credited for them (measure 76)
    assert counts.one_off_groups_checked >= 12
    assert counts.one_off_recorded_many_times == 0


def test_purchases_are_left_without_a_return_for_tasks_that_file_one():
    spec = generated_spec("electronics_returns")
    returned = {r["purchase_id"] for r in spec.seed["return_requests"]}
    free = [p for p in spec.seed["purchases"] if p["purchase_id"] not in returned]
    assert len(free) >= len(spec.seed["purchases"]) // 5 >= 1


def test_a_viewer_holds_one_live_subscription_and_a_status_move_keeps_it():
    spec = generated_spec("streaming_subscriptions")
    rows = spec.seed["streaming_subscriptions"]
    live = [r for r in rows if held(r["status"])]
    assert len(live) >= 10 and len({r["viewer_id"] for r in live}) == len(live)
    keeps = holds_once_in_seed(domain("streaming_subscriptions"), spec.seed)
    ended = next(r for r in rows if not held(r["status"]) and r["viewer_id"] in {x["viewer_id"] for x in live})
    assert not keeps("streaming_subscriptions", ended, "active")  # the viewer holds one already
    assert keeps("streaming_subscriptions", ended, "cancelled")
    mine = next(r for r in live)
    assert keeps("streaming_subscriptions", mine, "paused")  # the one held, held on other terms


def test_a_second_return_of_one_purchase_is_no_clean_write_and_tasks_choose_a_purchase_with_room():
    d = domain("electronics_returns")
    g = generate_env(d, seed=0)
    env = Environment(g.spec)
    requests = g.spec.seed["return_requests"]
    purchases = {p["purchase_id"]: p for p in g.spec.seed["purchases"]}
    live = {r["purchase_id"] for r in requests if not called_off(r["status"])}
    returned = [p for key, p in purchases.items() if key in live]
    free = [p for key, p in purchases.items() if key not in {r["purchase_id"] for r in requests}]
    for candidates, clean in ((returned, False), (free, True)):
        verdicts = []
        for purchase in candidates:  # those a rule of the tool lets through (no claim pending on them)
            chain = Chain.start(env, purchase["customer_id"])
            try:
                args = {
                    "customer_id": purchase["customer_id"],
                    "purchase_id": purchase["purchase_id"],
                    "product_id": purchase["product_id"],
                    "return_reason": "defective",
                }
                if isinstance(tried := chain.trial(env, "create_return_request", args), WriteVerdict):
                    verdicts.append(tried)
            finally:
                chain.close()
        assert verdicts and all(bool(v.many_times) is not clean for v in verdicts)
    rules, made = OneOffRules(g.spec), 0
    users = sorted({p["customer_id"] for p in free})  # each with a purchase not returned, and maybe one returned
    for seed in range(30):
        gen = TaskGenerator(d, g.spec, g.meta, env, seed=seed)
        chain = Chain.start(env, users[seed % len(users)])
        try:
            checks = Checklist(d, env.spec.clock, gen.oracle.holds)
            if gen.identify_user(chain) and gen.add_create(chain, gen.meta["create_return_request"], checks):
                assert chain.episode is not None
                made += 1
                rows = {t: chain.episode.dump(t) for t in ("purchases", "return_requests", "return_refunds")}
                assert rules.beyond(rows)[1] == set()
        finally:
            chain.close()
    assert made >= 2
