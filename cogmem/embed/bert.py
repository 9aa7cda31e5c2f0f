"""A BERT encoder (post-LN, absolute positions, exact GELU) in float32 numpy, with the
erf and GELU it needs (numpy has neither), and the relative-position buckets of the MPNet
variant (:func:`relative_buckets`, read by the numpy and the ONNX MPNet encoders alike)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cogmem.embed.base import EmbedderUnavailable, weight_reader

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


def checked_lengths(sequences: Sequence[Sequence[int]], max_positions: int) -> np.ndarray:
    """Each sequence's length; ValueError unless every one is in 1..``max_positions``."""
    lengths = np.fromiter(map(len, sequences), dtype=np.intp, count=len(sequences))
    if lengths.size and (lengths.min() < 1 or lengths.max() > max_positions):
        raise ValueError(f"sequence lengths must be in 1..{max_positions}")
    return lengths


def mean_pool(states: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The mean of each sequence's first ``length`` rows of right-padded ``states``
    (batch, width, hidden): padding never enters a sentence's vector."""
    valid = np.arange(states.shape[1])[None, :] < lengths[:, None]
    weights = valid.astype(np.float32)[:, None, :]  # (batch, 1, width)
    pooled = np.matmul(weights, states)[:, 0, :]
    pooled /= lengths[:, None].astype(np.float32)
    return pooled


def relative_buckets(width: int, num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """The bucket of every (query, key) pair's distance ``key - query``, (width, width):
    half the buckets per direction, exact up to a quarter of them, then logarithmic up to
    ``max_distance`` (MPNet's and T5's bidirectional scheme)."""
    pos = np.arange(width)
    n = pos[:, None] - pos[None, :]  # query - key
    half = num_buckets // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    with np.errstate(divide="ignore"):
        large = exact + (
            np.log(np.maximum(n, 1) / exact) / math.log(max_distance / exact) * (half - exact)
        ).astype(np.int64)
    large = np.minimum(large, half - 1)
    return ret + np.where(n < exact, n, large)


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

        w = weight_reader(weights, prefix)

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

    def _layers(self, x: np.ndarray, batch: int, width: int, bias: np.ndarray | None) -> np.ndarray:
        """The encoder layers over packed rows (batch·width, hidden); ``bias`` is added to
        every layer's attention scores."""
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
        return x

    def __call__(self, sequences: Sequence[Sequence[int]]) -> np.ndarray:
        """Mean-pooled (unnormalised) last hidden states, shape (len(sequences), hidden).

        Sequences are right-padded to the longest one; padded keys are masked out of
        attention and padded rows out of the mean, so a sequence's vector does not depend
        on what it is batched with (up to float rounding). Sort by length before batching
        to keep the padding small.
        """
        if len(sequences) == 0:
            return np.zeros((0, self.hidden), np.float32)
        return mean_pool(*self.token_states(sequences))

    def token_states(self, sequences: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Last hidden states (batch, width, hidden), right-padded, and each sequence's
        length: what :meth:`__call__` pools, for callers that pool spans of a sequence."""
        batch = len(sequences)
        lengths = checked_lengths(sequences, self.max_positions)
        if batch == 0:
            return np.zeros((0, 0, self.hidden), np.float32), lengths
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
        x = self._layers(x, batch, width, bias)
        return x.reshape(batch, width, self.hidden), lengths
