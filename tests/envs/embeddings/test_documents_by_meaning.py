"""Documents ranked by meaning: the ``embeddings`` knowledge mode's ``similarity()``, with a toy model
(a ranking held to a float64 reference) and with the real local model (a request that shares no word
with the document it needs finds it); the mode refused where it cannot apply; failures are tool errors."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from envs.embeddings import EmbeddingsUnavailable, LocalEmbedder, RemoteEmbedder, embedder
from envs.embeddings.documents import DocumentSimilarity
from envs.engine import Environment
from envs.errors import ToolError
from envs.formats.knowledge_modes import (
    KnowledgeModeError,
    check_mode,
    document_tools,
    documents,
    ranks_by_meaning,
    withheld_tools,
)
from envs.formats.spec import EnvSpec

from ..engine.test_knowledge import BODIES, knowledge_spec
from .toy import ConceptEmbedder, cosine_ranking

CONCEPTS = [
    {"lost", "stolen", "took", "theft", "missing", "wallet", "purse"},
    {"fee", "fees", "cost", "costs", "price", "pay", "charge"},
    {"travel", "abroad", "trip", "holiday", "insured", "insurance", "vacation"},
]
ARTICLE_TEXTS = [(key, body) for key, (_, body, _) in BODIES.items()]


def served(similarity: DocumentSimilarity | None) -> Environment:
    env = Environment(EnvSpec.model_validate(knowledge_spec()))
    env.similarity = similarity
    return env


def ranked_ids(env: Environment, query: str, mode: str) -> list[str]:
    ep = env.episode()
    ep.knowledge = mode
    try:
        return [row["article_id"] for row in ep.call_tool("search_articles", {"query": query}).content]
    finally:
        ep.close()


def test_the_search_tool_ranks_by_the_models_cosine_in_the_embeddings_mode_and_by_bm25_else():
    env = served(DocumentSimilarity(ConceptEmbedder(CONCEPTS), ARTICLE_TEXTS, keep=False))
    for query in ("someone took my purse", "what does a vacation cover", "how much do I pay", "gold"):
        expected = [key for key, _ in cosine_ranking(query, ARTICLE_TEXTS, CONCEPTS)]
        assert ranked_ids(env, query, "embeddings") == expected, query
    assert ranked_ids(env, "someone took my purse", "search") == []  # no word of it is in any article
    assert ranked_ids(env, "annual fee of the Gold card", "search")[:2] == ["A1", "A2"]
    ep = env.episode()
    ep.knowledge = "embeddings"
    row = ep.call_tool("search_articles", {"query": "my wallet is missing"}).content[0]
    assert row["article_id"] == "A3" and row["snippet"].startswith("Call us at once") and row["snippet"].endswith("…")


def test_documents_are_embedded_once_and_kept_and_each_query_once():
    model = ConceptEmbedder(CONCEPTS)
    first = DocumentSimilarity(model, ARTICLE_TEXTS)
    first.score("lost wallet", "A3")
    first.score("lost wallet", "A1")
    assert model.calls == [[body for _, body in ARTICLE_TEXTS], ["lost wallet"]]
    again = ConceptEmbedder(CONCEPTS)
    second = DocumentSimilarity(again, ARTICLE_TEXTS)  # the cache directory keeps the documents' vectors
    assert second.score("lost wallet", "A3") == pytest.approx(first.score("lost wallet", "A3"))
    assert again.calls == [["lost wallet"]]
    other = ConceptEmbedder(CONCEPTS, name="another model")
    DocumentSimilarity(other, ARTICLE_TEXTS).prepare("x")
    assert len(other.calls[0]) == len(ARTICLE_TEXTS)  # kept per model
    assert first.score("lost wallet", "no such article") is None


def test_documents_warmed_in_the_background_leave_a_search_only_its_query_to_embed():
    model = ConceptEmbedder(CONCEPTS)
    similarity = DocumentSimilarity(model, ARTICLE_TEXTS, keep=False)
    similarity.warm().join(timeout=60)
    assert model.calls == [[body for _, body in ARTICLE_TEXTS]]
    assert similarity.score("theft", "A3") is not None and model.calls[1:] == [["theft"]]
    broken = DocumentSimilarity(BrokenModel(), ARTICLE_TEXTS, keep=False)
    broken.warm().join(timeout=60)  # logged, not raised: the search reports it
    with pytest.raises(EmbeddingsUnavailable, match="the service failed"):
        broken.prepare("theft")


def test_the_mode_applies_only_where_a_search_tool_ranks_by_meaning():
    spec = EnvSpec.model_validate(knowledge_spec())
    assert ranks_by_meaning(spec)
    check_mode(spec, None, "embeddings")
    plain = knowledge_spec()
    plain["tools"] = [t for t in plain["tools"] if not t["name"].startswith("search_")]
    with pytest.raises(KnowledgeModeError, match="no search tool of environment 'card_help' does"):
        check_mode(EnvSpec.model_validate(plain), None, "embeddings")
    assert [d[0] for d in documents(spec)] == list(BODIES)


def test_similarity_outside_its_mode_or_without_a_model_is_a_tool_error_that_says_why():
    spec: dict[str, Any] = copy.deepcopy(knowledge_spec())
    spec["tools"].append(
        {
            "name": "closest_article",
            "description": "The article closest in meaning.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
            "steps": [
                {
                    "kind": "return",
                    "shape": "one",
                    "sql": "SELECT article_id FROM articles ORDER BY similarity(:query, article_id) DESC LIMIT 1",
                }
            ],
        }
    )
    env = Environment(EnvSpec.model_validate(spec))
    ep = env.episode()
    with pytest.raises(ToolError, match="only in the 'embeddings' knowledge mode, and this episode is in 'search'"):
        ep.call_tool("closest_article", {"query": "lost"})
    ep.knowledge = "embeddings"
    with pytest.raises(ToolError, match="needs an embedding model, and none serves this environment"):
        ep.call_tool("closest_article", {"query": "lost"})
    env.similarity = DocumentSimilarity(ConceptEmbedder(CONCEPTS), ARTICLE_TEXTS, keep=False)
    assert ep.call_tool("closest_article", {"query": "theft"}).content == {"article_id": "A3"}


class BrokenModel:
    name = "broken"

    def embed(self, texts: Any) -> np.ndarray:
        raise EmbeddingsUnavailable("embeddings 'broken': the service failed: 503")


def test_a_model_that_fails_is_a_tool_error_and_changes_nothing():
    env = served(DocumentSimilarity(BrokenModel(), ARTICLE_TEXTS, keep=False))
    ep = env.episode()
    ep.knowledge = "embeddings"
    before = ep.state_hash()
    with pytest.raises(ToolError, match="could not rank the documents: embeddings 'broken': the service failed"):
        ep.call_tool("search_articles", {"query": "lost card"})
    assert ep.state_hash() == before
    ep.knowledge = "search"
    assert ep.call_tool("search_articles", {"query": "stolen"}).content[0]["article_id"] == "A3"


def test_an_embedding_option_is_named_or_refused_with_what_is_missing(monkeypatch):
    with pytest.raises(EmbeddingsUnavailable, match="name a model: 'local', MODEL or MODEL@BASE_URL"):
        embedder("  ")
    for name in ("ENVFARM_EMBEDDINGS_API_KEY", "OPENAI_API_KEY", "ENVFARM_EMBEDDINGS_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(EmbeddingsUnavailable, match="OpenAI's endpoint needs a key"):
        embedder("text-embedding-3-large")
    remote = embedder("text-embedding-3-small@http://127.0.0.1:9/v1")
    assert isinstance(remote, RemoteEmbedder) and remote.model == "text-embedding-3-small"
    monkeypatch.setenv("ENVFARM_EMBEDDINGS_BASE_URL", "http://127.0.0.1:9/v1")
    assert embedder("m").name == "m@http://127.0.0.1:9/v1"


def test_the_local_model_finds_the_article_a_request_means_without_sharing_its_words():
    local = embedder("local")
    assert isinstance(local, LocalEmbedder) and local.name.startswith("local:all-MiniLM-L6-v2")
    env = served(DocumentSimilarity(local, ARTICLE_TEXTS))
    request = "Somebody pinched my purse with my plastic in it, what do I do?"
    assert ranked_ids(env, request, "search")[0] == "A4"  # BM25 goes by "with": no other word is shared
    assert ranked_ids(env, request, "embeddings")[0] == "A3"
    assert ranked_ids(env, "Am I covered on holiday overseas?", "embeddings")[0] == "A4"


def test_the_document_tools_are_found_once_per_spec_object():
    spec = EnvSpec.model_validate(knowledge_spec())
    found = document_tools(spec)
    assert found == {"search_articles", "read_article", "grep_articles"}
    assert document_tools(spec) is found  # asked on every call out of search mode: kept, not found again
    fewer = knowledge_spec()
    fewer["tools"] = [t for t in fewer["tools"] if t["name"] != "grep_articles"]
    assert document_tools(EnvSpec.model_validate(fewer)) == {"search_articles", "read_article"}
    assert withheld_tools(spec, "full") == found and withheld_tools(spec, "embeddings") == frozenset()
