"""What every embedder shares: the :class:`Embedder` protocol, :class:`EmbedderUnavailable`,
row normalisation, reading a model's JSON files, and the per-process caches of loaded
models and built embedders."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np


class EmbedderUnavailable(RuntimeError):
    """The configured embedder cannot run here; the message says what to install or fix."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """A stable identifier of the model (recorded next to the vector index)."""
        ...

    @property
    def dimension(self) -> int:
        """The length of every vector this embedder returns."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts``: float32, shape ``(len(texts), dimension)``, unit rows."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one text, 1-D, float32, unit length."""
        ...


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def weight_reader(weights: Mapping[str, Any], prefix: str) -> Callable[[str], np.ndarray]:
    """``key`` → the weight ``prefix + key`` as a contiguous float32 array;
    EmbedderUnavailable naming the key when the weights lack it."""

    def read(key: str) -> np.ndarray:
        try:
            return np.ascontiguousarray(weights[prefix + key], dtype=np.float32)
        except KeyError as exc:
            raise EmbedderUnavailable(f"weights lack {prefix + key}") from exc

    return read


def default_model_cache() -> Path:
    """Where built models (ONNX, int8) are cached when no folder is given:
    ``$COGMEM_HOME/models``."""
    from cogmem.config import default_home

    home = os.environ.get("COGMEM_HOME")
    return (Path(home).expanduser() if home else default_home()) / "models"


def read_json(path: Path) -> dict[str, Any]:
    """A model folder's JSON object file; :class:`EmbedderUnavailable` if it is unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbedderUnavailable(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise EmbedderUnavailable(f"{path} is not a JSON object")
    return data


# --------------------------------------------------------------------------------------
# per-process caches: a model's weights are loaded once, an embedder is built once
# --------------------------------------------------------------------------------------

_MODEL_CACHE: dict[tuple[str, str], Any] = {}
_EMBEDDER_CACHE: dict[Hashable, Embedder] = {}
_MODEL_LOCK = threading.Lock()


def cached_model(kind: str, path: Path, load: Callable[[], Any]) -> Any:
    """The model of ``kind`` in folder ``path``, loaded by ``load`` on first use only."""
    key = (kind, str(path.resolve()))
    with _MODEL_LOCK:
        model = _MODEL_CACHE.get(key)
        if model is None:
            model = load()
            _MODEL_CACHE[key] = model
        return model


def cached_embedder(key: Hashable, build: Callable[[], Embedder]) -> Embedder:
    """The embedder cached under ``key``, built by ``build`` (outside the lock) if none is."""
    with _MODEL_LOCK:
        cached = _EMBEDDER_CACHE.get(key)
    if cached is not None:
        return cached
    embedder = build()
    with _MODEL_LOCK:
        return _EMBEDDER_CACHE.setdefault(key, embedder)


def clear_embedder_cache() -> None:
    """Forget every loaded model and embedder (tests; freeing memory)."""
    with _MODEL_LOCK:
        _MODEL_CACHE.clear()
        _EMBEDDER_CACHE.clear()


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()
