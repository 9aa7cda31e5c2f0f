"""The learned ranking: per-question features, the pairwise fit (it recovers a planted
weighting), reciprocal rank fusion, and cross-validation that never fits on the
conversation it scores."""

from __future__ import annotations

import numpy as np

from cogmem.bench.fit_ranking import MODELS, Asked, cross_validated, fit
from cogmem.bench.locomo import Question
from cogmem.retrieval.learned import (
    BASE,
    COLUMNS,
    FEATURES,
    OWN,
    LearnedRanking,
    apply,
    feature_matrix,
    fit_neighbours,
    fit_pairwise,
    rrf,
    top_ids,
)
from cogmem.retrieval.router import Plan
from cogmem.retrieval.scoring import TurnScore

PLAN = Plan.model_validate({"question": "q", "intent": "single-hop"})


def _turns(cos: list[float], bm25: list[float]) -> dict[str, TurnScore]:
    return {
        f"t{i}": TurnScore(id=f"t{i}", conversation_id="c", idx=i, turn_cos=c, bm25=b)
        for i, (c, b) in enumerate(zip(cos, bm25, strict=True))
    }


def test_features_are_scale_free_and_read_the_neighbours() -> None:
    cos, bm25 = [0.2, 0.5, 0.3, 0.9], [0.0, 1.0, 0.1, 0.4]
    ids, x = feature_matrix(PLAN, _turns(cos, bm25))
    stretched = [0.1 + 0.5 * c for c in cos]  # another embedder's scale: same order
    _, y = feature_matrix(PLAN, _turns(stretched, bm25))
    col = FEATURES.index("turn_cos")
    assert np.allclose(x[:, col], y[:, col])
    assert abs(x[:, col].mean()) < 1e-9 and abs(x[:, col].std() - 1) < 1e-9
    prev = FEATURES.index("previous")
    own_best = x[:, : FEATURES.index("previous")].max(axis=1)
    assert x[ids.index("t2"), prev] == own_best[ids.index("t1")]  # t1 came before t2
    assert x[ids.index("t0"), prev] <= own_best.min()  # no turn before t0: no signal


def _synthetic(
    planted: np.ndarray, queries: int, rng: np.random.Generator
) -> list[tuple[np.ndarray, np.ndarray]]:
    groups = []
    for _ in range(queries):
        x = rng.normal(size=(60, len(planted)))
        y = np.zeros(60)
        y[np.argsort(-(x @ planted + rng.normal(scale=0.5, size=60)))[:3]] = 1.0
        groups.append((x, y))
    return groups


def test_the_pairwise_fit_recovers_a_planted_weighting() -> None:
    rng = np.random.default_rng(7)
    planted = np.asarray([2.0, 0.0, -1.0, 0.5])
    w = fit_pairwise(_synthetic(planted, 200, rng), l2=0.001)
    cosine = float(w @ planted / np.linalg.norm(w) / np.linalg.norm(planted))
    assert cosine > 0.98
    assert w[0] > 0 > w[2] and abs(w[1]) < 0.2 * abs(w[0])


def test_rrf_rewards_agreement_and_ties_share_a_rank() -> None:
    x = np.zeros((3, len(FEATURES)))
    x[:, FEATURES.index("bm25")] = [3.0, 1.0, 1.0]
    x[:, FEATURES.index("turn_cos")] = [2.0, 0.0, 0.0]
    fused = rrf(x, ["bm25", "turn_cos"])
    assert fused[0] > fused[1] == fused[2]
    assert top_ids(["a", "b", "c"], fused, 1) == ["a"]


def test_apply_sets_the_final_score_to_the_model_s() -> None:
    scores = _turns([0.2, 0.5, 0.3], [1.0, 0.0, 0.0])
    only_bm25 = [1.0 if f == "bm25" else 0.0 for f in FEATURES]
    apply(PLAN, scores, LearnedRanking(coef=only_bm25))
    assert max(scores.values(), key=lambda s: s.final).id == "t0"
    only_cos = [1.0 if f == "turn_cos" else 0.0 for f in FEATURES]
    apply(PLAN, scores, LearnedRanking(coef=only_cos))
    assert max(scores.values(), key=lambda s: s.final).id == "t1"


def _asked(conv: str, groups: list[tuple[np.ndarray, np.ndarray]]) -> list[Asked]:
    out = []
    for n, (x, y) in enumerate(groups):
        ids = [f"{conv}:{i}" for i in range(len(y))]
        evidence = [ids[i] for i in np.flatnonzero(y)]
        q = Question(conversation=conv, question=f"q{n}", category=4, evidence=evidence)
        out.append(Asked(question=q, ids=ids, x=x, y=y, hand=np.zeros(len(y)), flat={}))
    return out


def test_the_neighbours_model_recovers_a_planted_share_of_the_previous_turn() -> None:
    rng = np.random.default_rng(11)
    features = (*BASE, *OWN)
    model = LearnedRanking(kind="neighbours", features=list(features), coef=[0.0] * len(features))
    columns = model.columns()
    planted = np.zeros(len(features))
    planted[features.index("bm25")] = 1.0
    planted[features.index("asks")] = -1.0
    groups = []
    for _ in range(300):
        x = rng.normal(size=(50, len(columns)))
        x[:, features.index("asks")] = rng.integers(0, 2, 50)
        truth = model.model_copy(update={"coef": planted.tolist(), "previous": 0.6}).score(x)
        y = np.zeros(50)
        y[np.argsort(-(truth + rng.normal(scale=0.3, size=50)))[:2]] = 1.0
        groups.append((x, y))
    w, previous, following = fit_neighbours(groups, features, l2=0.001)
    assert abs(previous / 0.6 - 1) < 0.25 and abs(following) < 0.15
    assert w[features.index("bm25")] > 0 > w[features.index("asks")]
    assert abs(w[features.index("late")]) < 0.2 * w[features.index("bm25")]


def test_apply_reads_the_neighbour_columns_of_a_neighbours_model() -> None:
    scores = _turns([0.1, 0.1, 0.1], [1.0, 0.0, 0.0])  # t0 matches; t1 follows it
    features = [*BASE, *OWN]
    coef = [1.0 if f == "bm25" else 0.0 for f in features]
    model = LearnedRanking(kind="neighbours", features=features, coef=coef, previous=0.5)
    apply(PLAN, scores, model)
    assert scores["t0"].final > scores["t1"].final > scores["t2"].final
    assert set(model.columns()) <= set(COLUMNS)


def test_folds_never_fit_on_the_conversation_they_score() -> None:
    rng = np.random.default_rng(3)
    width = len(COLUMNS)
    agree = np.zeros(width)
    agree[0] = 1.0
    data = {c: _asked(c, _synthetic(agree, 30, rng)) for c in ("a", "b", "c")}
    # the odd one out wants the opposite weighting: had it been fitted on, its fold would
    # rank well; fitted on the others only, it ranks its evidence last
    data["odd"] = _asked("odd", _synthetic(-agree, 30, rng))
    ids = list(data)
    cv, folds = cross_validated(data, ids)
    for fold in folds:
        assert fold["held_out"] not in fold["fitted_on"]
        rest = [c for c in ids if c != fold["held_out"]]
        assert fold["model"] == fit([a for c in rest for a in data[c]], rest).model_dump()
    odd = next(f for f in folds if f["held_out"] == "odd")
    assert odd["model"]["coef"][0] > 0
    assert fit([a for c in ids for a in data[c]], ids).coef != odd["model"]["coef"]
    _, neighbour_folds = cross_validated(data, ids, MODELS[1])
    assert all(f["held_out"] not in f["fitted_on"] for f in neighbour_folds)
    hits = sum(len(set(r) & set(q.evidence)) for q, r in cv["odd"])
    assert hits < 0.2 * sum(len(q.evidence) for q, _ in cv["odd"])


def test_top_weighted_pairs_weigh_what_decides_the_top_k() -> None:
    from cogmem.retrieval.learned import OTHER_PAIRS, pairs

    # one feature; evidence at value 0 (rank 3 of 4): the two turns above it decide a top 2
    x = np.asarray([[3.0], [2.0], [0.0], [-1.0]])
    y = np.asarray([0.0, 0.0, 1.0, 0.0])
    d, w = pairs([(x, y)], current=np.asarray([1.0]), k=2)
    by_other = dict(zip((-d[:, 0]).tolist(), w.tolist(), strict=True))  # other − evidence
    assert by_other[3.0] == by_other[2.0] == 1.0 / (2 + OTHER_PAIRS)
    assert by_other[-1.0] == OTHER_PAIRS / (2 + OTHER_PAIRS)
    assert abs(w.sum() - 1.0) < 1e-12
