"""How texts of mixed lengths are grouped into forward passes.

A forward pass pads every sequence to the longest of its batch, and a padded token costs as
much as a real one. Two rules, for two kinds of call:

- :func:`length_batches` for batch work (an ingest): texts sorted by length go in batches
  of similar length up to a token budget;
- :func:`cheapest_groups` for a small call (a query, a live turn with its records): the
  split that costs least when a pass costs a fixed overhead plus its padded tokens.
  Measured on ONNX Runtime, one thread, 2-core EPYC: a pass costs ~2.5 ms plus
  ~0.23 ms per padded token, whatever the batch shape (1×64 and 4×16 both ~17 ms), so a
  live turn of 50 tokens with three records of 5-15 tokens costs 200 padded tokens in one
  pass and ~95 in two.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

#: Padded tokens per forward pass of batch work: long texts go in smaller batches.
BATCH_TOKENS = 4096

#: The fixed cost of one more forward pass, in padded tokens (~2.5 ms / ~0.23 ms).
PASS_OVERHEAD_TOKENS = 12


def length_batches(
    order: list[int],
    sequences: Sequence[Sequence[int]],
    max_count: int,
    budget: int = BATCH_TOKENS,
) -> Iterator[list[int]]:
    """Split indices (sorted by ascending length) into batches of similar length.

    A batch closes when the next text would make its padded size (count × longest) exceed
    ``budget`` (default :data:`BATCH_TOKENS`), waste more than a quarter of it on padding,
    or pass ``max_count`` texts — so calls that mix short and long texts pad little.
    """
    batch: list[int] = []
    tokens = 0
    for i in order:
        width = len(sequences[i])
        padded = (len(batch) + 1) * width
        if batch and (
            len(batch) >= max_count or padded > budget or padded > 1.25 * (tokens + width)
        ):
            yield batch
            batch, tokens = [], 0
        batch.append(i)
        tokens += width
    if batch:
        yield batch


def cheapest_groups(
    order: list[int],
    sequences: Sequence[Sequence[int]],
    overhead: int = PASS_OVERHEAD_TOKENS,
) -> list[list[int]]:
    """Indices (sorted by ascending length) split into consecutive groups so that the sum
    over groups of ``overhead + count × longest`` is least (exact, by dynamic programming;
    meant for the few texts of a small call)."""
    n = len(order)
    if n <= 1:
        return [list(order)] if order else []
    widths = [len(sequences[i]) for i in order]
    best = [0] + [0] * n  # best[j]: least cost of the first j texts
    cut = [0] * (n + 1)  # cut[j]: where the last group of that split starts
    for j in range(1, n + 1):
        best[j] = -1
        for i in range(j):  # the last group is order[i:j]; its longest is widths[j - 1]
            cost = best[i] + overhead + (j - i) * widths[j - 1]
            if best[j] < 0 or cost < best[j]:
                best[j], cut[j] = cost, i
    groups: list[list[int]] = []
    j = n
    while j > 0:
        groups.append(list(order[cut[j] : j]))
        j = cut[j]
    return groups[::-1]
