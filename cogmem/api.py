"""The Python API: :class:`Memory`, one group's memory in one Neo4j database.

Everything cogmem does goes through :class:`Memory` — the CLI and the benchmarks too. Its
clients (store, embedder, LLM client, extractor, router) live in a
:class:`~cogmem.clients.Clients`: built from the settings, or the user's own objects.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from cogmem import forget as forgetting
from cogmem.admin import Admin
from cogmem.answer import REASONING_PROMPT, ContextBlock, extractive_answer, llm_prompt, pack
from cogmem.answer_check import check_answer
from cogmem.api_checks import LocalTimesError, QuestionError, check_question, valid_group
from cogmem.clients import Clients
from cogmem.config import ConfigError, Settings, load_settings
from cogmem.consolidate import JOBS, ConsolidationReport, ConsolidationSettings, Job
from cogmem.consolidate import consolidate as run_consolidation
from cogmem.embed import Embedder
from cogmem.extract import Extractor
from cogmem.forget import ForgetError, ForgetSummary
from cogmem.ingest import Ingestor, IngestSummary, Progress, read_file
from cogmem.ingest.ingestor import KnownVectors
from cogmem.inspection import Inspect
from cogmem.live import Live, check_client_id, live_turn
from cogmem.llm import LLMClient, LLMError
from cogmem.models import Answer, Conversation, Evidence, TraceStep
from cogmem.retrieval import Retrieval
from cogmem.retrieval.router import Router
from cogmem.server.schema import EmbedderMismatch
from cogmem.store import Neo4jError, Row, Store, StoreError, Unreachable
from cogmem.temporal.as_of import describe_as_of, parse_as_of

if TYPE_CHECKING:
    from neo4j import Driver

    from cogmem.transfer import ExportFile, ImportSummary


AsOf = datetime | str | None
"""A time a search looks back from: a datetime, or text (``cogmem.temporal.as_of``)."""


@dataclass(frozen=True)
class _Transfer:
    """What export and import use of a Memory (:class:`cogmem.transfer.export.ExportSource`,
    :class:`cogmem.transfer.importer.ImportTarget`): its group, settings, store, embedder."""

    group: str
    settings: Settings
    store: Store
    embedder: Embedder
    ensure_schema: Callable[[], None]


class Memory:
    """Long-term memory for one group (a user, an agent, a tenant).

    >>> mem = Memory.connect("bolt://localhost:7687", group="alice")  # doctest: +SKIP
    >>> mem.ingest("chat.jsonl")                                        # doctest: +SKIP

    The users' verbs are its methods (ingest, add_turn, queue_turn, search, context, ask,
    history, consolidate, forget…, export, import_); administration, inspection and live
    writing are its namespaces :attr:`admin`, :attr:`inspect` and :attr:`live`.

    Bring your own clients with ``clients=`` (a :class:`~cogmem.clients.Clients`) or any of
    ``store=`` / ``driver=`` (a ``neo4j.Driver``), ``embedder=``, ``llm=`` (an
    :class:`~cogmem.llm.LLMClient`), ``extractor=``, ``router=``; the rest is built from
    ``settings``. Memory closes what it built, never what it was given.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        store: Store | None = None,
        *,
        clients: Clients | None = None,
        driver: Driver | None = None,
        embedder: Embedder | None = None,
        llm: LLMClient | None = None,
        extractor: Extractor | None = None,
        router: Router | None = None,
    ) -> None:
        given = (store, driver, embedder, llm, extractor, router)
        if clients is not None and any(x is not None for x in given):
            raise ConfigError("pass clients= or the objects themselves, not both")
        if settings is None:
            settings = clients.settings if clients is not None else load_settings()
        self.group = valid_group(settings.group)
        self.settings = settings
        self._owns_clients = clients is None
        self.clients = clients or Clients(
            settings,
            store=store,
            driver=driver,
            embedder=embedder,
            llm=llm,
            extractor=extractor,
            router=router,
        )
        self._known_vectors = KnownVectors()  # what this group's writes already embedded
        self._admin = Admin(self.group, settings, self.clients)
        self._inspect = Inspect(self.group, self.clients)
        self._live = Live(self.group, self.clients, self._admin.ensure_schema, self._known_vectors)

    @classmethod
    def connect(cls, uri: str | None = None, group: str | None = None, **overrides: Any) -> Memory:
        """Connect with settings from the config file and environment, plus overrides."""
        return cls(load_settings({"neo4j_uri": uri, "group": group, **overrides}))

    def for_group(self, group: str) -> Memory:
        """The same database and clients (store, models, LLM), another group."""
        update = {"group": valid_group(group)}
        other = Memory(self.settings.model_copy(update=update), clients=self.clients)
        other.admin.schema_checked = self.admin.schema_checked
        return other

    # -- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        """Close the clients this Memory built (a ``for_group`` Memory closes nothing)."""
        if self._owns_clients:
            self.clients.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the clients and the namespaces -------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        return self.clients.embedder

    @property
    def llm(self) -> LLMClient | None:
        """The LLM client; None when no LLM is configured (``llm = "none"``) or given."""
        return self.clients.llm

    @property
    def extractor(self) -> Extractor:
        return self.clients.extractor

    @property
    def router(self) -> Router:
        return self.clients.router

    @property
    def admin(self) -> Admin:
        """Schema, embedder, server, repairs and API tokens (:class:`~cogmem.admin.Admin`)."""
        return self._admin

    @property
    def inspect(self) -> Inspect:
        """What the group holds, read back, and the search's parts
        (:class:`~cogmem.inspection.Inspect`)."""
        return self._inspect

    @property
    def live(self) -> Live:
        """Live writing around :meth:`add_turn` / :meth:`queue_turn`: ``flush``,
        ``resume_pending``, ``pending_groups``, ``turn_records`` (:class:`~cogmem.live.Live`)."""
        return self._live

    @property
    def _store(self) -> Store:
        """The store (core modules only: tests/unit/test_layering.py)."""
        return self.clients.store

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
        self.admin.ensure_schema()
        ingestor = Ingestor(
            self._store, self.embedder, self.extractor, self.group, batch_size, self._known_vectors
        )
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
        """Append one turn of a live chat to ``conversation`` (created on first use) and
        return once it is written. :meth:`queue_turn` returns at once instead.

        ``at``: when it was said (default: now); a naive datetime is taken as UTC.
        ``source_id``: the caller's id for the turn (default ``@<index>``; a caller's id may
        not start with ``@``: :class:`~cogmem.live.TurnIdError`); a turn added again with the same
        id, speaker and text changes nothing, and its summary is read back; with another
        speaker or text it is refused (:class:`~cogmem.live.TurnIdConflict`)."""
        check_client_id(source_id)
        return self.live.add(live_turn(speaker, text, at, conversation, session), source_id)

    def queue_turn(
        self,
        speaker: str,
        text: str,
        at: datetime | None = None,
        conversation: str = "live",
        session: str | None = None,
        source_id: str | None = None,
        durable: bool = False,
    ) -> Future[IngestSummary]:
        """Append one turn of a live chat without waiting for its write: the turn is
        checked and time-stamped (``at`` default: now) here, written by a background
        thread in the order turns were queued, exactly as :meth:`add_turn` writes it.

        A search of this group through these clients waits for the turns queued before it;
        ``live.flush()`` waits for all and raises :class:`~cogmem.live.LiveWriteError` if a
        write failed; ``close()`` writes what is queued (see :mod:`cogmem.live`).

        ``durable``: return only once the raw turn is stored (an outbox entry its write
        deletes; ``live.resume_pending()`` writes what a crash left). With ``source_id``, a
        turn written or queued already is not queued again (a done future); one stored or
        queued under that id with another speaker or text raises
        :class:`~cogmem.live.TurnIdConflict`."""
        check_client_id(source_id)
        turn = live_turn(speaker, text, at, conversation, session)
        return self.live.queue(turn, source_id, durable)

    # -- retrieval -------------------------------------------------------------------
    def retrieve(
        self, question: str, k: int = 10, dedupe: bool = True, as_of: AsOf = None
    ) -> Retrieval:
        """Evidence for a question, with the plan and the trace of what ran.

        ``as_of`` (a datetime, or text such as ``"2024-03-01"`` or ``"1 March 2024"``: the
        end of that day) searches memory as it stood then: only turns said by then, and
        each record with the status it had then (a claim superseded later is current).

        Raises :class:`QuestionError` for an empty question, :class:`AsOfError` for a time
        it cannot read, :class:`LocalTimesError` when the group holds times without a time
        zone (repair: ``cogmem doctor --fix``)."""
        check_question(question)
        when = parse_as_of(as_of)
        self.admin.ensure_schema()
        self.clients.live.settle(self.group)  # reads the turns queued before it
        try:
            with self.clients.search_slots:  # at most search_concurrency at once
                return self.inspect.controller(as_of=when).run(question, k=k, dedupe=dedupe)
        except Neo4jError as exc:
            raise self._local_times(exc) from exc

    def search(
        self, question: str, k: int = 10, dedupe: bool = True, as_of: AsOf = None
    ) -> list[Evidence]:
        """Ranked, grounded Evidence for a question (one per source turn by default);
        ``as_of`` as for :meth:`retrieve`."""
        return self.retrieve(question, k=k, dedupe=dedupe, as_of=as_of).evidence

    def context(
        self, question: str, budget_tokens: int = 2000, k: int = 15, as_of: AsOf = None
    ) -> str:
        """A prompt block of the best evidence that fits ``budget_tokens`` (estimated)."""
        return self.context_block(question, budget_tokens, k, as_of=as_of).text

    def context_block(
        self, question: str, budget_tokens: int = 2000, k: int = 15, as_of: AsOf = None
    ) -> ContextBlock:
        retrieval = self.retrieve(question, k=k, as_of=as_of)
        return pack(retrieval.evidence, budget_tokens)

    def ask(
        self, question: str, k: int = 10, budget_tokens: int = 2000, as_of: AsOf = None
    ) -> Answer:
        """Answer from memory: with an LLM, a reasoning-aware prompt over the packed
        evidence, kept when it holds against that evidence
        (:func:`~cogmem.answer_check.check_answer`); offline, or when the LLM fails or its
        answer does not hold, an extractive answer. The trace says which it was. With
        ``as_of``, from memory as it stood then; the answer names that time."""
        retrieval = self.retrieve(question, k=k, as_of=as_of)
        text = None
        llm = self.llm
        if llm is not None:
            block = pack(retrieval.evidence, budget_tokens)
            try:
                text = llm.complete_text(REASONING_PROMPT, llm_prompt(question, block))
            except LLMError as exc:
                retrieval.trace.append(
                    TraceStep(
                        operator="answer",
                        detail=f"LLM failed ({exc}); extractive answer",
                        returned=0,
                    )
                )
            if text is not None:
                ids = [e.turn_source_id for e in block.included if e.turn_source_id]
                check = check_answer(text, question, block.text, ids)
                verdict = "kept" if check.holds else "extractive answer instead"
                retrieval.trace.append(
                    TraceStep(
                        operator="answer",
                        detail=f"LLM answer {verdict}: {check.reason}",
                        returned=1 if check.holds else 0,
                    )
                )
                if not check.holds:
                    text = None
        answered_by: Literal["llm", "extractive"] = "llm"
        if text is None:
            text = extractive_answer(retrieval.plan, retrieval.evidence)
            answered_by = "extractive"
        if retrieval.as_of is not None:
            text = f"As of {describe_as_of(retrieval.as_of)}: {text}"
        return Answer(
            text=text,
            evidence=retrieval.evidence,
            trace=retrieval.trace,
            intent=retrieval.plan.intent,
            answered_by=answered_by,
            as_of=retrieval.as_of,
        )

    # -- consolidation ---------------------------------------------------------------
    def consolidate(
        self, dry_run: bool = False, jobs: Sequence[str] | None = None, **options: Any
    ) -> ConsolidationReport:
        """Run the offline rewrites (events → facts, claim reconciliation, CogCanvas links);
        idempotent; ``dry_run`` reports what would change and writes nothing.

        ``jobs``: a subset of ``("facts", "claims", "links")`` (default: all, always run in
        that order); ``options``: :class:`~cogmem.consolidate.ConsolidationSettings` fields,
        over the cosine thresholds of this memory's embedder. The embedder is loaded only
        when Facts are written; the LLM (if any) words them."""
        config = ConsolidationSettings.for_embedder(self.clients.embedder_identity()[0], **options)
        chosen = tuple(jobs) if jobs is not None else JOBS
        unknown = sorted(set(chosen) - set(JOBS))
        if unknown:
            raise ValueError(f"unknown consolidation job(s): {', '.join(unknown)}")
        self.admin.ensure_schema()
        self.clients.live.settle(self.group)
        try:
            return run_consolidation(
                self._store,
                self.group,
                self.embedder if not dry_run and "facts" in chosen else None,
                config,
                llm=self.llm,
                dry_run=dry_run,
                jobs=cast("tuple[Job, ...]", chosen),
            )
        except Neo4jError as exc:
            raise self._local_times(exc) from exc

    def _local_times(self, exc: Neo4jError) -> Exception:
        """A clear error for a group with LOCAL DATETIME values; other errors unchanged."""
        if "epoch" not in str(exc.message or exc).lower():
            return exc
        return LocalTimesError(
            f"group {self.group!r} holds times without a time zone (written from naive "
            f"datetimes by an older cogmem): run `cogmem doctor --group {self.group} --fix`"
        )

    # -- export and import -----------------------------------------------------------
    def export(self, embeddings: bool = True) -> ExportFile:
        """This group as one document: nodes, relationships, vectors unless
        ``embeddings=False`` (write it with :func:`cogmem.transfer.write_export`)."""
        from cogmem.transfer import export_group

        self.clients.live.settle(self.group)
        return export_group(self._transfer(), embeddings=embeddings)

    def import_(
        self, data: ExportFile | str | Path, reembed: bool = False, path: str | Path = "<export>"
    ) -> ImportSummary:
        """Import an export (a document, or the path of a file) into this group
        (idempotent); vectors of another embedder are refused unless ``reembed``."""
        from cogmem.transfer import import_group, read_export

        if isinstance(data, str | Path):
            path, data = data, read_export(data)
        return import_group(self._transfer(), data, reembed=reembed, path=path)

    def _transfer(self) -> _Transfer:
        return _Transfer(
            self.group, self.settings, self._store, self.embedder, self.admin.ensure_schema
        )

    # -- history -------------------------------------------------------------------------
    def history(self, person: str, about: str | None = None) -> list[Row]:
        """``person``'s opinions and plans over time, oldest first (only those ``about`` a
        person or thing, by its words, when given): each with ``valid_from`` (said),
        ``valid_to`` (when what replaced, did or called it off was said; None: it holds),
        ``opened_as`` and ``status_now``, and the turns that opened and closed it
        (``opened_by``/``opened_quote``, ``closed_by``/``closed_quote``, ``how``). The
        Browser kit's ``person_history`` query."""
        if not person.strip():
            raise QuestionError("the person is empty: give a name, e.g. cogmem history Lena")
        self.clients.live.settle(self.group)
        return self._store.read(
            "browser/person_history",
            group=self.group,
            person=person.strip(),
            about=about.strip() if about and about.strip() else None,
        )

    # -- forgetting turns, a conversation, a span (issue 50; cogmem.forget) ------------
    def forget_turns(
        self,
        turns: Sequence[str],
        conversation: str | None = None,
        *,
        dry_run: bool = False,
        actor: str | None = None,
    ) -> ForgetSummary:
        """Forget turns and exactly what rests on them (:mod:`cogmem.forget`). ``turns``:
        source ids (LoCoMo ``D1:3``) of ``conversation`` (its source id), or without one node
        ids or source ids that one conversation holds. Raises :class:`ForgetError` (nothing
        changed) for an id that names no turn. ``dry_run``: only say what would go."""
        found = forgetting.resolve_turns(self._store, self.group, turns, conversation)
        return self._forget_turns("turns", found, dry_run, actor)

    def forget_conversation(
        self, conversation: str, *, dry_run: bool = False, actor: str | None = None
    ) -> ForgetSummary:
        """Forget a whole conversation (source id or node id) and what rests on it."""
        _, found = forgetting.conversation_turns(self._store, self.group, conversation)
        return self._forget_turns("conversation", found, dry_run, actor)

    def forget_span(
        self,
        start: datetime | str,
        end: datetime | str,
        speaker: str | None = None,
        *,
        dry_run: bool = False,
        actor: str | None = None,
    ) -> ForgetSummary:
        """Forget the turns said from ``start`` to ``end`` (ISO dates or times, both
        included; a date is its whole day), by ``speaker`` when given."""
        found = forgetting.span_turns(self._store, self.group, start, end, speaker)
        return self._forget_turns("span", found, dry_run, actor)

    def _forget_turns(
        self,
        kind: forgetting.Kind,
        found: list[forgetting.ForgottenTurn],
        dry_run: bool,
        actor: str | None,
    ) -> ForgetSummary:
        self.admin.ensure_schema()
        self.clients.live.settle(self.group)  # the turns queued before it are written first
        config = ConsolidationSettings.for_embedder(self.clients.embedder_identity()[0])
        summary = forgetting.forget(
            self._store,
            self.group,
            kind,
            found,
            embedder=None if dry_run else self.embedder,
            extractor=self.extractor,
            llm=self.llm,
            config=config,
            dry_run=dry_run,
            actor=actor,
        )
        if not dry_run:
            self._known_vectors.clear()  # no vector of a forgotten text stays in this process
        return summary

    def forget(self, batch: int = 5000) -> int:
        """Delete every node and relationship of this group; returns the nodes deleted."""
        total = 0
        self.clients.live.settle(self.group)  # no queued turn written after the delete
        self._known_vectors.clear()
        self._store.write("live/drop_pending_group", group=self.group)
        while True:
            deleted = self._store.write("admin/forget_group", group=self.group, batch=batch)
            n = int(deleted[0]["deleted"]) if deleted else 0
            total += n
            if n == 0:
                self._store.write("admin/forget_group_vectors", group=self.group)
                return total


__all__ = [
    "Clients",
    "EmbedderMismatch",
    "ForgetError",
    "ForgetSummary",
    "LocalTimesError",
    "Memory",
    "QuestionError",
    "StoreError",
    "Unreachable",
]
