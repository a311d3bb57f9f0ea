"""Embeddings kept in the cache directory: texts that took minutes to embed load in milliseconds after."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
from collections.abc import Callable, Sequence

import numpy as np

from envs.cache_files import trusted
from envs.paths import cache_dir

log = logging.getLogger("envfarm.embeddings")


def cached_vectors(
    prefix: str, model: str, texts: Sequence[str], width: int | None, embed: Callable[[Sequence[str]], np.ndarray]
) -> np.ndarray:
    """``embed(texts)``, kept as ``<prefix>-<hash>.npy`` under the hash of ``model`` (what names the model
    and where it runs) and the texts. ``width``: the vectors' length when known (a kept file of another
    shape is embedded again)."""
    key = hashlib.sha256("\n".join([model, *texts]).encode()).hexdigest()[:20]
    path = cache_dir() / f"{prefix}-{key}.npy"
    if trusted(path):
        try:
            kept = np.load(path, allow_pickle=False)
        except (OSError, ValueError):  # a torn or foreign file: embed again
            kept = None
        fits = isinstance(kept, np.ndarray) and kept.ndim == 2 and kept.shape[0] == len(texts)
        if fits and (width is None or kept.shape[1] == width):
            return np.asarray(kept, dtype=np.float32)
    vectors = np.asarray(embed(texts), dtype=np.float32)
    staging = path.with_name(f"{path.name}.tmp{secrets.token_hex(6)}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "wb") as f:
            np.save(f, vectors, allow_pickle=False)
        os.replace(staging, path)  # readers see the whole file or none
    except OSError as exc:  # keeping them saves time only: a cache that cannot be written costs a minute
        log.warning("could not keep the embeddings in %s: %s", path.parent, exc)
        with contextlib.suppress(OSError):
            staging.unlink()
    return vectors
