"""The process-wide cache of groups' in-process copies (:class:`~cogmem.retrieval.vectors.
GroupVectors`): one small read per search to see whether the group changed, the new nodes
only when it did, least recently used groups evicted beyond ``vector_cache_mb``."""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict

from cogmem.retrieval.vectors import GroupVectors
from cogmem.store import Store

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

    def sync(self, store: Store, group: str) -> GroupVectors:
        """The group's vectors and persons, brought up to date (one small read when nothing
        changed; the new nodes only when something did)."""
        key = (store.uri or "", store.database or "", group)
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
            vectors.add(
                store.stream(
                    "operators/vectors_since", group=group, seq=-1 if fresh else vectors.seq
                )
            )
            if fresh and len(vectors._rows.ids) >= FREEZE_ROWS:
                _freeze()
            vectors.persons = store.read("operators/entities", group=group)
            vectors.seq = seq
            with self._lock:
                self._groups[key] = vectors
                self._groups.move_to_end(key)
                self._evict()
            return vectors

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
        with self._lock:
            self._groups.clear()


_CACHES: dict[int, VectorCache] = {}
_CACHES_LOCK = threading.Lock()


def vector_cache(budget_mb: int) -> VectorCache:
    """The process-wide cache (one per budget setting)."""
    with _CACHES_LOCK:
        cache = _CACHES.get(budget_mb)
        if cache is None:
            cache = _CACHES[budget_mb] = VectorCache(budget_mb * 1024 * 1024)
        return cache


def clear_vector_caches() -> None:
    """Forget every group's vectors in this process (tests; after a reindex)."""
    with _CACHES_LOCK:
        for cache in _CACHES.values():
            cache.clear()
