"""A motive fits the record it is given for, not only the verb (the seed-59 review): who pays whom,
what kind of thing it is, and where it stands."""

from __future__ import annotations

import re
from datetime import date

from synthesis.tasks.motive_fit import CLAIM, HOSTED, PAYS_USER, RecordFacts, kind_words
from synthesis.tasks.motives import transition_motive
from synthesis.tasks.record_motives import update_motive

_KEYS = range(300)
_SPEND = re.compile(r"costs more|willing to spend|cheaper|money is tight", re.IGNORECASE)
_PLANS = re.compile(r"plans?\b.*\b(?:changed|fell through)|fell through|change of plans", re.IGNORECASE)
_SCHEDULE = re.compile(r"schedule changed|can't make it|booked it by mistake|change of plans at work", re.IGNORECASE)
_LATE = re.compile(r"be late", re.IGNORECASE)
_PAY_DAY = re.compile(r"just got paid", re.IGNORECASE)


def _said(verb: str, phrase: str, record: RecordFacts | None = None) -> set[str]:
    return {m for i in _KEYS if (m := transition_motive(verb, f"U{i}|{phrase}", record=record)) is not None}


def test_the_kind_of_a_record_is_read_from_its_name_not_from_what_tells_it_apart() -> None:
    assert kind_words("U7|my trade in offer expiring on March 14") == {"tradein", "offer"}
    assert kind_words("U7|my event booking for Library Room") == {"event", "booking"}
    assert kind_words("U7|my submitted warranty claims for the Smith party") == {"submitted", "warranty", "claim"}
    assert PAYS_USER in RecordFacts.from_phrase("my trade in offer").facets()
    assert {CLAIM, PAYS_USER} <= RecordFacts.from_phrase("my warranty claim").facets()
    assert HOSTED in RecordFacts.from_phrase("my event booking for Library Room").facets()


def test_declining_money_paid_to_the_user_is_no_spending() -> None:
    """dealership_test_drives-010: "It costs more than I'm willing to spend" declined a trade-in offer."""
    offer = _said("decline", "my trade in offer expiring on March 14")
    assert not {m for m in offer if _SPEND.search(m)}
    assert "It's less than I was hoping to get." in offer
    assert {m for m in _said("decline", "my freight quote for Denver") if _SPEND.search(m)}  # a cost may


def test_a_claim_is_withdrawn_for_the_matter_not_for_plans() -> None:
    """vehicle_warranty_claims-023: "The plans behind it fell through" withdrew a repair claim."""
    claim = _said("withdraw", "my warranty claim for the A/C compressor")
    assert claim and not {m for m in claim if _PLANS.search(m)}
    assert "I've worked it out with them directly." in claim
    assert {m for m in _said("withdraw", "my tuition application for Lyon") if _PLANS.search(m)}


def test_ones_own_event_is_not_called_off_for_a_schedule() -> None:
    """banquet_event_planning-016: "My schedule changed and I can't make it work" cancelled a wedding."""
    event = _said("cancel", "my event booking for Library Room")
    assert event and not {m for m in event if _SCHEDULE.search(m)}
    assert "We've decided to call the whole thing off." in event
    assert {m for m in _said("cancel", "my vet appointment with Dr. Lee") if _SCHEDULE.search(m)}


def test_lateness_and_a_pay_day_need_the_records_state_and_amount() -> None:
    """phone_bill_disputes-022 paid a bill three months overdue "rather than be late with it";
    banquet_event_planning-012 paid a $15.97 deposit because "I just got paid, so I can clear it"."""
    today = date(2026, 3, 2)
    unknown = _said("pay", "my bill")
    assert unknown and not {m for m in unknown if _LATE.search(m) or _PAY_DAY.search(m)}

    overdue = RecordFacts.of_row("my bill", {"status": "overdue", "amount_due": 31.15}, today)
    late = _said("pay_from_credit", "my bill", overdue)
    assert not {m for m in late if _LATE.search(m)}
    assert "I lost track of it and want it off my plate." in late

    due_later = {"status": "issued", "due_date": "2026-03-20", "amount_due": 420.0}
    ahead = _said("pay", "my bill", RecordFacts.of_row("my bill", due_later, today))
    assert {m for m in ahead if _LATE.search(m)} and {m for m in ahead if _PAY_DAY.search(m)}
    passed = _said("pay", "my bill", RecordFacts.of_row("my bill", {**due_later, "due_date": "2026-01-20"}, today))
    assert not {m for m in passed if _LATE.search(m)}

    booking = {"status": "confirmed", "total_price": 4078.68}
    deposit = _said("pay_deposit", "my event booking", RecordFacts.of_row("my event booking", booking, today, 15.97))
    assert not {m for m in deposit if _PAY_DAY.search(m)}
    assert "I can put something toward it now." in deposit
    whole = RecordFacts.of_row("my citation", {"status": "unpaid", "amount": 12.5}, today)
    assert not {m for m in _said("pay", "my citation", whole) if _PAY_DAY.search(m)}  # a few dollars


def test_a_setting_is_switched_for_a_preference_not_because_it_was_given_wrong() -> None:
    """self_storage_rentals-030 turned off autopay because "I noticed it was wrong when I looked it over"."""
    for column in ("autopay", "newsletter_opt_in", "overdraft_protection", "is_public", "low_balance_alerts"):
        said = {update_motive(column, f"U{i}|my account") for i in _KEYS}
        assert not {m for m in said if re.search(r"wrong|mistake", m)}, column
    assert {m for i in _KEYS if "wrong" in (m := update_motive("license_plate", f"U{i}|my car"))}


_FAR = re.compile(r"\bgap\b|\blapse\b|be late|taking longer|ran longer|not quite finished", re.IGNORECASE)
_TIGHT = re.compile(r"money is (?:a bit )?tight|cheaper|cut(?:ting)? back", re.IGNORECASE)


def test_time_pressure_needs_the_records_day_near_or_begun() -> None:
    """library_loans-022: "I don't want a gap" renewed a loan due in 3.5 months; travel_insurance_claims-001:
    "Things are taking longer than I expected" extended cover for a trip ten weeks away."""
    today = date(2026, 3, 2)
    far_loan = RecordFacts.of_row("my loan", {"status": "active", "due_date": "2026-06-20"}, today)
    near_loan = RecordFacts.of_row("my loan", {"status": "active", "due_date": "2026-03-10"}, today)
    assert not {m for m in _said("renew", "my loan", far_loan) if _FAR.search(m)}
    assert {m for m in _said("renew", "my loan", near_loan) if _FAR.search(m)}
    ahead = {"status": "active", "trip_start_date": "2026-05-14", "end_date": "2026-06-02", "premium": 80.0}
    trip = RecordFacts.of_row("my travel policy", ahead, today)
    assert not {m for m in _said("extend", "my travel policy", trip) if _FAR.search(m)}
    begun = RecordFacts.of_row("my travel policy", {**ahead, "trip_start_date": "2026-02-20"}, today)
    assert {m for m in _said("extend", "my travel policy", begun) if _FAR.search(m)}
    bill = {"status": "issued", "due_date": "2026-06-20", "amount_due": 420.0}
    assert not {m for m in _said("pay", "my bill", RecordFacts.of_row("my bill", bill, today)) if _FAR.search(m)}


def test_money_explains_giving_up_only_what_costs_money() -> None:
    """newspaper_home_delivery-003: "Money is tight right now" cancelled a vacation hold on the paper."""
    today = date(2026, 3, 2)
    hold = {"status": "scheduled", "start_date": "2026-06-08", "end_date": "2026-06-11", "donate_papers": 1}
    free = _said("cancel", "my vacation hold", RecordFacts.of_row("my vacation hold", hold, today))
    assert free and not {m for m in free if _TIGHT.search(m)}
    paper = {"status": "active", "weekly_rate": 11.84}
    paid = _said("cancel", "my subscription", RecordFacts.of_row("my subscription", paper, today))
    assert {m for m in paid if _TIGHT.search(m)}


def test_cover_is_used_because_something_went_wrong() -> None:
    """tire_shop_installations-001: "I'd rather use it before I forget about it" for a road-hazard claim."""
    cover = _said("claim", "my road hazard warranty")
    assert cover and not {m for m in cover if "forget" in m or "side of town" in m}
    assert {m for m in _said("redeem", "my gift voucher") if "forget" in m}


def test_a_renamed_record_is_named_better_not_corrected() -> None:
    """employee_expense_claims-004: "I noticed it was wrong" retitled a report to another subject."""
    said = {update_motive("title", f"U{i}|my expense report") for i in _KEYS}
    assert not {m for m in said if "wrong" in m}


def test_a_reason_fits_the_kind_of_thing_asked_for() -> None:
    """The seed-71 review: "on my way to that side of town" to redeem a certificate paid into savings,
    "the problem sorted itself out" to close a business licence, "we're bringing more than we planned"
    to add a liftgate, "I need a bit more time" for a stay ending in 58 days, "before I forget" to have
    a missed paper redelivered seven weeks on, "another option that suits me better" to remove a
    beneficiary."""
    assert not {m for m in _said("redeem_certificate", "my certificate") if "side of town" in m}
    assert {m for m in _said("pick_up_layaway", "my layaway") if "side of town" in m}
    licence = _said("close_business_license", "my business license")
    assert licence and not {m for m in licence if "sorted itself" in m or "working again" in m}
    assert {m for m in _said("close_outage_ticket", "my outage ticket") if "sorted itself" in m}
    assert not {m for m in _said("add_liftgate_freight_shipment", "my freight shipment") if "bringing more" in m}
    assert {m for m in _said("add_bag_shuttle_ticket", "my shuttle ticket") if "bringing more" in m}
    today = date(2026, 3, 2)
    stay = {"status": "parked", "entry_at": "2026-03-02T05:00:00", "exit_date": "2026-04-29", "daily_rate": 28.5}
    far = RecordFacts.of_row("my parking reservation", stay, today)
    assert not {m for m in _said("extend", "my parking reservation", far) if "bit more time" in m}
    near = RecordFacts.of_row("my parking reservation", {**stay, "exit_date": "2026-03-05"}, today)
    assert {m for m in _said("extend", "my parking reservation", near) if "bit more time" in m}
    redelivered = _said("redeliver_missed_delivery", "my missed delivery")
    assert redelivered and not {m for m in redelivered if "forget" in m}
    removed = _said("remove_beneficiaries", "my beneficiary")
    assert removed and not {m for m in removed if "suits me better" in m or "cheaper" in m}


def test_a_motive_fits_the_action_and_the_records_age() -> None:
    """The seed-79 review's three: a paused device re-enrolled "I'll still need it for a while yet", a
    lost key replaced "It arrived damaged", a box of six weeks ago "I wanted you to know straight away"."""
    from synthesis.tasks.motives import family

    assert family("re_enroll") == family("resume") and family("re_enroll") != family("renew")
    assert family("replace_key") != family("return") and family("replace_item") == family("return")
    keys = {transition_motive("replace_key", f"u{i}|my box lease") for i in range(30)}
    assert keys and not any("arrived" in k or "ordered" in k for k in keys if k)
    today = date(2026, 3, 2)
    old = RecordFacts.of_row("my weekly box", {"delivered_on": "2026-01-16", "status": "delivered"}, today)
    new = RecordFacts.of_row("my weekly box", {"delivered_on": "2026-02-26", "status": "delivered"}, today)
    said_old = {transition_motive("report_damaged", f"u{i}|my weekly box", record=old) for i in range(40)}
    said_new = {transition_motive("report_damaged", f"u{i}|my weekly box", record=new) for i in range(40)}
    assert not any("straight away" in m or "as soon as" in m for m in said_old if m)
    assert any("straight away" in m or "as soon as" in m for m in said_new if m)


def test_a_deposit_comes_back_and_a_missed_delivery_is_credited_without_a_billing_complaint() -> None:
    """gas_service_start_stop-018 and newspaper_home_delivery_kb-005 (seed 101): "I didn't get what I
    paid for" asked a deposit back, "I think I was charged twice" a credit for a paper never delivered."""
    complaint = re.compile(r"charged twice|didn't get what I paid|wasn't as described|wasn't what was promised")
    deposit = _said("refund_deposit", "my account")
    assert deposit and not {m for m in deposit if complaint.search(m)}
    missed = _said("credit", "my missed delivery for the subscription on May 20")
    assert missed and not {m for m in missed if complaint.search(m)}
    assert {m for m in _said("refund", "my pay per view order") if complaint.search(m)}  # a purchase may
