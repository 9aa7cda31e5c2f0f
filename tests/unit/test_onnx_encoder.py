"""The ONNX Runtime BERT encoder against the numpy one: on the shipped all-MiniLM-L6-v2
weights and on a tiny random BERT the test builds itself, pooled vectors and token
states, padded batches and single texts, and two threads on one session."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from cogmem.embed.base import EmbedderUnavailable, l2_normalise, read_json
from cogmem.embed.bert import BertEncoder

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from cogmem.embed.onnx import OnnxBertEncoder

pytestmark = pytest.mark.unit

TEXTS = [
    "Hi!",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: That's great to hear. What did you talk about?",
    "Caroline: Mostly about transition stories, how people found the courage to come out, "
    "and what support they got from friends, family and strangers along the way.",
    "ok",
]


def _check_close(a: np.ndarray, b: np.ndarray) -> None:
    a, b = l2_normalise(a), l2_normalise(b)
    assert np.abs(a - b).max() < 1e-4
    assert (a * b).sum(axis=1).min() > 0.99999


def _check_states(ref: Any, enc: Any, sequences: list[list[int]]) -> None:
    s_ref, l_ref = ref.token_states(sequences)
    s_onnx, l_onnx = enc.token_states(sequences)
    assert l_onnx.dtype == np.intp
    assert np.array_equal(l_ref, l_onnx)
    assert s_onnx.shape == s_ref.shape and s_onnx.dtype == np.float32
    for row, n in enumerate(l_ref):
        _check_close(s_ref[row, :n], s_onnx[row, :n])


@pytest.fixture(scope="module")
def minilm() -> tuple[dict[str, np.ndarray], dict[str, Any], list[list[int]]]:
    from cogmem.embed.minilm import MiniLMEmbedder, minilm_model_dir

    try:
        model_dir = minilm_model_dir()
    except EmbedderUnavailable as exc:
        pytest.skip(str(exc))
    from safetensors.numpy import load_file

    weights = load_file(str(model_dir / "model.safetensors"))
    config = read_json(model_dir / "config.json")
    embedder = MiniLMEmbedder(model_dir)
    return weights, config, [list(embedder.encode_ids(t)) for t in TEXTS]


@pytest.fixture(scope="module")
def minilm_encoders(
    minilm: tuple[dict[str, np.ndarray], dict[str, Any], list[list[int]]],
) -> tuple[BertEncoder, OnnxBertEncoder]:
    weights, config, _ = minilm
    return BertEncoder(weights, config), OnnxBertEncoder(weights, config)


def test_minilm_batch_agrees(minilm: Any, minilm_encoders: Any) -> None:
    sequences = minilm[2]
    assert len({len(s) for s in sequences}) == len(sequences)  # padding is exercised
    ref, enc = minilm_encoders
    assert enc.hidden == ref.hidden == 384 and enc.max_positions == ref.max_positions
    pooled = enc(sequences)
    assert pooled.shape == (len(sequences), 384) and pooled.dtype == np.float32
    _check_close(ref(sequences), pooled)
    _check_states(ref, enc, sequences)


def test_minilm_single_text_agrees(minilm: Any, minilm_encoders: Any) -> None:
    ref, enc = minilm_encoders
    single = [minilm[2][1]]
    _check_close(ref(single), enc(single))
    _check_states(ref, enc, single)


def test_vector_does_not_depend_on_batch(minilm: Any, minilm_encoders: Any) -> None:
    _, enc = minilm_encoders
    sequences = minilm[2]
    batched = l2_normalise(enc(sequences))
    for row, seq in enumerate(sequences):
        alone = l2_normalise(enc([seq]))[0]
        assert np.abs(alone - batched[row]).max() < 1e-5


def test_empty_and_bad_lengths(minilm_encoders: Any) -> None:
    _, enc = minilm_encoders
    assert enc([]).shape == (0, 384)
    states, lengths = enc.token_states([])
    assert states.shape == (0, 0, 384) and lengths.shape == (0,)
    with pytest.raises(ValueError):
        enc([[]])
    with pytest.raises(ValueError):
        enc([[101] * (enc.max_positions + 1)])


def test_two_threads_share_a_session(minilm: Any, minilm_encoders: Any) -> None:
    _, enc = minilm_encoders
    sequences = minilm[2]
    expected = enc(sequences)
    jobs = [sequences, sequences[::-1]] * 4
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(enc, jobs))
    for job, got in zip(jobs, results, strict=True):
        want = expected if job is sequences else expected[::-1]
        assert np.abs(got - want).max() < 1e-5


def _tiny_bert(seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    hidden, inner, layers, vocab, positions = 32, 64, 2, 50, 40
    config = {
        "hidden_size": hidden,
        "num_attention_heads": 2,
        "num_hidden_layers": layers,
        "intermediate_size": inner,
        "vocab_size": vocab,
        "max_position_embeddings": positions,
        "type_vocab_size": 2,
        "layer_norm_eps": 1e-12,
        "hidden_act": "gelu",
    }
    rng = np.random.default_rng(seed)

    def rand(*shape: int, scale: float = 0.2) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def norm(prefix: str) -> dict[str, np.ndarray]:
        return {prefix + ".weight": 1.0 + rand(hidden, scale=0.1), prefix + ".bias": rand(hidden)}

    def linear(prefix: str, n_in: int, n_out: int) -> dict[str, np.ndarray]:
        return {prefix + ".weight": rand(n_out, n_in), prefix + ".bias": rand(n_out)}

    weights = {
        "embeddings.word_embeddings.weight": rand(vocab, hidden, scale=1.0),
        "embeddings.position_embeddings.weight": rand(positions, hidden, scale=0.5),
        "embeddings.token_type_embeddings.weight": rand(2, hidden, scale=0.5),
        **norm("embeddings.LayerNorm"),
    }
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for name in ("query", "key", "value"):
            weights.update(linear(p + "attention.self." + name, hidden, hidden))
        weights.update(linear(p + "attention.output.dense", hidden, hidden))
        weights.update(norm(p + "attention.output.LayerNorm"))
        weights.update(linear(p + "intermediate.dense", hidden, inner))
        weights.update(linear(p + "output.dense", inner, hidden))
        weights.update(norm(p + "output.LayerNorm"))
    return weights, config


@pytest.mark.parametrize("contrib", [True, False], ids=["contrib-ops", "standard-ops"])
def test_tiny_random_bert_agrees(contrib: bool) -> None:
    weights, config = _tiny_bert()
    ref = BertEncoder(weights, config)
    enc = OnnxBertEncoder(weights, config, contrib=contrib)
    rng = np.random.default_rng(1)
    sequences = [rng.integers(0, 50, n).tolist() for n in (7, 1, 40, 13, 22)]
    _check_close(ref(sequences), enc(sequences))
    _check_states(ref, enc, sequences)
    _check_close(ref(sequences[2:3]), enc(sequences[2:3]))
    # batching with a longer sequence leaves a short one's vector alone
    assert np.abs(enc(sequences[:1]) - enc(sequences)[:1]).max() < 1e-4


def test_missing_weight_is_unavailable() -> None:
    weights, config = _tiny_bert()
    del weights["encoder.layer.1.output.dense.bias"]
    with pytest.raises(EmbedderUnavailable, match=r"output\.dense\.bias"):
        OnnxBertEncoder(weights, config)


def test_unavailable_without_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "onnxruntime":
            raise ImportError("No module named 'onnxruntime'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    weights, config = _tiny_bert()
    with pytest.raises(EmbedderUnavailable, match="onnxruntime"):
        OnnxBertEncoder(weights, config)
