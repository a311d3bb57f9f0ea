"""``envfarm bench retrieval``: how often a task's request finds a document it needs, searched by its
words (BM25, the quality report's measure 36) and by its meaning (an embedding model: the
``embeddings`` knowledge mode), in the same run over the same tasks.

Per environment with documents: the tasks that name ``required_documents``, and of those the tasks
whose instruction's top 3 holds one, by BM25 (each full-text table's own ranking,
``envs.quality.retrieval.top_documents``) and by the cosine of embeddings (every document of the
environment; ties in seed order); with the seconds the documents took to embed (once per model: the
cache directory keeps them). A lower share means a harder retrieval, whatever the agent then does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from envs.catalog import CatalogEntry
from envs.embeddings import Embedder
from envs.embeddings.documents import DocumentSimilarity
from envs.formats.knowledge_modes import documents
from envs.quality.retrieval import TOP, top_documents


def _by_meaning(similarity: DocumentSimilarity, keys: Sequence[str], query: str) -> list[str]:
    scored = sorted(enumerate(keys), key=lambda item: (-(similarity.score(query, item[1]) or 0.0), item[0]))
    return [key for _, key in scored[:TOP]]


def bench_retrieval(
    entries: Sequence[CatalogEntry], embedder: Embedder, *, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The retrieval measures of each environment of ``entries`` that has documents and tasks naming them."""
    rows: dict[str, dict[str, Any]] = {}
    for entry in entries:
        texts = [(key, text) for key, _, text in documents(entry.spec)]
        tasks = [t for t in entry.tasks if t.required_documents]
        if texts and tasks:
            similarity = DocumentSimilarity(embedder, texts)
            started = time.perf_counter()
            similarity.prepare(tasks[0].instruction)
            embed_seconds = time.perf_counter() - started
            keys = [key for key, _ in texts]
            words = meaning = 0
            for task in tasks:
                needed = set(task.required_documents)
                words += bool(needed & set(top_documents(entry.environment, task, task.instruction)))
                meaning += bool(needed & set(_by_meaning(similarity, keys, task.instruction)))
            rows[entry.spec.id] = {
                "documents": len(texts),
                "tasks": len(tasks),
                "bm25_top3": words,
                "embeddings_top3": meaning,
                "embed_seconds": round(embed_seconds, 2),
            }
        if progress is not None:
            progress(entry.spec.id)
    tasks_total = sum(r["tasks"] for r in rows.values())

    def share(column: str) -> float | None:
        return round(sum(r[column] for r in rows.values()) / tasks_total, 4) if tasks_total else None

    return {
        "benchmark": "retrieval",
        "model": embedder.name,
        "top": TOP,
        "environments": rows,
        "totals": {
            "environments": len(rows),
            "tasks": tasks_total,
            "bm25_top3": sum(r["bm25_top3"] for r in rows.values()),
            "embeddings_top3": sum(r["embeddings_top3"] for r in rows.values()),
            "bm25_share": share("bm25_top3"),
            "embeddings_share": share("embeddings_top3"),
        },
    }
