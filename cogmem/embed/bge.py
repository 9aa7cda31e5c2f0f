"""BGE-M3 (dense vectors plus sparse lexical weights) through FlagEmbedding — the ``bge``
extra — from a local folder only, on CPU."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cogmem.embed.base import EmbedderUnavailable, cached_model, l2_normalise, read_json

BGE_INSTALL_HINT = "pip install 'cogmem[bge]'"

_BGE_TOKENIZER_FILES = ("tokenizer.json", "sentencepiece.bpe.model")
_BGE_WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)
_BGE_HEADS = ("colbert_linear.pt", "sparse_linear.pt")


def check_bge_m3_dir(path: Path) -> None:
    """Raise :class:`EmbedderUnavailable` naming what a BGE-M3 folder lacks.

    FlagEmbedding initialises the ColBERT and sparse heads at random when
    ``colbert_linear.pt``/``sparse_linear.pt`` are missing, without an error, so their
    presence is checked here.
    """
    if not path.is_dir():
        raise EmbedderUnavailable(f"BGE-M3 model folder {path} does not exist")
    missing: list[str] = []
    if not (path / "config.json").is_file():
        missing.append("config.json")
    if not any((path / f).is_file() for f in _BGE_TOKENIZER_FILES):
        missing.append(" or ".join(_BGE_TOKENIZER_FILES) + " (tokenizer)")
    if not any((path / f).is_file() for f in _BGE_WEIGHT_FILES):
        missing.append(" or ".join(_BGE_WEIGHT_FILES) + " (weights)")
    missing.extend(f for f in _BGE_HEADS if not (path / f).is_file())
    if missing:
        raise EmbedderUnavailable(
            f"BGE-M3 model folder {path} lacks {', '.join(missing)}; it needs the full "
            "BAAI/bge-m3 snapshot (FlagEmbedding would silently use random sparse/ColBERT "
            "heads without colbert_linear.pt and sparse_linear.pt)"
        )


def bge_dimension(path: Path) -> int:
    """The vector length of the BGE-M3 model in ``path`` (its config's ``hidden_size``)."""
    config = read_json(path / "config.json")
    try:
        return int(config["hidden_size"])
    except (KeyError, TypeError, ValueError) as exc:
        raise EmbedderUnavailable(f"{path / 'config.json'} has no hidden_size") from exc


def _load_bge_m3(path: Path, batch_size: int, max_length: int) -> Any:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        from FlagEmbedding import BGEM3FlagModel
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"the bge-m3 embedder needs FlagEmbedding: `{BGE_INSTALL_HINT}` ({exc})"
        ) from exc
    return BGEM3FlagModel(
        str(path),
        use_fp16=False,
        devices="cpu",
        batch_size=batch_size,
        query_max_length=max_length,
        passage_max_length=max_length,
    )


class BGEM3Embedder:
    """BGE-M3 (dense + sparse) via FlagEmbedding, from a local folder only, on CPU."""

    name = "bge-m3"

    def __init__(
        self,
        model_dir: Path | str,
        batch_size: int = 64,
        threads: int = 0,
        max_length: int = 512,
    ) -> None:
        path = Path(model_dir).expanduser()
        check_bge_m3_dir(path)
        self.model_dir = path
        self.dimension: int = bge_dimension(path)
        self.batch_size = batch_size
        self.max_length = max_length
        self.threads = threads
        if threads > 0:
            with contextlib.suppress(ImportError):
                import torch

                torch.set_num_threads(threads)
        self._model = cached_model(
            "bge-m3", path, lambda: _load_bge_m3(path, batch_size, max_length)
        )
        self._token_cache: dict[int, str] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        result = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            max_length=self.max_length,
            return_dense=True,
            return_sparse=False,
            return_colbert_vecs=False,
        )
        return l2_normalise(np.asarray(result["dense_vecs"], dtype=np.float32))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def _token(self, token_id: int) -> str:
        token = self._token_cache.get(token_id)
        if token is None:
            token = str(self._model.tokenizer.decode([token_id]))
            self._token_cache[token_id] = token
        return token

    def embed_sparse(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Lexical weights per text, keyed by token string (BGE-M3's sparse output)."""
        if isinstance(texts, str):
            raise TypeError("embed_sparse() takes a sequence of texts")
        if not texts:
            return []
        result = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            max_length=self.max_length,
            return_dense=False,
            return_sparse=True,
            return_colbert_vecs=False,
        )
        weights = result["lexical_weights"]
        if isinstance(weights, dict):
            weights = [weights]
        out: list[dict[str, float]] = []
        for item in weights:
            merged: dict[str, float] = {}
            for token_id, weight in item.items():
                token = self._token(int(token_id))
                value = float(weight)
                if value > merged.get(token, 0.0):
                    merged[token] = value
            out.append(merged)
        return out
