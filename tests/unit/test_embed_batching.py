"""Grouping texts into forward passes: the batch-work rule and the small-call rule."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from cogmem.embed.batching import cheapest_groups, length_batches


def _cost(groups: list[list[int]], widths: list[int], overhead: int) -> int:
    return sum(overhead + len(g) * max(widths[i] for i in g) for g in groups)


def _sorted_order(widths: list[int]) -> list[int]:
    return sorted(range(len(widths)), key=lambda i: widths[i])


def test_a_live_turn_and_its_short_records_take_two_passes_not_one() -> None:
    widths = [50, 6, 12, 9]  # the turn, then an entity name and two record sentences
    seqs = [[0] * w for w in widths]
    groups = cheapest_groups(_sorted_order(widths), seqs, overhead=12)
    assert groups == [[1, 3, 2], [0]]
    assert _cost(groups, widths, 12) == 12 + 3 * 12 + 12 + 50  # 110 against 212 in one pass


def test_texts_of_one_length_share_a_pass() -> None:
    seqs = [[0] * 10 for _ in range(5)]
    assert cheapest_groups(list(range(5)), seqs) == [[0, 1, 2, 3, 4]]


def test_no_texts_no_groups() -> None:
    assert cheapest_groups([], []) == []


@given(
    st.lists(st.integers(min_value=1, max_value=128), min_size=1, max_size=7),
    st.integers(min_value=0, max_value=40),
)
def test_the_split_is_the_cheapest_of_all_consecutive_splits(
    widths: list[int], overhead: int
) -> None:
    seqs = [[0] * w for w in widths]
    order = _sorted_order(widths)
    groups = cheapest_groups(order, seqs, overhead)
    assert [i for g in groups for i in g] == order  # every text once, in length order
    best = min(
        _cost([order[a:b] for a, b in itertools.pairwise((0, *cuts, len(order)))], widths, overhead)
        for r in range(len(order))
        for cuts in itertools.combinations(range(1, len(order)), r)
    )
    assert _cost(groups, widths, overhead) == best


def test_batch_work_closes_a_batch_before_padding_a_quarter() -> None:
    widths = [10, 10, 11, 40, 41]
    seqs = [[0] * w for w in widths]
    batches = list(length_batches(_sorted_order(widths), seqs, max_count=64))
    assert batches == [[0, 1, 2], [3, 4]]
