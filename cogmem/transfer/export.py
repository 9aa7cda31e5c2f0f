"""Export: every node and relationship of a group, read page by page."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Protocol

from cogmem.config import Settings
from cogmem.embed import embedder_identity
from cogmem.server.schema import recorded_embedder
from cogmem.store import Store, StoreError
from cogmem.transfer.file import (
    PRIMARY_LABELS,
    ExportedEmbedder,
    ExportedForget,
    ExportedNode,
    ExportedRelationship,
    ExportFile,
)

PAGE = 500


class ExportSource(Protocol):
    """What :func:`export_group` reads of a memory (a :class:`cogmem.api.Memory` is one;
    this module sits below the API, which passes itself in)."""

    @property
    def group(self) -> str: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...


class NothingToExport(StoreError):
    """The group has no nodes (often a mistyped group name)."""


def _to_json_value(value: Any, key: str, node: str) -> tuple[Any, str | None]:
    if isinstance(value, datetime):
        return value.isoformat(), "datetime"
    if isinstance(value, date):
        return value.isoformat(), "date"
    if isinstance(value, str | bool | int | float):
        return value, None
    if isinstance(value, list) and all(isinstance(v, str | bool | int | float) for v in value):
        return value, None
    raise StoreError(
        f"node {node}: property {key!r} has a type export does not handle ({type(value).__name__})"
    )


def export_group(mem: ExportSource, embeddings: bool = True, page: int = PAGE) -> ExportFile:
    """Every node and relationship of ``mem.group``, read page by page.

    The pages are separate read transactions: export a group that is not being written to
    for a consistent copy.
    """
    store, group = mem.store, mem.group
    recorded = recorded_embedder(store)
    name, dimension = recorded or embedder_identity(mem.settings)
    nodes: list[ExportedNode] = []
    rels: list[ExportedRelationship] = []
    after = ""
    while True:
        rows = store.read(
            "admin/export_nodes", group=group, after=after, limit=page, embeddings=embeddings
        )
        if not rows:
            break
        for row in rows:
            props: dict[str, Any] = {}
            temporal: dict[str, Any] = {}
            for key, value in row["props"].items():
                if value is None or key in ("id", "embedding"):
                    continue
                props[key], kind = _to_json_value(value, key, row["id"])
                if kind:
                    temporal[key] = kind
            nodes.append(
                ExportedNode(
                    id=row["id"],
                    labels=sorted(row["labels"], key=_label_order),
                    properties=props,
                    temporal=temporal,
                    embedded=bool(row["embedded"]),
                    embedding=row["embedding"] if embeddings else None,
                )
            )
        ids = [row["id"] for row in rows]
        for rel in store.read("admin/export_relationships", group=group, ids=ids):
            rel_props: dict[str, Any] = {}
            rel_temporal: dict[str, Any] = {}
            for key, value in (rel["props"] or {}).items():
                what = f"{rel['src']}-[{rel['type']}]->{rel['dst']}"
                rel_props[key], kind = _to_json_value(value, key, what)
                if kind:
                    rel_temporal[key] = kind
            rels.append(
                ExportedRelationship(
                    type=rel["type"],
                    src=rel["src"],
                    dst=rel["dst"],
                    properties=rel_props,
                    temporal=rel_temporal,
                )
            )
        after = rows[-1]["id"]
    if not nodes:
        raise NothingToExport(f"group {group!r} has no nodes in {store.uri}: nothing to export")
    data = ExportFile(
        group=group,
        exported_at=datetime.now().astimezone(),
        embedder=ExportedEmbedder(name=name, dimension=dimension),
        embeddings=embeddings,
        nodes=nodes,
        relationships=rels,
        forgets=[
            ExportedForget.model_validate(row)
            for row in store.read("forget/audit_entries", group=group)
        ],
    )
    data.counts = {"labels": data.label_counts(), "relationships": data.type_counts()}
    return data


def _label_order(label: str) -> tuple[int, str]:
    return (0 if label in PRIMARY_LABELS else 1, label)
