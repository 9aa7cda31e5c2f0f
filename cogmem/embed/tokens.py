"""Token rows: a turn's contextual token states, kept for late interaction.

An embedder that can (:class:`TokenEmbedder`: the offline MiniLM) hands back, from the same
forward pass that makes a turn's vector, one row per token. The turn keeps the rows of its
own words (the ``Speaker:`` prefix it is embedded with left out) as unit rows quantised to
int8, one scale per row: ``token_rows`` (bytes) and ``token_scales`` on the Turn node.
Search matches the question's words against them (:mod:`cogmem.retrieval.late`). An
embedder without token states (OpenAI, BGE-M3) gives turns no rows, and the signal is 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cogmem.embed.base import Embedder

TOKEN_ROWS = "token_rows"
"""Turn property: the int8 rows, row after row, as bytes."""
TOKEN_SCALES = "token_scales"
"""Turn property: each row's scale (the int8 codes times it give the unit row back)."""
INT8_MAX = 127.0


@runtime_checkable
class TokenEmbedder(Protocol):
    """An embedder that also returns each text's token states."""

    def embed_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """The vectors of ``texts`` and, from the same pass, each text's token rows
        ([CLS]/[SEP] left out), one list entry per text."""
        ...

    def pieces(self, text: str) -> list[str]:
        """The word-pieces of ``text``, one per row of its token states."""
        ...


def pack(states: np.ndarray) -> dict[str, Any]:
    """Token rows as stored: unit rows in int8 with one scale each (no rows: nothing)."""
    if states.size == 0:
        return {}
    norms = np.linalg.norm(states, axis=1, keepdims=True)
    unit = states / np.where(norms > 0, norms, 1.0)
    peak = np.abs(unit).max(axis=1, keepdims=True)
    scale = np.where(peak > 0, peak, 1.0) / INT8_MAX
    codes = np.round(unit / scale).astype(np.int8)
    return {TOKEN_ROWS: codes.tobytes(), TOKEN_SCALES: scale[:, 0].astype(float).tolist()}


def unpack(data: bytes, scales: Sequence[float]) -> np.ndarray:
    """Stored token rows back as unit float32 rows, shape (len(scales), dimension)."""
    n = len(scales)
    if n == 0 or not data:
        return np.zeros((0, 0), np.float32)
    codes = np.frombuffer(data, np.int8).reshape(n, -1).astype(np.float32)
    rows = codes * np.asarray(scales, np.float32)[:, None]
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def embed_texts(
    embedder: Embedder, texts: Sequence[str], speakers: Sequence[str | None]
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Vectors of ``texts`` and, for each text that is a turn (its speaker given, the text
    being ``speaker: words``), the token-row properties of its words; ``{}`` for the others
    and for every text when the embedder has no token states. One forward pass per text."""
    if not isinstance(embedder, TokenEmbedder):
        return embedder.embed(texts), [{} for _ in texts]
    vectors, states = embedder.embed_with_tokens(texts)
    props: list[dict[str, Any]] = []
    for speaker, rows in zip(speakers, states, strict=True):
        if speaker is None:
            props.append({})
            continue
        prefix = len(embedder.pieces(f"{speaker}:"))
        props.append(pack(rows[prefix:]))
    return vectors, props
