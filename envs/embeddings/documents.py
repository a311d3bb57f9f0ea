"""An environment's documents under one embedding model: the cosine of a query and each document, as
``similarity()`` answers it (``envs.engine.knowledge_functions``) in the ``embeddings`` knowledge mode.

The documents are embedded once per model and kept in the cache directory (``envs.embeddings.cache``),
the first time an episode ranks them; each query once, its scores against every document kept for the
last few hundred queries, so a search's per-row calls are lookups. A document's text is what is
embedded (its table's last ``full_text`` column), as τ³ embeds a document's content.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from . import Embedder, EmbeddingsUnavailable
from .cache import cached_vectors

log = logging.getLogger("envfarm.embeddings")

#: Queries whose scores are kept (a search of 698 documents keeps 698 floats).
KEPT_QUERIES = 256


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = vectors / np.where(norms == 0, 1.0, norms)
    return unit


class DocumentSimilarity:
    """Cosine similarity of queries to one collection of ``(key, text)`` documents.

    >>> class Letters:  # a toy model: how often each of a, b, c occurs
    ...     name = "letters"
    ...     def embed(self, texts):
    ...         return np.array([[t.count(c) for c in "abc"] for t in texts], dtype=np.float32)
    >>> docs = DocumentSimilarity(Letters(), [("d1", "aaa"), ("d2", "bbb"), ("d3", "ab")], keep=False)
    >>> [round(docs.score("a", key), 3) for key in ("d1", "d2", "d3")]
    [1.0, 0.0, 0.707]
    >>> docs.score("a", "d9") is None
    True
    """

    def __init__(self, embedder: Embedder, documents: Sequence[tuple[str, str]], *, keep: bool = True) -> None:
        self.embedder = embedder
        self._keys = {key: i for i, (key, _) in enumerate(documents)}
        self._texts = [text for _, text in documents]
        self._keep = keep
        self._vectors: np.ndarray | None = None
        self._scores: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _documents(self) -> np.ndarray:
        if self._vectors is None:
            log.info("embedding %d documents with %s", len(self._texts), self.embedder.name)
            if self._keep:
                vectors = cached_vectors("documents", self.embedder.name, self._texts, None, self.embedder.embed)
            else:
                vectors = np.asarray(self.embedder.embed(self._texts), dtype=np.float32)
            if vectors.ndim != 2 or vectors.shape[0] != len(self._texts):
                raise EmbeddingsUnavailable(
                    f"embeddings '{self.embedder.name}': {len(self._texts)} documents gave vectors of shape "
                    f"{vectors.shape}"
                )
            self._vectors = _unit(vectors)
        return self._vectors

    def _ranked(self, query: str) -> np.ndarray:
        with self._lock:  # episodes of one environment share this object across worker threads
            kept = self._scores.get(query)
            if kept is not None:
                self._scores.move_to_end(query)
                return kept
            documents = self._documents()
            vector = np.asarray(self.embedder.embed([query]), dtype=np.float32)
            if vector.shape != (1, documents.shape[1]):
                raise EmbeddingsUnavailable(
                    f"embeddings '{self.embedder.name}': a query's vector has shape {vector.shape}, the "
                    f"documents' width is {documents.shape[1]}"
                )
            scores: np.ndarray = documents @ _unit(vector)[0]
            self._scores[query] = scores
            while len(self._scores) > KEPT_QUERIES:
                self._scores.popitem(last=False)
            return scores

    def warm(self) -> threading.Thread:
        """Embed the documents in a background thread (a search meanwhile waits for them, then runs on);
        a failure is logged, and the first search tries again and reports it."""

        def run() -> None:
            try:
                with self._lock:
                    self._documents()
            except Exception as exc:  # the search that needs them tries again and reports it to its agent
                log.warning("embedding the documents with %s failed: %s", self.embedder.name, exc)

        thread = threading.Thread(target=run, name="embed-documents", daemon=True)
        thread.start()
        return thread

    def prepare(self, query: str) -> None:
        """Embed the documents (the first time) and ``query``, so that scoring it is a lookup."""
        self._ranked(query)

    def score(self, query: str, key: str) -> float | None:
        """The cosine of ``query`` and document ``key``; None for a key that is no document."""
        position = self._keys.get(key)
        if position is None:
            return None
        return float(self._ranked(query)[position])
