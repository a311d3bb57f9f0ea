"""A toy embedding model for the tests: a text's vector counts its words of each concept (a group of
words meaning one thing), other words hashed into a few more dimensions with a small weight."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

HASHED_DIMENSIONS = 16


def concept_vector(text: str, concepts: Sequence[set[str]]) -> list[float]:
    out = [0.0] * (len(concepts) + HASHED_DIMENSIONS)
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        hits = [i for i, group in enumerate(concepts) if word in group]
        for i in hits:
            out[i] += 1.0
        if not hits:
            out[len(concepts) + zlib.crc32(word.encode()) % HASHED_DIMENSIONS] += 0.1
    return out


class ConceptEmbedder:
    """``Embedder`` over :func:`concept_vector`; ``calls`` holds the texts of each ``embed`` call."""

    def __init__(self, concepts: Sequence[set[str]] = (), name: str = "concepts") -> None:
        self.concepts = list(concepts)
        self.name = name
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([concept_vector(t, self.concepts) for t in texts], dtype=np.float32)


def cosine_ranking(
    query: str, documents: Sequence[tuple[str, str]], concepts: Sequence[set[str]]
) -> list[tuple[str, float]]:
    """Every document ``(key, text)`` with its cosine to ``query`` in float64, best first, ties by key order
    of the input: the reference the SQL ranking is held to."""
    q = np.array(concept_vector(query, concepts), dtype=np.float64)
    scored = []
    for position, (key, text) in enumerate(documents):
        d = np.array(concept_vector(text, concepts), dtype=np.float64)
        norms = float(np.linalg.norm(q) * np.linalg.norm(d))
        scored.append((position, key, float(q @ d) / norms if norms else 0.0))
    scored.sort(key=lambda s: (-s[2], s[0]))
    return [(key, score) for _, key, score in scored]
