"""Forms a correct answer takes that the grader missed on the outside corpus (docs/synthesis.md,
"Gaming"): a count in hyphenated words ("forty-three"), a scheduled visit "on the calendar"."""

from __future__ import annotations

from envs.grading.everyday import spec_readings
from envs.grading.outputs import numbers_in
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


def test_a_count_in_tens_and_units_is_one_number():
    assert numbers_in("Your download credits is now forty-three.") == [43.0]
    assert numbers_in("thirty four left") == [34.0]
    assert numbers_in("twenty-one days, or twenty days") == [21.0, 20.0]
    # no number hides in other words
    assert numbers_in("Fortyish people were there, unfortunately.") == []


def test_a_scheduled_record_is_on_the_calendar_only_where_every_booked_state_is_refused():
    domain = next(d for d in load_ontology() if d.id == "lab_test_orders")
    spec = generate_env(assign_enforcement(domain), seed=0).spec
    refusing = ["Cancel a lab order. Allowed only when the lab order is requested."]
    assert "on the calendar" in spec_readings(spec, "scheduled", refusing)
    # where a confirmed order could be changed, "on the calendar" does not say it is the scheduled one
    furniture = next(d for d in load_ontology() if d.id == "furniture_custom_orders")
    spec = generate_env(assign_enforcement(furniture), seed=0).spec
    allowing = ["Cancel a furniture order. Allowed only when the furniture order is quoted or confirmed."]
    assert "on the calendar" not in spec_readings(spec, "scheduled", allowing)
    assert "on the calendar" in spec_readings(spec, "scheduled", ["Allowed only when it is quoted."])


def test_a_rule_said_of_records_in_general_claims_nothing_and_names_no_state_of_this_one():
    from envs.grading.answers import claimed, without_general_rules

    answer = "I'm sorry, I can't confirm the place for your application: it's draft. "
    rule = "Applications are confirmed when their status allows it."
    assert claimed(answer + rule, ["confirmed"], about="confirm the place for my application") is None
    # said as what the agent did, it claims
    done = "As requested, applications are confirmed when possible."
    assert claimed(answer + done, ["confirmed"], about="confirm the place for my application") is not None
    assert without_general_rules("It's received. Recommendations are cancelled when their status allows it.") == (
        "It's received."
    )
    assert without_general_rules("Your recommendations are cancelled now.") == "Your recommendations are cancelled now."


def test_a_record_the_task_acted_on_is_reported_not_read_out():
    """podcast_ad_campaigns-010 (seed 103): the spot cancelled, said by its kind, day, price and id."""
    from envs.grading.restating import dumped_records

    spot = {
        "ad_spot_id": "SP0010",
        "advertiser_id": "AD0045",
        "ad_campaign_id": "AC0002",
        "podcast_show_id": "PS0008",
        "air_date": "2026-05-15",
        "read_type": "host_read",
        "price": 2059.58,
        "status": "cancelled",
    }
    report = "I cancelled your host-read spot SP0010 airing May 15, 2026; the $2,059.58 went back to your budget."
    assert dumped_records(report, [spot], names=["SP0010"], acted_on=["SP0010"]) == []
    # a record nothing was done to, said in every field, is read out; so is an acted one, keys and all
    assert dumped_records(report, [spot], names=["SP0010"]) == ["SP0010"]
    every = report + " It was on campaign AC0002, show PS0008, advertiser AD0045."
    assert dumped_records(every, [spot], names=["SP0010"], acted_on=["SP0010"]) == ["SP0010"]


def test_a_request_said_confirmed_is_a_claim_whatever_state_word_it_shares():
    """study_abroad_applications-001 (held agent nominal-claim): "Your decline request is confirmed."
    of an offer refused because the application is already confirmed."""
    from envs.grading.answers import claimed

    lead = "Unfortunately that took longer than it should have. "
    assert claimed(lead + "Your decline request is confirmed.", ["declined"], states=["confirmed"]) is not None
    # the record's own state said is no claim
    refusal = "I can't decline the offer: your application is already confirmed."
    assert claimed(refusal, ["declined"], states=["confirmed"]) is None
    assert claimed("I can't decline it: the application is confirmed.", ["declined"], states=["confirmed"]) is None
