"""A knowledge-base variant built from a real synthesized environment (the built-in library loans
domain, seed 0, as the default catalog makes it): what moves to the help center, what the tasks
name, the build-time verification, and the variant played on the real engine."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from envs import Catalog
from envs.catalog import CatalogEntry, load_env_dir
from envs.check import check_env
from envs.engine import Environment
from envs.formats.knowledge_modes import knowledge_policy, withheld_tools
from envs.formats.task import Task, ToolCall
from envs.grading.scoring import score_episode
from envs.quality.adversaries import Agent
from envs.quality.gaming import DOCUMENT_WRITES, DOCUMENTS, WRITE, play, task_class
from envs.quality.retrieval import retrieval_counts
from synthesis.catalog.default_catalog import synthesis_config
from synthesis.catalog.pipeline import synthesize_one
from synthesis.domains.ontology import load_ontology
from synthesis.knowledge import KbVariant, KnowledgeBuildError, verify_variant, write_kb_catalog
from synthesis.knowledge.articles import faq_question
from synthesis.knowledge.catalog import variant_for
from synthesis.knowledge.choice_rules import rule_allows
from synthesis.knowledge.choices import patched_records
from synthesis.knowledge.variant import CHOICE, TABLE
from synthesis.knowledge.verify import stating


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("catalog")
    domain = next(d for d in load_ontology() if d.id == "library_loans")
    assert synthesize_one(domain, 0, synthesis_config(out)).status == "accepted"
    return out


@pytest.fixture(scope="module")
def original(source: Path) -> CatalogEntry:
    return load_env_dir(source / "library_loans")


@pytest.fixture
def variant(source: Path) -> KbVariant:
    built = variant_for(source / "library_loans")  # verified and checked
    assert built is not None
    return built


def test_the_variant_is_the_original_plus_a_help_center_and_passes_the_check(variant: KbVariant, original):
    spec = variant.spec
    assert spec.id == "library_loans_kb" and spec.name.endswith("(help center)")
    docs = spec.table(TABLE)
    assert docs is not None and docs.full_text == ["title", "body"]
    assert [t.name for t in spec.tables] == [*(t.name for t in original.spec.tables), TABLE]
    assert {t.name for t in spec.tools} == {t.name for t in original.spec.tools} | {
        "search_help_articles",
        "read_help_article",
        "grep_help_articles",
    }
    assert spec.rules == original.spec.rules
    report = check_env(spec, variant.tasks)
    assert report.ok, report.problems[:3]
    assert len(variant.tasks) >= 7 and report.tasks_passed == len(variant.tasks)


def test_the_policy_is_a_header_and_every_rule_is_in_an_article(variant: KbVariant, original):
    policy = variant.spec.policy
    assert "The current time is 2026-03-02 09:00 (UTC)." in policy  # time rules are decided against it
    assert "## Identity" in policy and "## Conduct" in policy and "search_help_articles" in policy
    assert "archived editions" in policy and len(policy) < len(original.spec.policy)
    rows = variant.spec.seed[TABLE]
    for rule in original.spec.rules:
        assert rule.text.lower() not in policy.lower(), rule.text
        assert stating(rows, rule.text), f"no article states '{rule.text}'"
    titles = [r["title"] for r in rows]
    assert any(t.startswith("Frequently asked questions") for t in titles)
    assert any("what you can do and why" in t for t in titles) and any("statuses" in t for t in titles)


def test_in_every_other_knowledge_mode_the_prompt_says_where_the_articles_are_and_names_no_withheld_tool(
    variant: KbVariant,
):
    spec, rows = variant.spec, variant.spec.seed[TABLE]
    task = next(t for t in variant.tasks if t.required_documents)
    withheld = withheld_tools(spec, "full")
    assert withheld == {"search_help_articles", "read_help_article", "grep_help_articles"}
    for mode in ("full", "required", "none"):
        policy = knowledge_policy(spec, mode, task)
        assert not [name for name in withheld if name in policy], mode
        assert "The current time is 2026-03-02 09:00 (UTC)." in policy and "## Conduct" in policy
    full = knowledge_policy(spec, "full", task)
    assert "all follow below" in full and all(f"## {r['title']}\n\n{r['body']}" in full for r in rows)
    assert full.index("<help_center>") < full.index(rows[0]["title"]) < full.index("</help_center>")
    required = knowledge_policy(spec, "required", task)
    given = {r["article_id"] for r in rows if f"## {r['title']}\n\n{r['body']}" in required}
    assert given == set(task.required_documents)
    assert "cannot consult" in knowledge_policy(spec, "none", task) and "<help_center>" not in knowledge_policy(
        spec, "none", task
    )


def test_the_faq_asks_in_a_customers_words_and_names_no_tool():
    tables = {"members", "loans", "copies"}
    assert faq_question("renew_loan", tables, "member") == "Can you just renew my loan?"
    assert faq_question("reinstate_member", tables, "member") == "Can you just reinstate my account?"
    assert faq_question("create_loan", tables, "member") == "Can you set up a new loan for me?"
    assert faq_question("return_copy", tables, "member") == "Can you just return my copy?"


def test_the_variants_faq_holds_each_action_once_as_a_question(variant: KbVariant):
    faq = "\n".join(r["body"] for r in variant.spec.seed[TABLE] if r["title"].startswith("Frequently"))
    questions = re.findall(r"\*\*“(.*?)”\*\*", faq)
    assert questions and all(q.startswith("Can you") and q.endswith("?") for q in questions)
    assert "Can you just reinstate my account?" in questions and len(set(questions)) == len(questions)
    words = " ".join(questions).lower()
    assert not any(t.name in words or t.name.replace("_", " ") in words for t in variant.spec.tools), questions


def test_each_task_rests_on_one_article_and_a_distractor_that_would_flip_it(variant: KbVariant, original):
    rows = {r["article_id"]: r for r in variant.spec.seed[TABLE]}
    policy_only = {r.id for r in original.spec.rules if r.enforced_by == "policy"}
    for task in variant.tasks:
        assert task.env == variant.spec.id and task.id.startswith("library_loans_kb-")
        assert any(r.rule in policy_only for r in task.refusals)
        first, second = task.gold_actions[:2]  # the gold searches for the article, then reads it
        assert first.tool == "search_help_articles" and second.tool == "read_help_article"
        assert second.arguments["article_id"] in task.required_documents
        for text, _, _ in variant.deciding[task.id]:
            found = stating(list(rows.values()), text)  # the rule with its value: one article, required
            assert len(found) == 1 and found[0] in task.required_documents, (task.id, text, found)
            plan = next(p for p in variant.plans if p.text == text)
            others = [rows[d] for d in plan.distractors]
            assert others and all(rows[plan.article]["title"] in o["title"] for o in others)  # same topic
            assert all("only" in o["body"] or "Archived" in o["body"] for o in others)


def test_a_distractor_whose_value_flips_nothing_is_refused(variant: KbVariant):
    broken = copy.deepcopy(variant)
    task = broken.tasks[0]
    text, _, _ = broken.deciding[task.id][0]
    plan = next(p for p in broken.plans if p.text == text)
    assert plan.terms is not None
    plan.distractors = {d: plan.terms for d in plan.distractors}  # the rule's own value: refuses too
    with pytest.raises(KnowledgeBuildError) as err:
        verify_variant(broken)
    assert str(err.value).startswith(f"library_loans_kb: task {task.id}: no distractor of '{text}'")


def test_a_rule_stated_in_a_second_article_is_refused(variant: KbVariant):
    broken = copy.deepcopy(variant)
    task = broken.tasks[0]
    text, _, _ = broken.deciding[task.id][0]
    faq = next(r for r in broken.spec.seed[TABLE] if r["title"].startswith("Frequently asked"))
    faq["body"] += f"\n\nIn short: {text}."
    with pytest.raises(KnowledgeBuildError) as err:
        verify_variant(broken)
    assert f"task {task.id}: the rule '{text}' is stated in " in str(err.value)
    assert "not in exactly one required document" in str(err.value)


def test_a_task_the_distractor_does_not_fail_is_refused(variant: KbVariant):
    broken = copy.deepcopy(variant)
    task = broken.tasks[0]
    # a refused call that changes nothing the task checks: acting on the distractor would pass
    call = task.gold_actions[-1]
    task.refusals[0] = task.refusals[0].model_copy(update={"call": call})
    with pytest.raises(KnowledgeBuildError) as err:
        verify_variant(broken)
    assert str(err.value) == f"library_loans_kb: task {task.id}: acting on a distractor's terms still scores 1.0"


def test_played_on_the_engine_the_oracle_passes_and_document_gaming_fails(variant: KbVariant):
    env = Environment(variant.spec)
    for task in variant.tasks:
        assert task_class(env, task) == DOCUMENTS
        assert play("oracle", env, task) == 1.0, task.id
        for agent in ("follows-distractor", "segment-terms", "top-document", "act-anyway", "claim-success"):
            assert play(agent, env, task) < 1.0, (agent, task.id)
    counts = retrieval_counts(env, variant.tasks)
    assert counts.retrieval_tasks == len(variant.tasks)
    assert counts.retrieval_top3_hits < len(variant.tasks)  # the request's words do not hand the rule over


def test_written_variants_load_back_and_pass_the_check(source: Path, tmp_path: Path):
    out = tmp_path / "catalog"
    out.mkdir()
    (out / "library_loans").symlink_to(source / "library_loans", target_is_directory=True)
    figures = write_kb_catalog(out)
    assert figures["total"]["envs"] == 1 and figures["envs"][0]["env"] == "library_loans_kb"
    entry = Catalog(out).get("library_loans_kb")
    assert len(entry.tasks) == figures["total"]["tasks"]
    assert all(t.required_documents for t in entry.tasks)
    assert check_env(entry.spec, entry.tasks).ok


@pytest.fixture(scope="module")
def with_writes(tmp_path_factory: pytest.TempPathFactory) -> KbVariant:
    """A variant whose tasks include gold writes an archived edition's stricter terms would refuse."""
    out = tmp_path_factory.mktemp("catalog")
    domain = next(d for d in load_ontology() if d.id == "airport_parking_reservations")
    assert synthesize_one(domain, 0, synthesis_config(out)).status == "accepted"
    built = variant_for(out / "airport_parking_reservations")
    assert built is not None
    return built


def test_a_write_a_stricter_distractor_would_refuse_rests_on_its_article(with_writes: KbVariant):
    env = Environment(with_writes.spec)
    rows = with_writes.spec.seed[TABLE]
    written = [
        (t, i, text, value) for t in with_writes.tasks for text, value, i in with_writes.deciding.get(t.id, []) if i
    ]
    assert len({t.id for t, *_ in written}) >= 1
    for task, index, text, value in written:
        assert task.gold_actions[index].tool in {r.tool for r in with_writes.spec.rules if r.text == text}
        plan = next(p for p in with_writes.plans if p.text == text)
        assert plan.terms is not None and plan.stricter is not None
        now = with_writes.spec.clock
        assert plan.terms.allows(now, value) is True and plan.stricter.allows(now, value) is False
        archived = next(r for r in rows if r["article_id"] in plan.distractors and "archived" in r["title"])
        assert plan.stricter.text in archived["body"].lower() or plan.stricter.text[1:] in archived["body"]
        assert stating(rows, text) == [plan.article] and plan.article in task.required_documents
        assert play("oracle", env, task) == 1.0
        assert play("follows-distractor", env, task) < 1.0  # the write left out, as the archived terms say


def test_a_write_no_distractor_would_refuse_is_refused(with_writes: KbVariant):
    broken = copy.deepcopy(with_writes)
    # a write task kept as it was (no choice): only an archived edition's terms can decide it
    task, (text, value, _) = next(
        (t, d)
        for t in broken.tasks
        for d in broken.deciding.get(t.id, [])
        if d[2] is not None and all(x[2] is not None for x in broken.deciding[t.id])
    )
    plan = next(p for p in broken.plans if p.text == text)
    assert plan.terms is not None
    plan.distractors = {d: plan.terms for d in plan.distractors}  # the rule's own value allows the write
    broken.tasks = [task.model_copy(update={"tags": [t for t in task.tags if t != CHOICE]})]
    with pytest.raises(KnowledgeBuildError) as err:
        verify_variant(broken)
    assert (
        str(err.value) == f"airport_parking_reservations_kb: task {task.id}: no distractor of '{text}' refuses {value}"
    )


def test_a_choice_task_whose_copies_do_not_decide_it_is_refused(with_writes: KbVariant):
    task = next(t for t in with_writes.tasks if CHOICE in t.tags)
    (_, first), _ = patched_records(with_writes.spec, task)
    for broken_task, message in (
        (task.model_copy(update={"initial_patch": []}), "a choice task with no refused records patched in"),
        (
            task.model_copy(update={"gold_actions": [*task.gold_actions, _on(task, first)]}),
            f"the gold writes {first}, which the rule refuses",
        ),
    ):
        broken = copy.deepcopy(with_writes)
        broken.tasks = [broken_task]
        with pytest.raises(KnowledgeBuildError) as err:
            verify_variant(broken)
        assert f"task {task.id}: {message}" in str(err.value)


def _on(task: Task, record: str) -> ToolCall:
    """The task's last write made on ``record`` instead."""
    write = task.gold_actions[-1]
    key = next(k for k, v in write.arguments.items() if k.endswith("_id") and v != record and str(v)[:2] == record[:2])
    return write.model_copy(update={"arguments": {**write.arguments, key: record}})


def _act_on_listed(env: Environment, task: Task, pick: str) -> float:
    """An agent that reads what the gold reads, then makes the request's write on the first, the last
    or every record of the last listing, without deciding which the rules allow."""
    episode = env.episode(task)
    try:
        agent = Agent(env, episode, task.instruction, list(task.gold_actions)).read()
        tool, args = agent.write_calls()[0]
        rows = next(r for r in reversed(agent.results) if isinstance(r, list) and r and isinstance(r[0], dict))
        key = next(k for k in args if k in rows[0])
        for row in {"first": rows[:1], "last": rows[-1:], "every": rows}[pick]:
            agent.call(tool, {**args, key: row[key]})
        return score_episode(env, task, episode, answer="Done.").reward
    finally:
        episode.close()


def test_a_document_decided_write_is_a_choice_only_the_current_article_makes(with_writes: KbVariant):
    env = Environment(with_writes.spec)
    now = with_writes.spec.clock
    decided = [t for t in with_writes.tasks if task_class(env, t) == DOCUMENT_WRITES]
    plain = [t for t in with_writes.tasks if not t.required_documents]
    assert decided and plain
    for task in decided:
        # two copies of the written record patched in, listed first and last, that the rule refuses
        assert len(patched_records(with_writes.spec, task)) == 2 and "document-choice" in task.tags
        (text, value, _), *_ = with_writes.deciding[task.id]
        plan = next(p for p in with_writes.plans if p.text == text)
        assert plan.terms is not None and plan.terms.allows(now, value) is True
        assert play("oracle", env, task) == 1.0, task.id
        for agent in ("segment-terms", "follows-distractor", "top-document"):
            assert play(agent, env, task) < 1.0, (agent, task.id)
        for pick in ("first", "last", "every"):
            assert _act_on_listed(env, task, pick) < 1.0, (pick, task.id)
    for task in plain:  # the user names a record the rule allows: acting without the article passes
        assert task_class(env, task) == WRITE and "knowledge-base" not in task.tags
        assert play("oracle", env, task) == 1.0


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory: pytest.TempPathFactory) -> KbVariant:
    """The transcript office: "must not be marked expedited" beside an excluded delivery method."""
    out = tmp_path_factory.mktemp("catalog")
    domain = next(d for d in load_ontology() if d.id == "transcript_requests")
    assert synthesize_one(domain, 0, synthesis_config(out)).status == "accepted"
    built = variant_for(out / "transcript_requests")
    assert built is not None
    return built


def test_the_rules_a_choice_applies_read_flags_times_and_terms_and_nothing_else(transcripts: KbVariant):
    spec, now = transcripts.spec, transcripts.spec.clock
    episode = Environment(spec).episode()
    try:
        orders = episode.dump("transcript_orders")
        assert {bool(r["expedited"]) for r in orders} == {True, False}
        for row in orders:
            args = {"transcript_order_id": row["transcript_order_id"]}
            flag = rule_allows(spec, episode, "the transcript order must not be marked expedited", args, now)
            assert flag is (not row["expedited"])
            assert rule_allows(spec, episode, "the transcript order must be marked expedited", args, now) is bool(
                row["expedited"]
            )
            pickup = rule_allows(spec, episode, "not when the transcript order's delivery method is pickup", args, now)
            assert pickup is (row["delivery_method"] != "pickup")
            count = "at most 2 pending payment transcript orders per alumnus"  # a count: not read here
            assert rule_allows(spec, episode, count, args, now) is None
    finally:
        episode.close()
    env = Environment(spec)
    for task in transcripts.tasks:
        if CHOICE not in task.tags:
            continue
        # no order the gold expedites was marked expedited before: the other rule of the action holds too
        state = env.episode(task)
        try:
            flags = {r["transcript_order_id"]: r["expedited"] for r in state.dump("transcript_orders")}
        finally:
            state.close()
        written = [
            c.arguments["transcript_order_id"] for c in task.gold_actions if c.tool == "expedite_transcript_order"
        ]
        assert written and not any(flags[w] for w in written), task.id


def test_a_choice_hands_the_customer_other_customers_records_listed_beside_their_own(with_writes: KbVariant):
    """The refused records are seed records of other customers, not copies with made-up ids: each
    keeps its id and its own values, and hangs under the customer (and their parent records)."""
    env = Environment(with_writes.spec)
    handed = [t for t in with_writes.tasks if CHOICE in t.tags and not any(op.op == "insert" for op in t.initial_patch)]
    assert handed
    for task in handed:
        write = task.gold_actions[-1]
        patched = patched_records(with_writes.spec, task)
        assert len(patched) == 2
        (table, _), _ = patched
        key = with_writes.spec.table(table).primary_key[0]
        seed = {r[key]: r for r in with_writes.spec.seed[table]}
        written = seed[write.arguments[key]]
        owner = next(c for c in written if c in write.arguments and c != key)
        state = env.episode(task)
        try:
            now = {r[key]: r for r in state.dump(table)}
            listed = [r[key] for r in now.values() if r[owner] == written[owner]]
        finally:
            state.close()
        for _, record in patched:
            assert seed[record][owner] != written[owner] and now[record][owner] == written[owner]
            assert [c for c in seed[record] if seed[record][c] != written[c]] != [key, owner]  # its own values
        assert sorted(listed)[0] == patched[0][1] and sorted(listed)[-1] == patched[1][1]
