"""Ingest: turns → extraction → embeddings → the graph, one transaction per batch of turns.

Writes are MERGEs on deterministic ids, so re-ingesting the same input changes nothing and
an interrupted ingest is completed by running it again (resumable and idempotent). A
conversation carries ``complete = false`` until its last batch is written. A malformed file
is rejected by the reader before anything is written.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from cogmem.consolidate.base import ConsolidationSettings
from cogmem.consolidate.claims import reconcile_pairs, touched_pairs
from cogmem.embed import Embedder
from cogmem.embed.tokens import embed_texts
from cogmem.extract import ExtractionContext, Extractor, HeuristicExtractor, check_quotes
from cogmem.ingest.rows import GraphBuilder, memory_embed_text, turn_embed_text
from cogmem.models import ENTITY_TYPES, Conversation, ExtractedRecord
from cogmem.store import Row, Statements, Step, Store, chunks

Progress = Callable[[int], None]
_ENTITY_LABELS = frozenset(t.label for t in ENTITY_TYPES)  # embedded once per group
_TEXT_CACHE = 2048  # record vectors kept, for a text that recurs in a later batch or turn
_ENTITY_CACHE = 200_000  # entity ids known to carry a vector (forgotten whole past this)


_AHEAD = ThreadPoolExecutor(max_workers=2, thread_name_prefix="cogmem-turn-ahead")


Embedded = tuple[np.ndarray, dict[str, Any]]
"""A turn's vector and its token-row properties (:mod:`cogmem.embed.tokens`)."""


def embed_ahead(embedder: Embedder, text: str, speaker: str) -> Future[Embedded]:
    """Start computing one turn's vector (and token rows) in the background (a live
    turn's, while its conversation is read and its records extracted); hand the future to
    :meth:`Ingestor.append` as ``ahead={text: future}``."""

    def run() -> Embedded:
        vectors, props = embed_texts(embedder, [text], [speaker])
        return vectors[0], props[0]

    return _AHEAD.submit(run)


class KnownVectors:
    """What a group's earlier writes already embedded, kept by one :class:`~cogmem.api.
    Memory` across its ingests and live turns, so that a turn embeds only what is new:

    - ``entities``: ids of entities (Person, Concept) whose node carries a vector. An
      entity's vector depends only on its name, which its id encodes. An id is added once
      its transaction has committed. If a node was deleted since (``forget`` from another
      process), the write finds it without a vector and embeds it then (see
      :meth:`Ingestor._write_batch`), so a stale entry costs time, never a vector.
    - ``texts``: record text -> vector.
    """

    def __init__(self) -> None:
        self.entities: set[str] = set()
        self.texts: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def committed(self, entity_ids: set[str]) -> None:
        with self._lock:
            if len(self.entities) + len(entity_ids) > _ENTITY_CACHE:
                self.entities.clear()
            self.entities |= entity_ids

    def remember(self, text: str, vector: np.ndarray) -> None:
        if len(self.texts) < _TEXT_CACHE:
            self.texts[text] = vector.copy()  # not a view that pins the batch

    def clear(self) -> None:
        with self._lock:
            self.entities.clear()
            self.texts.clear()


class WriteGuard:
    """Statements that open a live turn's write transaction (its conversation's append
    lock, what the append assumed, its outbox entry) and a check of their rows that
    abandons the transaction, with nothing written, by raising."""

    def __init__(self, before: Sequence[Step], check: Callable[[list[list[Row]]], None]) -> None:
        self.before, self.check = list(before), check


class IngestSummary(BaseModel):
    """What an ingest did, for the CLI summary and for scripts."""

    group: str
    format: str | None = None
    conversations: int = 0
    turns: int = 0
    records: dict[str, int] = Field(default_factory=dict)
    #: the distinct record nodes written (merged), by type: a person named 400 times is 1
    nodes: dict[str, int] = Field(default_factory=dict)
    #: the node ids of the turns written (a live append: its one turn)
    turn_ids: list[str] = Field(default_factory=list)
    dropped: int = 0
    fallbacks: int = 0
    skipped_turns: int = 0
    seconds: float = 0.0
    #: time the ingest thread waited for the writer (0 when writes fully overlap)
    write_wait_seconds: float = 0.0
    #: time spent computing vectors
    embed_seconds: float = 0.0
    extractor: str = ""
    embedder: str = ""

    @property
    def turns_per_s(self) -> float:
        return self.turns / self.seconds if self.seconds > 0 else 0.0

    def merge(self, other: IngestSummary) -> None:
        self.conversations += other.conversations
        self.turns += other.turns
        self.dropped += other.dropped
        self.fallbacks += other.fallbacks
        self.seconds += other.seconds
        self.write_wait_seconds += other.write_wait_seconds
        self.embed_seconds += other.embed_seconds
        counts = Counter(self.records)
        counts.update(other.records)
        self.records = dict(counts)
        nodes = Counter(self.nodes)
        nodes.update(other.nodes)
        self.nodes = dict(nodes)
        self.turn_ids += other.turn_ids


def speakers_of(conversation: Conversation) -> list[str]:
    """The conversation's declared speakers, else everyone who speaks, in order."""
    return list(conversation.speakers) or list(dict.fromkeys(t.speaker for t in conversation.turns))


def discover_persons(conversations: Sequence[Conversation]) -> ExtractionContext:
    """A first, rule-based pass over everything about to be ingested: the persons and
    aliases it names, so that extraction knows "Max" in the first session even when only
    a later one shows Max is a name. Without it a second ingest of the same file, seeded
    from the graph, would find mentions the first one missed: not idempotent."""
    found = ExtractionContext()
    primer = HeuristicExtractor()
    for conversation in conversations:
        ctx = ExtractionContext(speakers=speakers_of(conversation))
        for turn in conversation.turns:
            primer.discover(turn, ctx)
        ctx.settle_addressed()
        found.persons |= ctx.persons
        for alias, name in ctx.aliases.items():
            found.aliases.setdefault(alias, name)
    return found


def seed_context(
    store: Store,
    group: str,
    speakers: Sequence[str],
    known: ExtractionContext | None = None,
    persons: Sequence[Row] | None = None,
) -> ExtractionContext:
    """An extraction context that knows the persons already in the group (``persons``, the
    rows of ``ingest/group_persons``, read here unless given), and those that ``known`` (a
    discovery pass over the input) names."""
    ctx = ExtractionContext(speakers=list(speakers))
    if known is not None:
        ctx.persons |= known.persons
        for alias, name in known.aliases.items():
            ctx.learn_alias(alias, name)
    if persons is None:
        persons = store.read("ingest/group_persons", group_id=group)
    for row in persons:
        name = row["name"]
        if not name or "'" in name:
            continue
        ctx.persons.add(name)
        for alias in row["aliases"] or []:
            ctx.learn_alias(alias, name)
    return ctx


class Ingestor:
    """Writes conversations into one group."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        extractor: Extractor,
        group: str,
        batch_size: int = 32,
        cache: KnownVectors | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        self.group = group
        self.batch_size = batch_size
        self.cache = cache if cache is not None else KnownVectors()
        self._sent: set[str] = set()  # entity ids this run embedded (maybe not committed yet)
        self._ahead: dict[str, Future[Embedded]] = {}  # turn text -> its vector and rows, coming
        self._written: dict[str, str] = {}  # record node id -> its type, this run's writes
        # claims are reconciled as they come, at this embedder's cosine thresholds
        self.reconcile_settings = ConsolidationSettings.for_embedder(embedder.name)

    def ingest(
        self,
        conversations: Sequence[Conversation],
        progress: Progress | None = None,
        fmt: str | None = None,
    ) -> IngestSummary:
        summary = IngestSummary(
            group=self.group,
            format=fmt,
            extractor=self.extractor.name,
            embedder=self.embedder.name,
        )
        started = time.perf_counter()
        known = discover_persons(conversations)
        for conversation in conversations:
            self._conversation(conversation, summary, progress, known=known)
            summary.conversations += 1
        summary.seconds = time.perf_counter() - started
        summary.nodes = dict(Counter(self._written.values()))
        return summary

    def _conversation(
        self,
        conversation: Conversation,
        summary: IngestSummary,
        progress: Progress | None,
        previous: str | None = None,
        known: ExtractionContext | None = None,
        persons: Sequence[Row] | None = None,
        conversation_stored: bool = False,
        guard: WriteGuard | None = None,
    ) -> None:
        """``conversation_stored``: the Conversation node exists, complete, with these
        speakers, so its own statements are left out (a live turn's common case);
        ``guard``: statements and a check that open the last batch's transaction."""
        builder = GraphBuilder(self.group, conversation)
        ctx = seed_context(self.store, self.group, speakers_of(conversation), known, persons)
        speaker_first: dict[str, str] = {}
        counts: Counter[str] = Counter()
        batches = list(chunks(conversation.turns, self.batch_size))
        opening = ("ingest/merge_conversation", builder.conversation_row())
        closing = ("ingest/mark_conversation_complete", {"id": builder.cid})
        if not batches:
            self.store.write_many([opening, closing])
        # Batch i is written by a background thread while batch i + 1 is extracted and
        # embedded; at most one write is in flight, and batches land in order. Each batch
        # is one transaction: its turns, records and edges, the claims it touched
        # reconciled, and (first and last batch) the conversation node and its completion.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cogmem-writer") as writer:
            pending: Future[Any] | None = None
            for n, batch in enumerate(batches):
                extractions: list[list[ExtractedRecord]] = []
                for turn in batch:
                    raw = self.extractor.extract(turn, ctx)
                    checked = check_quotes(turn, raw)
                    ctx.observe(turn, checked)
                    extractions.append(checked.records)
                    summary.dropped += checked.dropped
                    summary.fallbacks += int(checked.fallback)
                    counts.update(r.type.value for r in checked.records)
                rows = builder.batch(list(batch), extractions, previous, speaker_first)
                embed_started = time.perf_counter()
                self._embed(rows.turns, [turn_embed_text(t) for t in batch], rows.records)
                summary.embed_seconds += time.perf_counter() - embed_started
                steps: list[Step] = [
                    (
                        "ingest/merge_turns",
                        {"turns": rows.turns, "pairs": rows.next_pairs, "group": self.group},
                    ),
                    (
                        "ingest/merge_records",
                        {"records": rows.records, "edges": rows.edges, "group": self.group},
                    ),
                ]
                if n == 0 and not conversation_stored:
                    steps.insert(0, opening)
                if n == len(batches) - 1 and not conversation_stored:
                    steps.append(closing)
                last_guard = guard if n == len(batches) - 1 else None
                if pending is not None:
                    wait_started = time.perf_counter()
                    pending.result()
                    summary.write_wait_seconds += time.perf_counter() - wait_started
                    if progress is not None:
                        progress(self.batch_size)
                pairs = touched_pairs(r for rs in extractions for r in rs)
                pending = writer.submit(self._write_batch, steps, pairs, rows.records, last_guard)
                previous = rows.turns[-1]["id"]
                summary.turns += len(batch)
                summary.turn_ids += [t["id"] for t in rows.turns]
                self._written.update({r["id"]: r["props"]["type"] for r in rows.records})
            if pending is not None:
                wait_started = time.perf_counter()
                pending.result()
                summary.write_wait_seconds += time.perf_counter() - wait_started
                if progress is not None:
                    progress(len(conversation.turns) % self.batch_size or self.batch_size)
        merged = Counter(summary.records)
        merged.update(counts)
        summary.records = dict(merged)

    def _write_batch(
        self,
        steps: list[Step],
        pairs: set[tuple[str, str]],
        records: list[dict[str, Any]],
        guard: WriteGuard | None = None,
    ) -> None:
        """One batch in one transaction; the claims of the (speaker, target) pairs it
        touched are reconciled in it, reading what it wrote. A record left without a vector
        (an entity the cache wrongly took for stored) is embedded in the transaction.
        ``guard``'s statements run first, and its check may abandon it all."""
        by_id = {r["id"]: r for r in records}

        def work(tx: Statements) -> None:
            if guard is not None:
                guard.check(tx.write_many(guard.before))
            results = tx.write_many(steps)
            written = next(
                res
                for (name, _), res in zip(steps, results, strict=True)
                if name == "ingest/merge_records"
            )
            unembedded = written[0]["unembedded"] if written else []
            missing = [by_id[i] for i in unembedded if i in by_id]
            if missing:
                healed = self.embedder.embed([memory_embed_text(r["props"]) for r in missing])
                tx.write(
                    "admin/set_memory_embeddings",
                    rows=[
                        {"id": r["id"], "embedding": v.tolist()}
                        for r, v in zip(missing, healed, strict=True)
                    ],
                )
            reconcile_pairs(tx, self.group, pairs, self.reconcile_settings)

        self.store.transaction(work)
        self.cache.committed({r["id"] for r in records if r["label"] in _ENTITY_LABELS})

    def append(
        self,
        conversation: Conversation,
        previous_tid: str | None,
        persons: Sequence[Row] | None = None,
        conversation_stored: bool = False,
        ahead: dict[str, Future[Embedded]] | None = None,
        guard: WriteGuard | None = None,
    ) -> IngestSummary:
        """Add the turns of ``conversation`` after turn ``previous_tid`` (a live chat);
        ``guard``: statements and a check that open the transaction of its last turns.
        ``persons``: the group's persons (``ingest/group_persons`` rows) when the caller
        has read them already; ``conversation_stored``: see :meth:`_conversation`;
        ``ahead``: turn texts whose vectors are already being computed
        (:func:`embed_ahead`)."""
        self._ahead = dict(ahead or {})
        summary = IngestSummary(
            group=self.group, extractor=self.extractor.name, embedder=self.embedder.name
        )
        started = time.perf_counter()
        self._conversation(
            conversation,
            summary,
            None,
            previous=previous_tid,
            known=discover_persons([conversation]),
            persons=persons,
            conversation_stored=conversation_stored,
            guard=guard,
        )
        summary.conversations = 1
        summary.nodes = dict(Counter(self._written.values()))
        summary.seconds = time.perf_counter() - started
        return summary

    def _embed(
        self,
        turn_rows: list[dict[str, Any]],
        turn_texts: list[str],
        record_rows: list[dict[str, Any]],
    ) -> None:
        """Vectors for the batch's turns and records, with as few forward passes as can be.

        An entity (Person, Concept) is embedded once per group: its vector depends only on
        its name, which its id encodes, so one the cache knows is stored is not sent again
        (the write keeps the stored vector). A record text embedded earlier reuses that
        vector; identical texts within the batch are embedded once (by the embedder)."""
        todo_rows: list[dict[str, Any]] = []
        for row in record_rows:
            if row["label"] in _ENTITY_LABELS:
                if row["id"] in self._sent or row["id"] in self.cache.entities:
                    continue
                self._sent.add(row["id"])
            cached = self.cache.texts.get(memory_embed_text(row["props"]))
            if cached is not None:
                row["props"]["embedding"] = cached.tolist()
            else:
                todo_rows.append(row)
        record_texts = [memory_embed_text(r["props"]) for r in todo_rows]
        started = [self._ahead.pop(t, None) for t in turn_texts]
        pending = [i for i, f in enumerate(started) if f is None]
        texts = [turn_texts[i] for i in pending] + record_texts
        if not texts and not turn_rows:
            return
        speakers: list[str | None] = [turn_rows[i]["props"]["speaker"] for i in pending]
        speakers += [None] * len(record_texts)
        vectors: Iterator[np.ndarray] = iter(())
        tokens: Iterator[dict[str, Any]] = iter(())
        if texts:
            embedded, rows_of = embed_texts(self.embedder, texts, speakers)
            vectors, tokens = iter(embedded), iter(rows_of)
        for row, future in zip(turn_rows, started, strict=True):
            vec, rows = (next(vectors), next(tokens)) if future is None else future.result()
            row["props"]["embedding"] = vec.tolist()
            row["props"].update(rows)
        for row, text, vec in zip(todo_rows, record_texts, vectors, strict=True):
            row["props"]["embedding"] = vec.tolist()
            self.cache.remember(text, vec)
