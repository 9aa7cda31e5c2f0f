"""How far a search through Neo4j alone reads (:mod:`cogmem.retrieval.graph_source`): when
it scans a group's vectors exactly and when it asks the shared HNSW index, how much it asks
Lucene and the index for, and which nodes count as dense. Read through ``graph_source``'s own
names, which the tests set."""

from __future__ import annotations

EXACT_SCAN_NODES = 10_000
"""Up to this many nodes of a label in the group, a vector search scans them all exactly
through the group_id index (Neo4j scores ~50k–100k vectors a second here); beyond, it asks
the shared HNSW index."""
POOLED_SCAN_NODES = 1_000
"""Above this many nodes of a label in the group, an exact scan also returns the ids of its
nearest few times k (a pool), and the search's second vector of the same ask (the feedback
pass, near the first) scores that pool by id instead of scanning the group again. At or
below, a second scan costs about what the lookup does, and both vectors scan."""
TYPED_EXACT_SCAN_NODES = 2_500
"""The same for a search of records of some types, counted among those types: a large
group's HNSW index answers most typed searches in its first asks (~30 ms each), where
scoring 8k records exactly takes ~150 ms."""
AS_OF_EXACT_SCAN_NODES = 2_500
"""A search as of a date scans exactly (through the (group_id, at) indexes) when the group
held at most this many nodes of a label then; beyond, it asks the HNSW index for the
share of the store it held then (counted up to :data:`EXACT_SCAN_NODES`), falling back to
that exact scan when too few of them come back."""
INDEX_FIRST_FETCH = 4
"""The HNSW index is first asked for this many times k nodes (the group's kept)."""
INDEX_OVERFETCH = 2.0
"""When the first ask leaves fewer than k of the group's, the index is asked for
k · (store / group) · this many: after the other groups' are dropped about 2k remain."""
INDEX_FETCH_CAP = 10_000
"""At most this many nodes asked of the HNSW index in one call."""
DENSE_DEGREE = 2_000
"""A node with more relationships than this is traversed through the vector index: Neo4j
would otherwise score every neighbour's vector (~150 ms for a person in 20k events)."""
DENSE_OVERFETCH = 4.0
"""Beyond INDEX_OVERFETCH, how many more of the store's nearest records a dense node's
traversal asks for (its neighbours are rarely spread evenly over the question's
neighbourhood)."""
DENSE_FETCH_SHARE = 0.25
"""A dense node goes through the vector index only when the ask is at most this share of
its degree (a node of 3k relationships in a store of millions is cheaper to score)."""
FULLTEXT_OVERFETCH = 3
"""A typed record search asks Lucene for this many times k (other types are dropped after)."""
AS_OF_OVERFETCH = 2
"""A search as of a time asks Lucene for this many times more: Lucene keeps what was said
by the end of that day (``said_key``), the statement drops what was said later that day;
when fewer than k remain, :data:`AS_OF_WIDEN` times more again, then for every match."""
AS_OF_WIDEN = 8
"""The second, wider Lucene ask of a search as of a time (a day that said much of a
group's matches after the time asked)."""
LUCENE_ALL = 1_000_000
"""The limit that stands for every match of a Lucene query."""
GROUND_WINDOW_MAX = 10
"""Ground reads at most this many neighbours each way of a turn, in both sources: it walks
the NEXT chain (``operators/ground``), whose length Cypher takes as a literal only."""


def check_ground_window(window: int) -> None:
    """Refuse a Ground window beyond :data:`GROUND_WINDOW_MAX` (one line)."""
    if window > GROUND_WINDOW_MAX:
        raise ValueError(f"Ground reads at most {GROUND_WINDOW_MAX} neighbours, not {window}")
