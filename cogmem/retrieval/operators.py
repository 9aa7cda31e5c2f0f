"""The four retrieval operators, each with one body: its statement in ``operators/*.cypher``.

* **Anchor** — entry nodes by a fused score, 0.3 · fuzzy lexical (rapidfuzz over names and
  content of BM25 candidates) + 0.7 · vector similarity, at most 15; when a typed search
  finds nothing it widens to every type by itself. Its candidates are the group's nearest
  neighbours (``nearest_*``: an exact scan through the group_id index, or the HNSW index
  for a large group) and its best BM25 matches (``fulltext_*``, filtered by group inside
  Lucene).
* **Traverse** — neighbours by relationship type and time window, ≤ 15 per node per hop,
  depth ≤ 2 (``traverse_hop``).
* **Intersect** — concepts shared by several entities' neighbourhoods, 10 per entity
  (``intersect``).
* **Ground** — the verbatim source turns of records, with neighbouring turns if asked
  (``ground``).

A search reads the group through one :class:`~cogmem.retrieval.source.SearchSource`, chosen
once a search: Neo4j itself (:class:`~cogmem.retrieval.graph_source.GraphSource`, which runs
those statements), or the process's copy of the group
(:class:`~cogmem.retrieval.source.CachedSource`), a cache in front of them that answers the
same calls without a round trip once it has been read (in the background, after a group's
first search). Their one difference: the copy's BM25 uses the group's own statistics,
Lucene's the whole index's.

What they return is plain data (:mod:`cogmem.retrieval.candidates`); the controller reaches
them through its ``SearchOperators`` protocol, which this class implements.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import numpy as np

from cogmem.models import ENTITY_TYPES, RelType, TimeRange
from cogmem.retrieval.candidates import (
    AnchorResult,
    Candidate,
    GroundedRecord,
    GroundedTurn,
    Hop,
    Shared,
)
from cogmem.retrieval.graph_source import GraphSource
from cogmem.retrieval.lucene import keywords
from cogmem.retrieval.operator_rows import (
    candidate,
    candidate_fields,
    fuzzy_score,
    scored,
    turn_row,
    when,
)
from cogmem.retrieval.parallel import gather
from cogmem.retrieval.source import CachedSource, SearchSource
from cogmem.retrieval.token_rows import TokenRows
from cogmem.retrieval.vector_cache import vector_cache
from cogmem.retrieval.vectors import GroupVectors
from cogmem.store import Store

T = TypeVar("T")

LEXICAL_WEIGHT = 0.3
VECTOR_WEIGHT = 0.7
MAX_ANCHORS = 15
MAX_PER_HOP = 15
MAX_DEPTH = 2
INTERSECT_PER_ENTITY = 10
DEFAULT_TRAVERSE_RELS: tuple[RelType, ...] = (
    RelType.PARTICIPATED_IN,
    RelType.HAS_FACT,
    RelType.CLAIMS,
    RelType.TARGETS,
    RelType.INVOLVES,
    RelType.ABOUT,
    RelType.LIKES,
    RelType.DISLIKES,
    RelType.USES,
    RelType.KNOWS,
    RelType.SUPPORTED_BY,
    RelType.SUPERSEDES,
    RelType.CONFLICTS_WITH,
    RelType.REFERENCES,
    RelType.CAUSES,
)
"""Every relationship between memory records (not provenance: HAS_SESSION, HAS_TURN, NEXT,
EVIDENCED_BY)."""
INTERSECT_RELS: tuple[RelType, ...] = (
    RelType.LIKES,
    RelType.USES,
    RelType.DISLIKES,
    RelType.PARTICIPATED_IN,
    RelType.HAS_FACT,
    RelType.CLAIMS,
)
"""What two persons can share: tastes, tools, events, facts and views."""


class Operators:
    """Operators bound to one store and one group."""

    def __init__(self, store: Store, group: str, as_of: datetime | None = None) -> None:
        self.store = store
        self.group = group
        self.as_of = as_of
        """The group as it stood then (None: now). Such a search reads Neo4j, whose
        statements take the time (the in-process copy holds the group as it is now)."""
        self._asked_as_of = as_of  # what the caller asked for; a question's scope is undone
        self._cache = vector_cache(store.settings.vector_cache_mb)
        self._source: SearchSource | None = None
        # what the last Ground returned, so Evidence needs no second round trip
        self._turn_rows: dict[str, dict[str, Any]] = {}
        self._warm_pending = False
        self._record_rows: dict[str, list[dict[str, Any]]] = {}
        # what does not depend on the question's vector, kept for a feedback pass: BM25
        # hits per query, and Anchor's candidates per query (with their fuzzy scores),
        # which its next call re-scores instead of rebuilding
        self._lexical: dict[tuple[Any, ...], list[tuple[str, float]]] = {}
        self._anchored: dict[tuple[Any, ...], dict[str, dict[str, Candidate]]] = {}

    @property
    def source(self) -> SearchSource:
        """Where this search (one object per search) reads the group, chosen on first use
        and kept for every step: the process's copy when it holds the group (brought up to
        date first), else Neo4j through the operators' statements — and then the copy is
        read in the background for the next searches, when the group fits the cache
        (``search_cache``: ``auto``; ``eager`` reads it first, ``off`` never)."""
        if self._source is None:
            mode = self.store.settings.search_cache
            if self.as_of is not None:
                self._source = GraphSource(self.store, self.group, self.as_of)
            elif mode == "eager":
                self._source = self._copy(self._cache.sync(self.store, self.group))
            elif mode == "off":
                self._source = GraphSource(self.store, self.group)
            else:
                cached = self._cache.cached(self.store, self.group)
                if cached is None:  # read the copy once this search is done (release)
                    self._warm_pending = True
                    self._source = GraphSource(self.store, self.group)
                else:
                    self._source = self._copy(cached)
        return self._source

    def _copy(self, vectors: GroupVectors) -> SearchSource:
        return CachedSource(vectors, self.store, self.group)

    @property
    def reads_at_once(self) -> bool:
        """Whether this search's independent reads are worth running at once: through
        Neo4j (each waits on a round trip), not over the process's copy."""
        return self.source.reads_at_once

    def look_back(self, as_of: datetime) -> None:
        """From now on, read the group as it stood at ``as_of`` (a question that carries its
        own time: :mod:`cogmem.retrieval.scope`): through Neo4j, nothing kept from before."""
        pending = self.drain_statements()  # not yet in the trace: the next step lists them
        self.as_of = as_of
        source = GraphSource(self.store, self.group, as_of)
        source.statements.extend(pending)
        self._source = source
        self._turn_rows.clear()
        self._record_rows.clear()
        self._lexical.clear()
        self._anchored.clear()

    def end_scope(self) -> None:
        """Undo a question's :meth:`look_back`: the next search of these operators reads
        the group as the caller asked (a scoped question leaves nothing behind)."""
        if self.as_of == self._asked_as_of:
            return
        self.as_of = self._asked_as_of
        self._source = None
        self._turn_rows.clear()
        self._record_rows.clear()
        self._lexical.clear()
        self._anchored.clear()

    def latest_said(self) -> datetime | None:
        """When the group's last turn (by :attr:`as_of`) was said."""
        self.statements.append("operators/latest_turn")
        (row,) = self.store.read("operators/latest_turn", group=self.group, as_of=self.as_of)
        at = row["at"]
        return at if isinstance(at, datetime) else None

    def release(self) -> None:
        """The search is done: start reading the group's copy in the background when
        this search found none (``search_cache = auto``), so that it does not compete
        with the search for the cores."""
        if self._warm_pending:
            self._warm_pending = False
            self._cache.warm_later(self.store, self.group)

    @property
    def vectors(self) -> GroupVectors:
        """The group's in-process copy, read now when the process does not hold it yet
        (tools and tests that look inside it; a search reads :attr:`source`)."""
        vectors = self._cache.sync(self.store, self.group)
        self._source = self._copy(vectors)
        return vectors

    @property
    def statements(self) -> list[str]:
        """The statements this search ran against the group so far (none for the
        in-process copy but Ground's for record seeds), in order, for the trace."""
        return self.source.statements

    def apart(self, fn: Callable[[], T]) -> tuple[T, float, list[str]]:
        """``fn``'s result, the seconds it took and the statements it ran, those kept out of
        :attr:`statements`: a step run on another thread, beside the search's others,
        whose statements the trace lists under it when its result is used."""
        started = time.perf_counter()
        result, ran = self.source.apart(fn)
        return result, time.perf_counter() - started, ran

    def drain_statements(self) -> list[str]:
        """The statements run since the last call (and forget them)."""
        ran = list(self.statements)
        self.statements.clear()
        return ran

    # -- Anchor ------------------------------------------------------------------------
    def anchor(
        self,
        question: str,
        vector: np.ndarray,
        types: list[str] | None = None,
        k: int = MAX_ANCHORS,
        pool: int = 60,
        with_turns: bool = True,
        drop_terms: set[str] | None = None,
    ) -> AnchorResult:
        """Entry nodes (≤ ``k``, ≤ 15) plus the larger candidate pools behind them, in one
        pass over the group's nodes in process (a second when a typed search must widen).

        ``drop_terms`` are left out of the lexical query (e.g. a speaker's name, which the
        controller weighs separately).
        """
        k = min(k, MAX_ANCHORS)
        vec = np.asarray(vector, np.float32)
        terms = [t for t in keywords(question) if t not in (drop_terms or set())]
        records, turns = self._anchor_rows(question, terms, vec, types, pool, with_turns)
        widened = False
        if types is not None and not any(c.type not in ENTITY_TYPES for c in records):
            widened = True
            records, _ = self._anchor_rows(question, terms, vec, None, pool, False)
        entries = sorted(records, key=lambda c: (-c.score, c.id))[:k]
        return AnchorResult(
            entries=entries,
            records=records,
            turns=turns,
            types=None if widened else types,
            widened=widened,
        )

    def _anchor_rows(
        self,
        question: str,
        terms: list[str],
        vec: np.ndarray,
        types: list[str] | None,
        pool: int,
        with_turns: bool,
    ) -> tuple[list[Candidate], list[Candidate]]:
        """Records (fused fuzzy + vector score) and turns: the nearest neighbours and the best
        BM25 matches among the group's own nodes, all in process (no round trip).

        Called again in the same search with the same query (the feedback pass), it reuses
        the candidates it built the first time, their vector scores overwritten (the fuzzy
        score depends on the question alone): the earlier result's candidates then hold the
        new scores."""
        vectors = self.source
        found: dict[str, dict[str, Candidate]] = {"record": {}, "turn": {}}
        query = (question, tuple(terms), None if types is None else tuple(types), pool, with_turns)
        built = self._anchored.setdefault(query, {"record": {}, "turn": {}})
        fresh: list[Candidate] = []  # records built by this call: fuzzy score still to come

        def add(kind: str, node_id: str, step: str, lexical: float, vector: float) -> None:
            cand = found[kind].get(node_id)
            if cand is not None:
                cand.path.append(step)
                cand.bm25 = max(cand.bm25, lexical)
                return
            cand = built[kind].get(node_id)
            if cand is not None:
                cand.bm25, cand.vector, cand.path = float(lexical), float(vector), [step]
                found[kind][node_id] = cand
                return
            fields = vectors.node_as(node_id, candidate_fields)
            if fields is None:  # written after this search read the group: next one sees it
                return
            cand = found[kind][node_id] = built[kind][node_id] = scored(
                fields, lexical, vector, step
            )
            if kind == "record":
                fresh.append(cand)

        steps = {"record": "anchor:fulltext", "turn": "anchor:turn-fulltext"}
        kinds = ["record", "turn"] if with_turns else ["record"]

        def words(kind: str) -> Callable[[], list[tuple[str, float, float]]]:
            def read() -> list[tuple[str, float, float]]:
                key = (tuple(terms), kind, tuple(types or ()), pool)
                hits = self._lexical.get(key)
                if hits is None:
                    hits = vectors.lexical(
                        terms, turns=kind == "turn", types=types, k=pool, vector=vec
                    )
                    self._lexical[key] = hits
                sims = vectors.similarity(vec, [node_id for node_id, _ in hits])
                return [(i, score, sim) for (i, score), sim in zip(hits, sims, strict=True)]

            return read

        # the nearest records and turns and the best word matches need nothing from each
        # other: through Neo4j they are read at once; added in this order either way
        jobs: list[Callable[[], list[tuple[str, float, float]]]] = [
            lambda: [(i, 0.0, s) for i, s in vectors.top(vec, turns=False, types=types, k=pool)]
        ]
        if with_turns:
            jobs.append(
                lambda: [(i, 0.0, s) for i, s in vectors.top(vec, turns=True, types=None, k=pool)]
            )
        jobs += [words(kind) for kind in (kinds if terms else [])]
        lists = gather(jobs, at_once=vectors.reads_at_once)
        for node_id, _, sim in lists[0]:
            add("record", node_id, "anchor:vector", 0.0, sim)
        if with_turns:
            for node_id, _, sim in lists[1]:
                add("turn", node_id, "anchor:turn-vector", 0.0, sim)
        for kind, hits in zip(kinds if terms else [], lists[len(kinds) :], strict=True):
            for node_id, score, sim in hits:
                add(kind, node_id, steps[kind], score, sim)
        for cand in fresh:
            cand.fuzzy = fuzzy_score(question, terms, cand)
        records = list(found["record"].values())
        for cand in records:
            cand.score = LEXICAL_WEIGHT * cand.fuzzy + VECTOR_WEIGHT * cand.vector
        return records, list(found["turn"].values())

    # -- Traverse ----------------------------------------------------------------------
    def traverse(
        self,
        ids: list[str],
        vector: np.ndarray,
        rel_types: Sequence[str] = DEFAULT_TRAVERSE_RELS,
        window: TimeRange | None = None,
        depth: int = 1,
        per_node: int = MAX_PER_HOP,
        types: list[str] | None = None,
    ) -> list[Candidate]:
        """Neighbours up to ``depth`` (≤ 2) hops away, ≤ ``per_node`` (≤ 15) per node."""
        hop = Hop(ids=list(ids), rel_types=tuple(rel_types), window=window, depth=depth)
        return self.traverse_many([hop], vector, per_node=per_node, types=types)[0]

    def traverse_many(
        self,
        hops: Sequence[Hop],
        vector: np.ndarray,
        per_node: int = MAX_PER_HOP,
        types: list[str] | None = None,
    ) -> list[list[Candidate]]:
        """Several independent traversals at once: one round trip per hop level for all of
        them (a search's recipe steps all start from what it already knows)."""
        per_node = min(per_node, MAX_PER_HOP)
        vec = None if vector is None else np.asarray(vector, np.float32)
        depths = [max(1, min(h.depth, MAX_DEPTH)) for h in hops]
        seen = [set(h.ids) for h in hops]
        frontiers = [list(h.ids) for h in hops]
        paths: list[dict[str, list[str]]] = [{i: [] for i in h.ids} for h in hops]
        out: list[list[Candidate]] = [[] for _ in hops]
        for level in range(max(depths, default=0)):
            active = [n for n, f in enumerate(frontiers) if f and level < depths[n]]
            if not active:
                break
            steps = []
            for n in active:
                window = hops[n].window
                steps.append(
                    {
                        "ids": frontiers[n],
                        "rel_types": [str(rel) for rel in hops[n].rel_types],
                        "types": types if level == depths[n] - 1 else None,
                        "start": window.start if window else None,
                        "end": window.end if window else None,
                    }
                )
            rows = self.source.traverse(steps, per_node, vec)
            nxt: dict[int, list[str]] = {n: [] for n in active}
            for row in rows:
                n = active[row["step"]]
                if row["id"] in seen[n]:
                    continue
                seen[n].add(row["id"])
                step = f"{row['rel']}{'→' if row['outgoing'] else '←'}"
                cand = candidate(row, "traverse")
                cand.path = [*paths[n].get(row["from_id"], []), step]
                paths[n][row["id"]] = cand.path
                out[n].append(cand)
                nxt[n].append(row["id"])
            frontiers = [nxt.get(n, []) for n in range(len(hops))]
        return out

    # -- Intersect ---------------------------------------------------------------------
    def intersect(
        self,
        entity_ids: list[str],
        vector: np.ndarray,
        rel_types: Sequence[str] = INTERSECT_RELS,
        per_entity: int = INTERSECT_PER_ENTITY,
    ) -> list[Shared]:
        if len(entity_ids) < 2:
            return []
        rows = self.source.intersect(
            entity_ids,
            [str(rel) for rel in rel_types],
            min(per_entity, INTERSECT_PER_ENTITY),
            None if vector is None else np.asarray(vector, np.float32),
            2,
        )
        return [
            Shared(
                id=row["id"],
                name=row["name"] or "",
                similarity=float(row["sim"] or 0.0),
                links={link["entity"]: [v for v in link["via"] if v] for link in row["links"]},
            )
            for row in rows
        ]

    # -- Ground ------------------------------------------------------------------------
    def ground(
        self,
        ids: list[str],
        window: int = 0,
        per_record: int = 3,
        vector: np.ndarray | None = None,
    ) -> list[GroundedTurn]:
        """Source turns of records (or turns themselves), ± ``window`` neighbours; with a
        question vector, each turn and its records carry their similarity to it."""
        if not ids:
            return []
        vectors = self.source
        rows = vectors.ground(ids, max(0, window), per_record, vector)
        found = []  # (row, turn as Evidence shows it, record fields) of the turns seen
        for row in rows:
            turn = vectors.node_as(row["id"], turn_row)
            if turn is not None:  # else written after this search read the group
                records = [r for r in map(vectors.node, row["records"]) if r is not None]
                found.append((row, turn, records))
        ask = [i for row, _, records in found for i in (row["id"], *(r["id"] for r in records))]
        if vector is not None:
            sims_all = iter(vectors.similarity(np.asarray(vector, np.float32), ask))
        else:
            sims_all = iter([0.0] * len(ask))
        out = []
        for row, turn, records in found:
            turn_id = row["id"]
            self._turn_rows[turn_id] = turn
            self._record_rows[turn_id] = [
                r if r.get("turn_id") == turn_id else dict(r, turn_id=turn_id) for r in records
            ]
            out.append(
                GroundedTurn(
                    record_id=row["record_id"],
                    turn_id=row["turn_id"],
                    offset=row["offset"],
                    vector=next(sims_all),
                    records=[
                        GroundedRecord(
                            id=r["id"],
                            type=r["type"],
                            source=r["source"],
                            target=r["target"],
                            status=r["status"],
                            vector=next(sims_all),
                        )
                        for r in records
                    ],
                    id=turn_id,
                    source_id=turn["source_id"],
                    conversation_id=turn["conversation_id"],
                    speaker=turn["speaker"],
                    text=turn["text"],
                    at=turn["at"],
                    idx=turn["idx"],
                    prev_idx=turn["prev_idx"],
                )
            )
        return out

    # -- helpers -----------------------------------------------------------------------
    def feedback(self, vector: np.ndarray, ids: list[str], share: float) -> np.ndarray | None:
        """``vector`` plus ``share`` of the mean vector of the nodes ``ids``, unit length;
        None when none of them has a vector."""
        return self.source.feedback(vector, ids, share)

    def turn_tokens(self, turn_ids: list[str]) -> dict[str, TokenRows]:
        """The stored token rows (int8 bytes, scales) of those turns that have them: kept
        with the group's copy, one round trip for those it does not hold yet."""
        if not turn_ids:
            return {}
        cache = self.source.tokens
        kept, missing = cache.cached(turn_ids)
        if missing:
            read: dict[str, TokenRows] = dict.fromkeys(missing, (b"", []))
            self.statements.append("operators/turn_tokens")
            for r in self.store.read("operators/turn_tokens", ids=missing, group=self.group):
                read[r["id"]] = (bytes(r["rows"]), list(r["scales"]))
            cache.keep(read)
            kept.update(read)
        return {t: kept[t] for t in turn_ids if kept[t][1]}

    def prefetch_idf(self, words: list[str]) -> None:
        """Through Neo4j, start reading :meth:`turn_idf` now (it needs the question alone);
        the in-process copy has it at hand."""
        self.source.prefetch_idf(words)

    def turn_idf(self, words: list[str]) -> list[float]:
        """How rare each word is among the group's turns (BM25's idf, in process)."""
        return self.source.turn_idf(words)

    def persons(self) -> list[dict[str, Any]]:
        """The group's persons with their aliases (kept with the group's vectors)."""
        return self.source.persons

    def turn_records(self, turn_ids: list[str], vector: np.ndarray) -> list[Candidate]:
        """The records evidenced by turns, with their similarity to ``vector`` (from the
        last Ground when it returned those turns, else one round trip)."""
        if not turn_ids:
            return []
        rows = [r for t in turn_ids if t in self._record_rows for r in self._record_rows[t]]
        missing = [t for t in turn_ids if t not in self._record_rows]
        if missing:
            self.statements.append("operators/turn_records")
            rows += self.store.read(
                "operators/turn_records", ids=missing, group=self.group, as_of=self.as_of
            )
        sims = self.source.similarity(np.asarray(vector, np.float32), [r["id"] for r in rows])
        out = []
        for row, sim in zip(rows, sims, strict=True):
            cand = candidate(row, "ground:record")
            cand.vector = sim
            out.append(cand)
        return out

    def superseded(self, claim_ids: list[str]) -> dict[str, list[str]]:
        """For each claim, the older claims it replaced: quote, turn and date."""
        out: dict[str, list[str]] = {}
        if not claim_ids:
            return out
        self.statements.append("operators/superseded")
        rows = self.store.read(
            "operators/superseded", ids=claim_ids, group=self.group, as_of=self.as_of
        )
        for row in rows:
            at = when(row["at_s"], row.get("at_off"))
            said = f"{at.day} {at:%B %Y}" if at else "earlier"
            out.setdefault(row["id"], []).append(
                f'"{row["quote"]}" ({row["turn_source_id"]}, {said})'
            )
        return out

    def turns(self, turn_ids: list[str]) -> list[dict[str, Any]]:
        """Turns by id, with what Evidence shows (from the last Ground where it can: those
        rows are kept with the group's copy and shared by searches, so read them, do not
        change them)."""
        if not turn_ids:
            return []
        rows = [self._turn_rows[t] for t in turn_ids if t in self._turn_rows]
        missing = [t for t in turn_ids if t not in self._turn_rows]
        if missing:
            self.statements.append("operators/turns_by_id")
            rows += self.store.read(
                "operators/turns_by_id", ids=missing, group=self.group, as_of=self.as_of
            )
        return rows
