"""The Python API: :class:`Memory`, one group's memory in one Neo4j database."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cogmem.answer import REASONING_PROMPT, ContextBlock, extractive_answer, llm_prompt, pack
from cogmem.config import Settings, load_settings
from cogmem.consolidate import ConsolidationReport, ConsolidationSettings
from cogmem.consolidate import consolidate as run_consolidation
from cogmem.embed import Embedder, embedder_identity, make_embedder
from cogmem.extract import Extractor, HeuristicExtractor
from cogmem.graph import conversation_id
from cogmem.ingest import Ingestor, IngestSummary, Progress
from cogmem.models import Answer, Conversation, Evidence, TraceStep, Turn
from cogmem.readers import read_file
from cogmem.retrieval import Controller, LLMRouter, RankWeights, Retrieval, RuleRouter
from cogmem.schema import SchemaReport, check_embedder, init_schema, recorded_embedder
from cogmem.store import Store


def make_extractor(settings: Settings) -> Extractor:
    """The heuristic extractor offline; the LLM one (falling back to it) when configured."""
    if settings.llm == "openai":
        from cogmem.extract.llm_extractor import LLMExtractor

        return LLMExtractor(settings, fallback=HeuristicExtractor())
    return HeuristicExtractor()


class Memory:
    """Long-term memory for one group (a user, an agent, a tenant).

    >>> mem = Memory.connect("bolt://localhost:7687", group="alice")  # doctest: +SKIP
    >>> mem.ingest("chat.jsonl")                                        # doctest: +SKIP
    """

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        self.group = settings.group
        self.store = store or Store(settings)
        self._owns_store = store is None
        self._embedder: Embedder | None = None
        self._extractor: Extractor | None = None
        self._schema_checked = False

    @classmethod
    def connect(cls, uri: str | None = None, group: str | None = None, **overrides: Any) -> Memory:
        """Connect with settings from the config file and environment, plus overrides."""
        return cls(load_settings({"neo4j_uri": uri, "group": group, **overrides}))

    def for_group(self, group: str) -> Memory:
        """The same database and models, another group."""
        other = Memory(self.settings.model_copy(update={"group": group}), store=self.store)
        other._embedder, other._extractor = self._embedder, self._extractor
        other._schema_checked = self._schema_checked
        return other

    # -- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def extractor(self) -> Extractor:
        if self._extractor is None:
            self._extractor = make_extractor(self.settings)
        return self._extractor

    def init(self) -> SchemaReport:
        """Create constraints and indexes (idempotent) and record the embedder."""
        name, dimension = embedder_identity(self.settings)
        report = init_schema(self.store, name, dimension)
        self._schema_checked = True
        return report

    def ensure_schema(self) -> None:
        """Create the schema on first use; refuse a store built with another embedder."""
        if self._schema_checked:
            return
        name, dimension = embedder_identity(self.settings)
        if recorded_embedder(self.store) is None:
            init_schema(self.store, name, dimension)
        else:
            check_embedder(self.store, name, dimension)
        self._schema_checked = True

    # -- ingest ----------------------------------------------------------------------
    def ingest(
        self,
        path: str | Path,
        fmt: str = "auto",
        progress: Progress | None = None,
        batch_size: int = 32,
    ) -> IngestSummary:
        """Read a whole file (rejecting it before any write if malformed) and store it."""
        result = read_file(Path(path), fmt)
        summary = self.ingest_conversations(
            result.conversations, progress=progress, batch_size=batch_size, fmt=result.format
        )
        summary.skipped_turns = len(result.skipped)
        return summary

    def ingest_conversations(
        self,
        conversations: list[Conversation],
        progress: Progress | None = None,
        batch_size: int = 32,
        fmt: str | None = None,
    ) -> IngestSummary:
        self.ensure_schema()
        ingestor = Ingestor(self.store, self.embedder, self.extractor, self.group, batch_size)
        return ingestor.ingest(conversations, progress=progress, fmt=fmt)

    def add_turn(
        self,
        speaker: str,
        text: str,
        at: datetime | None = None,
        conversation: str = "live",
        session: str | None = None,
        source_id: str | None = None,
    ) -> IngestSummary:
        """Append one turn of a live chat to ``conversation`` (created on first use)."""
        self.ensure_schema()
        tail_rows = self.store.read(
            "ingest/conversation_tail",
            group_id=self.group,
            conversation_id=conversation_id(self.group, conversation),
        )
        tail = tail_rows[0] if tail_rows else None
        index = int(tail["idx"]) + 1 if tail else 0
        turn = Turn(
            conversation=conversation,
            session=session or "1",
            session_index=int(session) if session and session.isdigit() else 1,
            index=index,
            source_id=source_id or f"T{index}",
            speaker=speaker.strip(),
            text=text,
            at=at or datetime.now(UTC),
        )
        speakers = [speaker.strip()]
        if tail and tail["speaker"] and tail["speaker"] != turn.speaker:
            speakers.append(tail["speaker"])
        conv = Conversation(id=conversation, speakers=speakers, turns=[turn], source_format="live")
        ingestor = Ingestor(self.store, self.embedder, self.extractor, self.group)
        return ingestor.append(conv, tail["id"] if tail else None)

    # -- retrieval -------------------------------------------------------------------
    def controller(self, weights: RankWeights | None = None) -> Controller:
        router = RuleRouter()
        if self.settings.llm == "openai":
            from cogmem.llm import LLMClient

            router = LLMRouter(LLMClient(self.settings), fallback=router)  # type: ignore[assignment]
        return Controller(self.store, self.group, self.embedder, router, weights)

    def retrieve(self, question: str, k: int = 10, dedupe: bool = True) -> Retrieval:
        """Evidence for a question, with the plan and the trace of what ran."""
        self.ensure_schema()
        return self.controller().run(question, k=k, dedupe=dedupe)

    def search(self, question: str, k: int = 10, dedupe: bool = True) -> list[Evidence]:
        """Ranked, grounded Evidence for a question (one per source turn by default)."""
        return self.retrieve(question, k=k, dedupe=dedupe).evidence

    def context(self, question: str, budget_tokens: int = 2000, k: int = 15) -> str:
        """A prompt block of the best evidence that fits ``budget_tokens`` (estimated)."""
        return self.context_block(question, budget_tokens, k).text

    def context_block(self, question: str, budget_tokens: int = 2000, k: int = 15) -> ContextBlock:
        retrieval = self.retrieve(question, k=k)
        return pack(retrieval.evidence, budget_tokens)

    def ask(self, question: str, k: int = 10, budget_tokens: int = 2000) -> Answer:
        """Answer from memory: with an LLM, a reasoning-aware prompt over the packed
        evidence; offline (or if the LLM fails), an extractive answer."""
        retrieval = self.retrieve(question, k=k)
        text = None
        if self.settings.llm == "openai":
            from cogmem.llm import LLMClient, LLMError

            block = pack(retrieval.evidence, budget_tokens)
            try:
                with LLMClient(self.settings) as client:
                    text = client.complete_text(REASONING_PROMPT, llm_prompt(question, block))
            except LLMError as exc:
                retrieval.trace.append(
                    TraceStep(
                        operator="answer",
                        detail=f"LLM failed ({exc}); extractive answer",
                        returned=0,
                    )
                )
        if text is None:
            text = extractive_answer(retrieval.plan, retrieval.evidence)
        return Answer(
            text=text,
            evidence=retrieval.evidence,
            trace=retrieval.trace,
            intent=retrieval.plan.intent,
        )

    # -- consolidation ---------------------------------------------------------------
    def consolidate(self, dry_run: bool = False, **options: Any) -> ConsolidationReport:
        """Run the offline rewrites (events → facts, claim reconciliation, CogCanvas links);
        idempotent; ``dry_run`` reports what would change and writes nothing."""
        self.ensure_schema()
        return run_consolidation(
            self.store,
            self.group,
            None if dry_run else self.embedder,
            self.settings,
            ConsolidationSettings(**options),
            dry_run=dry_run,
        )

    # -- inspection ------------------------------------------------------------------
    def counts(self) -> dict[str, Any]:
        """Node count, nodes by label and relationships by type, for this group."""
        row = self.store.read("admin/count_group", group=self.group)[0]
        return {
            "nodes": row["nodes"],
            "labels": dict(Counter(row["labels"])),
            "relationships": dict(Counter(row["types"])),
        }

    def forget(self, batch: int = 5000) -> int:
        """Delete every node and relationship of this group; returns the nodes deleted."""
        total = 0
        while True:
            deleted = self.store.write("admin/forget_group", group=self.group, batch=batch)
            n = int(deleted[0]["deleted"]) if deleted else 0
            total += n
            if n == 0:
                return total
