"""One owner for every client a :class:`~cogmem.api.Memory` uses.

:class:`Clients` holds the store (the Neo4j driver), the embedder, the LLM client, the
extractor and the intent router. Each is either passed in (a user's own ``neo4j.Driver``,
embedder, :class:`~cogmem.llm.LLMClient`, extractor) or built once from
:class:`~cogmem.config.Settings` — the heavy ones on first use: the embedder's model loads
when something is first embedded, the LLM client is created when it is first needed.

This module is the one place that decides from ``settings.llm`` whether an LLM is used; the
client itself comes from :func:`cogmem.llm.endpoint_client` (which :mod:`cogmem.embed.factory`
also calls for an ``openai`` embedder when no chat LLM is configured). What a
:class:`Clients` built
it closes in :meth:`Clients.close`; what it was given it leaves to its owner.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from typing import TYPE_CHECKING

from cogmem.config import ConfigError, Settings
from cogmem.embed import Embedder, embedder_identity, make_embedder
from cogmem.extract import Extractor, HeuristicExtractor
from cogmem.live import LiveQueue, Outbox
from cogmem.llm import endpoint_client
from cogmem.retrieval.router import LLMRouter, Router, RuleRouter
from cogmem.store import Store

if TYPE_CHECKING:
    from neo4j import Driver

    from cogmem.llm import LLMClient


def make_llm(settings: Settings) -> LLMClient | None:
    """The LLM client that ``settings`` configure (``llm = "openai"``), else None."""
    return endpoint_client(settings) if settings.llm == "openai" else None


def make_extractor(llm: LLMClient | None) -> Extractor:
    """The heuristic extractor offline; the LLM one (falling back to it) with a client."""
    if llm is None:
        return HeuristicExtractor()
    from cogmem.extract.llm_extractor import LLMExtractor

    return LLMExtractor(llm, fallback=HeuristicExtractor())


def make_router(llm: LLMClient | None) -> Router:
    """The rule router offline; the LLM router (falling back to the rules) with a client."""
    if llm is None:
        return RuleRouter()
    return LLMRouter(llm, fallback=RuleRouter())


class FairSlots:
    """At most ``n`` holders at once; the others wait and are let in in arrival order
    (a freed slot is handed to the longest waiter, so no thread starves: Python's own
    semaphore lets a thread that releases take the slot straight back)."""

    def __init__(self, n: int) -> None:
        if n < 1:
            raise ValueError("FairSlots needs at least one slot")
        self._free = n
        self._lock = threading.Lock()
        self._waiters: deque[threading.Event] = deque()

    def __enter__(self) -> FairSlots:
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return self
            turn = threading.Event()
            self._waiters.append(turn)
        turn.wait()  # the slot is ours when set
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            if self._waiters:
                self._waiters.popleft().set()  # handed over: never free in between
            else:
                self._free += 1


class Clients:
    """The store, embedder, LLM client, extractor and router of one or more Memories.

    >>> clients = Clients(settings, driver=my_driver, llm=my_llm_client)  # doctest: +SKIP
    >>> mem = Memory(settings, clients=clients)                           # doctest: +SKIP

    ``store`` or ``driver`` (not both): a :class:`~cogmem.store.Store`, or a user's
    ``neo4j.Driver`` that a Store wraps (and never closes). Without either, a Store with a
    driver of its own is opened on ``settings.neo4j_uri``.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        driver: Driver | None = None,
        embedder: Embedder | None = None,
        llm: LLMClient | None = None,
        extractor: Extractor | None = None,
        router: Router | None = None,
    ) -> None:
        if store is not None and driver is not None:
            raise ConfigError("pass a store or a driver, not both")
        self.settings = settings
        self._store = store if store is not None else Store(settings, driver=driver)
        self._owns_store = store is None and driver is None
        self._embedder = embedder
        self._given_embedder = embedder is not None
        self._llm = llm
        self._llm_ready = llm is not None
        self._owns_llm = False
        self._extractor = extractor
        self._router = router
        self._lock = threading.RLock()
        self._closed = False
        #: the writer of queued live turns (:meth:`cogmem.api.Memory.queue_turn`)
        self.live = LiveQueue()
        #: the name and heartbeat under which these clients hold outbox entries
        self.outbox = Outbox()
        slots = settings.search_concurrency or max(2, os.cpu_count() or 1)
        #: taken by each search (see ``Settings.search_concurrency``)
        self.search_slots = FairSlots(slots)

    # -- the clients -----------------------------------------------------------------
    @property
    def store(self) -> Store:
        return self._store

    @property
    def llm(self) -> LLMClient | None:
        """The LLM client (None when no LLM is configured and none was passed)."""
        if not self._llm_ready:
            with self._lock:
                if not self._llm_ready:
                    self._llm = make_llm(self.settings)
                    self._owns_llm = self._llm is not None
                    self._llm_ready = True
        return self._llm

    @property
    def embedder(self) -> Embedder:
        """The embedder (its model loads here, on first use)."""
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    self._embedder = make_embedder(self.settings, llm=self._embed_llm())
        return self._embedder

    @property
    def extractor(self) -> Extractor:
        if self._extractor is None:
            with self._lock:
                if self._extractor is None:
                    self._extractor = make_extractor(self.llm)
        return self._extractor

    @property
    def router(self) -> Router:
        if self._router is None:
            with self._lock:
                if self._router is None:
                    self._router = make_router(self.llm)
        return self._router

    def _embed_llm(self) -> LLMClient | None:
        """The chat LLM's client, shared with an ``openai`` embedder (same endpoint)."""
        return self.llm if self.settings.embedder == "openai" else None

    def embedder_identity(self) -> tuple[str, int]:
        """``(name, dimension)`` of the embedder, as the schema records it: a passed
        embedder's own, else the configured one's (without loading its weights)."""
        if self._given_embedder:
            embedder = self.embedder
            return embedder.name, embedder.dimension
        return embedder_identity(self.settings, llm=self._embed_llm())

    # -- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        """Close what these Clients built (the LLM client, the Store's own driver)."""
        # queued live turns are written first, outside the lock: their writes may still
        # build a client (the embedder, on first use) under it
        self.live.close()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self.outbox.close()  # before the driver: it removes its heartbeat
            if self._owns_llm and self._llm is not None:
                self._llm.close()
            if self._owns_store:
                # a group's copy still being read behind a search uses this driver: let it
                # finish (closing under it breaks its connection mid-read)
                from cogmem.retrieval.vector_cache import wait_for_warm_caches

                wait_for_warm_caches()
                self._store.close()

    def __enter__(self) -> Clients:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Clients", "make_extractor", "make_llm", "make_router"]
