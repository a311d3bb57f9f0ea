"""The ``tau2_banking_search`` row of ``envfarm bench engine --tau2``: τ³'s ``KB_search`` and ``grep``
as the banking_knowledge import serves them (SQL over the BM25 index tables), on tau2's own 698
documents, beside what tau2 does for the same answer measured in the same run: ``rank_bm25``'s
``get_scores`` and a stable sort (the baseline needs the ``rank-bm25`` package, a dev dependency;
without it the row has no baseline), and ``re.findall`` over every document."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from envs.bench import timeit
from envs.engine import Environment
from envs.formats.spec import EnvSpec

from ..tau2 import banking_retrieval
from ..tau2.inputs import read_json

QUERIES = (
    "How do I dispute a transaction on my credit card?",
    "annual fee for the gold rewards card",
    "close a savings account early withdrawal penalty",
)
PATTERN = "fee|charge"
_DOCUMENTS = {
    "name": "documents",
    "primary_key": ["doc_id"],
    "full_text": ["title", "content"],
    "columns": [{"name": n, "type": "text"} for n in ("doc_id", "title", "content")],
}


def banking_folder(data_dir: Path) -> Path | None:
    """The banking_knowledge folder in or at ``data_dir`` (a tau2 data folder or checkout), if any."""
    for folder in (data_dir, data_dir / "banking_knowledge", data_dir / "data" / "banking_knowledge"):
        if (folder / "documents").is_dir():
            return folder
    for folder in data_dir.glob("**/banking_knowledge"):
        if (folder / "documents").is_dir():
            return folder
    return None


def _documents(folder: Path) -> list[dict[str, Any]]:
    return [read_json(path) for path in sorted((folder / "documents").glob("*.json"))]


def bench_tau2_search(folder: Path, *, repeat: int = 50) -> dict[str, Any]:
    """Median milliseconds of a search and a grep over ``folder``'s documents (a banking_knowledge
    folder), ours and the in-run Python baselines."""
    documents = _documents(folder)
    spec = {
        "id": "kb",
        "name": "tau2 banking_knowledge documents",
        "sector": "banking",
        "description": "The knowledge base alone, with tau2's retrieval tools.",
        "tables": [_DOCUMENTS, *banking_retrieval.TABLES],
        "seed": {
            "documents": [{"doc_id": d["id"], "title": d["title"], "content": d["content"]} for d in documents],
            **banking_retrieval.index_rows(documents),
        },
        "tools": banking_retrieval.tools(),
    }
    episode = Environment(EnvSpec.model_validate(spec)).episode()
    search = timeit(lambda: [episode.call_tool("KB_search", {"query": q}) for q in QUERIES], repeat)
    grep = timeit(lambda: episode.call_tool("grep", {"pattern": PATTERN}), repeat)
    compiled = re.compile(PATTERN, re.IGNORECASE)
    grep_base = timeit(lambda: [len(compiled.findall(d["content"])) for d in documents], repeat)
    result: dict[str, Any] = {
        "documents": len(documents),
        "queries_per_search_timing": len(QUERIES),
        "kb_search": search,
        "grep": grep,
        "grep_python_re": grep_base,
        "grep_ratio_vs_python_re": grep["median_ms"] / grep_base["median_ms"],
    }
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        return {**result, "kb_search_rank_bm25": None}
    bm25 = BM25Okapi([d["content"].lower().split() for d in documents])

    def reference() -> None:
        for q in QUERIES:
            scores = bm25.get_scores(q.lower().split())
            json.dumps(sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[:10])

    base = timeit(reference, repeat)
    return {
        **result,
        "kb_search_rank_bm25": base,
        "kb_search_ratio_vs_rank_bm25": search["median_ms"] / base["median_ms"],
    }
