"""A new record's amounts, as the user gives them, are in proportion to what they are for: an offer
near the listing's price with earnest money a usual part of it (measure 41), not 110,000 on a home
listed at 640,000."""

from __future__ import annotations

from envs.quality.amount_bands import DEPOSIT_BANDS, OFFER_BAND
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


def test_new_offers_are_near_the_listing_price_with_usual_earnest_money() -> None:
    domain = next(d for d in load_ontology() if d.id == "home_purchase_offers")
    g = generate_env(domain, seed=0)
    tasks = generate_tasks(domain, g.spec, g.meta, count=30, seed=0)[0]
    listings = {r["listing_id"]: r for r in g.spec.seed["listings"]}
    offers = [a.arguments for t in tasks for a in t.gold_actions if "offer_price" in a.arguments]
    assert len(offers) >= 2
    for args in offers:
        price = listings[args["listing_id"]]["list_price"]
        assert OFFER_BAND[0] <= args["offer_price"] / price <= OFFER_BAND[1]
        lo, hi = DEPOSIT_BANDS["earnest"]
        assert lo <= args["earnest_money"] / args["offer_price"] <= hi
