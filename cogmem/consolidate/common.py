"""Row helpers shared by the jobs: timezone-aware times and unit vectors."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from cogmem.embed import Embedder


def aware(value: datetime | None) -> datetime | None:
    """``value`` with a timezone (UTC when it had none)."""
    if value is None:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def unit_rows(vectors: list[Any], texts: Sequence[str], embedder: Embedder | None) -> np.ndarray:
    """Unit vectors for the rows; missing ones are computed (not stored) with ``embedder``."""
    missing = [i for i, v in enumerate(vectors) if not v]
    dims = {len(v) for v in vectors if v}
    if missing and embedder is not None:
        computed = embedder.embed([texts[i] or "" for i in missing])
        for i, vec in zip(missing, computed, strict=True):
            vectors[i] = vec.tolist()
        dims.add(int(computed.shape[1]))
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    dim = max(dims) if dims else 1
    matrix = np.zeros((len(vectors), dim), dtype=np.float32)
    for i, vec in enumerate(vectors):
        if vec and len(vec) == dim:
            matrix[i] = np.asarray(vec, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return matrix / norms
