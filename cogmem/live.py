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
yet written (:meth:`~cogmem.api.Memory.turns` shows which were written: send the rest again)
— unless it was queued with ``durable=True``: then its raw turn is stored first, in an
outbox entry (:func:`store_pending`) that the turn's own write deletes in its transaction,
and :meth:`~cogmem.api.Memory.resume_pending` (a server at start, then every few seconds)
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
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from datetime import UTC, datetime
from typing import Any, TypeVar

from neo4j.exceptions import DriverError

from cogmem.models import Turn, check_time
from cogmem.store import Store

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


__all__ = [
    "GENERATED_PREFIX",
    "LEASE_S",
    "MAX_QUEUED",
    "AppendConflict",
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
