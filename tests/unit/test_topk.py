"""The k best rows do not depend on the order the rows are stored in."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from cogmem.retrieval.lexical import LexicalIndex
from cogmem.retrieval.topk import best_rows


@given(
    st.lists(st.sampled_from([0.1, 0.5, 0.5, 0.9, 0.9, 0.9]), min_size=1, max_size=30),
    st.integers(min_value=1, max_value=12),
    st.randoms(use_true_random=False),
)
def test_best_rows_are_the_same_in_any_row_order(values: list[float], k: int, rnd: object) -> None:
    names = [f"id-{i:02d}" for i in range(len(values))]
    perm = list(range(len(values)))
    rnd.shuffle(perm)  # type: ignore[attr-defined]
    scores = np.array(values, np.float32)
    shuffled = scores[perm]
    first = [names[i] for i in best_rows(scores, k, names.__getitem__)]
    second = [names[perm[i]] for i in best_rows(shuffled, k, lambda i: names[perm[i]])]
    assert first == second
    assert len(first) == min(k, len(values))
    ranked = sorted(range(len(values)), key=lambda i: (-values[i], names[i]))[:k]
    assert first == [names[i] for i in ranked]


def test_bm25_ties_go_by_name_not_by_row() -> None:
    index = LexicalIndex(["text"])
    texts = ["we baked rye bread", "rye bread again", "we baked rye bread"]
    for row, text in enumerate(texts):
        index.put(row, {"text": text})
    names = ["c", "b", "a"]  # rows 0 and 2 tie; the name decides, not the row number
    hits = index.search(["rye", "baked"], 2, name=names.__getitem__)
    assert [row for row, _ in hits] == [2, 0]
    assert hits[0][1] == hits[1][1]


def test_many_ties_are_ordered_by_name_in_numpy_too() -> None:
    rng = np.random.default_rng(7)
    n = 5000
    names = [f"id-{i:05d}" for i in rng.permutation(n)]
    scores = rng.random(n).astype(np.float32)
    scores[rng.choice(n, 1200, replace=False)] = 2.0  # 1,200 rows tie at the top
    one_by_one = best_rows(scores, 50, names.__getitem__)
    at_once = best_rows(scores, 50, names.__getitem__, lambda: np.array(names))
    assert one_by_one == at_once
    assert [names[i] for i in at_once] == sorted(names[i] for i in np.flatnonzero(scores == 2.0))[
        :50
    ]


@given(
    st.lists(st.floats(-1.0, 1.0, width=32), min_size=1, max_size=80, unique=True),
    st.integers(min_value=1, max_value=20),
)
def test_distinct_scores_take_the_quick_path_to_the_same_order(values: list[float], k: int) -> None:
    scores = np.array(values, np.float32)
    names = [f"id-{i:02d}" for i in range(len(values))]
    expected = sorted(range(len(values)), key=lambda i: (-float(scores[i]), names[i]))[:k]
    got = best_rows(scores, k, names.__getitem__)
    assert got == expected
    assert all(isinstance(i, int) for i in got)
