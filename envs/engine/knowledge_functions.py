"""The SQL functions a tool uses to rank documents by meaning: ``knowledge_mode()`` and
``similarity(query, document_key)`` (docs/formats.md "Documents").

``knowledge_mode()`` is the episode's knowledge mode (``search`` unless its server says otherwise:
``envs.formats.knowledge_modes``), so one search tool can rank by BM25 when searching and by meaning in
the ``embeddings`` mode. ``similarity(query, key)`` is the cosine of the query's embedding and the
document's, from the model the server was started with (``envs.embeddings``); it exists only in the
``embeddings`` mode, and elsewhere stops the call with a message that says so.

A query named by a parameter (``similarity(:query, d.doc_id)``) is embedded before the call's SQL runs:
a model's or a service's time is not charged to the call's time limit, which bounds the SQL.
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from envs.formats.spec import ToolSpec

EMBEDDINGS_MODE = "embeddings"
_QUERY_PARAMETER = re.compile(r"(?i)\bsimilarity\s*\(\s*:(\w+)\s*,")


class Similarity(Protocol):
    """An environment's documents under one embedding model (``envs.embeddings.documents``)."""

    def prepare(self, query: str) -> None:
        """Embed ``query`` (and, the first time, the documents) so that scoring it is a lookup."""

    def score(self, query: str, key: str) -> float | None:
        """The cosine of ``query`` and document ``key`` (None: no such document)."""


class SimilarityUnavailable(Exception):
    """``similarity()`` was called where no embedding model serves the episode (the message says why)."""


def query_parameters(tool: ToolSpec) -> tuple[str, ...]:
    """The parameters whose value a tool's SQL ranks documents against (``similarity(:name, …)``)."""
    return _query_parameters(tuple(step.sql for step in tool.steps))


@lru_cache(maxsize=4096)
def _query_parameters(statements: tuple[str, ...]) -> tuple[str, ...]:
    # per call in the embeddings mode: the spec's strings keep their hash, so a repeat costs a lookup
    return tuple(sorted({m.group(1) for sql in statements for m in _QUERY_PARAMETER.finditer(sql)}))


def install_knowledge_functions(
    conn: sqlite3.Connection, mode: Callable[[], str], scorer: Callable[[str, str], float | None]
) -> None:
    """``knowledge_mode()`` and ``similarity(query, key)`` on ``conn``, answered by the episode."""
    conn.create_function("knowledge_mode", 0, mode)
    conn.create_function("similarity", 2, scorer)


def prepare_queries(similarity: Similarity | None, mode: str, tool: ToolSpec, args: Mapping[str, object]) -> None:
    """Embed the values a tool will rank documents against, before its SQL runs."""
    if similarity is None or mode != EMBEDDINGS_MODE:
        return
    for name in query_parameters(tool):
        value = args.get(name)
        if isinstance(value, str):
            similarity.prepare(value)
