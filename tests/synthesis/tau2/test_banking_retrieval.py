"""τ³'s KB_search and grep as SQL: the same ranking and scores as tau2's BM25 (rank_bm25's BM25Okapi,
the package tau2 ranks with, run here as the reference) and the same grep counts as Python's ``re``,
on tau2's own 698 documents and on a small corpus of our own."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from rank_bm25 import BM25Okapi

from envs.embeddings.documents import DocumentSimilarity
from envs.engine import Environment, Episode
from envs.formats.knowledge_modes import document_tools
from envs.formats.spec import EnvSpec
from synthesis.tau2 import banking_retrieval

from ...envs.embeddings.toy import ConceptEmbedder, cosine_ranking
from .reference import TAU2_DIR, needs_tau2

DOCUMENTS_TABLE = {
    "name": "documents",
    "primary_key": ["doc_id"],
    "full_text": ["title", "content"],
    "columns": [{"name": n, "type": "text"} for n in ("doc_id", "title", "content")],
}
SMALL = [
    {
        "id": "d1",
        "title": "Gold card fees",
        "content": "The Gold card annual fee is 95 dollars. Fee waived in year one.",
    },
    {"id": "d2", "title": "Silver card fees", "content": "The Silver card has no annual fee."},
    {"id": "d3", "title": "Lost cards", "content": "Report a lost or stolen card at once; a replacement ships free."},
    {"id": "d4", "title": "", "content": "Checking accounts earn no interest."},
]


def environment(documents: list[dict[str, Any]]) -> Environment:
    spec = {
        "id": "kb",
        "name": "Knowledge base",
        "sector": "banking",
        "description": "Documents ranked as tau2 ranks them.",
        "tables": [DOCUMENTS_TABLE, *banking_retrieval.TABLES],
        "seed": {
            "documents": [{"doc_id": d["id"], "title": d["title"], "content": d["content"]} for d in documents],
            **banking_retrieval.index_rows(documents),
        },
        "tools": banking_retrieval.tools(),
    }
    return Environment(EnvSpec.model_validate(spec))


def episode(documents: list[dict[str, Any]]) -> Episode:
    return environment(documents).episode()


def listing(documents: list[dict[str, Any]], ranked: list[tuple[int, float]]) -> str:
    """tau2's text for a ranked list (its ``_format_kb_search_result``, without the timing line)."""
    return "\n".join(
        f"{i}. {documents[p]['title'] or 'Untitled'}\n   ID: {documents[p]['id']}\n   Score: {score:.4f}\n"
        f"   Content: {documents[p]['content']}\n"
        for i, (p, score) in enumerate(ranked, 1)
    )


def reference_search(bm25: BM25Okapi, query: str) -> list[tuple[int, float]]:
    """tau2's BM25 retriever: ``rank_bm25`` scores, the ten best by a stable sort (ties in load order)."""
    scores = bm25.get_scores(query.lower().split())
    best = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[: banking_retrieval.TOP_K]
    return [(i, float(scores[i])) for i in best]


def reference_grep(documents: list[dict[str, Any]], pattern: str) -> list[tuple[int, float]]:
    """tau2's grep retriever: ``re.findall`` counts, a bad pattern escaped, most matches first."""
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error:
        compiled = re.compile(re.escape(pattern), re.IGNORECASE)
    found = [(i, float(len(compiled.findall(d["content"])))) for i, d in enumerate(documents)]
    found = [f for f in found if f[1] > 0]
    found.sort(key=lambda f: f[1], reverse=True)
    return found[: banking_retrieval.TOP_K]


def scores_of(ep: Episode, query: str) -> list[tuple[int, float]]:
    rows = ep.query(
        banking_retrieval.RANKING_CTE + "SELECT position, score FROM ranked ORDER BY rank", {"query": query}
    )
    return [(r["position"], r["score"]) for r in rows]


def test_search_and_grep_answer_as_tau2_does_on_a_small_corpus():
    ep = episode(SMALL)
    bm25 = BM25Okapi([d["content"].lower().split() for d in SMALL])
    for query in ("gold card annual fee", "FEE fee", "lost card", "nothing matches this", "interest", "interest."):
        text = ep.call_tool("KB_search", {"query": query}).content
        assert text == listing(SMALL, reference_search(bm25, query)), query
        assert [s for _, s in scores_of(ep, query)] == sorted(bm25.get_scores(query.lower().split()), reverse=True)
    assert ep.call_tool("KB_search", {"query": "interest."}).content.startswith("1. Untitled\n   ID: d4\n")
    assert "Score: 0.0000" in ep.call_tool("KB_search", {"query": "interest"}).content  # words keep their stops
    assert ep.call_tool("KB_search", {"query": " \t "}).content == "No relevant documents found."
    assert ep.call_tool("grep", {"pattern": "card.*fee"}).content == listing(SMALL, reference_grep(SMALL, "card.*fee"))
    assert ep.call_tool("grep", {"pattern": "overdraft"}).content == "No matches found for pattern: overdraft"
    assert ep.call_tool("grep", {"pattern": "  "}).content == "No matches found for pattern:   "
    bad = "fee(("  # Python cannot compile it: tau2 searches for the text itself
    assert ep.call_tool("grep", {"pattern": bad}).content == "No matches found for pattern: fee(("


@needs_tau2
def test_search_ranks_tau2s_documents_with_the_very_scores_of_rank_bm25():
    documents = [
        json.loads(p.read_text()) for p in sorted((TAU2_DIR / "data/banking_knowledge/documents").glob("*.json"))
    ]
    ep = episode(documents)
    bm25 = BM25Okapi([d["content"].lower().split() for d in documents])
    rng = random.Random(7)
    vocabulary = sorted(bm25.idf)
    queries = [
        "How do I dispute a credit card transaction?",
        "annual fee waiver retention offer",
        "the and of to a",  # words in most documents: rank_bm25's idf floor decides
        "Fee fee FEE",
        "zzzz-no-such-word",  # no match: ten zero scores in load order
    ] + [" ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 8))) for _ in range(60)]
    for query in queries:
        expected = bm25.get_scores(query.lower().split())
        got = scores_of(ep, query)
        assert [s for _, s in got] == sorted(expected, reverse=True), query  # bit for bit
        assert got[: banking_retrieval.TOP_K] == reference_search(bm25, query), query
    for query in queries[:8]:
        assert ep.call_tool("KB_search", {"query": query}).content == listing(documents, reference_search(bm25, query))
    for pattern in ("credit.*card", "fee|charge", "Diamond Elite", "transfer_to_human", "[", "\\bAPR\\b"):
        assert ep.call_tool("grep", {"pattern": pattern}).content == listing(
            documents, reference_grep(documents, pattern)
        ), pattern


@pytest.mark.parametrize("pattern", ["(a+)+$", "(x|x|x)*y", "(.*a){12}"])
def test_no_pattern_stalls_a_grep(pattern: str):
    """Patterns that make a backtracking engine take exponential time run in linear time here."""
    ep = episode([{"id": "d0", "title": "t", "content": "a" * 5_000 + "!"}, *SMALL])
    assert ep.call_tool("grep", {"pattern": pattern}).content.startswith(("1. ", "No matches"))


def test_kb_search_and_grep_are_the_document_tools_an_episode_given_its_documents_goes_without():
    spec = EnvSpec.model_validate(
        {
            "id": "kb",
            "name": "Knowledge base",
            "sector": "banking",
            "description": "d",
            "tables": [
                DOCUMENTS_TABLE,
                *banking_retrieval.TABLES,
                {"name": "cards", "primary_key": ["card_id"], "columns": [{"name": "card_id", "type": "text"}]},
            ],
            "tools": [
                *banking_retrieval.tools(),
                {
                    "name": "close_card",
                    "description": "Close a card",
                    "kind": "write",
                    "parameters": {"type": "object", "properties": {"card_id": {"type": "string"}}},
                    "steps": [{"kind": "exec", "sql": "DELETE FROM cards WHERE card_id = :card_id"}],
                },
                {
                    "name": "card_terms",
                    "description": "A card and its terms",
                    "kind": "read",
                    "parameters": {"type": "object", "properties": {"card_id": {"type": "string"}}},
                    "steps": [{"kind": "return", "sql": "SELECT * FROM cards, documents WHERE card_id = :card_id"}],
                },
            ],
        }
    )
    assert document_tools(spec) == {"KB_search", "grep"}  # card_terms reads a table a tool changes


@needs_tau2
def test_the_engine_bench_times_search_and_grep_beside_tau2s_own_ways(tmp_path):
    from envfarm.cli import main

    out = tmp_path / "engine.json"
    assert main(["bench", "engine", "--repeat", "5", "--tau2", str(TAU2_DIR), "--out", str(out)]) == 0
    row = json.loads(out.read_text())["tau2_banking_search"]
    assert row["documents"] == 698 and row["kb_search"]["median_ms"] > 0 and row["grep_python_re"]["median_ms"] > 0
    assert row["kb_search_ratio_vs_rank_bm25"] > 0 and row["grep_ratio_vs_python_re"] > 0


CONCEPTS = [{"lost", "stolen", "theft", "missing"}, {"fee", "fees", "charge", "cost"}, {"interest", "earn", "yield"}]
_ENTRY = re.compile(r"(\d+)\. .*\n   ID: (\S+)\n   Score: (-?\d+\.\d{4})\n   Content: ")


def test_in_the_embeddings_mode_kb_search_ranks_by_the_models_cosine_in_tau2s_listing():
    env = environment(SMALL)
    texts = [(d["id"], d["content"]) for d in SMALL]
    env.similarity = DocumentSimilarity(ConceptEmbedder(CONCEPTS), texts, keep=False)
    ep = env.episode()
    ep.knowledge = "embeddings"
    position = {d["id"]: i for i, d in enumerate(SMALL)}
    for query in ("my card went missing", "what will it cost me", "how much do savings yield"):
        text = ep.call_tool("KB_search", {"query": query}).content
        entries = _ENTRY.findall(text)
        reference = cosine_ranking(query, texts, CONCEPTS)
        assert [key for _, key, _ in entries] == [key for key, _ in reference], query
        assert [float(s) for _, _, s in entries] == pytest.approx([s for _, s in reference], abs=1e-4)
        assert text == listing(SMALL, [(position[key], float(s)) for _, key, s in entries])
    assert ep.call_tool("KB_search", {"query": "  "}).content == "No relevant documents found."
    assert ep.call_tool("grep", {"pattern": "stolen"}).content.startswith("1. Lost cards")  # grep is grep
    ep.knowledge = "search"  # the same episode, searching by words: rank_bm25's ranking again
    bm25 = BM25Okapi([d["content"].lower().split() for d in SMALL])
    query = "gold card annual fee"
    assert ep.call_tool("KB_search", {"query": query}).content == listing(SMALL, reference_search(bm25, query))
