"""A group's nodes as Neo4j holds them: the operators' data through their ``.cypher`` files.

This is what a search reads when its process holds no copy of the group (a group not yet
read, one larger than the cache budget, or ``search_cache = "off"``): every call is one
statement against Neo4j's own indexes, with the group filter inside the search, so the
first search of a group costs a handful of index calls whatever its size.

* **Vectors** (Anchor): an exact scan of the group's nodes through the ``group_id`` index
  (``operators/nearest_*``) for a group of up to :data:`EXACT_SCAN_NODES` nodes of a label
  (for records of some types, the group's nodes of those types, through the
  ``(group_id, type)`` index: ``operators/nearest_records_typed``); beyond that, the
  shared HNSW index (``operators/nearest_*_indexed``), over-fetched in
  proportion to the group's share of the store, falling back to the exact scan when too
  few of the group's nodes come back; the search's second vector (the feedback pass) is
  scored among the group's nodes that ask returned (``operators/nearest_*_among``). Scores
  are Neo4j's cosine similarity, (1 + cos) / 2.
* **Words** (Anchor): the fulltext indexes, restricted to the group inside Lucene by the
  group's key (``operators/fulltext_*``); BM25 as Lucene scores it. Lucene's statistics are
  the whole index's, where the in-process copy's are the group's own
  (:mod:`cogmem.retrieval.lexical`): the one place the two paths may rank differently.
* **Traverse, Intersect, Ground**: ``operators/traverse_hop``, ``operators/intersect`` and
  ``operators/ground``, each neighbour's similarity computed by Neo4j; a node of more than
  :data:`DENSE_DEGREE` relationships reached through the vector index instead
  (``operators/traverse_hop_indexed``, with ``traverse_hop`` for a node it leaves short).
* **Late interaction**: word rarity from the fulltext index (``operators/turn_df``), token
  rows by id (``operators/turn_tokens``).

The in-process copy (:class:`~cogmem.retrieval.vectors.GroupVectors`) answers the same
calls as a cache in front of these statements; ``tests/integration/test_cold_search.py``
compares the two.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from datetime import datetime
from typing import Any, TypeVar

import numpy as np
from neo4j.exceptions import ClientError

from cogmem.retrieval.lexical import analyse
from cogmem.retrieval.lucene import lucene_query
from cogmem.retrieval.parallel import submit
from cogmem.retrieval.read_limits import (
    AS_OF_EXACT_SCAN_NODES,
    AS_OF_OVERFETCH,
    AS_OF_WIDEN,
    DENSE_DEGREE,
    DENSE_FETCH_SHARE,
    DENSE_OVERFETCH,
    EXACT_SCAN_NODES,
    FULLTEXT_OVERFETCH,
    INDEX_FETCH_CAP,
    INDEX_FIRST_FETCH,
    INDEX_OVERFETCH,
    LUCENE_ALL,
    POOLED_SCAN_NODES,
    TYPED_EXACT_SCAN_NODES,
    check_ground_window,
)
from cogmem.retrieval.token_rows import TokenRowCache
from cogmem.store import Store, StoreError, no_such_vector_index

T = TypeVar("T")

_AMONG = {
    "operators/nearest_turns_indexed": "operators/nearest_turns_among",
    "operators/nearest_records_indexed": "operators/nearest_records_among",
    "operators/nearest_claims_indexed": "operators/nearest_records_among",
    "operators/nearest_turns_as_of": "operators/nearest_turns_among",
    "operators/nearest_records_as_of": "operators/nearest_records_among",
    "operators/nearest_turns": "operators/nearest_turns_among",
    "operators/nearest_records": "operators/nearest_records_among",
    "operators/nearest_records_typed": "operators/nearest_records_among",
}
"""The statement that scores an ask's pool (an HNSW ask's, or an exact scan's)
for a second vector of the same search."""
Ask = tuple[str, tuple[str, ...] | None, int]


def _ask(statement: str, params: dict[str, Any], k: int) -> Ask:
    """An ask's name in a search (statement, types sorted or None, k): its pool's key."""
    typed = params.get("types")
    return statement, None if typed is None else tuple(sorted(typed)), k


_NO_INDEX: list[dict[str, Any]] = []
"""What :meth:`GraphSource._ask_index` returns when its index does not exist."""


class GraphSource:
    """One search's view of a group through Cypher (see the module's docstring). It keeps
    the fields and similarities of the nodes its statements returned, so each node is read
    once a search; ``statements`` lists what ran, for the trace. Its calls may come from
    several threads at once (:mod:`cogmem.retrieval.parallel`)."""

    reads_at_once = True  # each read waits on a round trip: independent ones run side by side

    def __init__(self, store: Store, group: str, as_of: datetime | None = None) -> None:
        self.store = store
        self.group = group
        self.as_of = as_of
        """Read the group as it stood then (None: now): every statement drops what was
        said later and gives each record the status it had then."""
        self.tokens = TokenRowCache()
        self.statements: list[str] = []
        self._fields: dict[str, dict[str, Any]] = {}
        self._sims: dict[bytes, dict[str, float]] = {}
        self._sizes: dict[str, dict[str, int]] = {}
        self._typed_sizes: dict[str, dict[str, int]] = {}
        self._fetched: dict[Ask, int] = {}
        self._pools: dict[Ask, list[str]] = {}
        self._persons: list[dict[str, Any]] | None = None
        # each count has a lock of its own: Anchor's asks count what each needs at once
        self._counting = {"turns": threading.Lock(), "records": threading.Lock()}
        self._typed_counting = threading.Lock()
        self._apart = threading.local()  # a step's own statements (apart)
        self._idf_pending: dict[tuple[str, ...], Future[dict[str, float] | None]] = {}

    # -- plumbing ----------------------------------------------------------------------
    def _read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        getattr(self._apart, "names", self.statements).append(name)
        return self.store.read(name, group=self.group, as_of=self.as_of, **params)

    def apart(self, fn: Callable[[], T]) -> tuple[T, list[str]]:
        """``fn``'s result and the statements it ran on this thread, kept out of
        :attr:`statements` (a step run beside others: see ``Operators.apart``)."""
        ran: list[str] = []
        self._apart.names = ran
        try:
            return fn(), ran
        finally:
            del self._apart.names

    def _keep(self, node: Mapping[str, Any], vector: np.ndarray | None, sim: float | None) -> str:
        node_id = str(node["id"])
        if node_id not in self._fields:
            self._fields[node_id] = dict(node)
        if vector is not None and sim is not None:
            self._sims.setdefault(_key(vector), {})[node_id] = float(sim)
        return node_id

    def _sizes_of(self, kind: str) -> dict[str, int]:
        """``operators/group_size`` for ``kind`` ("turns" or "records"): how many the group
        holds (``turns`` or ``records``) and held at :attr:`as_of` (``turns_then`` or
        ``records_then``), each counted up to :data:`EXACT_SCAN_NODES` + 1, with the
        store's sizes (``all_turns``, ``all_records``, ``all_claims``). Counted once a
        search, each kind apart: the turn and record asks of Anchor count theirs at once."""
        with self._counting[kind]:
            if kind not in self._sizes:
                (row,) = self._read(
                    "operators/group_size",
                    kind=kind,
                    cap=EXACT_SCAN_NODES,
                    as_of_cap=EXACT_SCAN_NODES,
                )
                self._sizes[kind] = {k: int(v) for k, v in row.items()}
            return self._sizes[kind]

    def _typed_size(self, types: Sequence[str]) -> dict[str, int]:
        """How many records of ``types`` the group holds (``records``), and held at
        :attr:`as_of` (``records_then``, 0 for now), each counted up to
        :data:`EXACT_SCAN_NODES` + 1, with the store's records and claims (``all_records``,
        ``all_claims``): all a typed ask needs, so it does not wait for the group's count
        (:meth:`_sizes_of`), which the untyped asks read at the same time."""
        key = ",".join(sorted(types))
        with self._typed_counting:
            if key not in self._typed_sizes:
                (row,) = self._read(
                    "operators/group_type_size", types=list(types), cap=EXACT_SCAN_NODES
                )
                self._typed_sizes[key] = {k: int(v) for k, v in row.items()}
            return self._typed_sizes[key]

    # -- what the operators ask --------------------------------------------------------
    def top(
        self, query: np.ndarray, *, turns: bool, types: Sequence[str] | None, k: int
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest turns or records (of ``types``), best first, with Neo4j's
        similarity: exact for a group of up to :data:`EXACT_SCAN_NODES`, else the HNSW
        index with the group filter applied to what it returns."""
        if k <= 0:
            return []
        kind = "turns" if turns else "records"
        vec = [float(x) for x in np.asarray(query, np.float32)]
        params: dict[str, Any] = {"vector": vec, "k": k}
        if not turns:
            params["types"] = list(types) if types is not None else None
        if types is None:
            sizes = self._sizes_of(kind)
            everyone, all_claims = sizes[f"all_{kind}"], sizes["all_claims"]
            if self.as_of is not None:
                # as of a date, the group held what was said by then: few nodes then are
                # scanned exactly through the (group_id, at) indexes
                visible = sizes[f"{kind}_then"]
                if visible <= AS_OF_EXACT_SCAN_NODES:
                    if not visible:
                        return []
                    large = sizes[kind] > EXACT_SCAN_NODES
                    return self._scan(f"operators/nearest_{kind}_as_of", params, query, k, large)
        else:
            typed = self._typed_size(types)
            everyone, all_claims = typed["all_records"], typed["all_claims"]
        # mine: the group's nodes that the search may return (counted up to
        # EXACT_SCAN_NODES + 1); up to `limit` of them are scanned exactly (`exact`), more
        # ask the HNSW index. As of a time, mine are those said by then: counted exactly,
        # their share of the store sizes the ask at once (share_known), where the group's
        # size now would over-fetch a few times and fail first
        share_known = False
        if types is None:
            mine, limit, exact = sizes[kind], EXACT_SCAN_NODES, f"operators/nearest_{kind}"
            if self.as_of is not None:
                mine, limit = min(mine, visible), AS_OF_EXACT_SCAN_NODES
                exact, share_known = f"operators/nearest_{kind}_as_of", mine <= EXACT_SCAN_NODES
        else:
            # a typed search counts only those types: a group large overall may hold few
            # of them, scanned exactly through the (group_id, type) index; as of a time,
            # those said by then through the (group_id, type, at) index (early in a large
            # group the HNSW index's nearest are rarely of those types and said by then: at
            # 100k records it was asked for 400, 2,004 and 10,000 nodes before). The few
            # said by then (at most TYPED_EXACT_SCAN_NODES) are scanned exactly
            mine = typed["records"]
            limit, exact = TYPED_EXACT_SCAN_NODES, "operators/nearest_records_typed"
            if self.as_of is not None:
                mine, exact = typed["records_then"], "operators/nearest_records_typed_as_of"
                share_known = mine <= EXACT_SCAN_NODES
            if mine == 0:
                return []
        rows: Any = None
        if mine > limit:
            claims = types is not None and set(types) == {"Claim"}
            if claims:
                # opinions have an index of their own: its nearest are all claims, so the
                # group's share of the store's claims sizes the ask, as for an untyped search
                rows = self._ask_index(
                    "operators/nearest_claims_indexed",
                    params,
                    k,
                    mine,
                    all_claims,
                    None,
                    share_known=share_known,
                )
            if not claims or rows is _NO_INDEX:
                rows = self._ask_index(
                    f"operators/nearest_{kind}_indexed",
                    params,
                    k,
                    mine,
                    everyone,
                    types,
                    share_known=share_known,
                )
            if rows is _NO_INDEX:
                rows = None
        if rows is None:
            pooled = mine > POOLED_SCAN_NODES and exact in _AMONG
            return self._scan(exact, params, query, k, pooled)
        return self._kept(rows, query)

    def _scan(
        self, statement: str, params: dict[str, Any], query: np.ndarray, k: int, pooled: bool
    ) -> list[tuple[str, float]]:
        """An exact scan's rows (``statement``). ``pooled``: the scan also returns the ids
        of its nearest few times k, and the search's second vector of the same ask (the
        feedback pass, near the first) scores those by id instead of scanning again, as a
        search scores its first HNSW ask's pool."""
        ask = _ask(statement, params, k)
        pooled_rows = self._from_pool(ask, params, k) if pooled else None
        if pooled_rows is not None:
            return self._kept(pooled_rows, query)
        size = min(INDEX_FETCH_CAP, k * INDEX_FIRST_FETCH) if pooled else 0
        rows = self._read(statement, pool_size=size, **params)
        if pooled and rows:
            self._pools[ask] = list(rows[0]["pool"])
        return self._kept(rows, query)

    def _from_pool(self, ask: Ask, params: dict[str, Any], k: int) -> list[dict[str, Any]] | None:
        """The same ask for a second vector (the feedback pass, near the first): the nodes
        the first one kept as its pool, scored for this vector; None when it kept none."""
        pool = self._pools.get(ask)
        if pool is None:
            return None
        return self._read(_AMONG[ask[0]], ids=pool, vector=params["vector"], k=k)

    def _kept(self, rows: list[dict[str, Any]], query: np.ndarray) -> list[tuple[str, float]]:
        """Nearest rows as (id, similarity), their fields kept for the rest of the search."""
        return [(self._keep(r["node"], query, r["sim"]), float(r["sim"])) for r in rows]

    def _ask_index(
        self,
        statement: str,
        params: dict[str, Any],
        k: int,
        mine: int,
        everyone: int,
        types: Sequence[str] | None,
        share_known: bool = False,
    ) -> list[dict[str, Any]] | None:
        """The nearest ``k`` of the group through one HNSW index (``statement``): a few
        times k first (enough for a group that is most of the store; skipped when
        ``share_known``, ``mine`` counted exactly, and it is too few), then in proportion
        to the group's share (mine is counted only up to the scan limit, so this
        over-estimates the share of a very large group: more is read, not less), then for
        a search of ``types`` the index mixes with others, the most the index is asked for
        (its nearest may all be of other types); the nodes the index returns are scored
        exactly by the statement. None when the group's nodes stay too few (scan exactly);
        :data:`_NO_INDEX` when the index does not exist."""
        share = everyone / max(mine, 1)
        fetches = [min(INDEX_FETCH_CAP, k * INDEX_FIRST_FETCH)]
        wide = int(min(INDEX_FETCH_CAP, math.ceil(k * share * INDEX_OVERFETCH)))
        if wide > fetches[0]:
            fetches = [wide] if share_known else [*fetches, wide]
        if types is not None and fetches[-1] < INDEX_FETCH_CAP:
            fetches.append(INDEX_FETCH_CAP)
        # the same ask again in this search (the feedback pass, a vector near the first)
        # scores the pool the first one returned when that found enough; else it starts
        # where the last one ended, or goes straight to the exact scan it ended with: one
        # larger ask instead of the same small ones failing again
        ask = _ask(statement, params, k)
        pooled_rows = self._from_pool(ask, params, k)
        if pooled_rows is not None:
            return pooled_rows
        start = self._fetched.get(ask, 0)
        rows: list[dict[str, Any]] | None = None
        pending = [f for f in fetches if f >= start]
        while pending:
            fetch = pending.pop(0)
            self._fetched[ask] = fetch
            try:
                found = self._read(statement, fetch=fetch, **params)
            except (StoreError, ClientError) as exc:
                if isinstance(exc, ClientError) and not no_such_vector_index(exc):
                    raise
                # no such vector index (vector_indexes = false, or a store of an older cogmem)
                self._fetched.pop(ask, None)
                return _NO_INDEX
            if len(found) >= k:
                self._pools[ask] = list(found[0]["pool"])
                return found
            if found and pending and fetch < pending[0]:
                # the group's share of what the index returned sizes the next ask, where
                # the share from its counts (mine counted up to the scan limit; as of a
                # time, what was said by then is not known past it) over-fetches
                guess = math.ceil(k * fetch / len(found) * INDEX_OVERFETCH)
                pending[0] = min(pending[0], max(guess, 2 * fetch))
            if types is not None and found and not pending:
                # a typed search of a large group: fewer than k of those types among
                # the nearest is an answer, not a reason to scan the whole group
                rows = found
                self._pools[ask] = list(found[0]["pool"])
        if rows is None:
            self._fetched[ask] = INDEX_FETCH_CAP + 1
        return rows

    def lexical(
        self,
        words: Sequence[str],
        *,
        turns: bool,
        types: Sequence[str] | None,
        k: int,
        vector: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """The best ``k`` turns or records (of ``types``) for the words, by the fulltext
        index's BM25, restricted to the group inside Lucene; their similarities to
        ``vector`` are computed on the way (:meth:`similarity` then needs no round trip)."""
        fields = ["search_text"] if turns else ["content", "name"]
        query = lucene_query(self.group, words, fields, said_by=self.as_of)
        if query is None or k <= 0:
            return []
        vec = _list(vector)
        name = "operators/fulltext_turns" if turns else "operators/fulltext_records"
        params: dict[str, Any] = {"query": query, "k": k, "vector": vec}
        if not turns:
            params["types"] = list(types) if types is not None else None
        fetch = k if turns or types is None else k * FULLTEXT_OVERFETCH
        if self.as_of is None:
            rows = self._read(name, fetch=fetch, **params)
        else:  # what was said later that day is dropped after Lucene: more, then all
            for ask in (fetch * AS_OF_OVERFETCH, fetch * AS_OF_OVERFETCH * AS_OF_WIDEN):
                rows = self._read(name, fetch=ask, **params)
                if len(rows) >= k:
                    break
            else:
                rows = self._read(name, fetch=LUCENE_ALL, **params)
        return [(self._keep(r["node"], vector, r["sim"]), float(r["score"])) for r in rows]

    def similarity(self, query: np.ndarray, ids: Sequence[str]) -> list[float]:
        """Neo4j's similarity of each node to ``query`` (0.0 without a vector): those this
        search has not scored yet in one round trip."""
        known = self._sims.setdefault(_key(query), {})
        missing = list(dict.fromkeys(i for i in ids if i not in known))
        if missing:
            vec = [float(x) for x in np.asarray(query, np.float32)]
            for r in self._read("operators/nodes_by_id", ids=missing, vector=vec):
                self._keep(r["node"], query, r["sim"])
        return [known.get(i, 0.0) for i in ids]

    def node(self, node_id: str) -> dict[str, Any] | None:
        """A node's fields as the statements return them (read by id when this search has
        not seen it yet), or None when the group has no such node."""
        if node_id not in self._fields:
            for r in self._read("operators/nodes_by_id", ids=[node_id], vector=None):
                self._keep(r["node"], None, None)
        return self._fields.get(node_id)

    def node_as(self, node_id: str, convert: Callable[[dict[str, Any]], T]) -> T | None:
        fields = self.node(node_id)
        return None if fields is None else convert(fields)

    def traverse(
        self, steps: Sequence[dict[str, Any]], per_node: int, vector: np.ndarray | None
    ) -> list[dict[str, Any]]:
        """``operators/traverse_hop``'s rows. A node of more than :data:`DENSE_DEGREE`
        relationships is asked through the vector index (``operators/traverse_hop_indexed``:
        its neighbours among the store's nearest records), and through ``traverse_hop``
        again when that gives it fewer than ``per_node``."""
        vec = _list(vector)
        dense = self._dense(steps, per_node) if vec is not None else {}
        if not dense:
            return self._read(
                "operators/traverse_hop", steps=list(steps), per_node=per_node, vector=vec
            )
        sparse_steps = [dict(st, ids=[i for i in st["ids"] if i not in dense]) for st in steps]
        dense_steps = [dict(st, ids=[i for i in st["ids"] if i in dense]) for st in steps]
        rows: list[dict[str, Any]] = []
        if any(st["ids"] for st in sparse_steps):
            rows += self._read(
                "operators/traverse_hop", steps=sparse_steps, per_node=per_node, vector=vec
            )
        fetch = max(dense.values())
        try:
            near = self._read(
                "operators/traverse_hop_indexed",
                steps=dense_steps,
                per_node=per_node,
                vector=vec,
                fetch=fetch,
            )
        except (StoreError, ClientError) as exc:
            if isinstance(exc, ClientError) and not no_such_vector_index(exc):
                raise
            near = []  # no vector index: score every neighbour
            short = [dict(st) for st in dense_steps]
        else:
            got: dict[tuple[int, str], int] = {}
            for row in near:
                key = (int(row["step"]), str(row["from_id"]))
                got[key] = got.get(key, 0) + 1
            short = [
                dict(st, ids=[i for i in st["ids"] if got.get((n, i), 0) < per_node])
                for n, st in enumerate(dense_steps)
            ]
            near = [r for r in near if got[(int(r["step"]), str(r["from_id"]))] >= per_node]
        rows += near
        if any(st["ids"] for st in short):
            rows += self._read("operators/traverse_hop", steps=short, per_node=per_node, vector=vec)
        rows.sort(key=lambda r: (r["step"], r["from_id"], -float(r["vector"]), r["id"], r["rel"]))
        return rows

    def _dense(self, steps: Sequence[dict[str, Any]], per_node: int) -> dict[str, int]:
        """The steps' nodes worth traversing through the vector index, each with how many of
        the store's nearest records to ask for: more than :data:`DENSE_DEGREE`
        relationships, and that ask (``per_node`` in proportion to the node's share of the
        store, over-fetched) at most :data:`DENSE_FETCH_SHARE` of its degree, else scoring
        its neighbours is as cheap (one round trip; Neo4j keeps a dense node's degree). As
        of a time, fewer of its neighbours had been said: the ask grows by the group's
        records now over those said by then (both counted up to the same cap, so it grows
        at least that much), and early in a large group the neighbours are scored."""
        ids = list(dict.fromkeys(i for st in steps for i in st["ids"]))
        if not ids:
            return {}
        rows = self._read("operators/degrees", ids=ids)
        sizes = self._sizes_of("records")
        everyone = sizes["all_records"]
        thin = 1.0
        if self.as_of is not None:
            thin = max(1.0, sizes["records"] / max(sizes["records_then"], 1))
        out: dict[str, int] = {}
        for row in rows:
            degree = int(row["degree"])
            if degree <= DENSE_DEGREE:
                continue
            fetch = math.ceil(
                per_node * everyone / degree * INDEX_OVERFETCH * DENSE_OVERFETCH * thin
            )
            if fetch <= min(INDEX_FETCH_CAP, degree * DENSE_FETCH_SHARE):
                out[str(row["id"])] = fetch
        return out

    def intersect(
        self,
        ids: Sequence[str],
        rel_types: Sequence[str],
        per_entity: int,
        vector: np.ndarray | None,
        min_shared: int,
    ) -> list[dict[str, Any]]:
        """``operators/intersect`` as it is."""
        return self._read(
            "operators/intersect",
            ids=list(ids),
            rel_types=list(rel_types),
            per_entity=per_entity,
            vector=_list(vector),
            min_shared=min_shared,
        )

    def ground(
        self, ids: Sequence[str], window: int, per_record: int, vector: np.ndarray | None
    ) -> list[dict[str, Any]]:
        """``operators/ground``; the turns' and records' fields and similarities are kept
        for the rest of the search."""
        check_ground_window(window)
        rows = self._read(
            "operators/ground",
            ids=list(ids),
            window=window,
            per_record=per_record,
            vector=_list(vector),
        )
        for row in rows:
            self._keep(row["node"], vector, row["sim"])
            for rec in row["record_rows"]:
                self._keep({k: v for k, v in rec.items() if k != "sim"}, vector, rec["sim"])
        return rows

    def feedback(self, query: np.ndarray, ids: Sequence[str], share: float) -> np.ndarray | None:
        """``query`` plus ``share`` of the mean unit vector of ``ids``, unit length."""
        rows = self._read("operators/embeddings", ids=list(ids))
        if not rows:
            return None
        by_id = {r["id"]: np.asarray(r["embedding"], np.float32) for r in rows}
        vecs = np.stack([by_id[i] for i in ids if i in by_id])
        vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        out = np.asarray(query, np.float32) + share * vecs.mean(axis=0)
        norm = float(np.linalg.norm(out))
        return out / norm if norm > 0 else None

    def prefetch_idf(self, words: Sequence[str]) -> None:
        """Start :meth:`turn_idf`'s read now, on the pool (:mod:`cogmem.retrieval.parallel`):
        it needs the question's words alone, and late interaction asks for it last. The
        statement is listed when its result is taken, under the step that takes it."""
        key = tuple(words)
        if key not in self._idf_pending:
            self._idf_pending[key] = submit(lambda: self._turn_df(words))

    def turn_idf(self, words: Sequence[str]) -> list[float]:
        """BM25's idf of each word among the group's turns, from the fulltext index (0 for
        a word the analyzer drops)."""
        pending = self._idf_pending.pop(tuple(words), None)
        found = pending.result() if pending is not None else self._turn_df(words)
        if found is None:
            return [0.0 for _ in words]
        self.statements.append("operators/turn_df")
        return [found.get(w, 0.0) for w in words]

    def _turn_df(self, words: Sequence[str]) -> dict[str, float] | None:
        """Each word's idf by ``operators/turn_df`` (run on any thread: not listed in
        :attr:`statements` here); None when no word survives the analyzer (nothing ran)."""
        queries = [
            {
                "word": w,
                "query": lucene_query(self.group, [w], ["search_text"], self.as_of),
                "later": None
                if self.as_of is None
                else lucene_query(self.group, [w], ["search_text"], self.as_of, day_only=True),
            }
            for w in dict.fromkeys(words)
            if analyse(w)
        ]
        if not queries:
            return None
        found: dict[str, float] = {}
        rows = self.store.read(
            "operators/turn_df", group=self.group, queries=queries, as_of=self.as_of
        )
        for r in rows:
            docs, df = int(r["docs"]), int(r["df"])
            found[r["word"]] = math.log(1.0 + (docs - df + 0.5) / (df + 0.5)) if docs else 0.0
        return found

    @property
    def persons(self) -> list[dict[str, Any]]:
        if self._persons is None:
            self._persons = self._read("operators/entities")
        return self._persons


def _key(vector: np.ndarray) -> bytes:
    return np.asarray(vector, np.float32).tobytes()


def _list(vector: np.ndarray | None) -> list[float] | None:
    return None if vector is None else [float(x) for x in np.asarray(vector, np.float32)]
