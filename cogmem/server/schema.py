"""Schema: constraints and indexes from ``cypher/schema``, and the recorded embedder."""

from __future__ import annotations

from pydantic import BaseModel

from cogmem import statements
from cogmem.store import Store, StoreError


class EmbedderMismatch(StoreError):
    """The store's vectors were made by another embedder (or dimension) than configured."""


class SchemaReport(BaseModel):
    applied: list[str]
    embedder: str
    dimension: int
    indexes: list[dict[str, object]]


def recorded_embedder(store: Store) -> tuple[str, int] | None:
    rows = store.read("meta/get_embedder")
    if not rows or rows[0]["name"] is None:
        return None
    return str(rows[0]["name"]), int(rows[0]["dimension"])


def _setting_for(name: str) -> str:
    """The setting that selects the embedder recorded as ``name``."""
    if name == "minilm-int8":
        return "COGMEM_EMBED_BACKEND=onnx-int8 (with COGMEM_EMBEDDER=minilm)"
    if name == "minilm":
        return "COGMEM_EMBEDDER=minilm with COGMEM_EMBED_BACKEND=numpy or onnx"
    return f"--embedder/COGMEM_EMBEDDER={name}"


def check_embedder(store: Store, name: str, dimension: int) -> None:
    """Raise :class:`EmbedderMismatch` unless the store matches (name, dimension)."""
    recorded = recorded_embedder(store)
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


def init_schema(store: Store, name: str, dimension: int, wait_s: int = 300) -> SchemaReport:
    """Apply every schema statement idempotently and record the embedder.

    Fails with :class:`EmbedderMismatch` before changing anything when the store was built
    with another embedder.
    """
    check_embedder(store, name, dimension)
    applied = []
    for stmt in statements.names_in("schema/"):
        store.admin(stmt, dimension=dimension)
        applied.append(stmt)
    store.write("meta/set_embedder", name=name, dimension=dimension)
    store.admin("meta/await_indexes", seconds=wait_s)
    return SchemaReport(
        applied=applied, embedder=name, dimension=dimension, indexes=list_indexes(store)
    )


def list_indexes(store: Store) -> list[dict[str, object]]:
    return store.admin("meta/show_indexes")


def rebuild_vector_indexes(store: Store, name: str, dimension: int, wait_s: int = 300) -> None:
    """Drop and recreate the vector indexes for a new embedder and record it."""
    store.admin("meta/drop_vector_memory")
    store.admin("meta/drop_vector_turn")
    store.admin("schema/vector_memory_embedding", dimension=dimension)
    store.admin("schema/vector_turn_embedding", dimension=dimension)
    store.write("meta/set_embedder", name=name, dimension=dimension)
    store.admin("meta/await_indexes", seconds=wait_s)
