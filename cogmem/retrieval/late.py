"""Late interaction: the question matched word by word against each of a search's best
turns, as pure maths (no I/O).

A turn's vector is the mean of its tokens' contextual states; the mean blurs a turn that
is about several things, and a word of the question can match one word of the turn
("tourney" for "tournament", "pup" for "pets") without moving the mean. So, for each of the
best turns after grounding, and for each word of the question (a word-initial word-piece,
not a stopword, not a name of a person the question asks about — the speaker weight covers
those), the best cosine to any token row of the turn (:mod:`cogmem.embed.tokens`); the
mean of those, weighted by each word's IDF in the group's turns (a rare word says more), is
the turn's match. Min-max over the turns matched (the best 1, the worst 0), times
``RankWeights.late``, it joins the turn's base score (:func:`~cogmem.retrieval.scoring.
finish`'s ``extra``), so a question turn also passes a share of it to its answer.

Chosen on the LoCoMo dev split, each conversation scored with the weight the other chose
(``benchmarks/tune_weights.py --cv --set late=…``: ``benchmarks/results/tune_late.md``);
with pooled cosines (every embedder but MiniLM) the weight is
:data:`~cogmem.retrieval.scoring.POOLED_LATE`, chosen the same way with all-mpnet-base-v2
(``benchmarks/results/tune_late_mpnet.md``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cogmem.text.stopwords import STOPWORDS

SPECIAL = frozenset({"[CLS]", "[SEP]", "[UNK]", "[PAD]"})


def query_words(pieces: list[str], names: Iterable[str]) -> list[tuple[int, str]]:
    """The question's words to match: (row of its first word-piece, the whole word), for
    each word-initial alphabetic piece that is not a stopword or an asked person's name."""
    skip = {n.lower() for n in names}
    out: list[tuple[int, str]] = []
    for i, piece in enumerate(pieces):
        if piece in SPECIAL or not piece.isalpha():
            continue  # punctuation, digits, and "##" continuations
        word = piece
        for more in pieces[i + 1 :]:
            if not more.startswith("##"):
                break
            word += more[2:]
        if word in STOPWORDS or piece in STOPWORDS or word in skip:
            continue
        out.append((i, word))
    return out


def match(
    query: np.ndarray, weights: np.ndarray, turns: Sequence[tuple[bytes, Sequence[float]]]
) -> list[float]:
    """For each turn (its stored int8 token rows and their scales: :mod:`cogmem.embed.
    tokens`), the IDF-weighted mean over the question's word rows ``query`` (unit) of each
    word's best cosine to one of the turn's tokens. One product for all the turns: their
    rows side by side, the best per turn by ``maximum.reduceat``. (A stored row is unit up
    to its int8 rounding, ~0.1 %: it is not normalised again.)"""
    out = [0.0] * len(turns)
    total = float(weights.sum())
    held = [i for i, (_, scales) in enumerate(turns) if len(scales)]  # a turn without rows: 0
    if not held or total <= 0.0:
        return out
    sizes = [len(turns[i][1]) for i in held]
    codes = np.frombuffer(b"".join(turns[i][0] for i in held), np.int8)
    rows = codes.reshape(sum(sizes), -1).astype(np.float32)
    rows *= np.concatenate([np.asarray(turns[i][1], np.float32) for i in held])[:, None]
    starts = np.cumsum([0, *sizes[:-1]])
    # numpy's own loop, not BLAS, whose worker threads spin after each product and take the
    # cores that concurrent searches need (as the group scan: cogmem.retrieval.scan)
    sims = np.einsum("wd,td->wt", query, rows)
    best = np.maximum.reduceat(sims, starts, axis=1)  # (words, turns held)
    for i, value in zip(held, (weights @ best / total).tolist(), strict=True):
        out[i] = value
    return out


def scaled(matches: Mapping[str, float]) -> dict[str, float]:
    """Min-max over the turns matched: the best 1, the worst 0 (all 0 when they tie)."""
    if not matches:
        return {}
    low, high = min(matches.values()), max(matches.values())
    if high <= low:
        return dict.fromkeys(matches, 0.0)
    return {k: (v - low) / (high - low) for k, v in matches.items()}


@dataclass(frozen=True)
class LateQuery:
    """The question's words for late interaction: their token rows (unit) and the words."""

    rows: np.ndarray
    words: list[str]


def late_query(pieces: list[str], rows: np.ndarray, names: set[str]) -> LateQuery | None:
    """The question's words and their unit token rows (None: no word to match)."""
    words = query_words(pieces, names)
    if not words or rows.shape[0] != len(pieces):
        return None
    picked = rows[[i for i, _ in words]]
    unit = picked / np.linalg.norm(picked, axis=1, keepdims=True)
    return LateQuery(rows=unit.astype(np.float32), words=[word for _, word in words])
