"""A document collection: a table whose text is indexed for full-text search (FTS5, BM25), searched,
read and grepped by retrieval tools that are data like every tool, with bounded results; no tool can
change it; a task's patch to it is searched as patched; tasks name the documents that decide them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from envs import Catalog
from envs.check import check_env
from envs.engine import Environment
from envs.errors import SandboxError, StateError, ToolArgumentError
from envs.formats.knowledge import retrieval_tools
from envs.formats.spec import EnvSpec, TableSpec
from envs.formats.task import Task
from envs.paths import BUILTIN_CATALOG
from envs.quality.report import env_quality
from envs.quality.retrieval import RetrievalCounts, retrieval_counts, top_documents

from ..test_catalog import write_env

ARTICLES = {
    "name": "articles",
    "primary_key": ["article_id"],
    "full_text": ["title", "body"],
    "columns": [
        {"name": "article_id", "type": "text"},
        {"name": "title", "type": "text"},
        {"name": "body", "type": "text"},
        {"name": "tags", "type": "text"},
    ],
}
BODIES = {
    "A1": (
        "Gold card: fees",
        "The annual fee of the Gold card is 95 dollars. Foreign transactions cost nothing.",
        "fees",
    ),
    "A2": (
        "Silver card: fees",
        "The annual fee of the Silver card is 0 dollars; foreign transactions cost 3 %.",
        "fees",
    ),
    "A3": (
        "Reporting a lost card",
        "Call us at once when a card is lost or stolen: we block it and send a new one.",
        "cards",
    ),
    "A4": ("Travel insurance", "Gold cardholders are insured when they travel abroad with the card.", "insurance"),
}
CARD_TOOL = {
    "name": "get_card",
    "description": "Read a card.",
    "kind": "read",
    "parameters": {
        "type": "object",
        "required": ["card_id"],
        "additionalProperties": False,
        "properties": {"card_id": {"type": "string"}},
    },
    "steps": [{"kind": "return", "shape": "one", "sql": "SELECT * FROM cards WHERE card_id = :card_id"}],
}


def knowledge_spec() -> dict[str, Any]:
    tools = retrieval_tools(
        TableSpec.model_validate(ARTICLES),
        id_column="article_id",
        title_column="title",
        text_column="body",
        tags_column="tags",
    )
    return {
        "id": "card_help",
        "name": "Card help desk",
        "sector": "finance",
        "description": "A bank's card desk whose product terms live in articles.",
        "policy": "The current time is 2026-01-15 09:00. Look the card's terms up in the articles before you answer.",
        "tables": [
            ARTICLES,
            {
                "name": "cards",
                "primary_key": ["card_id"],
                "columns": [{"name": "card_id", "type": "text"}, {"name": "product", "type": "text"}],
            },
        ],
        "seed": {
            "articles": [{"article_id": k, "title": t, "body": b, "tags": g} for k, (t, b, g) in BODIES.items()],
            "cards": [{"card_id": "C1", "product": "Gold"}],
        },
        "tools": [*tools, CARD_TOOL],
    }


TASK = {
    "id": "card_help-001",
    "env": "card_help",
    "instruction": "What is the annual fee of my card C1?",
    "gold_actions": [
        {"tool": "get_card", "arguments": {"card_id": "C1"}},
        {"tool": "search_articles", "arguments": {"query": "gold card annual fee"}},
        {"tool": "read_article", "arguments": {"article_id": "A1"}},
    ],
    "outputs": ["95"],
    "expects_change": False,
    "required_documents": ["A1"],
    "tags": ["information"],
}


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(EnvSpec.model_validate(knowledge_spec()))


def test_search_ranks_by_bm25_and_shows_a_bounded_snippet(env):
    ep = env.episode()
    found = ep.call_tool("search_articles", {"query": "annual fee of the Gold card"}).content
    assert [r["article_id"] for r in found][:2] == ["A1", "A2"]  # the close-but-wrong one ranks second
    assert len(found) <= 5 and "Gold" in found[0]["snippet"] and len(found[0]["snippet"].split()) <= 26
    assert [r["article_id"] for r in ep.call_tool("search_articles", {"query": "stolen"}).content] == ["A3"]
    # stemming: "travelling" finds "travel"; syntax a user types is words, never an FTS5 error
    assert [r["article_id"] for r in ep.call_tool("search_articles", {"query": "travelling"}).content] == ["A4"]
    for odd in ("gold AND (", '"', "NEAR(", "?!", "*"):
        assert isinstance(ep.call_tool("search_articles", {"query": odd}).content, list)
    with pytest.raises(ToolArgumentError):
        ep.call_tool("search_articles", {"query": ""})


def test_read_returns_a_whole_document_or_names_the_missing_id(env):
    ep = env.episode()
    doc = ep.call_tool("read_article", {"article_id": "A2"}).content
    assert doc == {"article_id": "A2", "title": BODIES["A2"][0], "text": BODIES["A2"][1], "tags": "fees"}
    with pytest.raises(StateError, match="No article has the id A9"):
        ep.call_tool("read_article", {"article_id": "A9"})


def test_grep_finds_a_phrase_in_any_case_with_an_excerpt(env):
    ep = env.episode()
    found = ep.call_tool("grep_articles", {"pattern": "FOREIGN TRANSACTIONS"}).content
    assert [r["article_id"] for r in found] == ["A1", "A2"]
    assert all("oreign transactions" in r["excerpt"].lower() or "foreign" in r["excerpt"].lower() for r in found)
    with pytest.raises(ToolArgumentError):
        ep.call_tool("grep_articles", {"pattern": "ab"})


def test_no_tool_changes_a_document_collection():
    spec = knowledge_spec()
    spec["tools"].append(
        {
            "name": "rewrite_terms",
            "description": "Rewrite an article.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
            "steps": [{"kind": "exec", "sql": "UPDATE articles SET body = 'free' WHERE article_id = 'A1'"}],
        }
    )
    ep = Environment(EnvSpec.model_validate(spec)).episode()
    with pytest.raises(SandboxError, match="document collection"):
        ep.call_tool("rewrite_terms", {})


def test_a_task_that_patches_a_document_is_searched_as_patched(env):
    task = Task.model_validate(
        {
            **TASK,
            "id": "card_help-002",
            "initial_patch": [
                {"op": "update", "table": "articles", "where": {"article_id": "A3"}, "set": {"body": "Gold keys."}}
            ],
        }
    )
    ep = env.episode(task)
    assert [r["article_id"] for r in ep.call_tool("search_articles", {"query": "stolen"}).content] == []
    assert "A3" in [r["article_id"] for r in ep.call_tool("search_articles", {"query": "keys"}).content]


def test_check_env_verifies_the_task_and_refuses_a_document_no_table_holds(env):
    assert check_env(env.spec, [Task.model_validate(TASK)]).ok
    wrong = Task.model_validate({**TASK, "required_documents": ["A1", "Z9"]})
    report = check_env(env.spec, [wrong])
    assert not report.ok and any("required document 'Z9'" in str(p) for p in report.problems)


def test_full_text_columns_are_validated_and_left_out_of_dumps_when_absent():
    bad = copy.deepcopy(ARTICLES) | {"full_text": ["summary"]}
    with pytest.raises(ValidationError, match="full_text names unknown column 'summary'"):
        TableSpec.model_validate(bad)
    spec = knowledge_spec()
    spec["tables"].append(
        {"name": "articles_fts_log", "primary_key": ["k"], "columns": [{"name": "k", "type": "text"}]}
    )
    with pytest.raises(ValidationError, match="search index of table 'articles'"):
        EnvSpec.model_validate(spec)
    dumped = EnvSpec.model_validate(knowledge_spec()).model_dump(mode="json")
    assert dumped["tables"][0]["full_text"] == ["title", "body"] and "full_text" not in dumped["tables"][1]
    assert "required_documents" not in Task.model_validate({**TASK, "required_documents": []}).model_dump()


def write_knowledge_catalog(folder: Path) -> None:
    """The card desk and its task as a catalog folder."""
    write_env(folder, "card_help", spec=knowledge_spec(), tasks=[TASK])


def test_the_quality_report_measures_whether_the_request_finds_the_deciding_document(tmp_path):
    write_knowledge_catalog(tmp_path)
    task = Task.model_validate(TASK)
    entry = Catalog(tmp_path).get("card_help")
    env = entry.environment
    assert top_documents(env, task, task.instruction)[:2] == ["A1", "A2"]
    counts = env_quality(entry).counts
    assert (counts.retrieval_tasks, counts.retrieval_top3_hits) == (1, 1)
    hidden = Task.model_validate({**TASK, "instruction": "How much do I pay each year for C1?"})
    assert retrieval_counts(env, [hidden]) == RetrievalCounts(retrieval_tasks=1, retrieval_top3_hits=0)
    clinic = env_quality(Catalog(BUILTIN_CATALOG).get("clinic")).counts
    assert (clinic.retrieval_tasks, clinic.retrieval_top3_hits) == (0, 0)


def test_an_environment_may_word_its_policy_for_each_place_of_the_documents():
    from envs.formats.knowledge_modes import knowledge_policy

    spec = knowledge_spec()
    templated = {**spec, "knowledge_policies": {"full": "# Desk\n\n<kb>\n{{documents}}\n</kb>", "none": "# Desk"}}
    env_spec = EnvSpec.model_validate(templated)
    assert knowledge_policy(env_spec, "full").startswith("# Desk\n\n<kb>\n## ") and "{{" not in knowledge_policy(
        env_spec, "full"
    )
    assert knowledge_policy(env_spec, "none") == "# Desk"
    assert "<knowledge_base>" in knowledge_policy(env_spec, "required", Task.model_validate(TASK))  # not worded
    with pytest.raises(ValidationError, match=r"knowledge_policies.full must mark where the documents go"):
        EnvSpec.model_validate({**spec, "knowledge_policies": {"full": "# Desk, and no documents"}})
    with pytest.raises(ValidationError, match="knowledge_policies needs a document collection"):
        no_docs = {**spec, "tables": [t for t in spec["tables"] if not t.get("full_text")]}
        no_docs["tools"] = [t for t in spec["tools"] if t["name"] == "get_card"]
        no_docs["seed"] = {k: v for k, v in spec.get("seed", {}).items() if k != "articles"}
        EnvSpec.model_validate({**no_docs, "knowledge_policies": {"none": "# Desk"}})
