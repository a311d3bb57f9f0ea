"""Every condition a gold decision rests on reaches the agent (the seed-97 review's two rejects):
what only the user can state ("the cardholder says they tried the merchant") is among the user's
facts, and the value a rule the tools leave to the policy tests (an exam sitting's date) comes back
from a read before the write. Built from the real domains, seed 0, as the default catalog makes them;
``check_env`` fails a task that drops either."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.catalog import CatalogEntry, load_env_dir
from envs.check import check_env
from envs.formats.task import Task
from envs.grading.stated import read_stated
from synthesis.catalog.default_catalog import synthesis_config
from synthesis.catalog.pipeline import synthesize_one
from synthesis.domains.ontology import load_ontology
from synthesis.knowledge.catalog import variant_for

STATEMENT = "I tried to resolve it with the merchant"


def _built(out: Path, domain_id: str) -> Path:
    domain = next(d for d in load_ontology() if d.id == domain_id)
    assert synthesize_one(domain, 0, synthesis_config(out)).status == "accepted"
    return out / domain_id


@pytest.fixture(scope="module")
def disputes(tmp_path_factory: pytest.TempPathFactory) -> CatalogEntry:
    return load_env_dir(_built(tmp_path_factory.mktemp("catalog"), "credit_card_disputes"))


@pytest.fixture(scope="module")
def exams(tmp_path_factory: pytest.TempPathFactory):
    source = _built(tmp_path_factory.mktemp("catalog"), "standardized_exam_registration")
    variant = variant_for(source)  # verified and checked
    assert variant is not None
    return load_env_dir(source), variant


def _without_fact(task: Task, words: str) -> Task:
    user = task.user.model_copy(
        update={
            "known_facts": [f for f in task.user.known_facts if words not in f],
            "reveal_if_asked": [f for f in task.user.reveal_if_asked if words not in f],
        }
    )
    return task.model_copy(update={"user": user})


def _told(report) -> list[str]:
    return [str(p) for p in report.problems if p.check == "told"]


def test_the_policy_line_is_read_as_a_condition_the_user_states(disputes: CatalogEntry):
    line = next(x for x in disputes.spec.policy.splitlines() if "tried to resolve" in x)
    stated = read_stated(line)
    assert stated is not None
    assert (stated.statement, stated.unless) == (STATEMENT, "fraud")
    assert stated.governs(disputes.spec) == ["dispute_card_transaction"]  # not withdrawing, not evidence
    assert stated.exempts({"reason": "fraud"}) and not stated.exempts({"reason": "not_received"})


def test_each_dispute_the_gold_opens_has_the_statement_among_the_users_facts(disputes: CatalogEntry):
    opened = [
        (t, c)
        for t in disputes.tasks
        for c in t.gold_actions
        if c.tool == "dispute_card_transaction" and c.arguments.get("reason") != "fraud"
    ]
    assert opened, "the seed-0 build opens disputes in some task"
    for task, _ in opened:
        said = [*task.user.known_facts, *task.user.reveal_if_asked]
        assert any(STATEMENT in f for f in said), task.id
    # a task whose gold opens no dispute is not told to say it
    others = [t for t in disputes.tasks if all(c.tool != "dispute_card_transaction" for c in t.gold_actions)]
    assert others and not any(STATEMENT in f for t in others for f in [*t.user.known_facts, *t.user.reveal_if_asked])


def test_check_env_fails_a_dispute_whose_user_never_says_it(disputes: CatalogEntry):
    task = next(t for t in disputes.tasks if any(c.tool == "dispute_card_transaction" for c in t.gold_actions))
    assert check_env(disputes.spec, [task]).ok
    report = check_env(disputes.spec, [_without_fact(task, STATEMENT)])
    assert not report.ok
    assert any("waits on the user saying" in p and "tried to resolve it with the merchant" in p for p in _told(report))


def test_a_fraud_dispute_does_not_wait_on_the_statement(disputes: CatalogEntry):
    task = next(t for t in disputes.tasks if any(c.tool == "dispute_card_transaction" for c in t.gold_actions))
    calls = [
        c.model_copy(update={"arguments": {**c.arguments, "reason": "fraud"}})
        if c.tool == "dispute_card_transaction"
        else c
        for c in task.gold_actions
    ]
    fraud = _without_fact(task, STATEMENT).model_copy(update={"gold_actions": calls})
    assert not _told(check_env(disputes.spec, [fraud]))


def test_every_score_recipient_added_reads_the_sitting_first(exams):
    source, variant = exams
    added = 0
    for task in [*source.tasks, *variant.tasks]:
        for i, call in enumerate(task.gold_actions):
            if call.tool == "add_score_recipient_registration":
                added += 1
                assert any(c.tool == "get_exam_sitting_details" for c in task.gold_actions[:i]), task.id
    assert added >= 8
    assert len(variant.tasks) >= 8


def test_check_env_fails_a_knowledge_base_write_whose_deciding_date_no_call_reads(exams):
    _, variant = exams
    task = next(t for t in variant.tasks if any(c.tool == "add_score_recipient_registration" for c in t.gold_actions))
    assert check_env(variant.spec, [task]).ok
    blind = task.model_copy(
        update={"gold_actions": [c for c in task.gold_actions if c.tool != "get_exam_sitting_details"]}
    )
    problems = _told(check_env(variant.spec, [blind]))
    assert problems and "sitting time" in problems[0] and "which no call before it returns" in problems[0]
