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
and :meth:`~cogmem.api.Memory.resume_pending` (a server at start) writes what a crash left.

Failures: a write that fails (the server gone past the driver's retries) fails that turn's
future; :meth:`LiveQueue.flush` raises :class:`LiveWriteError` for the first failure since
the last flush, and the failure is logged when it happens.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from datetime import UTC, datetime
from typing import Any, TypeVar

from cogmem.models import Turn
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


class Pending:
    """What :func:`store_pending` found: the turn written already, or queued already (a
    turn sent again with its id), else its new outbox entry ``key``."""

    def __init__(self, key: str, written: bool, queued: bool) -> None:
        self.key, self.written, self.queued = key, written, queued


def store_pending(
    store: Store, group: str, turn: Turn, source_id: str | None, tid: str | None
) -> Pending:
    """Store the raw turn in its outbox entry (one small write) unless the turn ``tid``
    (its node id, from the client's ``source_id``) is written or queued already."""
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
    )
    return Pending(key, bool(row["written"]), bool(row["pending"]))


def pending_turns(store: Store, group: str) -> list[tuple[str, Turn, str | None]]:
    """The outbox entries of ``group``, oldest first: (key, the turn, its client id)."""
    found = []
    for row in store.read("live/pending_turns", group=group):
        turn = live_turn(
            row["speaker"], row["text"], row["at"], row["conversation"], row["session"]
        )
        found.append((str(row["key"]), turn, row["source_id"]))
    return found


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
    "MAX_QUEUED",
    "LiveQueue",
    "LiveWriteError",
    "Pending",
    "live_turn",
    "pending_turns",
    "store_pending",
]
