"""The one place that talks to the Neo4j driver.

Every statement comes from a ``.cypher`` file (see :mod:`cogmem.statements`) and runs with
parameters only, inside a managed transaction, so transient errors (leader switches,
deadlocks, dropped connections) are retried by the driver.

Reads go through the driver's routing (``routing_=READ``): over a ``neo4j://`` URI to a
cluster or Aura they run on secondaries, writes on the leader. Every transaction shares the
driver's query bookmark manager, so a read that follows a write on the same Store (and so in
the same :class:`~cogmem.api.Memory`, or any Memory sharing its clients) sees that write.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from neo4j import (
    READ_ACCESS,
    Driver,
    GraphDatabase,
    ManagedTransaction,
    Result,
    RoutingControl,
    Session,
)
from neo4j import time as neo4j_time
from neo4j.api import BookmarkManager
from neo4j.exceptions import (
    AuthError,
    ClientError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from cogmem import statements
from cogmem.config import Settings

Row = dict[str, Any]
Step = tuple[str, Mapping[str, Any]]
T = TypeVar("T")


class Statements(Protocol):
    """What runs named statements: a :class:`Store` (a transaction each) or a
    :class:`TxStatements` (all inside one transaction)."""

    def read(self, name: str, /, **params: Any) -> list[Row]: ...

    def write(self, name: str, /, **params: Any) -> list[Row]: ...

    def write_many(self, steps: Sequence[Step]) -> list[list[Row]]: ...


class TxStatements:
    """Named statements run inside one open transaction (see :meth:`Store.transaction`):
    a read sees the transaction's earlier writes, and nothing lands until it commits."""

    def __init__(self, tx: ManagedTransaction) -> None:
        self._tx = tx

    def read(self, name: str, /, **params: Any) -> list[Row]:
        return Store._run(self._tx, name, params)

    def write(self, name: str, /, **params: Any) -> list[Row]:
        return Store._run(self._tx, name, params)

    def write_many(self, steps: Sequence[Step]) -> list[list[Row]]:
        return [Store._run(self._tx, name, params) for name, params in steps]


class StoreError(RuntimeError):
    """A database problem, explained for a person."""


class Unreachable(StoreError):
    pass


def _params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters statement ``name`` runs with: ``params`` and the optional ones it reads
    that were left out (:data:`cogmem.statements.OPTIONAL`)."""
    return statements.with_defaults(name, params)


_SCALARS = (str, int, float, bool, type(None))
_FLAT = (str, int, float, bool)


def _plain(value: Any) -> Any:
    """Driver values → plain Python (neo4j temporal types become datetime/date)."""
    if type(value) in _SCALARS:  # most values: returned as they are, cheaply
        return value
    if isinstance(value, neo4j_time.DateTime | neo4j_time.Date | neo4j_time.Time):
        return value.to_native()
    if isinstance(value, neo4j_time.Duration):
        return value.iso_format()
    if isinstance(value, list):
        if not value:
            return value
        first = value[0]
        if isinstance(first, float | int | str):  # vectors, names: as they are
            return value
        if type(first) is list and first and all(type(v) in _FLAT for v in first):
            # rows of scalars (a node's relationships as [type, other id, outgoing]): the
            # items of a list are alike, so the first row speaks for the rest
            return value
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "element_id") and hasattr(value, "items"):  # Node / Relationship
        return {k: _plain(v) for k, v in value.items()}
    return value


def unreachable_message(uri: str, detail: str) -> str:
    return (
        f"Neo4j is not reachable at {uri} ({detail}). Start the local server with "
        "`cogmem neo4j start` (after `cogmem neo4j install`), `docker compose up -d`, or set "
        "NEO4J_URI to a running server."
    )


class Store:
    """A connection to one Neo4j database, running named statements."""

    def __init__(self, settings: Settings, driver: Driver | None = None) -> None:
        self.settings = settings
        self.uri = settings.neo4j_uri
        self.database = settings.neo4j_database
        auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
        self._driver = driver or GraphDatabase.driver(
            self.uri,
            auth=auth,
            connection_timeout=10,
            max_transaction_retry_time=30,
            max_connection_pool_size=50,
            notifications_min_severity="OFF",
        )
        self._verified = False
        self._verify_lock = threading.Lock()

    def with_settings(self, **update: Any) -> Store:
        """A Store on this one's driver with some settings changed (e.g. ``search_cache``);
        closing this one closes the driver, closing the other does not have to."""
        return Store(self.settings.model_copy(update=update), driver=self._driver)

    # -- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        self._driver.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise Unreachable(
                unreachable_message(self.uri, str(exc) or type(exc).__name__)
            ) from exc
        except AuthError as exc:
            raise StoreError(
                f"Neo4j at {self.uri} refused the credentials of user "
                f"{self.settings.neo4j_user!r}: set NEO4J_USER / NEO4J_PASSWORD (or the "
                "cogmem config file)."
            ) from exc

    def _connect(self) -> None:
        """Check once, before the first transaction, that the server answers at all: the
        driver would otherwise retry a refused connection for its whole retry window."""
        if self._verified:
            return
        with self._verify_lock:
            if not self._verified:
                self._driver.verify_connectivity()
                self._verified = True

    def ping(self) -> None:
        """Raise :class:`Unreachable` (with what to do) unless the database answers."""
        self.read("meta/ping")

    # -- statements ------------------------------------------------------------------
    @property
    def bookmarks(self) -> BookmarkManager:
        """The bookmark manager every transaction of this Store shares (the driver's own
        for ``execute_query``): it makes a read see the writes before it."""
        return self._driver.execute_query_bookmark_manager

    def server_agent(self) -> str | None:
        """The server's agent string ("Neo4j/5.26.x") from the driver's handshake; None
        when it cannot be read (a description line must never fail)."""
        try:
            return str(self._driver.get_server_info().agent)
        except Exception:
            return None

    def _session(self, read: bool = False) -> Session:
        if read:
            return self._driver.session(
                database=self.database,
                bookmark_manager=self.bookmarks,
                default_access_mode=READ_ACCESS,
            )
        return self._driver.session(database=self.database, bookmark_manager=self.bookmarks)

    @staticmethod
    def _rows(result: Result) -> list[Row]:
        return [{k: _plain(v) for k, v in record.items()} for record in result]

    @staticmethod
    def _run(tx: ManagedTransaction, name: str, params: Mapping[str, Any]) -> list[Row]:
        return Store._rows(tx.run(statements.load(name), _params(name, params)))

    def _query(self, name: str, params: Mapping[str, Any], routing: RoutingControl) -> list[Row]:
        """One statement in a managed transaction (retried on transient errors), routed to
        a reader or the leader, chained to the Store's earlier transactions by bookmarks."""
        with self._errors():
            self._connect()
            rows: list[Row] = self._driver.execute_query(
                statements.load(name),
                _params(name, params),
                routing_=routing,
                database_=self.database,
                bookmark_manager_=self.bookmarks,
                result_transformer_=self._rows,
            )
            return rows

    def read(self, name: str, /, **params: Any) -> list[Row]:
        """A read statement, on a reader (a secondary in a cluster)."""
        return self._query(name, params, RoutingControl.READ)

    def glance(self, name: str, /, **params: Any) -> list[Row]:
        """A small read in an auto-commit transaction: one round trip where a managed one
        takes two (BEGIN, then RUN and COMMIT), for the reads that start every search (its
        group's vector state) and every live turn (its conversation's tail). On an error
        the driver calls retryable it falls back to :meth:`read`, which retries."""
        try:
            with self._errors(), self._session(read=True) as session:
                self._connect()
                return self._rows(session.run(statements.load(name), _params(name, params)))
        except Neo4jError as exc:
            if not exc.is_retryable():
                raise
        return self.read(name, **params)

    def stream(self, name: str, /, **params: Any) -> Iterator[Row]:
        """A read statement whose rows are handed over one at a time as they arrive (a
        large result never sits in memory whole); not retried, so consume it in one go."""
        with self._errors(), self._session(read=True) as session:
            self._connect()
            for record in session.run(statements.load(name), _params(name, params)):
                yield {k: _plain(v) for k, v in record.items()}

    def write(self, name: str, /, **params: Any) -> list[Row]:
        """A write statement, on the leader."""
        return self._query(name, params, RoutingControl.WRITE)

    def write_many(self, steps: Sequence[Step]) -> list[list[Row]]:
        """Run several statements in one transaction: all of them land, or none."""
        return self.transaction(lambda tx: tx.write_many(steps))

    def transaction(self, work: Callable[[TxStatements], T]) -> T:
        """Run ``work`` in one write transaction: everything it writes lands, or nothing
        does. Retried whole on a transient error, so ``work`` must be safe to run again."""
        with self._errors(), self._session() as session:
            self._connect()
            return session.execute_write(lambda tx: work(TxStatements(tx)))

    def admin(self, name: str, /, **params: Any) -> list[Row]:
        """Schema and administration statements, in an auto-commit transaction (leader)."""
        with self._errors(), self._session() as session:
            self._connect()
            return self._rows(session.run(statements.load(name), _params(name, params)))

    def explain(self, name: str, params: Mapping[str, Any]) -> None:
        """EXPLAIN a statement (plans it without running it); raises on a broken statement."""
        text = "EXPLAIN " + statements.load(name)
        with self._errors(), self._session() as session:
            self._connect()
            session.run(text, _params(name, params)).consume()

    def profile(self, name: str, /, **params: Any) -> tuple[list[Row], Any]:
        """PROFILE a read statement, on a reader: its rows and the executed plan
        (benchmarks use it)."""
        text = "PROFILE " + statements.load(name)
        with self._errors(), self._session(read=True) as session:
            self._connect()
            result = session.run(text, _params(name, params))
            rows = self._rows(result)
            summary = result.consume()
            return rows, summary.profile


def set_initial_password(uri: str, old: str, new: str, timeout_s: float = 60) -> None:
    """Change a fresh server's built-in credentials (runs on the system database).

    The system database may still be starting when Bolt first answers: retried until
    ``timeout_s``.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with GraphDatabase.driver(
                uri, auth=("neo4j", old), notifications_min_severity="OFF"
            ) as driver:
                driver.execute_query(
                    statements.load("admin/set_initial_password"),
                    old=old,
                    new=new,
                    database_="system",
                )
            return
        except (ServiceUnavailable, SessionExpired):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def is_client_error(exc: BaseException, *codes: str) -> bool:
    return isinstance(exc, ClientError) and any(code in (exc.code or "") for code in codes)


def no_such_vector_index(exc: BaseException) -> bool:
    """Whether Neo4j refused a vector query because its index does not exist."""
    return is_client_error(exc, "Procedure.ProcedureCallFailed") and "no such vector" in str(
        getattr(exc, "message", None) or ""
    )


def chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


__all__ = [
    "Neo4jError",
    "Row",
    "Store",
    "StoreError",
    "Unreachable",
    "chunks",
    "is_client_error",
    "set_initial_password",
    "unreachable_message",
]
