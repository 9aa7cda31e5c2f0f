"""The process-wide cache of groups' in-process copies (:class:`~cogmem.retrieval.vectors.
GroupVectors`): one small read per search to see whether the group changed, the new nodes
only when it did, least recently used groups evicted beyond ``vector_cache_mb``."""

from __future__ import annotations

import gc
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from cogmem.retrieval.vectors import ENTITY_TYPES, GroupVectors
from cogmem.store import Store

log = logging.getLogger(__name__)

NODE_BYTES_ESTIMATE = 4096
"""What a node costs in the copy, about (a 384-d vector, its fields and BM25 postings: see
:attr:`GroupVectors.nbytes`): a group whose nodes would take more than the whole budget
is not read, and its searches stay with Neo4j."""
FREEZE_ROWS = 20_000
"""A group read whole with this many nodes or more is frozen out of the cyclic GC."""


def _freeze() -> None:
    """Collect once, then move every object the process holds into the GC's permanent
    generation (:func:`gc.freeze`). A large group's copy is millions of small objects that
    live as long as the process; without this, each full collection walks them all (about
    1 s at 100k records, once every ten or so live turns: the search-after-write p95).
    Frozen objects are still freed by reference counting when dropped."""
    gc.collect()
    gc.freeze()


class VectorCache:
    """Groups' vectors in this process, least recently used evicted beyond ``budget`` bytes."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = budget_bytes
        self._groups: OrderedDict[tuple[str, ...], GroupVectors] = OrderedDict()
        self._locks: dict[tuple[str, ...], threading.Lock] = {}
        self._lock = threading.Lock()
        self._warming: set[tuple[str, ...]] = set()
        self._threads: list[threading.Thread] = []

    def sync(self, store: Store, group: str) -> GroupVectors:
        """The group's vectors and persons, brought up to date (one small read when nothing
        changed; the new nodes only when something did)."""
        key = _key(store, group)
        state = store.glance("operators/vector_state", group=group)[0]
        seq, epoch = int(state["seq"]), int(state["epoch"])
        current = self._current(key)
        if current is not None and current.epoch == epoch and current.seq >= seq:
            return current  # the common case: no lock, one small read
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # one refresh per group at a time; the others then find it done
            current = self._current(key)
            if current is not None and current.epoch == epoch and current.seq >= seq:
                return current
            fresh = current is None or current.epoch != epoch or seq < current.seq
            vectors = GroupVectors(epoch=epoch) if fresh or current is None else current
            if fresh:
                vectors.add(store.stream("operators/vectors_since", group=group, seq=-1))
                if len(vectors._rows.ids) >= FREEZE_ROWS:
                    _freeze()
                vectors.persons = store.read("operators/entities", group=group)
            else:  # what was written since: the persons among it replace theirs
                rows = list(store.stream("operators/vectors_since", group=group, seq=vectors.seq))
                with_links(store, group, rows)
                vectors.add(rows, catch_up=True)
                vectors.persons = updated_persons(vectors.persons, rows)
            vectors.seq = seq
            with self._lock:
                self._groups[key] = vectors
                self._groups.move_to_end(key)
                self._evict()
            return vectors

    def cached(self, store: Store, group: str) -> GroupVectors | None:
        """The group's copy brought up to date when this process holds it (one small read,
        plus what was written since), else None: the caller then asks Neo4j itself, and
        may have the copy read for later with :meth:`warm_later`. A copy is complete or
        absent: while a first read is under way, this is None."""
        key = _key(store, group)
        current = self._current(key)
        if current is None:
            return None
        state = store.glance("operators/vector_state", group=group)[0]
        if current.epoch != int(state["epoch"]):  # forgotten since: read afresh later
            return None
        return current if current.seq >= int(state["seq"]) else self.sync(store, group)

    def warm_later(self, store: Store, group: str) -> None:
        """Read the group's copy on a background thread, unless one is being read already
        or the group is larger than the whole budget (its searches then stay with Neo4j).
        Failures are logged, never raised: the searches go on through Neo4j."""
        key = _key(store, group)
        with self._lock:
            if key in self._warming:
                return
            self._warming.add(key)

        def run() -> None:
            try:
                cap = self.budget // NODE_BYTES_ESTIMATE
                size = store.read("operators/group_size", group=group, cap=cap)[0]
                nodes = int(size["turns"]) + int(size["records"])
                if nodes * NODE_BYTES_ESTIMATE <= self.budget:
                    self.sync(store, group)
            except Exception:  # a cache that fails leaves the searches on Neo4j
                log.warning("reading group %r into the search cache failed", group, exc_info=True)
            finally:
                with self._lock:
                    self._warming.discard(key)

        thread = threading.Thread(target=run, name=f"cogmem-warm-{group}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def wait_warm(self, timeout_s: float | None = None) -> None:
        """Wait for the background reads started so far (tests, benchmarks)."""
        threads, self._threads = self._threads, []
        for thread in threads:
            thread.join(timeout_s)

    def _current(self, key: tuple[str, ...]) -> GroupVectors | None:
        with self._lock:
            current = self._groups.get(key)
            if current is not None:
                self._groups.move_to_end(key)
            return current

    def _evict(self) -> None:
        total = sum(g.nbytes for g in self._groups.values())
        while len(self._groups) > 1 and total > self.budget:
            _, dropped = self._groups.popitem(last=False)
            total -= dropped.nbytes

    def clear(self) -> None:
        self.wait_warm()
        with self._lock:
            self._groups.clear()


_CACHES: dict[int, VectorCache] = {}
_CACHES_LOCK = threading.Lock()


def with_links(store: Store, group: str, rows: list[dict[str, Any]]) -> None:
    """Give the persons and concepts of a catch-up read (read without relationships) their
    relationships to the other rows read (``operators/links_among``)."""
    entities = [r for r in rows if r["type"] in ENTITY_TYPES]
    if not entities:
        return
    found = store.read(
        "operators/links_among",
        group=group,
        ids=[r["id"] for r in entities],
        among=[r["id"] for r in rows],
    )
    links = {row["id"]: row["links"] for row in found}
    for r in entities:
        r["links"] = links.get(r["id"], [])


def updated_persons(
    persons: list[dict[str, Any]], rows: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The group's persons (``operators/entities``: id, name, aliases, by id) with the
    Person rows of a catch-up read (``operators/vectors_since``) put in."""
    found = {p["id"]: p for p in persons}
    for r in rows:
        if r["type"] == "Person" and r["embedding"] is not None:
            found[r["id"]] = {"id": r["id"], "name": r["name"], "aliases": r["aliases"] or []}
    return [found[k] for k in sorted(found)]


def vector_cache(budget_mb: int) -> VectorCache:
    """The process-wide cache (one per budget setting)."""
    with _CACHES_LOCK:
        cache = _CACHES.get(budget_mb)
        if cache is None:
            cache = _CACHES[budget_mb] = VectorCache(budget_mb * 1024 * 1024)
        return cache


def _key(store: Store, group: str) -> tuple[str, ...]:
    return (store.uri or "", store.database or "", group)


def wait_for_warm_caches(timeout_s: float | None = None) -> None:
    """Wait for every background read of a group's copy started so far."""
    with _CACHES_LOCK:
        caches = list(_CACHES.values())
    for cache in caches:
        cache.wait_warm(timeout_s)


def clear_vector_caches() -> None:
    """Forget every group's vectors in this process (tests; after a reindex)."""
    with _CACHES_LOCK:
        for cache in _CACHES.values():
            cache.clear()
