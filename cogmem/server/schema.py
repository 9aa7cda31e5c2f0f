"""Schema: constraints and indexes from ``cypher/schema``, and the recorded embedder."""

from __future__ import annotations

from pydantic import BaseModel

from cogmem import statements
from cogmem.store import Row, Store, StoreError


class EmbedderMismatch(StoreError):
    """The store's vectors were made by another embedder (or dimension) than configured."""


class SchemaReport(BaseModel):
    applied: list[str]
    embedder: str
    dimension: int
    indexes: list[dict[str, object]]


def _embedder_meta(store: Store) -> Row | None:
    """The store's embedder record (name, dimension, sequenced), None on a new store."""
    rows = store.read("meta/get_embedder")
    return rows[0] if rows and rows[0]["name"] is not None else None


def recorded_embedder(store: Store) -> tuple[str, int] | None:
    meta = _embedder_meta(store)
    return None if meta is None else (str(meta["name"]), int(meta["dimension"]))


def _setting_for(name: str) -> str:
    """The setting that selects the embedder recorded as ``name``."""
    if name == "minilm-int8":
        return "COGMEM_EMBED_BACKEND=onnx-int8 (with COGMEM_EMBEDDER=minilm)"
    if name == "minilm":
        return "COGMEM_EMBEDDER=minilm with COGMEM_EMBED_BACKEND=numpy or onnx"
    return f"--embedder/COGMEM_EMBEDDER={name}"


def check_embedder(store: Store, name: str, dimension: int) -> None:
    """Raise :class:`EmbedderMismatch` unless the store matches (name, dimension)."""
    _refuse_mismatch(store, recorded_embedder(store), name, dimension)


def _refuse_mismatch(
    store: Store, recorded: tuple[str, int] | None, name: str, dimension: int
) -> None:
    if recorded is not None and recorded != (name, dimension):
        raise EmbedderMismatch(
            f"this graph was built with embedder {recorded[0]!r} ({recorded[1]} dimensions) "
            f"but {name!r} ({dimension} dimensions) is configured. Either configure "
            f"{_setting_for(recorded[0])} again, or re-embed everything with "
            f"`cogmem reindex` under the current settings."
        )
    for row in store.admin("meta/vector_dimensions"):
        if row["dimension"] is not None and int(row["dimension"]) != dimension:
            raise EmbedderMismatch(
                f"vector index {row['name']} has {row['dimension']} dimensions but the "
                f"configured embedder {name!r} makes {dimension}. Run "
                f"`cogmem reindex --embedder {name}` to rebuild it."
            )


SCHEMA_VERSION = 6
"""Bumped when a schema statement is added: opening a store recorded with an older version
applies the statements again (each is ``IF NOT EXISTS``; the vector ones where the store
has vector indexes), so an upgraded cogmem finds the indexes its statements expect (2: the
``(group_id, type)`` index of typed vector scans; 3: ``claim_embedding``); 4: the times a
search as of a date reads, written for older records (``admin/backfill_validity``); 5: the
``(group_id, type, at)`` index of typed searches as of a date; 6: the fulltext indexes'
``said_key`` (the day a node was said), dropped and made again with it, the key written
for older nodes (``admin/backfill_said_key``)."""

VECTOR_INDEX_STATEMENTS = (
    "schema/vector_memory_embedding",
    "schema/vector_turn_embedding",
    "schema/vector_claim_embedding",
)


def init_schema(
    store: Store,
    name: str,
    dimension: int,
    wait_s: int = 300,
    *,
    vector_indexes: bool | None = None,
) -> SchemaReport:
    """Apply every schema statement idempotently and record the embedder.

    ``vector_indexes``: True creates Neo4j's HNSW vector indexes, False drops them, None
    leaves them as they are: absent, or on (then any a newer cogmem added are created).
    Search asks them for a group too large to scan exactly
    (:mod:`cogmem.retrieval.graph_source`); every commit that writes a vector updates them.

    Fails with :class:`EmbedderMismatch` before changing anything when the store was built
    with another embedder.
    """
    meta = _embedder_meta(store)
    recorded = None if meta is None else (str(meta["name"]), int(meta["dimension"]))
    _refuse_mismatch(store, recorded, name, dimension)
    if meta is not None:  # `cogmem init` on a store of an older cogmem: upgrade it first
        _before_statements(store, int(meta["schema"]))
    if vector_indexes is None:  # as they are: all of them where some exist (older cogmem)
        vector_indexes = has_vector_indexes(store)
    applied = []
    for stmt in statements.names_in("schema/"):
        if stmt in VECTOR_INDEX_STATEMENTS and not vector_indexes:
            continue
        store.admin(stmt, dimension=dimension)
        applied.append(stmt)
    if vector_indexes is False:
        drop_vector_indexes(store)
    store.write("meta/set_embedder", name=name, dimension=dimension)
    store.admin("meta/await_indexes", seconds=wait_s)
    stamp_unsequenced(store)  # after the vseq indexes are online
    store.write("meta/set_schema_version", version=SCHEMA_VERSION)
    return SchemaReport(
        applied=applied, embedder=name, dimension=dimension, indexes=list_indexes(store)
    )


def stamp_unsequenced(store: Store) -> int:
    """Give nodes written before vector sequence numbers existed vseq 0, so that search's
    refresh (which seeks the ``(group_id, vseq)`` indexes) reads them; searching processes
    then read their groups afresh. Records on the store that it is done; returns how many
    nodes it stamped."""
    stamped = int(store.admin("admin/stamp_unsequenced")[0]["stamped"])
    if stamped:
        store.write("admin/new_vector_epochs")
    store.write("meta/set_sequenced")
    return stamped


def open_schema(
    store: Store, name: str, dimension: int, *, vector_indexes: bool | None = None
) -> None:
    """What a Memory does before its first read or write, from one read of the store's
    embedder record: create the schema on a new store (see :func:`init_schema`); else
    refuse a store built with another embedder, and stamp one written before vector
    sequence numbers (once: see :func:`stamp_unsequenced`)."""
    meta = _embedder_meta(store)
    if meta is None:
        init_schema(store, name, dimension, vector_indexes=vector_indexes)
        return
    _refuse_mismatch(store, (str(meta["name"]), int(meta["dimension"])), name, dimension)
    if int(meta["schema"]) < SCHEMA_VERSION:  # a store from before an index was added
        vectors = has_vector_indexes(store)
        _before_statements(store, int(meta["schema"]))
        for stmt in statements.names_in("schema/"):
            if vectors or stmt not in VECTOR_INDEX_STATEMENTS:
                store.admin(stmt, dimension=dimension)
        store.admin("meta/await_indexes", seconds=300)  # once: searches expect them online
        store.write("meta/set_schema_version", version=SCHEMA_VERSION)
    if not meta["sequenced"]:
        stamp_unsequenced(store)
    if vector_indexes and not has_vector_indexes(store):  # a store from before they were on
        for stmt in VECTOR_INDEX_STATEMENTS:
            store.admin(stmt, dimension=dimension)


def _before_statements(store: Store, schema: int) -> None:
    """What a store recorded with schema version ``schema`` needs before the schema
    statements run again: the times and day keys of older nodes written (each backfill
    is idempotent), and the fulltext indexes dropped when they lack ``said_key`` (the
    statements make them again with it; a fulltext index's fields cannot change)."""
    if schema < 4:
        store.admin("admin/backfill_validity")
        store.admin("admin/backfill_relationship_times")
    if schema < 6:
        store.admin("admin/backfill_said_key")
        store.admin("meta/drop_fulltext_memory_text")
        store.admin("meta/drop_fulltext_turn_text")


def list_indexes(store: Store) -> list[dict[str, object]]:
    return store.admin("meta/show_indexes")


def has_vector_indexes(store: Store) -> bool:
    return bool(store.admin("meta/vector_dimensions"))


def drop_vector_indexes(store: Store) -> None:
    store.admin("meta/drop_vector_memory")
    store.admin("meta/drop_vector_turn")
    store.admin("meta/drop_vector_claim")


def rebuild_vector_indexes(
    store: Store,
    name: str,
    dimension: int,
    wait_s: int = 300,
    *,
    vector_indexes: bool | None = None,
) -> None:
    """Record a new embedder; the vector indexes are rebuilt for its dimension when
    ``vector_indexes`` (None: when they exist now)."""
    if vector_indexes is None:
        vector_indexes = has_vector_indexes(store)
    drop_vector_indexes(store)
    if vector_indexes:
        for stmt in VECTOR_INDEX_STATEMENTS:
            store.admin(stmt, dimension=dimension)
    store.write("meta/set_embedder", name=name, dimension=dimension)
    store.admin("meta/await_indexes", seconds=wait_s)
