"""Dates a generated write sets land where a person expects: a date to come after the clock, and no
expiry on a record not yet granted (measure 46)."""

from __future__ import annotations

from datetime import date, timedelta
from functools import cache
from typing import Any

from envs import Environment
from envs.formats.spec import EnvSpec
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@cache
def _generated(domain_id: str) -> Any:
    domain = next(d for d in load_ontology() if d.id == domain_id)
    return generate_env(domain, seed=0)


def _with_row(spec: EnvSpec, table: str, changes: dict[str, Any], where: Any) -> tuple[EnvSpec, dict[str, Any]]:
    """``spec`` with the first seed row of ``table`` that ``where`` accepts changed by ``changes``."""
    data = spec.model_dump(mode="json")
    row = next(r for r in data["seed"][table] if where(r))
    row.update(changes)
    return EnvSpec.model_validate(data), row


def test_a_payment_retried_on_a_lapsed_subscription_bills_next_a_month_from_today() -> None:
    spec = _generated("streaming_subscriptions").spec
    today = spec.clock.date()
    lapsed = (today - timedelta(days=39)).isoformat()
    spec, row = _with_row(
        spec, "streaming_subscriptions", {"status": "past_due", "next_billing_date": lapsed}, lambda r: True
    )
    episode = Environment(spec).episode()
    key = row["streaming_subscription_id"]
    episode.call_tool(
        "retry_payment_streaming_subscription", {"streaming_subscription_id": key, "viewer_id": row["viewer_id"]}
    )
    after = episode.rows_by_key("streaming_subscriptions", [(key,)])[(key,)]
    assert after is not None
    assert date.fromisoformat(after["next_billing_date"]) == today + timedelta(days=30)


def test_a_pause_still_moves_a_billing_date_ahead_from_where_it_was() -> None:
    spec = _generated("streaming_subscriptions").spec
    ahead = (spec.clock.date() + timedelta(days=10)).isoformat()
    spec, row = _with_row(
        spec,
        "streaming_subscriptions",
        {"status": "active", "plan": "premium", "next_billing_date": ahead},
        lambda r: True,
    )
    episode = Environment(spec).episode()
    key = row["streaming_subscription_id"]
    episode.call_tool("pause_streaming_subscription", {"streaming_subscription_id": key, "viewer_id": row["viewer_id"]})
    after = episode.rows_by_key("streaming_subscriptions", [(key,)])[(key,)]
    assert after is not None and after["next_billing_date"] == (spec.clock.date() + timedelta(days=40)).isoformat()


def test_a_new_permit_application_has_no_expiry_until_it_is_issued() -> None:
    spec = _generated("building_permit_applications").spec
    parcels = [p for p in spec.seed["parcels"] if p["zoning"] != "agricultural"]
    parcel = parcels[0]
    episode = Environment(spec).episode()
    created = episode.call_tool(
        "create_permit_application",
        {
            "applicant_id": parcel["applicant_id"],
            "parcel_id": parcel["parcel_id"],
            "project_type": "deck",
            "valuation": 12000.0,
        },
    ).content
    new = created[0] if isinstance(created, list) else created
    assert new["status"] == "submitted" and new["permit_expires"] is None


def test_tasks_retrying_a_lapsed_payment_expect_the_billing_date_the_tool_sets() -> None:
    """The checklist counts the 30 days from today too, so such tasks pass their own check."""
    from envs import check_env
    from synthesis.tasks.taskgen import generate_tasks

    domain = next(d for d in load_ontology() if d.id == "streaming_subscriptions")
    g = _generated("streaming_subscriptions")
    tasks, _ = generate_tasks(domain, g.spec, g.meta, count=30, seed=0)
    today = g.spec.clock.date().isoformat()
    lapsed = {
        r["streaming_subscription_id"] for r in g.spec.seed["streaming_subscriptions"] if r["next_billing_date"] < today
    }
    retried = [
        t
        for t in tasks
        if any(
            a.tool == "retry_payment_streaming_subscription" and a.arguments.get("streaming_subscription_id") in lapsed
            for a in t.gold_actions
        )
    ]
    assert retried, "no task retries the payment of a subscription whose billing date has passed"
    report = check_env(g.spec, retried)
    assert report.ok, "\n".join(map(str, report.problems))
