"""Retrieval difficulty of an environment's document collection (docs/synthesis.md, "Quality report"):
for each task that names the documents deciding it (``required_documents``), whether BM25's top 3 for
the user's request, searched as written, holds one of them. A collection where that is always so asks
no searching skill; where it never is, the request's words do not lead to the rules.

* ``retrieval_tasks``: tasks with required documents in an environment with a full-text table;
* ``retrieval_top3_hits``: of those, the tasks whose instruction's top 3 holds a required document.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import Environment
from ..engine.compile import quote_ident
from ..formats.task import Task

TOP = 3


@dataclass
class RetrievalCounts:
    retrieval_tasks: int = 0
    retrieval_top3_hits: int = 0


def top_documents(env: Environment, task: Task, query: str, k: int = TOP) -> list[str]:
    """The ids BM25 ranks first for ``query`` over every full-text table of ``env`` (each table's own
    ranking, best first, tables in spec order), at most ``k`` per table, in the task's start state."""
    found: list[str] = []
    episode = env.episode(task)
    try:
        for table in env.spec.tables:
            if not table.search_table or len(table.primary_key) != 1:
                continue
            fts, key = quote_ident(table.search_table), quote_ident(table.primary_key[0])
            rows = episode.query(
                f"SELECT d.{key} AS id FROM {fts} JOIN {quote_ident(table.name)} d ON d.rowid = {fts}.rowid "
                f"WHERE {fts} MATCH search_terms(:query) ORDER BY bm25({fts}), d.{key} LIMIT {k}",
                {"query": query},
            )
            found += [str(row["id"]) for row in rows]
    finally:
        episode.close()
    return found


def retrieval_counts(env: Environment, tasks: list[Task]) -> RetrievalCounts:
    """The retrieval measures of one environment (0 / 0 without a document collection)."""
    c = RetrievalCounts()
    if not any(t.search_table for t in env.spec.tables):
        return c
    for task in tasks:
        if task.required_documents:
            c.retrieval_tasks += 1
            c.retrieval_top3_hits += bool(
                set(top_documents(env, task, task.instruction)) & set(task.required_documents)
            )
    return c
