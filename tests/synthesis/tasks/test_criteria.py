"""Records named by a criterion ("my open fine with the highest amount") and totals over several
records: the gold calls act on or report exactly the value the criterion picks, in the live state."""

from __future__ import annotations

import json
import math
import random
import re

import pytest

from envs import Environment, Task, check_env
from envs.formats.spec import EnvSpec
from envs.grading.outputs import as_number, numbers_in
from envs.quality.derived import derived_arguments
from envs.quality.spec import Ownership
from envs.quality.tasks import find_target, is_ambiguous
from envs.quality.text import normalize
from synthesis.domains.domain import Attribute
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.criteria import extreme
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

DOMAINS = ("library_loans", "after_school_programs", "broadband_outage_tickets", "certificate_of_deposit_accounts")
_SUPERLATIVE = re.compile(
    r"my (?P<which>[\w ]+?) with the (?P<word>lowest|highest|smallest|largest|fewest|most|earliest|latest) "
    r"|\bmy (?:cheapest|most expensive|smallest|largest|earliest|latest|oldest|most recent) "
    r"|\bmy [\w ]+? that (?:expires|is due|renews) (?:first|last)\b"
)


@pytest.fixture(scope="module")
def generated() -> list[tuple[EnvSpec, list[Task]]]:
    by_id = {d.id: d for d in load_ontology()}
    out = []
    for name in DOMAINS:
        d = assign_enforcement(by_id[name])
        served = generate_env(d, seed=0)
        twin = generate_env(d, seed=0, enforce_all=True)
        tasks, _ = generate_tasks(d, served.spec, served.meta, count=30, seed=0, twin=twin.spec)
        out.append((served.spec, tasks))
    return out


def test_extreme_picks_the_one_row_that_holds_a_value_alone():
    from envs.quality.everyday_ranks import names_a_record

    def priced(a: Attribute) -> bool:
        return a.kind == "money" and names_a_record(a.name, a.kind, own=False)

    entity = next(e for d in load_ontology() for e in d.entities if any(priced(a) for a in e.attributes))
    money = next(a.name for a in entity.attributes if priced(a))
    others = {a.name: 1 for a in entity.attributes if a.kind not in ("money",)}
    rows = [{**others, money: 5.0}, {**others, money: 9.5}, {**others, money: 5.0}]
    found = extreme(entity, rows, random.Random(0))
    assert found is not None
    row, rank = found
    ranked_by_money = rank.marker.endswith(money.replace("_", " ")) or rank.marker in ("cheapest", "most expensive")
    assert row is rows[1] or not ranked_by_money  # 9.5 is the one value held alone
    tied = [{**others, money: 5.0}, {**others, money: 5.0}]
    for s in range(5):
        found = extreme(entity, tied, random.Random(s))
        assert found is None or money.replace("_", " ") not in found[1].marker


def test_a_rank_is_said_in_everyday_words_only_where_no_other_column_shares_them():
    from envs.quality.everyday_ranks import everyday_rank, unmistakable_rank

    expiry = everyday_rank("expires_on", True, False)
    assert expiry is not None and expiry.name("open trade order", "my") == "my open trade order that expires first"
    cheapest = everyday_rank("monthly_fee", False, False)
    assert cheapest is not None and cheapest.name("plan") == "the cheapest plan"
    assert everyday_rank("seats_left", False, True) is None  # "the most seats left" says it already
    assert everyday_rank("pickup_by", True, False) is None  # a deadline, not when the pickup happens
    assert everyday_rank("refund_fee", False, True) is None
    # two prices of one record: "the cheapest" cannot say which; the one charged by the month is still
    # "the plan that costs the least per month"
    two = [("monthly_fee", False), ("setup_fee", False)]
    monthly = unmistakable_rank("monthly_fee", False, False, two)
    assert monthly is not None and monthly.name("plan") == "the plan that costs the least per month"
    assert unmistakable_rank("setup_fee", False, False, two) is None
    assert unmistakable_rank("monthly_fee", False, False, [("monthly_fee", False), ("seats_left", False)]) is not None


def test_a_record_is_ranked_only_by_what_a_person_picks_it_by():
    """Of anyone's records (a caregiver, a class) a person picks by when, what it costs or its size,
    never by another party's capacity or a figure the system keeps; of their own, by what they know
    of them; and a column ranked is said in everyday words where there are some."""
    from envs.quality.everyday_ranks import everyday_rank, names_a_record, unmistakable_rank

    assert not names_a_record("open_hours", "integer", own=False)  # no client picks the busiest aide
    assert not names_a_record("seats_left", "integer", own=False)
    assert not names_a_record("max_rebate", "money", own=False)
    assert not names_a_record("cargo_cutoff", "datetime", own=False)
    assert not names_a_record("party_size", "integer", own=False)  # a count the owner sets, of theirs only
    assert names_a_record("party_size", "integer", own=True)
    assert not names_a_record("current_balance", "money", own=True)
    assert names_a_record("price", "money", own=False) and names_a_record("departure_time", "datetime", own=False)
    assert names_a_record("capacity", "integer", own=False)  # "the largest room"
    cost = everyday_rank("credit_cost", False, False)  # a price in credits
    assert cost is not None and cost.name("license", "my") == "my cheapest license"
    assert everyday_rank("credit_rate", False, True) is None  # paid to the user: no price
    rate = everyday_rank("monthly_rate", False, True)
    assert rate is not None and rate.name("rental") == "the most expensive rental"
    expected = everyday_rank("expected_date", True, False)
    assert expected is not None and expected.name("parcel", "my") == "my parcel that is expected first"
    span = [("window_start", True), ("window_end", True)]
    first = unmistakable_rank("window_start", True, False, span)
    assert first is not None and first.name("delivery slot") == "the earliest delivery slot"
    assert unmistakable_rank("window_end", True, False, span) is None  # "earliest" says the start
    sitting = everyday_rank("sitting_at", True, False)
    assert sitting is not None and sitting.name("exam sitting") == "the earliest exam sitting"
    assert not names_a_record("credit_rate", "money", own=True)  # paid to the user, no price of theirs
    ends = everyday_rank("end_date", True, False)
    assert ends is not None and ends.name("rental", "my") == "my rental that ends first"
    asked = everyday_rank("requested_date", True, False)  # not "my upgrade request with the earliest requested date"
    assert asked is not None and asked.name("upgrade request", "my") == "my oldest upgrade request"


def test_a_write_named_by_a_criterion_acts_on_the_one_record_it_picks(generated):
    """The record each such write acts on is the one the superlative singles out among the user's
    records of its kind that fit the rest of the words (and only the superlative does)."""
    seen = derived = 0
    for spec, tasks in generated:
        env = Environment(spec)
        ownership = Ownership.of(spec)
        for task in tasks:
            words = " ".join([task.instruction, *task.user.known_facts, *task.user.reveal_if_asked])
            match = _SUPERLATIVE.search(words)
            if match is None or not task.expects_change:
                continue
            evidence = normalize(words)
            ep = env.episode(task)
            state = ownership.state({t.name: ep.dump(t.name) for t in spec.tables})
            targets = [
                find_target(state, spec.tool(c.tool).parameters, c.arguments)  # type: ignore[union-attr]
                for c in task.gold_actions
                if spec.tool(c.tool).kind == "write"  # type: ignore[union-attr]
            ]
            named = [t for t in targets if t is not None and is_ambiguous(state, t, evidence) is False]
            assert named, (task.id, match.group(0))
            derived += bool(derived_arguments(env, ownership, task))  # unless other words name it too
            seen += 1
    assert seen >= 10 and derived >= 0.7 * seen


def test_a_total_is_the_sum_of_the_records_it_names(generated):
    seen = 0
    for _, tasks in generated:
        for task in tasks:
            if "information" not in task.tags or not re.search(r"total|add up|altogether", task.instruction):
                continue
            value = as_number(task.outputs[0])
            assert value is not None and task.answer is not None and task.outputs[0] in task.answer
            seen += 1
    assert seen >= 1  # how many of the 120 tasks are totals is the draw's (3 before the draw moved, 1 after)


def test_a_what_if_question_is_answered_without_acting_and_not_by_the_value_as_it_is(generated):
    from envs import score_episode

    seen = 0
    for spec, tasks in generated:
        env = Environment(spec)
        for task in tasks:
            if "what would my" not in task.instruction:
                continue
            assert not task.expects_change and len(task.outputs) == 1 and len(task.distractors) == 1
            ep = env.episode(task)
            results = ep.replay(task.gold_actions)
            assert score_episode(env, task, ep, answer=task.answer or "").reward == 1.0
            now = task.distractors[0]
            # decidable: the amount the action would move is read on the way (or the policy says it)
            moved = abs(float(task.outputs[0]) - float(now))
            said = json.dumps([getattr(r, "content", r) for r in results], default=str) + spec.policy
            assert any(math.isclose(n, moved, abs_tol=0.005) for n in numbers_in(said)), task.id
            assert score_episode(env, task, ep, answer=f"Your balance is {now}.").reward == 0.0
            assert task.outputs[0] != now
            seen += 1
    assert seen >= 1


def test_a_what_if_reads_the_record_that_says_how_much_the_action_moves():
    """hotel_loyalty_points-006: "what would my points balance come to if I cancel my redemption?"
    was asked with the reward's points cost in no gold result; and "if I applied my shop credit"
    (bike_shop_repairs-002) cannot say how much of it."""
    from ..seeds.generated import domain

    for name, tool in (("hotel_loyalty_points", "get_reward_details"), ("bike_shop_repairs", None)):
        d = domain(name)
        gen = generate_env(d, seed=0)
        twin = generate_env(d, seed=0, enforce_all=True)
        tasks, _ = generate_tasks(d, gen.spec, gen.meta, count=33, seed=0, twin=twin.spec)
        asked = [t for t in tasks if "what would my" in t.instruction]
        if tool is None:
            assert not any("credit" in t.instruction for t in asked)
        else:
            assert asked and all(tool in [a.tool for a in t.gold_actions] for t in asked)


def test_a_public_record_no_lookup_finds_is_named_by_what_it_is_and_its_name():
    """home_health_visits-030 (seed 79): "the home health aide caregiver with the fewest open hours";
    a client names the aide they want: "the home health aide caregiver Laura Baker"."""
    from ..seeds.generated import domain

    d = domain("home_health_visits")
    gen = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, gen.spec, gen.meta, count=30, seed=0, twin=twin.spec)
    names = {r["full_name"] for r in gen.spec.seed["caregivers"]}
    creates = [t for t in tasks if any(a.tool == "create_care_visit" for a in t.gold_actions)]
    assert len(creates) >= 3
    assert not any(re.search(r"open hours", t.instruction) for t in tasks)
    named = [t for t in creates if any(f"caregiver {n}" in t.instruction for n in names)]
    assert named
    assert check_env(gen.spec, tasks).ok
