"""What an operator reads of a group: one protocol, two sources.

:class:`SearchSource` is every read the operators make of the group a search looks at: the
nearest nodes to a vector (:meth:`~SearchSource.top`), the best word matches
(:meth:`~SearchSource.lexical`), a node's fields, similarities to the question, Traverse's
and Intersect's neighbourhoods, Ground's turns, pseudo-relevance feedback, the turns' word
rarity and token rows, and the group's persons. Two classes implement it:

- :class:`~cogmem.retrieval.graph_source.GraphSource` runs the operators' own statements
  (``operators/*.cypher``) against Neo4j's vector, fulltext and range indexes, now or as of
  a time;
- :class:`CachedSource` answers the same calls from the process's copy of the group
  (:class:`~cogmem.retrieval.vectors.GroupVectors`, read once and kept up to date by the
  group's vector sequence), without a round trip, and runs ``operators/ground`` for the
  one read the copy does not hold (the evidence of record seeds).

``tests/integration/test_search_source.py`` runs one contract suite over both, so neither
can change alone. The operators (:class:`~cogmem.retrieval.operators.Operators`) choose the
source of a search once and never ask which one they hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import numpy as np

from cogmem.retrieval.read_limits import check_ground_window
from cogmem.retrieval.token_rows import TokenRowCache
from cogmem.retrieval.vectors import GroupVectors
from cogmem.store import Store

T = TypeVar("T")


class SearchSource(Protocol):
    """One search's reads of one group (see the module's docstring)."""

    #: the statements this search ran against Neo4j so far, in order (for the trace)
    statements: list[str]
    #: the turns' token rows read so far (late interaction)
    tokens: TokenRowCache

    @property
    def reads_at_once(self) -> bool:
        """Whether independent reads gain from running side by side (each waits on a
        round trip): true through Neo4j, false in process."""
        ...

    @property
    def persons(self) -> list[dict[str, Any]]:
        """The group's persons: ``id``, ``name``, ``aliases``."""
        ...

    def apart(self, fn: Callable[[], T]) -> tuple[T, list[str]]:
        """``fn``'s result and the statements it ran on this thread, kept out of
        :attr:`statements` (a step run beside others)."""
        ...

    def top(
        self, query: np.ndarray, *, turns: bool, types: Sequence[str] | None, k: int
    ) -> list[tuple[str, float]]:
        """The ``k`` nodes (turns, or records of ``types``) nearest ``query``: (id, score)."""
        ...

    def lexical(
        self,
        words: Sequence[str],
        *,
        turns: bool,
        types: Sequence[str] | None,
        k: int,
        vector: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` best BM25 matches of ``words`` among the turns or records."""
        ...

    def similarity(self, query: np.ndarray, ids: Sequence[str]) -> list[float]:
        """Each node's similarity to ``query`` on Neo4j's scale ((1 + cos) / 2); 0.0 for
        a node without a vector."""
        ...

    def node(self, node_id: str) -> dict[str, Any] | None:
        """A node's fields; None for a node the search does not know."""
        ...

    def node_as(self, node_id: str, convert: Callable[[dict[str, Any]], T]) -> T | None:
        """``convert`` of a node's fields, built once a search (it must depend on the
        fields alone); None for a node the search does not know."""
        ...

    def traverse(
        self, steps: Sequence[dict[str, Any]], per_node: int, vector: np.ndarray | None
    ) -> list[dict[str, Any]]:
        """Traverse's rows (``operators/traverse_hop``) for ``steps``."""
        ...

    def intersect(
        self,
        ids: Sequence[str],
        rel_types: Sequence[str],
        per_entity: int,
        vector: np.ndarray | None,
        min_shared: int,
    ) -> list[dict[str, Any]]:
        """Intersect's rows (``operators/intersect``): what ``ids`` share."""
        ...

    def ground(
        self, ids: Sequence[str], window: int, per_record: int, vector: np.ndarray | None
    ) -> list[dict[str, Any]]:
        """Ground's rows (``operators/ground``): the source turns of records or turns,
        ± ``window`` neighbours by order (at most ``GROUND_WINDOW_MAX``), ``per_record``
        turns a record at most."""
        ...

    def feedback(self, query: np.ndarray, ids: Sequence[str], share: float) -> np.ndarray | None:
        """``query`` plus ``share`` of the mean unit vector of ``ids``, unit length; None
        when none of them has a vector."""
        ...

    def prefetch_idf(self, words: Sequence[str]) -> None:
        """Start reading :meth:`turn_idf` of ``words`` now, if that takes a round trip."""
        ...

    def turn_idf(self, words: Sequence[str]) -> list[float]:
        """BM25's idf of each word among the group's turns."""
        ...


class CachedSource:
    """One search over the process's copy of a group (a :class:`GroupVectors` shared by
    the searches of the process): every read in process, but Ground for record seeds,
    which runs ``operators/ground`` (the copy keeps no evidence edges of records)."""

    reads_at_once = False

    def __init__(self, vectors: GroupVectors, store: Store, group: str) -> None:
        self.vectors = vectors
        self.store = store
        self.group = group
        self.statements: list[str] = []
        self.tokens = vectors.tokens

    @property
    def persons(self) -> list[dict[str, Any]]:
        return self.vectors.persons

    def apart(self, fn: Callable[[], T]) -> tuple[T, list[str]]:
        return fn(), []

    def top(
        self, query: np.ndarray, *, turns: bool, types: Sequence[str] | None, k: int
    ) -> list[tuple[str, float]]:
        return self.vectors.top(query, turns=turns, types=types, k=k)

    def lexical(
        self,
        words: Sequence[str],
        *,
        turns: bool,
        types: Sequence[str] | None,
        k: int,
        vector: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        return self.vectors.lexical(words, turns=turns, types=types, k=k, vector=vector)

    def similarity(self, query: np.ndarray, ids: Sequence[str]) -> list[float]:
        return self.vectors.similarity(query, ids)

    def node(self, node_id: str) -> dict[str, Any] | None:
        return self.vectors.node(node_id)

    def node_as(self, node_id: str, convert: Callable[[dict[str, Any]], T]) -> T | None:
        return self.vectors.node_as(node_id, convert)

    def traverse(
        self, steps: Sequence[dict[str, Any]], per_node: int, vector: np.ndarray | None
    ) -> list[dict[str, Any]]:
        return self.vectors.traverse(steps, per_node, vector)

    def intersect(
        self,
        ids: Sequence[str],
        rel_types: Sequence[str],
        per_entity: int,
        vector: np.ndarray | None,
        min_shared: int,
    ) -> list[dict[str, Any]]:
        return self.vectors.intersect(ids, rel_types, per_entity, vector, min_shared)

    def ground(
        self, ids: Sequence[str], window: int, per_record: int, vector: np.ndarray | None
    ) -> list[dict[str, Any]]:
        check_ground_window(window)
        rows = self.vectors.neighbourhood(ids, window)
        if rows is not None:  # turn seeds: their neighbours in process
            return rows
        self.statements.append("operators/ground")
        return self.store.read(
            "operators/ground",
            ids=list(ids),
            group=self.group,
            window=window,
            per_record=per_record,
            vector=None,
            as_of=None,
        )

    def feedback(self, query: np.ndarray, ids: Sequence[str], share: float) -> np.ndarray | None:
        return self.vectors.feedback(query, ids, share)

    def prefetch_idf(self, words: Sequence[str]) -> None:
        return None  # at hand in process

    def turn_idf(self, words: Sequence[str]) -> list[float]:
        return self.vectors.turn_idf(words)


__all__ = ["CachedSource", "SearchSource"]
