"""The one place that talks to the Neo4j driver.

Every statement comes from a ``.cypher`` file (see :mod:`cogmem.statements`) and runs with
parameters only, inside a managed transaction, so transient errors (leader switches,
deadlocks, dropped connections) are retried by the driver.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from neo4j import Driver, GraphDatabase, ManagedTransaction
from neo4j import time as neo4j_time
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


class StoreError(RuntimeError):
    """A database problem, explained for a person."""


class Unreachable(StoreError):
    pass


def _plain(value: Any) -> Any:
    """Driver values → plain Python (neo4j temporal types become datetime/date)."""
    if isinstance(value, neo4j_time.DateTime | neo4j_time.Date | neo4j_time.Time):
        return value.to_native()
    if isinstance(value, neo4j_time.Duration):
        return value.iso_format()
    if isinstance(value, list):
        if value and isinstance(value[0], float | int | str):  # vectors, names: as they are
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
    @staticmethod
    def _run(tx: ManagedTransaction, name: str, params: Mapping[str, Any]) -> list[Row]:
        result = tx.run(statements.load(name), dict(params))
        return [{k: _plain(v) for k, v in record.items()} for record in result]

    def read(self, name: str, /, **params: Any) -> list[Row]:
        with self._errors(), self._driver.session(database=self.database) as session:
            self._connect()
            return session.execute_read(self._run, name, params)

    def write(self, name: str, /, **params: Any) -> list[Row]:
        with self._errors(), self._driver.session(database=self.database) as session:
            self._connect()
            return session.execute_write(self._run, name, params)

    def write_many(self, steps: Sequence[Step]) -> list[list[Row]]:
        """Run several statements in one transaction: all of them land, or none."""

        def work(tx: ManagedTransaction) -> list[list[Row]]:
            return [self._run(tx, name, params) for name, params in steps]

        with self._errors(), self._driver.session(database=self.database) as session:
            self._connect()
            return session.execute_write(work)

    def admin(self, name: str, /, **params: Any) -> list[Row]:
        """Schema and administration statements, in an auto-commit transaction."""
        with self._errors(), self._driver.session(database=self.database) as session:
            self._connect()
            result = session.run(statements.load(name), dict(params))
            return [{k: _plain(v) for k, v in r.items()} for r in result]

    def explain(self, name: str, params: Mapping[str, Any]) -> None:
        """EXPLAIN a statement (plans it without running it); raises on a broken statement."""
        text = "EXPLAIN " + statements.load(name)
        with self._errors(), self._driver.session(database=self.database) as session:
            self._connect()
            session.run(text, dict(params)).consume()

    def profile(self, name: str, /, **params: Any) -> tuple[list[Row], Any]:
        """PROFILE a read statement: its rows and the executed plan (benchmarks use it)."""
        text = "PROFILE " + statements.load(name)
        with self._errors(), self._driver.session(database=self.database) as session:
            self._connect()
            result = session.run(text, dict(params))
            rows = [{k: _plain(v) for k, v in r.items()} for r in result]
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
