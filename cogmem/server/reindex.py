"""Re-embed the whole store with another embedder (``cogmem reindex``).

The vector indexes are dropped, every Turn and memory record gets a new vector from the
configured embedder, page by page, and the indexes are recreated with its dimension; the
embedder is recorded so later runs check against it. Every group starts a new vector epoch,
so searching processes read the new vectors (:mod:`cogmem.retrieval.vectors`).
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from cogmem.embed import Embedder
from cogmem.embed.tokens import TOKEN_ROWS, TOKEN_SCALES, embed_texts
from cogmem.ingest.rows import memory_embed_text, speaker_text
from cogmem.retrieval.vector_cache import clear_vector_caches
from cogmem.server.schema import drop_vector_indexes, has_vector_indexes, rebuild_vector_indexes
from cogmem.store import Store


class ReindexReport(BaseModel):
    embedder: str
    dimension: int
    turns: int
    records: int
    vector_indexes: bool = False  # Neo4j's HNSW indexes were rebuilt (they existed)


def reindex(
    store: Store,
    embedder: Embedder,
    page: int = 256,
    progress: Callable[[int], None] | None = None,
) -> ReindexReport:
    indexed = has_vector_indexes(store)
    drop_vector_indexes(store)  # rebuilt afterwards, if there were any
    turns = _pages(
        store,
        embedder,
        page,
        progress,
        "admin/reindex_turns_page",
        "admin/set_turn_embeddings",
        lambda row: speaker_text(row["speaker"] or "", row["full_text"] or ""),
        lambda row: row["speaker"] or "",
    )
    records = _pages(
        store,
        embedder,
        page,
        progress,
        "admin/reindex_memory_page",
        "admin/set_memory_embeddings",
        memory_embed_text,
        lambda row: None,
    )
    rebuild_vector_indexes(store, embedder.name, embedder.dimension, vector_indexes=indexed)
    store.write("admin/new_vector_epochs")
    clear_vector_caches()
    return ReindexReport(
        embedder=embedder.name,
        dimension=embedder.dimension,
        turns=turns,
        records=records,
        vector_indexes=indexed,
    )


def _pages(
    store: Store,
    embedder: Embedder,
    page: int,
    progress: Callable[[int], None] | None,
    read: str,
    write: str,
    text: Callable[[dict], str],
    speaker: Callable[[dict], str | None],
) -> int:
    """Re-embed the nodes ``read`` pages through; ``speaker`` is a turn's (whose token rows
    are kept) or None (a record: no rows)."""
    after, done = "", 0
    while True:
        rows = store.read(read, after=after, limit=page)
        if not rows:
            return done
        vectors, tokens = embed_texts(
            embedder, [text(row) for row in rows], [speaker(row) for row in rows]
        )
        store.write(
            write,
            rows=[
                {
                    "id": row["id"],
                    "embedding": vec.tolist(),
                    TOKEN_ROWS: kept.get(TOKEN_ROWS),
                    TOKEN_SCALES: kept.get(TOKEN_SCALES),
                }
                for row, vec, kept in zip(rows, vectors, tokens, strict=True)
            ],
        )
        done += len(rows)
        after = rows[-1]["id"]
        if progress is not None:
            progress(len(rows))
