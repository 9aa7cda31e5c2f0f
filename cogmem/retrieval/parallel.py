"""Independent reads of one search step, run at once when they go to Neo4j.

A search through Neo4j alone (:class:`~cogmem.retrieval.graph_source.GraphSource`) spends
nearly all its time waiting on statements, several of which need nothing from each other
(Anchor's four candidate lists; the words' rarity for late interaction, known from the
question alone). :func:`gather` and :func:`submit` run such calls
on a small shared thread pool, so the server works on them together, and hands back their
results in the order asked: what the step builds from them is the same as when they run
one after another, which is how the in-process copy (no round trips) runs them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

WORKERS = 4
"""Threads shared by every search of the process: Anchor's four reads at once. A job never
waits on the pool itself (no nesting), so the pool cannot deadlock."""

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="cogmem-read")
        return _pool


def gather(jobs: Sequence[Callable[[], T]], at_once: bool) -> list[T]:
    """Each job's result, in order: run together on the pool when ``at_once`` and there is
    more than one (the first runs on the calling thread), else one after another. The first
    error raised is raised here, after every job has finished."""
    if not at_once or len(jobs) < 2:
        return [job() for job in jobs]
    futures = [_executor().submit(job) for job in jobs[1:]]
    try:
        first = jobs[0]()
    finally:
        results = [f.exception() for f in futures]  # wait for all, even when one failed
    for error in results:
        if error is not None:
            raise error
    return [first, *(f.result() for f in futures)]


def submit(job: Callable[[], T]) -> Future[T]:
    """``job`` started on the pool now, its result wanted later in the same search (a read
    that depends only on the question, started before the steps that come first)."""
    return _executor().submit(job)
