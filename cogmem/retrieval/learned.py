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
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from cogmem.retrieval.router import Plan
from cogmem.retrieval.scoring import TurnScore, neighbours, preferred_speaker

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
"""The features of the ``linear`` model, in the order of its coefficients."""
BASE: tuple[str, ...] = (*GRADED, "claim", "window")
"""A turn's own match (the ``neighbours`` model): what its neighbours inherit a share of,
as today's base score (:func:`cogmem.retrieval.scoring.combine`)."""
OWN: tuple[str, ...] = ("speaker", "asks", "status")
"""What only the turn itself has (the ``neighbours`` model), as today's factors on the
final score (:func:`cogmem.retrieval.scoring.finish`)."""
NEIGHBOUR_COLUMNS: tuple[str, ...] = tuple(
    f"{side}:{name}" for side in ("prev", "next") for name in BASE
)
"""A neighbour's base features (``prev:bm25`` …): the previous or following turn's value,
that of a turn with no signal where the neighbour is no candidate."""
COLUMNS: tuple[str, ...] = (*FEATURES, *NEIGHBOUR_COLUMNS)
"""Every column :func:`feature_matrix` can give."""
RRF_K = 60
"""Reciprocal rank fusion's constant (Cormack et al. 2009), not tuned."""
MIN_STD = 1e-9


class LearnedRanking(BaseModel):
    """A fitted ranking over per-question normalised features.

    ``linear``: score = Σ coef[f] · f over ``features``.
    ``neighbours``: today's shape with learned numbers: base = Σ coef[f] · f over the
    :data:`BASE` features, score = base + previous · base of the turn before + following ·
    base of the turn after + Σ coef[f] · f over the :data:`OWN` features."""

    kind: Literal["linear", "neighbours"] = "linear"
    features: list[str] = Field(default_factory=lambda: list(FEATURES))
    coef: list[float]
    previous: float = 0.0
    """``neighbours``: the share of the previous turn's base."""
    following: float = 0.0
    """``neighbours``: the share of the following turn's base."""
    fitted_on: list[str] = Field(default_factory=list)
    """The conversations the coefficients were fitted on."""
    l2: float = 1.0
    note: str = ""

    def vector(self) -> np.ndarray:
        return np.asarray(self.coef, dtype=np.float64)

    def columns(self) -> list[str]:
        """The feature-matrix columns the model reads."""
        if self.kind == "linear":
            return list(self.features)
        base = [f for f in self.features if f in BASE]
        return [*self.features, *(f"{side}:{f}" for side in ("prev", "next") for f in base)]

    def score(self, x: np.ndarray) -> np.ndarray:
        """Scores of rows ``x`` whose columns are :meth:`columns`."""
        w = self.vector()
        n = len(self.features)
        own = x[:, :n] @ w
        if self.kind == "linear":
            return np.asarray(own)
        wb = np.asarray([c for f, c in zip(self.features, self.coef, strict=True) if f in BASE])
        nb = len(wb)
        prev, foll = x[:, n : n + nb] @ wb, x[:, n + nb : n + 2 * nb] @ wb
        return np.asarray(own + self.previous * prev + self.following * foll)


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
    # each turn's previous and following candidate by order, not idx ± 1 (a forget leaves
    # gaps in idx): scoring.neighbours
    row_of = {s.id: r for r, s in enumerate(turns)}
    prev_of, next_of = neighbours(turns)
    before = [row_of[prev_of[s.id].id] if s.id in prev_of else None for s in turns]
    after = [row_of[next_of[s.id].id] if s.id in next_of else None for s in turns]

    def neighbour(offset: int) -> np.ndarray:
        out = np.full(n, absent)
        for r, other in enumerate(before if offset < 0 else after):
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
    for name in BASE:
        missing = zero.get(name, 0.0)  # a turn with no signal: raw 0
        for side, others in (("prev", before), ("next", after)):
            cols[f"{side}:{name}"] = np.asarray(
                [missing if o is None else cols[name][o] for o in others], dtype=np.float64
            )
    matrix = np.stack([cols[f] for f in names], axis=1) if n else np.zeros((0, len(names)))
    return ids, matrix


def apply(plan: Plan, scores: dict[str, TurnScore], model: LearnedRanking) -> np.ndarray:
    """Sets every turn's final score to the model's; returns the feature matrix (rows in
    sorted id order) for the trace."""
    ids, x = feature_matrix(plan, scores, model.columns())
    values = model.score(x) if len(ids) else np.zeros(0)
    for tid, v in zip(ids, values.tolist(), strict=True):
        scores[tid].final = v
    return x


def contributions(model: LearnedRanking, row: np.ndarray) -> dict[str, float]:
    """Each feature's share of one turn's score (coefficient × feature value; for the
    ``neighbours`` model also ``previous`` and ``following``: the neighbours' shares)."""
    n = len(model.features)
    out = {
        f: round(c * float(v), 3)
        for f, c, v in zip(model.features, model.coef, row[:n], strict=True)
    }
    if model.kind == "neighbours":
        wb = np.asarray([c for f, c in zip(model.features, model.coef, strict=True) if f in BASE])
        nb = len(wb)
        out["previous"] = round(model.previous * float(row[n : n + nb] @ wb), 3)
        out["following"] = round(model.following * float(row[n + nb : n + 2 * nb] @ wb), 3)
    return out


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
TOP_K = 10
"""The cut the top-weighted fit cares about: R@10."""
OTHER_PAIRS = 0.1
"""Top-weighted fit: the weight of a pair that cannot change the top k (the others: 1)."""
TOP_ROUNDS = 3
"""Top-weighted fit: refits, each weighing the pairs by the ranking of the one before."""


def pairs(
    groups: Iterable[tuple[np.ndarray, np.ndarray]],
    current: np.ndarray | None = None,
    k: int = TOP_K,
) -> tuple[np.ndarray, np.ndarray]:
    """From each question's (features, 0/1 labels): the differences evidence − other of
    every such pair, and a weight per pair that makes each question count once. With
    ``current`` coefficients, top-weighted (LambdaRank's idea, for R@k): a pair weighs 1
    where it decides the top k under ``current`` (the other turn is in the top k and the
    evidence is not, or the evidence is in and the other is just below, within 2k), else
    :data:`OTHER_PAIRS`."""
    diffs: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for x, y in groups:
        x = np.asarray(x, dtype=np.float64).reshape(len(y), -1)
        pos, neg = x[y > 0], x[y <= 0]
        if not len(pos) or not len(neg):
            continue
        d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, x.shape[1])
        diffs.append(d)
        if current is None:
            weights.append(np.full(len(d), 1.0 / len(d)))
            continue
        rank = np.argsort(np.argsort(-(x @ current), kind="stable"), kind="stable")
        rp, rn = rank[y > 0][:, None], rank[y <= 0][None, :]
        decides = ((rp >= k) & (rn < k)) | ((rp < k) & (rn < 2 * k))
        wt = np.where(decides, 1.0, OTHER_PAIRS).reshape(-1)
        weights.append(wt / wt.sum())
    if not diffs:
        raise ValueError("no question has both an evidence turn and another candidate")
    return np.concatenate(diffs), np.concatenate(weights)


def fit_pairwise(
    groups: Iterable[tuple[np.ndarray, np.ndarray]],
    l2: float = 1.0,
    iterations: int = 50,
    offset: bool = False,
    current: np.ndarray | None = None,
) -> np.ndarray:
    """Coefficients w minimising Σ_q Σ_pairs weight · log(1 + exp(−w·(x_pos − x_neg)))
    + l2/2 · |w|² (Newton's method; convex, so the answer is unique and deterministic).
    With ``offset`` the first column enters with a fixed coefficient 1 (not fitted); with
    ``current``, the pairs are top-weighted by its ranking (:func:`pairs`)."""
    d, sw = pairs(groups, current)
    fixed = np.zeros(len(d))
    if offset:
        fixed, d = d[:, 0], d[:, 1:]
    n_q = float(sw.sum())  # the number of questions
    w = np.zeros(d.shape[1])
    for _ in range(iterations):
        margin = fixed + d @ w
        p = 1.0 / (1.0 + np.exp(np.clip(margin, -30, 30)))  # P(wrong order)
        grad = -(d * (sw * p)[:, None]).sum(axis=0) / n_q + l2 * w
        h = (d * (sw * p * (1 - p))[:, None]).T @ d / n_q + l2 * np.eye(len(w))
        step = np.linalg.solve(h, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w


def fit_top_weighted(
    groups: Sequence[tuple[np.ndarray, np.ndarray]], l2: float = 1.0, rounds: int = TOP_ROUNDS
) -> np.ndarray:
    """:func:`fit_pairwise`, then ``rounds`` refits whose pairs are weighed by whether they
    decide the top :data:`TOP_K` under the coefficients before (:func:`pairs`)."""
    w = fit_pairwise(groups, l2=l2)
    for _ in range(rounds):
        w = fit_pairwise(groups, l2=l2, current=w)
    return w


def fit_neighbours(
    groups: Sequence[tuple[np.ndarray, np.ndarray]],
    features: Sequence[str],
    l2: float = 1.0,
    rounds: int = 6,
) -> tuple[np.ndarray, float, float]:
    """The ``neighbours`` model by alternating two convex fits: the coefficients with the
    neighbours' shares fixed, then the shares with the coefficients fixed (from shares 0).
    ``groups`` hold rows with columns ``LearnedRanking(kind="neighbours",
    features=features).columns()``."""
    base = [i for i, f in enumerate(features) if f in BASE]
    n, nb = len(features), len(base)
    prev, foll = 0.0, 0.0
    w = np.zeros(n)
    for _ in range(rounds):
        designs = []
        for x, y in groups:
            own = x[:, :n].copy()
            own[:, base] += prev * x[:, n : n + nb] + foll * x[:, n + nb : n + 2 * nb]
            designs.append((own, y))
        w = fit_pairwise(designs, l2=l2)
        wb = w[base]
        shares = [
            (np.stack([x[:, :n] @ w, x[:, n : n + nb] @ wb, x[:, n + nb :] @ wb], axis=1), y)
            for x, y in groups
        ]
        prev, foll = (float(v) for v in fit_pairwise(shares, l2=l2, offset=True))
    return w, prev, foll


def top_ids(ids: Sequence[str], values: np.ndarray, k: int) -> list[str]:
    """The ``k`` best ids by value (ties by id: the order is the same on any machine)."""
    order = sorted(range(len(ids)), key=lambda r: (-float(values[r]), ids[r]))
    return [ids[r] for r in order[:k]]
