"""A learned turn ranking: a linear model over a handful of named, per-question normalised
features of each candidate turn, fitted pairwise (RankNet's logistic loss on pairs of an
evidence turn and a non-evidence turn of the same question) by
``benchmarks/fit_ranking.py`` under leave-one-conversation-out cross-validation.

Features are read off :class:`~cogmem.retrieval.scoring.TurnScore` after a search gathered
them (the hand-set weights still choose which turns are grounded and matched late). Every
graded signal is z-scored over the question's candidates, so the fusion does not depend on
one embedder's cosine scale or on BM25's (scale-free: any stretch and shift of a signal gives
the same feature). Flags (speaker, asks, window, status) and the claim bonus stay as they are.

:func:`rrf` is the baseline any learned combination must beat: reciprocal rank fusion of the
same features, nothing fitted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from pydantic import BaseModel, Field

from cogmem.retrieval.router import Plan
from cogmem.retrieval.scoring import TurnScore, preferred_speaker

GRADED = ("bm25", "turn_cos", "record_cos", "graph", "late")
"""The graded signals of a turn, z-scored per question."""
FEATURES: tuple[str, ...] = (
    *GRADED,
    "previous",  # the previous turn's best graded match: the question this turn answers
    "following",  # the following turn's best graded match: a statement this turn completes
    "speaker",  # 1 for a turn of the one person the question asks about
    "asks",  # 1 for a turn that mostly asks a question
    "claim",  # the claim bonus on opinion and update questions (scoring.claim_bonus)
    "window",  # 1 when the turn or a record of it falls in the question's time window
    "status",  # 1 for a plan record in the status the question asks for
)
"""Every feature a learned ranking may use, in the order of a feature matrix's columns."""
RRF_K = 60
"""Reciprocal rank fusion's constant (Cormack et al. 2009), not tuned."""
MIN_STD = 1e-9


class LearnedRanking(BaseModel):
    """A fitted linear ranking: score = Σ coef[f] · feature f (per-question normalised)."""

    features: list[str] = Field(default_factory=lambda: list(FEATURES))
    coef: list[float]
    fitted_on: list[str] = Field(default_factory=list)
    """The conversations the coefficients were fitted on."""
    l2: float = 1.0
    note: str = ""

    def vector(self) -> np.ndarray:
        return np.asarray(self.coef, dtype=np.float64)


def _z(values: np.ndarray) -> np.ndarray:
    std = float(values.std())
    if std < MIN_STD:
        return np.zeros_like(values)
    return (values - values.mean()) / std


def feature_matrix(
    plan: Plan, scores: Mapping[str, TurnScore], names: Sequence[str] = FEATURES
) -> tuple[list[str], np.ndarray]:
    """The candidate turn ids (sorted) and their features, one row each, columns ``names``."""
    ids = sorted(scores)
    turns = [scores[i] for i in ids]
    n = len(ids)
    cols: dict[str, np.ndarray] = {}
    zero: dict[str, float] = {}
    for name in GRADED:
        raw = np.asarray([max(getattr(s, name), 0.0) for s in turns], dtype=np.float64)
        std = float(raw.std()) if n else 0.0
        cols[name] = _z(raw) if n else raw
        zero[name] = (-float(raw.mean()) / std) if n and std >= MIN_STD else 0.0
    # a turn's own best graded match, and that of a turn that is no candidate (all zeros)
    match = np.max(np.stack([cols[g] for g in GRADED]), axis=0) if n else np.zeros(0)
    absent = max(zero.values(), default=0.0)
    row_of = {(s.conversation_id, s.idx): r for r, s in enumerate(turns) if s.idx is not None}

    def neighbour(offset: int) -> np.ndarray:
        out = np.full(n, absent)
        for r, s in enumerate(turns):
            if s.idx is not None:
                other = row_of.get((s.conversation_id, s.idx + offset))
                if other is not None:
                    out[r] = match[other]
        return out

    preferred = preferred_speaker(plan)
    cols["previous"] = neighbour(-1)
    cols["following"] = neighbour(1)
    cols["speaker"] = np.asarray(
        [float(preferred is not None and s.speaker == preferred) for s in turns]
    )
    cols["asks"] = np.asarray([float(s.asks) for s in turns])
    cols["claim"] = np.asarray([s.claim for s in turns], dtype=np.float64)
    cols["window"] = np.asarray([s.window for s in turns], dtype=np.float64)
    cols["status"] = np.asarray([s.status for s in turns], dtype=np.float64)
    matrix = np.stack([cols[f] for f in names], axis=1) if n else np.zeros((0, len(names)))
    return ids, matrix


def apply(plan: Plan, scores: dict[str, TurnScore], model: LearnedRanking) -> np.ndarray:
    """Sets every turn's final score to the model's; returns the feature matrix (rows in
    sorted id order) for the trace."""
    ids, x = feature_matrix(plan, scores, model.features)
    values = x @ model.vector() if len(ids) else np.zeros(0)
    for tid, v in zip(ids, values.tolist(), strict=True):
        scores[tid].final = v
    return x


def contributions(model: LearnedRanking, row: np.ndarray) -> dict[str, float]:
    """Each feature's share of one turn's score (coefficient × feature value)."""
    return {
        f: round(c * float(v), 3) for f, c, v in zip(model.features, model.coef, row, strict=True)
    }


def rrf(matrix: np.ndarray, names: Sequence[str], k: int = RRF_K) -> np.ndarray:
    """Reciprocal rank fusion of feature columns ``names`` (of :data:`FEATURES`): each
    column ranks the candidates (ties share the best rank; ``asks`` ranks ascending, it is a
    damper), the fused score is Σ 1 / (k + rank)."""
    total = np.zeros(matrix.shape[0])
    for name in names:
        col = matrix[:, FEATURES.index(name)]
        if name == "asks":
            col = -col
        # competition rank: 1 + how many candidates are strictly better
        order = np.sort(col)[::-1]
        better = np.searchsorted(-order, -col, side="left")
        total += 1.0 / (k + 1 + better)
    return total


# -- fitting ----------------------------------------------------------------------------
def pairs(
    groups: Iterable[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """From each question's (features, 0/1 labels): the differences evidence − other of
    every such pair, and a weight per pair that makes each question count once."""
    diffs: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for x, y in groups:
        pos, neg = x[y > 0], x[y <= 0]
        if not len(pos) or not len(neg):
            continue
        d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, x.shape[1])
        diffs.append(d)
        weights.append(np.full(len(d), 1.0 / len(d)))
    if not diffs:
        raise ValueError("no question has both an evidence turn and another candidate")
    return np.concatenate(diffs), np.concatenate(weights)


def fit_pairwise(
    groups: Iterable[tuple[np.ndarray, np.ndarray]], l2: float = 1.0, iterations: int = 50
) -> np.ndarray:
    """Coefficients w minimising Σ_q Σ_pairs weight · log(1 + exp(−w·(x_pos − x_neg)))
    + l2/2 · |w|² (Newton's method; convex, so the answer is unique and deterministic)."""
    d, sw = pairs(groups)
    n_q = float(sw.sum())  # the number of questions
    w = np.zeros(d.shape[1])
    for _ in range(iterations):
        margin = d @ w
        p = 1.0 / (1.0 + np.exp(np.clip(margin, -30, 30)))  # P(wrong order)
        grad = -(d * (sw * p)[:, None]).sum(axis=0) / n_q + l2 * w
        h = (d * (sw * p * (1 - p))[:, None]).T @ d / n_q + l2 * np.eye(len(w))
        step = np.linalg.solve(h, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w


def top_ids(ids: Sequence[str], values: np.ndarray, k: int) -> list[str]:
    """The ``k`` best ids by value (ties by id: the order is the same on any machine)."""
    order = sorted(range(len(ids)), key=lambda r: (-float(values[r]), ids[r]))
    return [ids[r] for r in order[:k]]
