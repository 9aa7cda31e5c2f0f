"""The write path the jobs share: chunked writes in one transaction, and the diff between the
edges a job derives and the edges the graph holds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from cogmem.store import Statements, Store

ROWS_PER_STATEMENT = 1000

Edge = tuple[str, str, str]  # (source id, relationship type, target id)
Step = tuple[str, str, list[dict[str, Any]], dict[str, Any]]


def write_rows(store: Statements, steps: list[Step]) -> None:
    """Run (statement, row-parameter name, rows, other params) in one transaction, chunked."""
    batch: list[tuple[str, dict[str, Any]]] = []
    for name, key, rows, params in steps:
        for start in range(0, len(rows), ROWS_PER_STATEMENT):
            batch.append((name, {**params, key: rows[start : start + ROWS_PER_STATEMENT]}))
    if batch:
        store.write_many(batch)


def job_edges(store: Store, group: str, job: str) -> set[Edge]:
    """The (source, type, target) edges a consolidation job wrote in a group."""
    return {
        (e["src"], e["type"], e["dst"])
        for e in store.read("consolidation/job_edges", group_id=group, job=job)
    }


def by_type(edges: Iterable[Edge]) -> Counter[str]:
    """How many (source, type, target) edges there are of each type."""
    return Counter(rel for _, rel, _ in edges)


def edge_diff(
    wanted: set[Edge], have: set[Edge], owned: set[Edge]
) -> tuple[list[Edge], list[Edge]]:
    """(edges to create, owned edges to remove)."""
    return sorted(wanted - have), sorted(owned - wanted)
