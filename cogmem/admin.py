"""Administration of the database a :class:`~cogmem.api.Memory` uses: ``mem.admin``.

Schema and embedder (:meth:`Admin.init`, :meth:`Admin.ensure_schema`,
:meth:`Admin.reindex`), the server (:meth:`Admin.ping`, :meth:`Admin.server_version`,
:meth:`Admin.await_indexes`, :meth:`Admin.profile`), repairs (:meth:`Admin.doctor`) and the
API tokens of ``cogmem serve`` / ``cogmem mcp`` (:meth:`Admin.tokens`). What a user of a
memory does (ingest, search, ask, forget, …) stays on :class:`~cogmem.api.Memory`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cogmem.clients import Clients
from cogmem.config import Settings
from cogmem.embed import Embedder
from cogmem.ingest.ids import group_key
from cogmem.server.reindex import ReindexReport, reindex
from cogmem.server.schema import SchemaReport, init_schema, open_schema, recorded_embedder
from cogmem.store import Row

if TYPE_CHECKING:
    from cogmem.service.tokens import TokenStore


class Admin:
    """The administration verbs of one Memory (:attr:`cogmem.api.Memory.admin`): its
    ``settings``, its ``clients`` and its ``group`` (for :meth:`doctor` and
    :meth:`bench_copy`; the rest act on the whole database)."""

    def __init__(self, group: str, settings: Settings, clients: Clients) -> None:
        self.group = group
        self.settings = settings
        self.clients = clients
        self.schema_checked = False
        """Whether :meth:`ensure_schema` (or :meth:`init`) ran through this Memory already."""

    # -- schema and embedder -----------------------------------------------------------
    def embedder_identity(self) -> tuple[str, int]:
        """``(name, dimension)`` of this Memory's embedder, as the schema records it."""
        return self.clients.embedder_identity()

    def recorded_embedder(self) -> tuple[str, int] | None:
        """``(name, dimension)`` of the embedder the database records, if any."""
        return recorded_embedder(self.clients.store)

    def init(
        self,
        name: str | None = None,
        dimension: int | None = None,
        *,
        vector_indexes: bool | None = None,
    ) -> SchemaReport:
        """Create constraints and indexes (idempotent) and record the embedder: this
        Memory's, or the ``name``/``dimension`` given (both or neither). Nodes written
        before vector sequence numbers existed are stamped, so that search reads them
        (:meth:`ensure_schema` does that too, once per store).

        ``vector_indexes``: True creates Neo4j's HNSW vector indexes, False drops them;
        None (default) creates them when the ``vector_indexes`` setting is on (the default)
        and otherwise leaves them as they are. Search asks them for a group too large to
        scan exactly (:mod:`cogmem.retrieval.graph_source`)."""
        if (name is None) != (dimension is None):
            raise ValueError("init() takes an embedder name and dimension together, or neither")
        if name is None or dimension is None:
            name, dimension = self.embedder_identity()
        if vector_indexes is None:
            vector_indexes = True if self.settings.vector_indexes else None
        report = init_schema(self.clients.store, name, dimension, vector_indexes=vector_indexes)
        self.schema_checked = True
        return report

    def ensure_schema(self) -> None:
        """Create the schema on first use; refuse a store built with another embedder;
        stamp a store written before vector sequence numbers (once per store). Every verb
        of :class:`~cogmem.api.Memory` that reads or writes the group calls it."""
        if self.schema_checked:
            return
        name, dimension = self.embedder_identity()
        open_schema(
            self.clients.store, name, dimension, vector_indexes=self.settings.vector_indexes or None
        )
        self.schema_checked = True

    def reindex(
        self,
        progress: Callable[[int], None] | None = None,
        page: int = 256,
        embedder: Embedder | None = None,
    ) -> ReindexReport:
        """Re-embed every turn and record of the database (all groups) with ``embedder``
        (default: this Memory's) and rebuild the vector indexes for it."""
        chosen = embedder or self.clients.embedder
        return reindex(self.clients.store, chosen, page=page, progress=progress)

    # -- the server ----------------------------------------------------------------------
    def ping(self) -> None:
        """Raise :class:`~cogmem.store.Unreachable` (with what to do) unless the database
        answers (retried over the driver's retry window)."""
        self.clients.store.ping()

    def probe(self) -> None:
        """One round trip, not retried: raises at once when Neo4j does not answer (a
        server's readiness probe, under its own timeout)."""
        self.clients.store.glance("meta/ping")

    def server_version(self) -> dict[str, Any]:
        """The server's ``name``, ``version`` and ``edition``."""
        return self.clients.store.read("meta/server_version")[0]

    def server_agent(self) -> str | None:
        """The server's agent string ("Neo4j/5.26.x"); None when it cannot be read."""
        return self.clients.store.server_agent()

    def await_indexes(self, seconds: int = 600) -> None:
        """Wait until every index is online and the fulltext indexes hold every write
        committed so far (they update moments after a commit): after a large ingest,
        before measuring."""
        self.clients.store.admin("meta/await_indexes", seconds=seconds)
        self.clients.store.admin("meta/await_fulltext")

    def profile(self, statement: str, /, **params: Any) -> tuple[list[Row], Any]:
        """PROFILE a named read statement (``operators/…``, ``inspect/…``): its rows and the
        executed plan (``cogmem bench scale`` reports the plans)."""
        return self.clients.store.profile(statement, **params)

    # -- repairs -------------------------------------------------------------------------
    def doctor(self, fix: bool = False, every_group: bool = False, batch: int = 5000) -> list[Row]:
        """Find (and with ``fix`` convert to UTC) the LOCAL DATETIME ``at`` /
        ``time_start`` / ``time_end`` values of this group (or of ``every_group``) that a
        naive datetime left; rows ``group``, ``key``, ``nodes`` of what was found."""
        store = self.clients.store
        group = None if every_group else self.group
        found = store.read("admin/doctor_local_times", group=group)
        if fix and found:
            while store.write("admin/doctor_fix_local_times", group=group, batch=batch)[0]["fixed"]:
                pass
        return found

    # -- tokens and benchmarks -------------------------------------------------------------
    def tokens(self, cache_s: float = 1.0) -> TokenStore:
        """The API tokens of this database (``cogmem token``; the servers verify with it):
        create, verify, list, revoke (:class:`~cogmem.service.tokens.TokenStore`)."""
        from cogmem.service.tokens import TokenStore

        return TokenStore(self.clients.store, cache_s=cache_s)

    def bench_copy(self, copy: str) -> int:
        """Benchmarks only (``cogmem bench scale --crowded``): copy this group's turns and
        memory records, with their embeddings and without edges, into the group ``copy``,
        to crowd the shared indexes like look-alike tenants; returns the nodes copied.
        Delete the copy with ``mem.for_group(copy).forget()``."""
        rows = self.clients.store.write(
            "bench/copy_group", group=self.group, copy=copy, copy_key=group_key(copy)
        )
        return int(rows[0]["copied"]) if rows else 0
