"""The operations both services offer, as a thin shell over :class:`~cogmem.api.Memory`.

One :class:`Service` per process: one base Memory (one driver pool, one embedder loaded
once), a Memory per group from :meth:`~cogmem.api.Memory.for_group`, and a bounded worker
pool — every blocking call runs on at most ``Limits.workers`` threads, waits at most
``Limits.timeout_s``, and a Neo4j that is down or slow becomes :class:`Unavailable` (503
with the reason), never a hang.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from pydantic import BaseModel, Field

from cogmem.api import ForgetSummary, Memory
from cogmem.models import Evidence
from cogmem.service.policy import ForgetIn
from cogmem.service.tokens import Grant
from cogmem.store import StoreError, Unreachable

log = logging.getLogger("cogmem.service")
T = TypeVar("T")


class Limits(BaseModel):
    """How much one process takes on, and how long it waits."""

    workers: int = Field(default=8, ge=1, le=256, description="threads for blocking calls")
    timeout_s: float = Field(default=60.0, gt=0, description="longest wait for one call")
    max_body_bytes: int = Field(default=1 << 20, ge=1024, description="JSON request bodies")
    max_upload_bytes: int = Field(default=32 << 20, ge=1024, description="ingest uploads")
    health_timeout_s: float = Field(default=2.0, gt=0)
    probe_timeout_s: float = Field(
        default=2.0, gt=0, description="the reachability check before a call (then 503)"
    )
    probe_every_s: float = Field(
        default=1.0, ge=0, description="a call this long after the last answer checks first"
    )
    read_timeout_s: float = Field(
        default=10.0, gt=0, description="longest wait for each part of a request (then 408)"
    )


class Unavailable(RuntimeError):
    """Neo4j is down or too slow, or the pool is saturated: HTTP 503 with this reason."""


class Forbidden(PermissionError):
    """The caller's grant does not allow this (another group, a write when read-only)."""


class EvidenceOut(BaseModel):
    """One piece of evidence: what was said, by whom, when, in which turn, verbatim."""

    type: str
    content: str
    quote: str | None = Field(default=None, description="the verbatim span of the turn")
    speaker: str | None = None
    time: datetime | None = Field(default=None, description="when the turn was said")
    turn_id: str | None = Field(default=None, description="the source's id of the turn")
    turn_node_id: str | None = None
    record_id: str
    score: float
    status: str | None = None

    @classmethod
    def of(cls, ev: Evidence) -> EvidenceOut:
        return cls(
            type=ev.type,
            content=ev.content,
            quote=ev.quote or ev.turn_text,
            speaker=ev.speaker,
            time=ev.turn_at,
            turn_id=ev.turn_source_id,
            turn_node_id=ev.turn_id,
            record_id=ev.record_id,
            score=round(ev.score, 4),
            status=ev.status,
        )


class Remembered(BaseModel):
    group: str
    conversation: str
    turns: int
    records: dict[str, int]  # stored, by type; empty for a queued turn (not extracted yet)
    queued: bool = False  # answered once stored: written behind, in order (Memory.queue_turn)
    turn_id: str | None = None  # the client's id for the turn, when it gave one


class ContextOut(BaseModel):
    text: str
    tokens: int
    budget: int
    evidence: list[EvidenceOut]


class AnswerOut(BaseModel):
    answer: str
    intent: str | None
    evidence: list[EvidenceOut]
    as_of: datetime | None = None
    """The time the answer speaks for (memory as it stood then); null: now."""


class IngestOut(BaseModel):
    group: str
    format: str | None
    conversations: int
    turns: int
    records: dict[str, int]  # the distinct nodes stored, by type
    extracted: dict[str, int]  # the records extracted (a person named twice counts 2)
    skipped_turns: int


class Service:
    """The operations, each checked against a :class:`Grant` and run in the pool."""

    def __init__(self, memory: Memory, limits: Limits | None = None, allow_forget: bool = False):
        self.memory = memory
        self.limits = limits or Limits()
        self.allow_forget = allow_forget
        self.tokens = memory.admin.tokens()
        self._limiter: anyio.CapacityLimiter | None = None
        self._probes: anyio.CapacityLimiter | None = None
        self._answered = 0.0  # monotonic time of Neo4j's last answer
        self._groups: dict[str, Memory] = {}
        self._lock = threading.Lock()

    # -- plumbing --------------------------------------------------------------------
    def limiter(self) -> anyio.CapacityLimiter:
        """The worker pool's bound (created inside the event loop on first use)."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.limits.workers)
        return self._limiter

    def for_group(self, group: str) -> Memory:
        with self._lock:
            mem = self._groups.get(group)
            if mem is None:
                mem = self._groups[group] = self.memory.for_group(group)
            return mem

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking call on the bounded pool; Neo4j trouble → :class:`Unavailable`.

        Unless Neo4j answered within ``probe_every_s``, a one-round-trip check (not
        retried, at most ``probe_timeout_s``) comes first: a Neo4j that is down costs a
        request that long, never the driver's retry window."""
        await self.reachable()
        timeout = self.limits.timeout_s
        try:
            with anyio.fail_after(timeout):
                done = await self._watched(functools.partial(fn, *args, **kwargs))
        except TimeoutError:
            raise Unavailable(f"no answer within {timeout:.0f} s (Neo4j slow or busy)") from None
        except Unreachable as exc:
            self._answered = 0.0
            raise Unavailable(str(exc)) from None
        except StoreError as exc:
            raise Unavailable(f"Neo4j error: {exc}") from None
        self._answered = time.monotonic()
        return done

    async def _watched(self, work: Callable[[], T]) -> T:
        """``work`` on the pool while Neo4j is checked every ``probe_every_s`` (unless it
        answered meanwhile): a Neo4j that goes away during the call is :class:`Unavailable`
        within ``probe_timeout_s`` or so, as for a new call, not after the driver's retry
        window (the thread finishes behind, its outcome dropped)."""
        outcome: dict[str, Any] = {}
        every = max(self.limits.probe_every_s, 0.2)
        async with anyio.create_task_group() as tasks:

            async def run() -> None:
                try:
                    outcome["done"] = await anyio.to_thread.run_sync(
                        work, limiter=self.limiter(), abandon_on_cancel=True
                    )
                except Exception as exc:
                    outcome["error"] = exc
                tasks.cancel_scope.cancel()

            async def watch() -> None:
                while True:
                    await anyio.sleep(every)
                    try:
                        await self.reachable()
                    except Unavailable as exc:
                        outcome["error"] = exc
                        tasks.cancel_scope.cancel()
                        return

            tasks.start_soon(run)
            tasks.start_soon(watch)
        if "done" in outcome:  # done, even if the check failed meanwhile
            done: T = outcome["done"]
            return done
        raise outcome["error"]

    async def reachable(self) -> None:
        """:class:`Unavailable` within ``probe_timeout_s`` unless Neo4j answers (skipped
        when it answered in the last ``probe_every_s``)."""
        if time.monotonic() - self._answered < self.limits.probe_every_s:
            return
        if self._probes is None:  # its own few threads: a stuck probe never takes a worker
            self._probes = anyio.CapacityLimiter(4)
        timeout = self.limits.probe_timeout_s
        try:
            with anyio.fail_after(timeout):
                await anyio.to_thread.run_sync(
                    self.memory.admin.probe,
                    limiter=self._probes,
                    abandon_on_cancel=True,
                )
        except TimeoutError:
            raise Unavailable(f"Neo4j did not answer within {timeout:g} s") from None
        except Unreachable as exc:
            raise Unavailable(str(exc)) from None
        except StoreError as exc:
            raise Unavailable(f"Neo4j error: {exc}") from None
        self._answered = time.monotonic()

    def authorize(self, grant: Grant, group: str, write: bool = False) -> Memory:
        if not grant.allows(group):
            raise Forbidden(f"this token may not use group {group!r}")
        if write and not grant.may_write():
            raise Forbidden("this token is read-only")
        return self.for_group(group)

    def health(self) -> dict[str, Any]:
        self.memory.admin.ping()
        return {"status": "ok", "neo4j": self.memory.settings.neo4j_uri}

    # -- operations (blocking; run them through `call`) ------------------------------
    def remember(
        self,
        grant: Grant,
        group: str,
        speaker: str,
        text: str,
        time: datetime | None = None,
        conversation: str = "live",
        wait: bool = True,
        turn_id: str | None = None,
    ) -> Remembered:
        """``wait=False``: store the raw turn, queue its write
        (:meth:`~cogmem.api.Memory.queue_turn`, durable) and answer; this group's later
        searches wait for it, a failed write is logged, a restart writes what was left.
        ``turn_id``: the client's id; a turn sent again with it changes nothing and is
        answered as the first time (its records read back from the graph)."""
        mem = self.authorize(grant, group, write=True)
        at = time if time is None or time.tzinfo else time.replace(tzinfo=UTC)
        if not wait:
            mem.queue_turn(
                speaker=speaker,
                text=text,
                at=at,
                conversation=conversation,
                source_id=turn_id,
                durable=True,
            )
            return Remembered(
                group=mem.group,
                conversation=conversation,
                turns=1,
                records={},
                queued=True,
                turn_id=turn_id,
            )
        summary = mem.add_turn(
            speaker=speaker, text=text, at=at, conversation=conversation, source_id=turn_id
        )
        stored = mem.live.turn_records(summary.turn_ids[0]) if summary.turn_ids else None
        return Remembered(
            group=mem.group,
            conversation=conversation,
            turns=summary.turns,
            records=stored if stored is not None else summary.nodes,
            turn_id=turn_id,
        )

    def resume_pending(self, groups: list[str] | None = None) -> int:
        """Queue the live turns that stopped writers had stored and not written, of
        ``groups`` (None: every group with such turns); returns how many. Each entry is
        claimed (:func:`cogmem.live.claim_pending`): one held by a live writer, in this
        process or another, is left to it, so no turn is written twice. Run before serving,
        so they keep their place in line, then every few seconds (:meth:`keep_resuming`)
        for what a writer killed just now leaves once its lease runs out."""
        found = self.memory.live.pending_groups()
        scope = [g for g in found if groups is None or g in groups]
        resumed = sum(self.for_group(g).live.resume_pending() for g in scope)
        if resumed:
            log.info("resumed %d stored live turns of %d groups", resumed, len(scope))
        return resumed

    def keep_resuming(self, groups: list[str] | None, every_s: float) -> threading.Event:
        """Resume stored live turns of ``groups`` every ``every_s`` seconds in a daemon
        thread (the outbox of a writer killed meanwhile, once its lease runs out); set the
        returned event to stop it."""
        stop = threading.Event()

        def run() -> None:
            while not stop.wait(every_s):
                try:
                    self.resume_pending(groups)
                except Exception as exc:  # Neo4j away: the next round tries again
                    log.warning("stored live turns not resumed this round: %s", exc)

        threading.Thread(target=run, name="cogmem-resume", daemon=True).start()
        return stop

    def search(
        self, grant: Grant, group: str, query: str, k: int = 10, as_of: str | None = None
    ) -> list[EvidenceOut]:
        mem = self.authorize(grant, group)
        return [EvidenceOut.of(ev) for ev in mem.search(query, k=k, as_of=as_of)]

    def context(
        self,
        grant: Grant,
        group: str,
        query: str,
        budget_tokens: int = 2000,
        as_of: str | None = None,
    ) -> ContextOut:
        mem = self.authorize(grant, group)
        block = mem.context_block(query, budget_tokens=budget_tokens, as_of=as_of)
        return ContextOut(
            text=block.text,
            tokens=block.tokens,
            budget=block.budget,
            evidence=[EvidenceOut.of(ev) for ev in block.included],
        )

    def ask(
        self, grant: Grant, group: str, question: str, k: int = 10, as_of: str | None = None
    ) -> AnswerOut:
        mem = self.authorize(grant, group)
        answer = mem.ask(question, k=k, as_of=as_of)
        return AnswerOut(
            answer=answer.text,
            intent=answer.intent,
            evidence=[EvidenceOut.of(ev) for ev in answer.evidence],
            as_of=answer.as_of,
        )

    def ingest(self, grant: Grant, group: str, path: Path, fmt: str = "auto") -> IngestOut:
        mem = self.authorize(grant, group, write=True)
        s = mem.ingest(path, fmt=fmt)
        return IngestOut(
            group=mem.group,
            format=s.format,
            conversations=s.conversations,
            turns=s.turns,
            records=s.nodes,
            extracted=s.records,
            skipped_turns=s.skipped_turns,
        )

    def forget(self, grant: Grant, group: str) -> int:
        if not self.allow_forget:
            raise Forbidden("forgetting a group is off (start the server with --allow-forget)")
        mem = self.authorize(grant, group, write=True)
        deleted = mem.forget()  # its stored, unwritten live turns too
        log.info("forgot group %s (%d nodes)", mem.group, deleted)
        return deleted

    # -- forgetting turns, a conversation, a span (issue 50) ---------------------------
    def _forgetting(self, grant: Grant, group: str) -> Memory:
        """The group's Memory if this server forgets and ``grant`` may write ``group``."""
        if not self.allow_forget:
            raise Forbidden("forgetting is off on this server (start it with --allow-forget)")
        return self.authorize(grant, group, write=True)

    def forget_what(self, grant: Grant, group: str, what: ForgetIn) -> ForgetSummary:
        """Forget ``what`` (turns, a conversation or a span) of ``group`` and what rests on
        it (:mod:`cogmem.forget`); the audit entry names the token (its id and name, never
        its secret). Raises :class:`~cogmem.forget.NothingToForget` (404) for a turn,
        conversation or span that holds nothing, before anything is written."""
        mem = self._forgetting(grant, group)
        actor = actor_of(grant)
        if what.turns is not None:
            summary = mem.forget_turns(
                what.turns, what.conversation, dry_run=what.dry_run, actor=actor
            )
        elif what.from_ is not None and what.to is not None:
            summary = mem.forget_span(
                what.from_, what.to, what.speaker, dry_run=what.dry_run, actor=actor
            )
        else:
            assert what.conversation is not None  # ForgetIn: one of the three forms
            summary = mem.forget_conversation(what.conversation, dry_run=what.dry_run, actor=actor)
        if not what.dry_run:  # counts and ids only: never a word of what was said
            log.info(
                "forgot %d turns and %d records of group %s (%s, audit %s, by %s)",
                summary.turn_count,
                summary.record_count,
                mem.group,
                summary.kind,
                summary.audit_id,
                actor,
            )
        return summary


def actor_of(grant: Grant) -> str:
    """Who asked, for an audit entry: the token's public id and name (never its secret);
    ``no-auth`` for a server without tokens."""
    if grant.token_id is None:
        return "no-auth"
    return f"token {grant.token_id}" + (f" ({grant.name})" if grant.name else "")
