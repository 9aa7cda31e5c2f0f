"""Live turns written behind the caller: :meth:`cogmem.api.Memory.queue_turn`.

A live turn costs its forward passes, a context read and one write transaction: 50-200 ms
on a small CPU (``cogmem bench ingest``), more than a chat loop should wait for. The
queue takes the turn (validated, its time stamped), returns at once, and one writer thread
per :class:`~cogmem.clients.Clients` appends queued turns in the order they were queued,
each exactly as :meth:`~cogmem.api.Memory.add_turn` would.

Consistency: a search through any :class:`~cogmem.api.Memory` of the same group, sharing
these clients, first waits for the group's queued turns (:meth:`LiveQueue.settle`), so it
reads what was queued before it. Other processes see a turn once it is written.

Durability: a queued turn is in this process's memory until its write commits. ``close()``
and the end of the interpreter wait for the queue; a crash loses what was queued and not
yet written (``mem.inspect.turns()`` shows which were written: send the rest again)
— unless it was queued with ``durable=True``: then its raw turn is stored first, in an
outbox entry (:func:`store_pending`) that the turn's own write deletes in its transaction,
and :meth:`Live.resume_pending` (a server at start, then every few seconds)
writes what a crash left.

Exactly once: every outbox entry names the writer that holds it (:class:`Outbox`, one per
:class:`~cogmem.clients.Clients`), and that writer beats a heartbeat in the database while it
holds entries. Another writer takes an entry only once its holder's beat is older than the
lease (:data:`LEASE_S`), or at once when the holder's process is gone from this host (a
server killed and restarted), and the turn's write deletes the entry
only if its writer still holds it, in the same transaction, or is abandoned: two writers can
both try a turn, one of them writes it.

Ids: a turn sent without an id gets ``@<index>`` (``@0``, ``@1``, …); a client's id may not
start with ``@`` (:func:`check_client_id`), so the two can never be equal. A turn's write
runs under its conversation's append lock and checks that the conversation's last turn is
still the one it was planned after and that no turn holds its id, else it is planned again
(:class:`AppendConflict`): one chain per conversation, and no write replaces a turn it did
not create. A client id sent again with another speaker or text is refused
(:class:`TurnIdConflict`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from neo4j.exceptions import DriverError

from cogmem.embed import Embedder
from cogmem.extract import Extractor
from cogmem.ingest.ids import conversation_id, turn_id
from cogmem.ingest.ingestor import Ingestor, IngestSummary, KnownVectors, WriteGuard, embed_ahead
from cogmem.ingest.rows import speaker_text
from cogmem.models import Conversation, Turn, check_time
from cogmem.store import Row, Store

log = logging.getLogger(__name__)

T = TypeVar("T")


def live_turn(
    speaker: str,
    text: str,
    at: datetime | None = None,
    conversation: str = "live",
    session: str | None = None,
) -> Turn:
    """A live turn as the caller gave it, checked before anything is written: its index
    (its conversation's next) and source id are set when it is written. ``at`` default: now,
    taken here (a queued turn keeps the time it was said); a naive datetime is UTC.

    Raises :class:`ValueError` with a one-line message for a blank speaker or conversation
    or a text that is not a string."""
    if not isinstance(speaker, str) or not speaker.strip():
        raise ValueError("the speaker is empty: say who said the turn, e.g. 'alice'")
    if not isinstance(conversation, str) or not conversation.strip():
        raise ValueError("the conversation is empty: name it, e.g. 'live'")
    if not isinstance(text, str):
        raise ValueError(f"the text must be a string, not {type(text).__name__}")
    if at is not None:
        if not isinstance(at, datetime):
            raise ValueError(f"the turn's time must be a datetime, not {type(at).__name__}")
        check_time(at)  # one line for a time out of range, before the Turn is built
    return Turn(
        conversation=conversation,
        session=session or "1",
        session_index=int(session) if session and session.isdigit() else 1,
        index=0,
        source_id="draft",
        speaker=speaker.strip(),
        text=text,
        at=at or datetime.now(UTC),
    )


GENERATED_PREFIX = "@"
"""Ids cogmem gives turns sent without one start with it (``@<index>``); a client's may not."""


def generated_id(index: int) -> str:
    """The id of a live turn sent without one: ``@<its index in the conversation>``."""
    return f"{GENERATED_PREFIX}{index}"


class TurnIdError(ValueError):
    """A client's turn id that cogmem keeps for its own ids."""


class TurnIdConflict(ValueError):
    """A client's turn id sent again with another speaker or text (HTTP 409)."""


def check_client_id(source_id: str | None) -> None:
    """Refuse a client's turn id that starts as cogmem's own ids do (``@7``), is blank, or
    has spaces or control characters, with a one-line :class:`TurnIdError`."""
    if source_id is None:
        return
    if not isinstance(source_id, str) or not source_id.strip():
        raise TurnIdError("the turn's id is empty: leave it out, or give a non-blank id")
    if any(c.isspace() or not c.isprintable() for c in source_id):
        raise TurnIdError("the turn's id must have no spaces or control characters")
    if source_id.startswith(GENERATED_PREFIX):
        raise TurnIdError(
            f"turn ids starting with {GENERATED_PREFIX!r} are the ones cogmem gives turns "
            "sent without an id: choose another"
        )


def check_same_turn(source_id: str, turn: Turn, speaker: str | None, text: str | None) -> None:
    """Raise :class:`TurnIdConflict` unless the turn stored (or queued) under the client id
    ``source_id`` has ``turn``'s speaker and text: a resend, not another turn."""
    if (speaker, text) != (turn.speaker, turn.text):
        raise TurnIdConflict(
            f"turn id {source_id!r} is taken by another turn of this conversation (another "
            "speaker or text): send the same turn again, or give this one a new id"
        )


class AppendConflict(RuntimeError):
    """A live turn's write found its conversation changed since its append was planned
    (another writer appended, or stored this turn): the transaction is abandoned."""


class TakenElsewhere(RuntimeError):
    """A stored live turn's outbox entry was gone or held by another writer when its write
    came to delete it: another writer wrote it (or is writing it); this write is abandoned."""


LEASE_S = float(os.environ.get("COGMEM_OUTBOX_LEASE_S", "30"))
"""How long a writer's heartbeat lasts: past it, the outbox entries it held may be taken by
another writer (a process killed mid-write loses them after this long)."""


class Outbox:
    """One writer of outbox entries: its name (``owner``), and the heartbeat that keeps the
    entries it holds its own (:data:`LEASE_S`), beaten by a daemon thread every third of
    the lease from the first entry it stores or claims until :meth:`close`."""

    def __init__(self, lease_s: float = LEASE_S, host: str | None = None) -> None:
        self.owner = uuid.uuid4().hex
        self.lease_s = lease_s
        self.host = host or socket.gethostname()
        self.pid = os.getpid()
        self._store: Store | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def beat(self, store: Store) -> None:
        """Beat now, and keep beating in the background (first call starts the thread)."""
        self._beat(store)
        with self._lock:
            if self._thread is None and not self._stop.is_set():
                self._store = store
                self._thread = threading.Thread(
                    target=self._run, name="cogmem-outbox-beat", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            store = self._store
            if store is None:
                return
            try:
                self._beat(store)
            except DriverError as exc:
                if type(exc) is DriverError:  # its driver was closed (a store it was lent)
                    return
                log.warning("outbox heartbeat failed: %s", exc)  # Neo4j away: beat again
            except Exception as exc:  # the next beat tries again; the lease covers a miss
                log.warning("outbox heartbeat failed: %s", exc)

    def _beat(self, store: Store) -> None:
        store.write("live/writer_beat", owner=self.owner, host=self.host, pid=self.pid)

    def gone(self, host: str | None, pid: int | None) -> bool:
        """Whether a writer that beat from ``host`` as process ``pid`` has stopped, as far
        as this host can tell: only a process of this host can be looked up."""
        if host != self.host or pid is None:
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except OSError:  # alive, another user's
            return False
        return False

    def close(self) -> None:
        """Stop beating and remove the heartbeat: what this writer still holds is free."""
        self._stop.set()
        with self._lock:
            thread, store = self._thread, self._store
        if thread is not None:
            thread.join(timeout=2)
        if store is not None:
            try:
                store.write("live/writer_gone", owner=self.owner)
            except Exception as exc:  # the lease frees its entries in time all the same
                log.warning("outbox heartbeat not removed: %s", exc)


class Pending:
    """What :func:`store_pending` found: the turn written already, or queued already (a
    turn sent again with its id), else its new outbox entry ``key``; ``speaker`` and
    ``text``: those of the turn found under the id."""

    def __init__(
        self,
        key: str,
        written: bool,
        queued: bool,
        speaker: str | None = None,
        text: str | None = None,
    ) -> None:
        self.key, self.written, self.queued = key, written, queued
        self.speaker, self.text = speaker, text


def store_pending(
    store: Store,
    group: str,
    turn: Turn,
    source_id: str | None,
    tid: str | None,
    outbox: Outbox,
) -> Pending:
    """Store the raw turn in its outbox entry (one small write), held by ``outbox``,
    unless the turn ``tid`` (its node id, from the client's ``source_id``) is written or
    queued already."""
    outbox.beat(store)
    key = f"pending:{group}:{tid or uuid.uuid4().hex}"
    (row,) = store.write(
        "live/store_pending",
        key=key,
        turn_id=tid,
        group=group,
        conversation=turn.conversation,
        session=turn.session,
        speaker=turn.speaker,
        text=turn.text,
        at=turn.at,
        source_id=source_id,
        queued_ns=time.time_ns(),
        owner=outbox.owner,
    )
    return Pending(key, bool(row["written"]), bool(row["pending"]), row["speaker"], row["text"])


def _pending_rows(rows: list[dict[str, Any]]) -> list[tuple[str, Turn, str | None]]:
    found = []
    for row in rows:
        turn = live_turn(
            row["speaker"], row["text"], row["at"], row["conversation"], row["session"]
        )
        found.append((str(row["key"]), turn, row["source_id"]))
    return found


def pending_turns(store: Store, group: str) -> list[tuple[str, Turn, str | None]]:
    """The outbox entries of ``group``, oldest first: (key, the turn, its client id)."""
    return _pending_rows(store.read("live/pending_turns", group=group))


def claim_pending(store: Store, group: str, outbox: Outbox) -> list[tuple[str, Turn, str | None]]:
    """Take the outbox entries of ``group`` that no live writer holds (their holder's beat
    older than the lease or gone, or its process gone from this host), for ``outbox``;
    oldest first."""
    outbox.beat(store)
    free = [
        str(row["owner"])
        for row in store.read("live/pending_writers", group=group)
        if row["owner"] != outbox.owner and outbox.gone(row["host"], row["pid"])
    ]
    rows = store.write(
        "live/claim_pending",
        group=group,
        owner=outbox.owner,
        free=free,
        lease_ms=int(outbox.lease_s * 1000),
    )
    return _pending_rows(rows)


class LiveWriteError(RuntimeError):
    """A queued live turn could not be written; ``failures`` counts them since the last
    flush, ``__cause__`` is the first one's error."""

    def __init__(self, message: str, failures: int) -> None:
        super().__init__(message)
        self.failures = failures


MAX_QUEUED = 1000
"""Turns queued and not yet written, at most: past it, queuing waits for room (a producer
faster than the writer slows to its pace instead of growing memory without bound)."""


_STRIPES = 64
"""Locks that order the appends of one conversation (a conversation hashes to one)."""


class LiveQueue:
    """One writer thread, first in first out, for the live turns of every group; at most
    ``limit`` of them waiting. Also the locks that put one conversation's appends in a row
    (:meth:`appending`), queued or not."""

    def __init__(self, limit: int = MAX_QUEUED) -> None:
        self._stripes = [threading.Lock() for _ in range(_STRIPES)]
        self._room = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._last: dict[str, Future[Any]] = {}  # each group's latest queued write
        self._failures: list[tuple[str, BaseException]] = []
        self._closed = False

    def submit(self, group: str, label: str, work: Callable[[], T]) -> Future[T]:
        """Queue ``work`` (one turn's write, ``label`` names it in errors) for ``group``;
        waits while the queue is full."""
        self._room.acquire()
        try:
            with self._lock:
                if self._closed:
                    raise RuntimeError("this Memory is closed: open a new one to add turns")
                if self._executor is None:
                    # not a daemon: the interpreter waits for queued turns before it exits
                    self._executor = ThreadPoolExecutor(1, thread_name_prefix="cogmem-live")
                future = self._executor.submit(work)
                self._last[group] = future
        except BaseException:
            self._room.release()
            raise
        future.add_done_callback(lambda done: self._done(group, label, done))
        return future

    def appending(self, group: str, conversation: str) -> threading.Lock:
        """The lock to hold while appending to ``conversation`` of ``group``: its next index
        is read, then written, so two appends at once would take the same one (measured
        before this lock: four threads, 20 add_turn calls, 11 turns kept and deadlocks)."""
        return self._stripes[hash((group, conversation)) % _STRIPES]

    def _done(self, group: str, label: str, future: Future[Any]) -> None:
        self._room.release()
        exc = future.exception()
        with self._lock:
            if self._last.get(group) is future:
                del self._last[group]
            if exc is not None:
                self._failures.append((label, exc))
        if exc is not None:
            log.error("live turn %s of group %r not written: %s", label, group, exc)

    def pending(self, group: str | None = None) -> bool:
        """Whether turns of ``group`` (of any group when None) are queued or being written."""
        with self._lock:
            return bool(self._last) if group is None else group in self._last

    def settle(self, group: str) -> None:
        """Wait until the turns queued for ``group`` so far are written (or failed)."""
        with self._lock:
            last = self._last.get(group)
        if last is not None:
            wait_all([last])  # FIFO: the group's earlier turns are done before its last

    def flush(self) -> None:
        """Wait for every queued turn; raise :class:`LiveWriteError` for the first write
        that failed since the last flush (the failures are then forgotten)."""
        with self._lock:
            waiting = list(self._last.values())
        wait_all(waiting)
        with self._lock:
            failures, self._failures = self._failures, []
        if failures:
            label, first = failures[0]
            more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
            raise LiveWriteError(
                f"live turn {label} was not written{more}: {first}", len(failures)
            ) from first

    def close(self) -> None:
        """Write what is queued, then stop the writer; later submits raise."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


class LiveClients(Protocol):
    """What :class:`Live` uses of a :class:`~cogmem.clients.Clients` (which imports this
    module, so it is named by what it offers)."""

    @property
    def store(self) -> Store: ...

    @property
    def live(self) -> LiveQueue: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def extractor(self) -> Extractor: ...


class Live:
    """Live writing of one group (:attr:`cogmem.api.Memory.live`): the writes behind
    :meth:`~cogmem.api.Memory.add_turn` and :meth:`~cogmem.api.Memory.queue_turn`
    (:meth:`add`, :meth:`queue`), and what a chat loop or a server does around them:
    :meth:`flush`, :meth:`resume_pending`, :meth:`pending_groups`, :meth:`turn_records`."""

    APPEND_TRIES = 16
    """How often a live turn's write is planned again when another writer appended to its
    conversation first (:class:`AppendConflict`). Every failed try is another writer's
    success, so a writer gives up only while others keep appending to the same conversation
    faster than it can plan once: 8 was seen to run out on a loaded machine with two
    writers of 8 turns each (the other writer's whole burst)."""

    def __init__(
        self,
        group: str,
        clients: LiveClients,
        ensure_schema: Callable[[], None],
        known_vectors: KnownVectors,
    ) -> None:
        self.group = group
        self.clients = clients
        self._ensure_schema = ensure_schema
        self._known_vectors = known_vectors

    # -- what a chat loop or a server calls ------------------------------------------------
    def flush(self) -> None:
        """Wait until every queued live turn (``queue_turn``) is written; raises
        :class:`LiveWriteError` for a write that failed since the last flush."""
        self.clients.live.flush()

    def resume_pending(self) -> int:
        """Queue this group's live turns that were stored (``durable``) and that no live
        writer holds (a process that stopped or was killed: its heartbeat older than
        :data:`LEASE_S`), in the order they came; returns how many. Each is written once,
        whichever processes resume at the same time."""
        found = claim_pending(self.clients.store, self.group, self.clients.outbox)
        for key, turn, source_id in found:
            self._submit(turn, source_id, key)
        return len(found)

    def pending_groups(self) -> list[str]:
        """The groups of the database with stored live turns not yet written (the outbox
        of ``durable`` queueing): what a server resumes at start."""
        return [str(r["group"]) for r in self.clients.store.read("live/pending_groups")]

    def turn_records(self, turn_node_id: str) -> dict[str, int] | None:
        """The records a stored turn evidences, by type; None when no such turn."""
        rows = self.clients.store.read("live/turn_records", turn_id=turn_node_id)
        return dict(Counter(rows[0]["types"])) if rows else None

    # -- the writes ----------------------------------------------------------------------
    def add(self, turn: Turn, source_id: str | None) -> IngestSummary:
        """Write ``turn`` (from :func:`live_turn`; ``source_id`` checked by
        :func:`check_client_id`) after the turns queued before it, and return once written."""
        self.clients.live.settle(self.group)  # after the turns queued before it
        return self._append(turn, source_id)

    def queue(self, turn: Turn, source_id: str | None, durable: bool) -> Future[IngestSummary]:
        """Queue ``turn`` for the writer thread; ``durable``: store it in an outbox entry
        first (a turn written or queued already under ``source_id``: a done future)."""
        pending: str | None = None
        if durable:
            self._ensure_schema()
            tid = turn_id(self.group, turn.conversation, source_id) if source_id else None
            found = store_pending(
                self.clients.store, self.group, turn, source_id, tid, self.clients.outbox
            )
            if found.written or found.queued:
                assert source_id is not None and tid is not None  # only an id finds a turn
                check_same_turn(source_id, turn, found.speaker, found.text)
                done: Future[IngestSummary] = Future()
                done.set_result(IngestSummary(group=self.group, turns=1, turn_ids=[tid]))
                return done
            pending = found.key
        return self._submit(turn, source_id, pending)

    def _submit(
        self, turn: Turn, source_id: str | None, pending: str | None
    ) -> Future[IngestSummary]:
        label = f"of {turn.speaker!r} in {turn.conversation!r} at {turn.at}"
        return self.clients.live.submit(
            self.group, label, lambda: self._append(turn, source_id, pending)
        )

    def _append(
        self, draft: Turn, source_id: str | None, pending: str | None = None
    ) -> IngestSummary:
        """Write one live turn after its conversation's last: ``draft`` (from
        :func:`live_turn`) gets its index here, and ``source_id`` or ``@<index>``. One
        append at a time per conversation in this process; across processes, the write's
        transaction checks under the conversation's append lock that nothing was appended
        since its plan, else plans again. A turn whose ``source_id`` is written already is
        left as it is; ``pending``: its outbox entry, deleted in the turn's transaction (or
        the write is abandoned when another writer took it: an empty summary)."""
        self._ensure_schema()
        # the turn's vector depends only on its text: computed while the conversation is
        # read and the turn's records are extracted
        turn_text = speaker_text(draft.speaker, draft.text)
        ahead = {turn_text: embed_ahead(self.clients.embedder, turn_text, draft.speaker)}
        with self.clients.live.appending(self.group, draft.conversation):
            for attempt in range(self.APPEND_TRIES):
                try:
                    return self._append_after_tail(draft, source_id, ahead, pending)
                except AppendConflict:
                    if attempt == self.APPEND_TRIES - 1:
                        raise
                except TakenElsewhere:
                    log.info("a stored live turn was written by another writer: skipped")
                    return IngestSummary(group=self.group)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _append_after_tail(
        self,
        draft: Turn,
        source_id: str | None,
        ahead: dict[str, Future[Any]],
        pending: str | None = None,
    ) -> IngestSummary:
        store, outbox = self.clients.store, self.clients.outbox
        drop = [("live/drop_pending", {"key": pending, "owner": outbox.owner})] if pending else []
        if source_id:  # sent before? then it stays as it is
            tid = turn_id(self.group, draft.conversation, source_id)
            rows = store.read("live/turn_records", turn_id=tid)
            if rows:
                if drop:  # written already, or never to be: another turn holds the id
                    store.write_many(drop)
                check_same_turn(source_id, draft, rows[0]["speaker"], rows[0]["text"])
                return IngestSummary(
                    group=self.group,
                    turns=1,
                    conversations=1,
                    nodes=dict(Counter(rows[0]["types"])),
                    turn_ids=[tid],
                )
        cid = conversation_id(self.group, draft.conversation)
        (live,) = store.glance("ingest/live_context", group_id=self.group, conversation_id=cid)
        tail = live["tail"][0] if live["tail"] else None
        index = int(tail["idx"]) + 1 if tail else 0
        turn = draft.model_copy(
            update={"index": index, "source_id": source_id or generated_id(index)}
        )
        new_id = turn_id(self.group, turn.conversation, turn.source_id)
        speakers = [turn.speaker]
        if tail and tail["speaker"] and tail["speaker"] != turn.speaker:
            speakers.append(tail["speaker"])
        conv = Conversation(
            id=turn.conversation, speakers=speakers, turns=[turn], source_format="live"
        )
        stored = live["conversation"][0] if live["conversation"] else None
        unchanged = bool(
            stored and stored["complete"] and turn.speaker in (stored["speakers"] or [])
        )
        ingestor = Ingestor(
            store,
            self.clients.embedder,
            self.clients.extractor,
            self.group,
            cache=self._known_vectors,
        )
        expected = [tail["id"]] if tail else []

        def still_as_planned(rows: list[list[Row]]) -> None:
            if drop and rows[2][0]["dropped"] != 1:  # first: no use planning it again
                raise TakenElsewhere(f"outbox entry {pending}")
            (state,) = rows[1]
            if state["tail"] != expected or state["stored"]:
                raise AppendConflict(f"conversation {turn.conversation!r} moved on")

        guard = WriteGuard(
            before=[
                ("live/append_lock", {"conversation_id": cid, "group": self.group}),
                ("live/append_state", {"conversation_id": cid, "turn_id": new_id}),
                *drop,  # deleted in this transaction, if this writer still holds it
            ],
            check=still_as_planned,
        )
        return ingestor.append(
            conv,
            tail["id"] if tail else None,
            live["persons"],
            conversation_stored=unchanged,
            ahead=ahead,
            guard=guard,
        )


__all__ = [
    "GENERATED_PREFIX",
    "LEASE_S",
    "MAX_QUEUED",
    "AppendConflict",
    "Live",
    "LiveClients",
    "LiveQueue",
    "LiveWriteError",
    "Outbox",
    "Pending",
    "TakenElsewhere",
    "TurnIdConflict",
    "TurnIdError",
    "check_client_id",
    "check_same_turn",
    "claim_pending",
    "generated_id",
    "live_turn",
    "pending_turns",
    "store_pending",
]
