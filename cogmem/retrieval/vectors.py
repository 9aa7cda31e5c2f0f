"""The process's copy of a group: a cache in front of the operators' statements
(:mod:`cogmem.retrieval.graph_source`), answering the same calls without a round trip —
exact nearest neighbours and similarities in numpy, BM25 over the group's own texts, Traverse,
Intersect and Ground over its relationships held as arrays.

Neo4j stays the store of record; the copy is read once (in the background after a process's
first search of the group, or before it with ``search_cache = eager``), then only what was
written since. Each write that adds vectors bumps the group's sequence number (a
``:CogmemMeta`` node, locked until commit, so numbers follow commit order) and stamps the
nodes it writes with it (``vseq``); a search reads the number (one small round trip) and,
when it moved, fetches just the newer nodes. Forgetting a group starts a new epoch: the copy
is dropped and read again.

It answers as the statements do (``tests/integration/test_cold_search.py``): the same
neighbours (its float32 cosines agree with Neo4j's to ~1e-7), the same rows of Traverse,
Intersect and Ground, the same words matched. Its BM25 statistics are the group's own where
Lucene's are the whole index's, so the order of lexical candidates may differ.

Memory: 4 bytes a dimension a node (1.5 KiB at 384-d) and about 2.5 KiB of fields and
BM25 postings: a 4,000-node conversation takes ~16 MiB, 100k records with their turns
(170k nodes) ~700 MiB; groups are evicted least recently used beyond ``vector_cache_mb``
(one group is always kept; :mod:`cogmem.retrieval.vector_cache`).
Similarities are Neo4j's: (1 + cosine) / 2, what ``vector.similarity.cosine`` returns.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from typing import Any, TypeVar

import numpy as np

from cogmem.retrieval.adjacency import (
    GraphView,
    Links,
    RowSims,
    intersect_rows,
    traverse_rows,
)
from cogmem.retrieval.lexical import LexicalIndex
from cogmem.retrieval.scan import products
from cogmem.retrieval.token_rows import TokenRowCache
from cogmem.retrieval.vector_view import (
    ID_SLACK,
    ColumnStore,
    Evidenced,
    RowIndex,
    Rows,
    grown_columns,
    nearest_rows,
    node_lookup,
    place_node,
    turn_neighbourhood,
    unit_rows,
)

TURN = "Turn"
T = TypeVar("T")
_BLOCK = 2048
"""Streamed vectors are converted to float32 this many at a time."""
_SPARE = 8
"""The matrix buffer keeps 1/_SPARE of its rows free for the rows refreshes append."""
_OTHER = itemgetter(1)
"""A relationship's other end ([type, other id, outgoing])."""
_LINK_CACHE = 50_000
"""Nodes whose relationships are kept as arrays (all forgotten past this)."""
_DERIVED = 20_000
"""Nodes whose :meth:`GroupVectors.node_as` results are kept (per converter; all
forgotten past this)."""


@dataclass
class GroupVectors:
    """One group's vectors: a unit-row matrix, the node ids and types of its rows, and the
    group's persons; ``seq`` / ``epoch`` tell which writes it has seen."""

    epoch: int = -1
    seq: int = -1
    persons: list[dict[str, Any]] = field(default_factory=list)
    _rows: Rows = field(default_factory=Rows)
    _turn_text: LexicalIndex = field(default_factory=lambda: LexicalIndex(["search_text"]))
    _record_text: LexicalIndex = field(default_factory=lambda: LexicalIndex(["content", "name"]))
    _text_lock: threading.Lock = field(default_factory=threading.Lock)
    #: the last few questions' scores over a view, newest first (a search with feedback
    #: asks with two vectors, then with the first again)
    _memo: tuple[tuple[Rows, bytes, np.ndarray], ...] = ()
    #: the matrix's storage: the view's matrix is its first rows, the rest spare
    _buffer: np.ndarray | None = None
    #: row → (its fields when built, its relationships as arrays)
    _link_arrays: dict[int, tuple[dict[str, Any], Links]] = field(default_factory=dict)
    #: converter → row → (its fields when derived, what was derived): see node_as
    _derived: dict[Callable[..., Any], dict[int, tuple[dict[str, Any], Any]]] = field(
        default_factory=dict
    )
    #: id → row, shared by every view (each reads it up to its own length)
    _row_map: dict[str, int] = field(default_factory=dict)
    #: the buffers of ids, types and fields the views share
    _columns: ColumnStore | None = None
    #: the turns' token rows read so far (late interaction)
    tokens: TokenRowCache = field(default_factory=TokenRowCache)

    @property
    def ids(self) -> list[str]:
        return list(self._rows.ids)

    @property
    def types(self) -> list[str]:
        return list(self._rows.types)

    @property
    def nbytes(self) -> int:
        # the matrix, and about 2.5 KiB of Python objects per node: its fields and its BM25
        # postings (measured at 100k records: see the scale benchmark's peak RSS)
        buf = self._buffer
        matrix = int(self._rows.matrix.nbytes if buf is None else buf.nbytes)
        return matrix + 2560 * len(self._rows.ids) + self.tokens.nbytes

    def node(self, node_id: str) -> dict[str, Any] | None:
        """What a search reads of a node (id, type, name, content, speaker, times as epoch
        seconds, status, …; no vector), or None when the group has no such node."""
        view = self._rows
        at = view.row.get(node_id)
        return None if at is None else view.fields[at]

    def node_as(self, node_id: str, convert: Callable[[dict[str, Any]], T]) -> T | None:
        """``convert(node(node_id))``, computed once per node while its fields stay the
        same (``convert`` must depend on the fields alone, and its result must not be
        changed): kept across views, so a refresh derives again only what it rewrote;
        None when the group has no such node. At most :data:`_DERIVED` nodes are kept."""
        view = self._rows
        at = view.row.get(node_id)
        if at is None:
            return None
        fields = view.fields[at]
        done = self._derived.get(convert)
        if done is None:
            done = self._derived.setdefault(convert, {})
        known = done.get(at)
        if known is not None and known[0] is fields:
            value: T = known[1]
            return value
        value = convert(fields)
        if len(done) >= _DERIVED:
            done.clear()
        done[at] = (fields, value)
        return value

    def add(self, rows: Iterable[dict[str, Any]], catch_up: bool = False) -> None:
        """Insert or replace rows {id, type, embedding, other fields}; readers in flight
        keep the view they took. ``catch_up``: the rows are what was written since the
        copy's sequence (``operators/vectors_since`` with ``$seq >= 0``), whose persons and
        concepts carry only their relationships to the other rows read: the rest of theirs
        is kept from the copy. The new view shares with the old one everything the turn did
        not change, without copying it: new rows are appended into spare room of buffers
        the old view is the first rows of (vectors, ids, types, fields, the id array), the
        id → row dict is shared (each view reads it up to its own length), rows read again
        and changed places and evidence lists sit in the view's own small maps over a shared
        base (folded into a new base once they grow), and what was built from rows that did
        not change is kept (times, relationship arrays, ``node_as``). So a refresh after a
        live turn costs in proportion to what the turn wrote (at 100k records ~5 ms, was
        ~28 ms with the id lists and maps copied: benchmarks/results/live_refresh.md), and
        so does freeing the view it replaces.

        What is kept is shaped so that Python's cyclic GC has little to walk: at 100k
        records, lists and tuples of every row's id, type and fields cost ~40 ms in each
        generation's collection they passed through (measured with ``gc.callbacks``). New
        rows gather in short lists written into numpy object arrays, which the GC does not
        track, and the dicts map strings to strings or ints, which it does not track
        either."""
        old = self._rows
        n_old = len(old.ids)
        new_ids: list[str] = []
        new_types: list[str] = []
        new_fields: list[dict[str, Any]] = []
        added: dict[str, int] = {}  # new ids of this refresh → row
        retyped: dict[int, str] = {}
        refielded: dict[int, dict[str, Any]] = {}
        shared = self._row_map
        position = old.position.writer()
        codes = dict(old.codes)
        evidenced = Evidenced(old.evidenced)
        blocks: list[np.ndarray] = []  # new vectors, converted to float32 as they stream in
        pending: list[Any] = []
        replaced: list[tuple[int, Any]] = []
        #: rows of entities re-read by a catch-up whose relationships were arrays: (row,
        #: those arrays, the relationships the catch-up read)
        relinked: list[tuple[int, Links, list[Any]]] = []

        def fields_of(at: int) -> dict[str, Any]:
            if at >= n_old:
                return new_fields[at - n_old]
            return refielded.get(at) or old.fields[at]

        stale_tokens = bool(self.tokens)  # a rewritten turn's token rows are read again
        if catch_up:
            rows = list(rows)
            batch = {r["id"] for r in rows}
        for r in rows:
            if r["embedding"] is None:
                # deleted while the stream was read (a forget under way: Neo4j reads
                # committed, so the node's properties go null mid-result); the group's
                # epoch has moved on, so the next search reads the copy afresh
                continue
            if stale_tokens:
                self.tokens.drop(r["id"])
            data = {k: v for k, v in r.items() if k not in _NOT_KEPT}
            at = added.get(r["id"])
            if at is None:
                at = shared.get(r["id"])
                if at is not None and at >= n_old:  # left by a refresh that failed
                    at = None
            if at is not None:
                before = fields_of(at)
                for turn_id in before.get("evidence") or ():
                    evidenced.drop(turn_id, r["id"])
                if catch_up and r["type"] in ENTITY_TYPES:  # its links to the rest: kept
                    read = list(data.get("links") or ())
                    kept = before.get("links") or []
                    if not batch.isdisjoint(map(_OTHER, kept)):  # some are read again
                        kept = [link for link in kept if link[1] not in batch]
                    data["links"] = kept + read
                    cached = self._link_arrays.get(at)
                    if at < n_old and cached is not None and cached[0] is before:
                        relinked.append((at, cached[1], read))
            place_node(data, position, evidenced)
            if at is not None:
                replaced.append((at, r["embedding"]))
                if at >= n_old:  # twice in one refresh
                    new_types[at - n_old] = r["type"] or ""
                    new_fields[at - n_old] = data
                else:
                    retyped[at] = r["type"] or ""
                    refielded[at] = data
                continue
            added[r["id"]] = n_old + len(new_ids)
            new_ids.append(r["id"])
            new_types.append(r["type"] or "")
            new_fields.append(data)
            pending.append(r["embedding"])
            if len(pending) >= _BLOCK:  # lists of Python floats take 6× the memory
                blocks.append(unit_rows(np.asarray(pending, np.float32)))
                pending = []
        if pending:
            blocks.append(unit_rows(np.asarray(pending, np.float32)))
        if not replaced and not new_ids:
            return
        # a row read again keeps its type unless the row says otherwise
        retyped = {at: t for at, t in retyped.items() if t != old.types[at]}
        matrix = self._matrix(old.matrix, replaced, blocks)
        is_turn = np.concatenate([old.is_turn, np.array([t == TURN for t in new_types], bool)])
        type_codes = np.concatenate(
            [
                old.type_codes,
                np.array([codes.setdefault(t, len(codes)) for t in new_types], np.int16),
            ]
        )
        for at, kind in retyped.items():
            is_turn[at] = kind == TURN
            type_codes[at] = codes.setdefault(kind, len(codes))
        try:  # the shared id → row map and buffers: what a failed refresh wrote is undone
            shared.update(added)
            self._columns, ids, types, fields = grown_columns(
                self._columns, old.ids, old.types, old.fields,
                (new_ids, new_types, new_fields), (retyped, refielded),
            )  # fmt: skip
        except BaseException:
            for i in new_ids:
                if shared.get(i, -1) >= n_old:
                    del shared[i]
            self._columns = None
            raise
        changed = [at for at, _ in replaced] + list(range(n_old, len(ids)))
        view = Rows(
            ids=ids,
            types=types,
            fields=fields,
            matrix=matrix,
            is_turn=is_turn,
            type_codes=type_codes,
            codes=codes,
            row=RowIndex(shared, len(ids), ids),
            position=position.result(),
            evidenced=evidenced.result(),
        )
        if "times" in old.__dict__:  # built already: carry it over, reading changed rows only
            view.__dict__["times"] = old.times.updated(view.fields, changed)
        if "id_array" in old.__dict__:  # built already (ties): a row's id never changes
            view.__dict__["id_array"] = self._grown_id_array(old.id_array, new_ids)
        if relinked:  # the arrays of the links kept, then of those read
            in_batch = view.row.rows_of(list(batch))
            in_batch = in_batch[in_batch >= 0]
            for at, links, read in relinked:
                arrays = links.without(in_batch).plus(Links.of(read, view.row.rows_of))
                self._link_arrays[at] = (fields[at], arrays)
        self._rows = view
        with self._text_lock:
            for at in changed:
                if types[at] == TURN:
                    self._turn_text.put(at, fields[at])
                else:
                    self._record_text.put(at, fields[at])

    @staticmethod
    def _grown_id_array(old: np.ndarray, new_ids: list[str]) -> np.ndarray:
        """The next view's id array: the old one with ``new_ids`` appended into the spare
        room of the buffer it is the first rows of (:attr:`Rows.id_array`; only the newest
        view is ever extended), or into a new buffer when that one is full or an id is
        longer than its items."""
        n_old, need = len(old), len(old) + len(new_ids)
        added = np.array(new_ids, str) if new_ids else np.empty(0, old.dtype)
        buf = old.base
        if buf is None or buf.shape[0] < need or added.dtype.itemsize > buf.dtype.itemsize:
            width = max(old.dtype.itemsize, added.dtype.itemsize) // 4 + ID_SLACK
            buf = np.empty(need + need // _SPARE, f"<U{width}")
            buf[:n_old] = old
        buf[n_old:need] = added
        return buf[:need]

    def _matrix(
        self, old: np.ndarray, replaced: Sequence[tuple[int, Any]], blocks: list[np.ndarray]
    ) -> np.ndarray:
        """The next view's matrix: the old one with ``replaced`` rows set and ``blocks``
        appended. Rows are appended into spare capacity of the buffer the old view is a
        prefix of (readers of the old view never look past its rows), so a live turn's
        refresh does not copy the whole matrix; the buffer is copied only when it is full
        or when a vector of an existing row really changes (a node read again because a
        relationship of it changed keeps its vector)."""
        moved = []
        for at, vec in replaced:
            unit = unit_rows(np.asarray(vec, np.float32)[None, :])[0]
            if not np.array_equal(old[at], unit):
                moved.append((at, unit))
        if not blocks and not moved:
            return old
        n_old = old.shape[0] if old.size else 0
        need = n_old + sum(b.shape[0] for b in blocks)
        width = blocks[0].shape[1] if blocks else old.shape[1]
        buf = self._buffer
        reuse = (
            not moved
            and buf is not None
            and buf.shape[1] == width
            and buf.shape[0] >= need
            and (n_old == 0 or old.base is buf)
        )
        if not reuse:
            buf = self._buffer = np.empty((need + need // _SPARE, width), np.float32)
            if n_old:
                buf[:n_old] = old
            for at, v in moved:
                buf[at] = v
        assert buf is not None
        end = n_old
        for block in blocks:
            buf[end : end + block.shape[0]] = block
            end += block.shape[0]
        return buf[:need]

    def lexical(
        self,
        words: Sequence[str],
        *,
        turns: bool,
        types: Sequence[str] | None,
        k: int,
        vector: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """BM25 over the group's own turn texts (``turns``) or record contents and names
        (of ``types``, all when None): the best ``k`` ids with their scores, best first.
        (``vector`` is for the statements' sake: here every similarity is at hand.)"""
        view = self._rows
        # only this view's rows (a writer may have indexed newer ones meanwhile)
        allowed = np.ones(len(view.ids), bool)
        if not turns and types is not None:
            allowed = np.isin(view.type_codes, [view.codes[t] for t in types if t in view.codes])
        index = self._turn_text if turns else self._record_text
        with self._text_lock:
            hits = index.search(words, k, allowed, view.ids.__getitem__, lambda: view.id_array)
        return [(view.ids[row], score) for row, score in hits]

    def turn_idf(self, words: Sequence[str]) -> list[float]:
        """How rare each word is among the group's turn texts (BM25's idf)."""
        with self._text_lock:
            return [self._turn_text.idf(w) for w in words]

    def top(
        self, query: np.ndarray, *, turns: bool, types: Sequence[str] | None, k: int
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest turns (``turns``) or memory records (of ``types``, all when
        None), best first, with Neo4j's similarity."""
        view = self._rows
        if not len(view.ids) or k <= 0:
            return []
        candidates = view.turn_rows if turns else view.record_rows
        if not turns and types is not None:
            wanted = [view.codes[t] for t in types if t in view.codes]
            candidates = candidates[np.isin(view.type_codes[candidates], wanted)]
        if candidates.size == 0:
            return []
        scores = self._scores(view, query)[candidates]
        best = np.asarray(nearest_rows(view, candidates, scores, k), np.intp)
        ids = view.ids
        sims = ((1.0 + scores[best]) / 2.0).tolist()
        return [(ids[r], s) for r, s in zip(candidates[best].tolist(), sims, strict=True)]

    def record_sims(self, query: np.ndarray, k: int) -> RowSims:
        """The similarity to ``query`` of the ``k`` nearest memory records (all of them in a
        group of up to ``k``), for Traverse and Intersect to rank neighbours by: the same
        as ``dict(top(query, turns=False, types=None, k=k))``, kept as an array."""
        view = self._rows
        records = view.record_rows
        scores = self._scores(view, query)
        if records.size > k:
            records = records[nearest_rows(view, records, scores[records], k)]
        kept = np.zeros(len(view.ids), bool)
        kept[records] = True
        dense = np.zeros(len(view.ids), np.float64)
        dense[records] = (1.0 + scores[records]) / 2.0  # float32, as top() computes it
        return RowSims(view.row, view.ids, dense, kept)

    def _scores(self, view: Rows, query: np.ndarray) -> np.ndarray:
        """Cosine of every row of ``view`` to ``query``: one pass over the matrix per
        search (the steps of a search ask with the same vector), kept for the next call.

        The pass is numpy's own loop (``einsum``), not BLAS: OpenBLAS runs a product this
        size on all cores and its worker then spins, taking the core that a concurrent
        search's forward pass needs. With 4 clients on 2 cores that cost 13 % of the
        searches per second (benchmarks/results/load_test.md). A large view is split
        between the cores instead, on threads that sleep when idle
        (:func:`cogmem.retrieval.scan.products`)."""
        known = self._scored(view, query)
        if known is not None:
            return known
        q = np.asarray(query, np.float32)
        scores = products(view.matrix, q)
        same_view = [m for m in self._memo if m[0] is view]  # an old view is let go
        self._memo = ((view, q.tobytes(), scores), *same_view[: _MEMO_QUERIES - 1])
        return scores

    def _scored(self, view: Rows, query: np.ndarray) -> np.ndarray | None:
        """The scores of ``query`` over ``view`` when a recent pass computed them."""
        key = np.asarray(query, np.float32).tobytes()
        for seen, q, scores in self._memo:
            if seen is view and q == key:
                return scores
        return None

    def traverse(
        self, steps: Sequence[dict[str, Any]], per_node: int, vector: np.ndarray | None
    ) -> list[dict[str, Any]]:
        """Traverse in process: the rows ``operators/traverse_hop`` gives for the question
        vector ``vector`` (see :func:`~cogmem.retrieval.adjacency.traverse_rows`)."""
        return traverse_rows(self._graph(), steps, per_node, self._all_sims(vector))

    def _all_sims(self, vector: np.ndarray | None) -> Mapping[str, float]:
        """Every record's similarity to ``vector`` (none without one), as the statements
        compute it for the neighbours they reach."""
        if vector is None:
            return {}
        return self.record_sims(np.asarray(vector, np.float32), len(self._rows.ids))

    def _graph(self) -> GraphView:
        view = self._rows
        return GraphView(
            node=node_lookup(view),
            row=view.row,
            ids=view.ids,
            is_turn=view.is_turn,
            type_codes=view.type_codes,
            codes=view.codes,
            times_of=lambda: view.times,
            links=partial(self._links, view),
        )

    def _links(self, view: Rows, at: int) -> Links:
        """Row ``at``'s relationships as arrays, kept while its fields stay the same."""
        fields = view.fields[at]
        cached = self._link_arrays.get(at)
        if cached is not None and cached[0] is fields:
            return cached[1]
        links = Links.of(fields.get("links") or (), view.row.rows_of)
        if len(self._link_arrays) > _LINK_CACHE:
            self._link_arrays.clear()
        self._link_arrays[at] = (fields, links)
        return links

    def intersect(
        self,
        ids: Sequence[str],
        rel_types: Sequence[str],
        per_entity: int,
        vector: np.ndarray | None,
        min_shared: int,
    ) -> list[dict[str, Any]]:
        """Intersect in process: the rows ``operators/intersect`` gives for the question
        vector ``vector`` (see :func:`~cogmem.retrieval.adjacency.intersect_rows`)."""
        return intersect_rows(
            self._graph(), ids, rel_types, per_entity, self._all_sims(vector), min_shared
        )

    def neighbourhood(self, turn_ids: Sequence[str], window: int) -> list[dict[str, Any]] | None:
        """Ground for turn seeds in process (see :func:`turn_neighbourhood`)."""
        return turn_neighbourhood(self._rows, turn_ids, window)

    def feedback(self, query: np.ndarray, ids: Sequence[str], share: float) -> np.ndarray | None:
        """``query`` plus ``share`` of the mean row of ``ids``, unit length (pseudo-relevance
        feedback); None when the view has none of them."""
        view = self._rows
        rows = [view.row[i] for i in ids if i in view.row]
        if not rows:
            return None
        out = np.asarray(query, np.float32) + share * view.matrix[rows].mean(axis=0)
        norm = float(np.linalg.norm(out))
        return out / norm if norm > 0 else None

    def similarity(self, query: np.ndarray, ids: Sequence[str]) -> list[float]:
        """Neo4j's similarity of each node to ``query``; 0.0 for a node without a vector."""
        view = self._rows
        at = [view.row.get(i, -1) for i in ids]
        known = [a for a in at if a >= 0]
        out = [0.0] * len(ids)
        if known:
            scores = self._scored(view, query)
            if scores is None and len(known) * _SUBSET_SHARE >= len(view.ids):
                scores = self._scores(view, query)
            if scores is None:  # a few rows of a large view: their own products, to the bit
                picked = products(view.matrix[known], np.asarray(query, np.float32))
            else:
                picked = scores[known]
            sims = iter(picked.tolist())
            for n, a in enumerate(at):
                if a >= 0:
                    out[n] = (1.0 + next(sims)) / 2.0
        return out


ENTITY_TYPES = frozenset({"Person", "Concept"})
"""Records whose relationships a catch-up reads only towards the other rows it reads."""
_NOT_KEPT = frozenset({"embedding", "aliases"})
"""Row fields the copy keeps elsewhere: the matrix; the persons (``GroupVectors.persons``)."""

_MEMO_QUERIES = 3
"""Question vectors whose scores a group's copy keeps (see ``GroupVectors._memo``)."""
_SUBSET_SHARE = 8
"""``similarity`` of fewer than 1/8 of a view's rows multiplies only those rows."""
