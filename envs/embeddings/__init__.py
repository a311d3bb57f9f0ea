"""Text embeddings: documents ranked by meaning in the ``embeddings`` knowledge mode, and requests
matched to domains (``sentences``).

An embedding model is chosen explicitly, never by default (``envfarm serve --embeddings OPTION``,
or ``ENVFARM_EMBEDDINGS``), as one of:

* ``local``: all-MiniLM-L6-v2, run in NumPy from the package registry's copy of its files (``sentences``);
  no service, nothing downloaded; texts are cut at 256 word pieces;
* ``MODEL`` or ``MODEL@BASE_URL``: any OpenAI-compatible ``/embeddings`` endpoint (τ³ uses OpenAI's
  ``text-embedding-3-large``). The base URL is ``BASE_URL``, else ``ENVFARM_EMBEDDINGS_BASE_URL``, else
  ``OPENAI_BASE_URL``, else OpenAI's; the key ``ENVFARM_EMBEDDINGS_API_KEY``, else ``OPENAI_API_KEY``.

>>> embedder("text-embedding-3-large@http://127.0.0.1:9/v1").name
'text-embedding-3-large@http://127.0.0.1:9/v1'
>>> embedder(" ")
Traceback (most recent call last):
...
envs.embeddings.EmbeddingsUnavailable: embeddings '': name a model: 'local', MODEL or MODEL@BASE_URL
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from envs.errors import EnvFarmError

if TYPE_CHECKING:
    import numpy as np

LOCAL = "local"
#: Texts sent in one request to an embedding service (OpenAI takes up to 2,048; fewer keep each small).
REMOTE_BATCH = 64


class EmbeddingsUnavailable(EnvFarmError):
    """No embedding model can be used as configured (names the option and what is missing)."""


class Embedder(Protocol):
    """Texts to vectors; ``name`` says which model, and where it runs (vectors are kept under it)."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class LocalEmbedder:
    """all-MiniLM-L6-v2 in this process."""

    name = LOCAL

    def __init__(self) -> None:
        from .sentences import INSTALL_HINT, MODEL_SHA256, sentence_encoder

        encoder = sentence_encoder()
        if encoder is None:
            raise EmbeddingsUnavailable(f"embeddings 'local': the sentence model is not installed ({INSTALL_HINT})")
        self._encoder = encoder
        self.name = f"{LOCAL}:all-MiniLM-L6-v2:{MODEL_SHA256[:12]}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._encoder.encode(texts)


class RemoteEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint, through the ``openai`` SDK."""

    def __init__(self, model: str, base_url: str | None) -> None:
        import openai

        key = os.environ.get("ENVFARM_EMBEDDINGS_API_KEY") or os.environ.get("OPENAI_API_KEY")
        if not key and base_url is None:
            raise EmbeddingsUnavailable(
                f"embeddings '{model}': OpenAI's endpoint needs a key (ENVFARM_EMBEDDINGS_API_KEY or OPENAI_API_KEY)"
            )
        self._client = openai.OpenAI(api_key=key or "unused", base_url=base_url, timeout=60.0, max_retries=2)
        self.model = model
        self.name = f"{model}@{base_url}" if base_url else model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np
        import openai

        rows: list[list[float]] = []
        for start in range(0, len(texts), REMOTE_BATCH):
            batch = [t if t.strip() else " " for t in texts[start : start + REMOTE_BATCH]]  # empty input is refused
            try:
                answer = self._client.embeddings.create(model=self.model, input=batch)
            except openai.OpenAIError as exc:
                raise EmbeddingsUnavailable(f"embeddings '{self.name}': the service failed: {exc}") from exc
            if len(answer.data) != len(batch):
                raise EmbeddingsUnavailable(
                    f"embeddings '{self.name}': {len(batch)} texts sent, {len(answer.data)} vectors returned"
                )
            rows += [item.embedding for item in sorted(answer.data, key=lambda item: item.index)]
        return np.asarray(rows, dtype=np.float32)


def embedder(option: str) -> Embedder:
    """The embedder ``option`` names (see the module docstring).

    Raises:
        EmbeddingsUnavailable: an empty option, the local model missing, or OpenAI's endpoint without a key.
    """
    option = option.strip()
    if not option:
        raise EmbeddingsUnavailable(f"embeddings '{option}': name a model: 'local', MODEL or MODEL@BASE_URL")
    if option == LOCAL:
        return LocalEmbedder()
    model, _, base_url = option.partition("@")
    base = base_url or os.environ.get("ENVFARM_EMBEDDINGS_BASE_URL") or os.environ.get("OPENAI_BASE_URL") or None
    return RemoteEmbedder(model, base)
