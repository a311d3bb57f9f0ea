"""τ³ banking_knowledge's retrieval tools as tau2 serves them in its ``bm25`` variant: ``KB_search``
and ``grep``, their rankings and texts tau2's own.

``KB_search(query)`` ranks every document by Okapi BM25 the way tau2 does it (the ``rank_bm25``
package's ``BM25Okapi``: k1 1.5, b 0.75, an idf floor of 0.25 × the mean idf for words in more than
half the documents), over the words of ``text.lower().split()`` of each document's content (not its
title), and shows the ten best — always ten, zero scores included, ties in document order — each
with its title, id, score (four decimals) and whole content. The index is tables the importer
computes, in the same order of operations as ``rank_bm25``, so the scores are the same floats:

* ``kb_terms(term, position, tf)``: how often each word occurs in the document at ``position``;
* ``kb_term_weights(term, idf)``: each word's idf, floored as ``rank_bm25`` floors it;
* ``kb_doc_lengths(position, doc_id, length)``: each document's word count, in load order;
* ``kb_corpus(corpus, avgdl)``: the mean document length.

A tool's SQL sums each query word's part in turn, as ``rank_bm25`` adds them, so even the rounding
is the same. ``grep(pattern)`` counts each document's matches of a regular expression, ignoring
case (``envs.engine.text_match.pattern_count``), and shows the ten with the most, ties in document
order. Known differences, both documented in docs/tau2.md: tau2 loads the documents in the order
the file system lists them, which decides ties among equal scores (zero scores, when a query
matches fewer than ten documents) differently from machine to machine — here it is file-name
order; and tau2 ends each search with the time it took (``[Timing: retrieval=3ms, total=3ms]``),
which a result that must be the same on every run leaves out.

In the ``embeddings`` knowledge mode (``envs.formats.knowledge_modes``; served only where the farm was
given an embedding model) ``KB_search`` ranks by meaning instead, as tau2's ``openai_embeddings_grep``
variant does: the cosine of the query's embedding and each document's content's (``similarity()``), the
same listing; the scores are the farm's model's, not OpenAI's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .common import tool

K1, B, EPSILON = 1.5, 0.75, 0.25
TOP_K = 10

TABLES: list[dict[str, Any]] = [
    {
        "name": "kb_terms",
        "description": "The knowledge base's BM25 index: how often each word occurs in each document",
        "primary_key": ["term", "position"],
        "columns": [
            {"name": "term", "type": "text"},
            {"name": "position", "type": "integer"},
            {"name": "tf", "type": "integer"},
        ],
    },
    {
        "name": "kb_term_weights",
        "description": "The knowledge base's BM25 index: each word's inverse document frequency",
        "primary_key": ["term"],
        "columns": [{"name": "term", "type": "text"}, {"name": "idf", "type": "real"}],
    },
    {
        "name": "kb_doc_lengths",
        "description": "The knowledge base's BM25 index: each document's word count, in load order",
        "primary_key": ["position"],
        "columns": [
            {"name": "position", "type": "integer"},
            {"name": "doc_id", "type": "text"},
            {"name": "length", "type": "integer"},
        ],
    },
    {
        "name": "kb_corpus",
        "description": "The knowledge base's BM25 index: the mean document length",
        "primary_key": ["corpus"],
        "columns": [{"name": "corpus", "type": "text"}, {"name": "avgdl", "type": "real"}],
    },
]


def index_rows(documents: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The index tables' rows for ``documents`` (id, title, content), in the order tau2 loads them.

    >>> rows = index_rows([{"id": "a", "content": "Fee fee waived"}, {"id": "b", "content": "no fee"}])
    >>> [(r["term"], r["position"], r["tf"]) for r in rows["kb_terms"]]
    [('fee', 0, 2), ('waived', 0, 1), ('no', 1, 1), ('fee', 1, 1)]
    >>> rows["kb_corpus"]
    [{'corpus': 'documents', 'avgdl': 2.5}]
    """
    terms, lengths = [], []
    documents_with: dict[str, int] = {}  # word -> documents holding it, in first-seen order
    for position, doc in enumerate(documents):
        words = str(doc["content"]).lower().split()
        lengths.append({"position": position, "doc_id": doc["id"], "length": len(words)})
        frequencies: dict[str, int] = {}
        for word in words:
            frequencies[word] = frequencies.get(word, 0) + 1
        for word, tf in frequencies.items():
            terms.append({"term": word, "position": position, "tf": tf})
            documents_with[word] = documents_with.get(word, 0) + 1
    return {
        "kb_terms": terms,
        "kb_term_weights": [{"term": t, "idf": idf} for t, idf in _idf(documents_with, len(documents)).items()],
        "kb_doc_lengths": lengths,
        "kb_corpus": [{"corpus": "documents", "avgdl": sum(r["length"] for r in lengths) / max(1, len(lengths))}],
    }


def _idf(documents_with: dict[str, int], corpus_size: int) -> dict[str, float]:
    """``rank_bm25``'s idf: the sum taken in the same order, negative values floored the same way."""
    idf: dict[str, float] = {}
    total, negative = 0.0, []
    for word, freq in documents_with.items():
        idf[word] = value = math.log(corpus_size - freq + 0.5) - math.log(freq + 0.5)
        total += value
        if value < 0:
            negative.append(word)
    floor = EPSILON * (total / len(idf)) if idf else 0.0
    for word in negative:
        idf[word] = floor
    return idf


def _listing(ranked: str, score: str) -> str:
    """The SELECT of tau2's numbered listing of ``ranked`` (rows: position, rank, and the score column)."""
    line = (
        "r.rank || '. ' || coalesce(nullif(doc.title, ''), 'Untitled') || char(10) || '   ID: ' || doc.doc_id "
        f"|| char(10) || '   Score: ' || python_format({score}, '.4f') || char(10) || '   Content: ' || doc.content "
        "|| char(10)"
    )
    return (
        f"SELECT group_concat(line, char(10)) FROM (SELECT {line} AS line FROM {ranked} r "
        "JOIN kb_doc_lengths d ON d.position = r.position JOIN documents doc ON doc.doc_id = d.doc_id "
        f"WHERE r.rank <= {TOP_K} ORDER BY r.rank)"
    )


_WORD_SCORE = (
    f"q.idf * ((coalesce(t.tf, 0) * {K1 + 1}) / (coalesce(t.tf, 0) + {K1} * ((1 - {B}) + ({B} * d.length) / c.avgdl)))"
)
#: Every document's score for ``:query``, ranked: the common table expressions ``q`` (the query's words
#: and their idf), ``s`` (the scores of the documents holding one of them, one query word added at a
#: time, as rank_bm25 adds them; a document holding none scores 0.0 exactly, as there) and ``ranked``
#: (position, score, rank).
RANKING_CTE = (
    "WITH RECURSIVE q(i, term, idf) AS MATERIALIZED (SELECT CAST(j.key AS INTEGER), j.value, coalesce(w.idf, 0) "
    "FROM json_each(split_words(:query)) j LEFT JOIN kb_term_weights w ON w.term = j.value), "
    "c(avgdl) AS (SELECT avgdl FROM kb_corpus), "
    "hit(position) AS MATERIALIZED (SELECT DISTINCT t.position FROM q JOIN kb_terms t ON t.term = q.term), "
    "s(i, position, score) AS (SELECT -1, position, 0.0 FROM hit UNION ALL "
    f"SELECT s.i + 1, s.position, s.score + {_WORD_SCORE} FROM s JOIN q ON q.i = s.i + 1 "
    "JOIN kb_doc_lengths d ON d.position = s.position CROSS JOIN c "
    "LEFT JOIN kb_terms t ON t.term = q.term AND t.position = s.position), "
    "scored(position, score) AS (SELECT position, score FROM s WHERE i = (SELECT count(*) FROM q) - 1 "
    "UNION ALL SELECT position, 0.0 FROM kb_doc_lengths WHERE position NOT IN (SELECT position FROM hit)), "
    "ranked AS (SELECT position, score, row_number() OVER (ORDER BY score DESC, position) AS rank FROM scored) "
)
_BM25_SQL = (
    f"{RANKING_CTE}SELECT CASE WHEN (SELECT count(*) FROM q) = 0 THEN 'No relevant documents found.' "
    f"ELSE ({_listing('ranked', 'r.score')}) END"
)
#: The ``embeddings`` knowledge mode's ranking (τ³'s ``openai_embeddings_grep``): every document by the
#: cosine of its content's embedding and the query's, in the same listing.
_DENSE_SQL = (
    "WITH scored(position, score) AS (SELECT position, similarity(:query, doc_id) FROM kb_doc_lengths), "
    "ranked AS (SELECT position, score, row_number() OVER (ORDER BY score DESC, position) AS rank FROM scored) "
    "SELECT CASE WHEN trim(:query, ' ' || char(9, 10, 11, 12, 13)) = '' THEN 'No relevant documents found.' "
    f"ELSE ({_listing('ranked', 'r.score')}) END"
)
SEARCH_SQL = f"SELECT CASE WHEN knowledge_mode() = 'embeddings' THEN ({_DENSE_SQL}) ELSE ({_BM25_SQL}) END"
GREP_SQL = (
    "WITH counted AS (SELECT d.position, pattern_count(:pattern, doc.content) AS matches FROM kb_doc_lengths d "
    "JOIN documents doc ON doc.doc_id = d.doc_id WHERE trim(:pattern, ' ' || char(9, 10, 11, 12, 13)) <> ''), "
    "ranked AS (SELECT position, matches, row_number() OVER (ORDER BY matches DESC, position) AS rank "
    "FROM counted WHERE matches > 0) "
    "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM ranked) THEN 'No matches found for pattern: ' || :pattern "
    f"ELSE ({_listing('ranked', 'CAST(r.matches AS REAL)')}) END"
)


def tools() -> list[dict[str, Any]]:
    """``KB_search`` and ``grep``, read tools over the documents and their index."""
    query = {"type": "string", "maxLength": 1000, "description": "What to look for, in words"}
    pattern = {
        "type": "string",
        "maxLength": 1000,
        "description": "A regular expression, e.g. 'credit.*card' or 'fee|charge'",
    }
    return [
        tool(
            "KB_search",
            "Search the knowledge base (by the query's words with BM25; by meaning in the embeddings knowledge "
            "mode); the ten best documents, each whole.",
            "read",
            {"query": query},
            [{"kind": "return", "shape": "value", "sql": SEARCH_SQL}],
        ),
        tool(
            "grep",
            "Find the documents that match a regular expression (any case), the most matches first; at most "
            "ten, each whole.",
            "read",
            {"pattern": pattern},
            [{"kind": "return", "shape": "value", "sql": GREP_SQL}],
        ),
    ]
