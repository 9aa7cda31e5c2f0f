"""The ``k`` best of a score array, the same whatever order the rows are in.

A group's rows sit in the order the store streamed them, which depends on the server's
history (node ids), not on the data. Ties (duplicate texts score alike, BM25 scores repeat)
are therefore broken by the row's name, and every row that ties with the k-th score is
considered, so that two servers holding the same group rank it the same.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Up to this many rows reaching the k-th score are ordered in Python; more in numpy.
FEW = 256


def best_rows(
    scores: np.ndarray,
    k: int,
    name: Callable[[int], str],
    names: Callable[[], np.ndarray] | None = None,
) -> list[int]:
    """Indices of the ``k`` highest ``scores``, best first, equal scores by ``name(i)``
    (asked only of the rows that reach the k-th score). ``names``, when given, returns
    every row's name as an array: used instead when many rows tie (50,000 tied rows took
    91 ms one name at a time)."""
    if k <= 0 or scores.size == 0:
        return []
    if scores.size > k:
        kth = np.partition(scores, scores.size - k)[scores.size - k]
        rows = np.flatnonzero(scores >= kth)
    else:
        rows = np.arange(scores.size)
    if rows.size > FEW and names is not None:
        many = np.lexsort((names()[rows], -scores[rows]))
        return [int(i) for i in rows[many[:k]]]
    picked = scores[rows]
    order = np.argsort(-picked, kind="stable")
    best: list[int] = rows[order].tolist()
    values = picked[order]
    if not np.any(values[1:] == values[:-1]):  # no ties: the scores alone order them
        return best[:k]
    # equal scores (duplicate texts) sit side by side: each run of them goes by name
    tied = values.tolist()
    out: list[int] = []
    start = 0
    while start < len(best) and len(out) < k:
        end = start + 1
        while end < len(best) and tied[end] == tied[start]:
            end += 1
        out.extend(sorted(best[start:end], key=name) if end - start > 1 else best[start:end])
        start = end
    return out[:k]
