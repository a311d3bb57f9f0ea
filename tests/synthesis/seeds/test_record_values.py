"""Seed values a reviewer believes beside their own record (seed 61's review): a pay date not before
its pay period starts, net pay within gross, a fine balance that is what the member's open fines add
up to (where it has any, or is 0), one valid passport per applicant, and no loss type on a passport
never reported lost."""

from __future__ import annotations

import copy
from collections import Counter

from envs.quality.believable import believable_counts
from envs.quality.bounds import values_beyond_record
from envs.quality.one_off import recorded_many_times
from envs.quality.seed_time import seed_time

from .generated import generated_spec


def test_a_pay_date_closes_its_pay_period():
    spec = generated_spec("payroll_corrections")
    periods = spec.seed["pay_periods"]
    assert len(periods) >= 10 and all(p["period_start"] <= p["pay_date"] for p in periods)
    timeline = seed_time(spec, spec.seed, spec.clock)
    assert timeline.date_pairs_checked >= len(periods) and timeline.inverted_date_pairs == 0
    broken = copy.deepcopy(spec.seed)
    broken["pay_periods"][0].update(period_start="2026-03-02", pay_date="2025-11-30")  # PP0012 as reviewed
    assert seed_time(spec, broken, spec.clock).inverted_date_pairs == 1


def test_net_pay_is_a_part_of_gross_pay():
    spec = generated_spec("payroll_corrections")
    slips = spec.seed["payslips"]
    assert len(slips) >= 20 and all(0 < s["net_pay"] <= s["gross_pay"] for s in slips)
    assert values_beyond_record(spec).values_beyond_their_record == 0
    broken = copy.deepcopy(spec.seed)
    broken["payslips"][0].update(gross_pay=1417.08, net_pay=2604.30)  # PS0073 as reviewed
    assert values_beyond_record(spec, broken).values_beyond_their_record == 1


def test_a_fine_balance_is_what_the_open_fines_add_up_to():
    spec = generated_spec("library_loans")
    owed: Counter[str] = Counter()
    for fine in spec.seed["fines"]:
        if fine["status"] == "open":
            owed[fine["member_id"]] += fine["amount"]
    members = spec.seed["members"]
    with_fines = [m for m in members if owed[m["member_id"]] > 0 or m["fine_balance"] == 0]
    assert len(with_fines) >= 8 and sum(owed[m["member_id"]] > 0 for m in with_fines) >= 3
    assert all(abs(m["fine_balance"] - owed[m["member_id"]]) < 0.005 for m in with_fines)
    assert sum(m["fine_balance"] > 10 for m in members) >= 2  # some still owe more than the borrowing limit
    counts = values_beyond_record(spec)
    left = len(members) - len(with_fines)  # a balance no open fine stands for is left (see the seed rule)
    assert counts.bounded_values_checked >= len(members) and counts.values_beyond_their_record == left
    broken = copy.deepcopy(spec.seed)
    member = next(m for m in broken["members"] if owed[m["member_id"]] > 0)
    member["fine_balance"] += 15.01  # 19.38 owed over one open fine of 4.37
    assert values_beyond_record(spec, broken).values_beyond_their_record == left + 1


def test_an_applicant_holds_one_valid_passport_with_no_loss_recorded():
    spec = generated_spec("passport_renewal")
    valid = [p for p in spec.seed["passports"] if p["status"] == "valid"]
    assert len(valid) >= 10
    assert max(Counter(p["applicant_id"] for p in valid).values()) == 1
    assert all(p["loss_type"] is None for p in valid)
    assert any(p["loss_type"] is not None for p in spec.seed["passports"] if p["status"] == "reported_lost")
    assert recorded_many_times(spec).one_off_recorded_many_times == 0
    assert believable_counts(spec, []).event_reasons_outside_their_state == 0
    broken = copy.deepcopy(spec.seed)
    second = next(p for p in broken["passports"] if p["status"] != "valid")
    second.update(applicant_id=valid[0]["applicant_id"], status="valid")
    assert recorded_many_times(spec, broken).one_off_recorded_many_times == 1
