"""Import: a validated export file into a group, idempotent, ids rewritten for another group
(see :mod:`cogmem.transfer`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from cogmem.config import Settings
from cogmem.embed import Embedder, embedder_identity
from cogmem.embed.tokens import TokenEmbedder, embed_texts
from cogmem.ingest.ids import group_key, node_id
from cogmem.ingest.rows import memory_embed_text
from cogmem.models import NodeLabel, RecordType
from cogmem.store import Store
from cogmem.transfer.file import PRIMARY_LABELS, ExportFile, ImportSummary, Temporal, TransferError

BATCH = 500
_WRITE_STATEMENT: dict[str, str] = {
    NodeLabel.CONVERSATION: "admin/import_conversations",
    NodeLabel.SESSION: "admin/import_sessions",
    NodeLabel.TURN: "admin/import_turns",
    NodeLabel.MEMORY: "admin/import_memories",
}


def _derived_ids(data: ExportFile, new: str) -> dict[str, str]:
    """Old id → the id an ingest into group ``new`` gives the same thing, where the old id
    is reproduced by that recipe from the old group (see :mod:`cogmem.ingest.ids`)."""
    old = data.group
    by_id = {n.id: n for n in data.nodes}
    conv_source = {
        n.id: n.properties.get("source_id")
        for n in data.nodes
        if n.primary == NodeLabel.CONVERSATION and isinstance(n.properties.get("source_id"), str)
    }
    out: dict[str, str] = {}

    def derive(parts: tuple[Any, ...], node_id_now: str) -> None:
        if node_id(old, *parts) == node_id_now:
            out[node_id_now] = node_id(new, *parts)

    for n in data.nodes:
        p = n.properties
        if n.primary == NodeLabel.CONVERSATION and n.id in conv_source:
            derive(("conversation", conv_source[n.id]), n.id)
        elif n.primary == NodeLabel.SESSION:
            source = conv_source.get(str(p.get("conversation_id")))
            if source is not None and isinstance(p.get("index"), int):
                derive(("session", source, str(p["index"])), n.id)
        elif n.primary == NodeLabel.TURN:
            source = conv_source.get(str(p.get("conversation_id")))
            if source is not None and isinstance(p.get("source_id"), str):
                derive(("turn", source, p["source_id"]), n.id)
    for n in data.nodes:  # records need their turn's new id
        p = n.properties
        if n.primary != NodeLabel.MEMORY or not isinstance(p.get("type"), str):
            continue
        kind = p["type"]
        if kind in (RecordType.PERSON.value, RecordType.CONCEPT.value):
            name = p.get("name")
            if isinstance(name, str):
                key = " ".join(name.lower().split())
                derive((RecordType(kind).label, key), n.id)
        else:
            tid = p.get("turn_id")
            if not isinstance(tid, str) or tid not in out or tid not in by_id:
                continue
            rest = (p.get("source") or "", p.get("quote"), p.get("content"))
            if node_id(old, kind, tid, *rest) == n.id:
                out[n.id] = node_id(new, kind, out[tid], *rest)
    return out


def _rewrite(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, list):
        return [ids.get(v, v) if isinstance(v, str) else v for v in value]
    return value


def _python_value(temporal: Temporal, key: str, value: Any) -> Any:
    """A property's value as the driver should send it (ISO strings back to datetimes;
    validation already parsed them once)."""
    kind = temporal.get(key)
    if kind is None:
        return value
    return datetime.fromisoformat(value) if kind == "datetime" else date.fromisoformat(value)


def turn_embed_text(props: dict[str, Any]) -> str:
    """What ingest embeds for a turn (:func:`cogmem.ingest.rows.turn_embed_text`), from its
    stored properties."""
    return f"{props.get('speaker')}: {props.get('full_text') or props.get('text') or ''}"


def _batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def check_vectors(data: ExportFile, name: str, dimension: int, path: Path | str) -> None:
    """Refuse vectors that the configured embedder did not make (another dimension or
    another model would make the vector search silently wrong)."""
    if not data.embeddings:
        return
    theirs = data.embedder
    if theirs.dimension != dimension or theirs.name != name:
        raise TransferError(
            path,
            "$.embedder",
            f"the file holds {theirs.dimension}-dimensional vectors of embedder "
            f"{theirs.name!r}, but the configured embedder {name!r} makes {dimension}-"
            f"dimensional ones; import with --reembed to recompute them with {name!r}, "
            f"or configure --embedder {theirs.name}",
        )


class ImportTarget(Protocol):
    """What :func:`import_group` reads and calls of a memory (a :class:`cogmem.api.Memory`
    is one; this module sits below the API, which passes itself in)."""

    @property
    def group(self) -> str: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...

    @property
    def embedder(self) -> Embedder: ...

    def ensure_schema(self) -> None: ...


def import_group(
    mem: ImportTarget,
    data: ExportFile,
    reembed: bool = False,
    path: Path | str = "<export>",
    batch: int = BATCH,
) -> ImportSummary:
    """Write ``data`` into ``mem.group`` (idempotent; see the module docstring)."""
    target = mem.group
    name, dimension = embedder_identity(mem.settings)
    if not reembed:
        check_vectors(data, name, dimension, path)
    rewrite = target != data.group
    ids: dict[str, str] = {}
    derived = 0
    if rewrite:
        ids = _derived_ids(data, target)
        derived = len(ids)
        for n in data.nodes:
            ids.setdefault(n.id, node_id(target, "imported", data.group, n.id))
        if len(set(ids.values())) != len(ids):
            raise TransferError(path, "$.nodes", "two nodes would get the same id in the new group")
    gkey = group_key(target)

    rows: dict[str, list[dict[str, Any]]] = {label: [] for label in PRIMARY_LABELS}
    to_embed: list[tuple[dict[str, Any], str, str | None]] = []
    with_rows = isinstance(mem.embedder, TokenEmbedder)
    completes: list[str] = []
    for n in data.nodes:
        new_id = ids.get(n.id, n.id)
        props = {
            k: _python_value(n.temporal, k, _rewrite(v, ids) if rewrite else v)
            for k, v in n.properties.items()
        }
        props.update(id=new_id, group_id=target, group_key=gkey)
        if n.primary == NodeLabel.CONVERSATION:
            if props.get("complete") is True:
                completes.append(new_id)
            props["complete"] = False
        turn = n.primary == NodeLabel.TURN
        # a turn's token rows are not in the file: a turn is embedded again when the
        # embedder makes them (the same vector as the file's, and its rows)
        rows_wanted = turn and (n.embedded or n.embedding is not None) and with_rows
        if n.embedding is not None and not reembed and not rows_wanted:
            props["embedding"] = [float(x) for x in n.embedding]
        elif (
            rows_wanted
            or n.embedded
            or (reembed and n.primary in (NodeLabel.TURN, NodeLabel.MEMORY))
        ):
            text = turn_embed_text(props) if turn else memory_embed_text(props)
            speaker = (props.get("speaker") or "") if turn else None
            to_embed.append((props, text, speaker))
        rows[n.primary].append({"id": new_id, "labels": list(n.labels), "props": props})
    rels = [
        {
            "src": ids.get(r.src, r.src),
            "dst": ids.get(r.dst, r.dst),
            "type": r.type,
            "props": {
                k: _python_value(r.temporal, k, _rewrite(v, ids) if rewrite else v)
                for k, v in r.properties.items()
            },
        }
        for r in data.relationships
    ]

    mem.ensure_schema()
    all_ids = [row["id"] for label_rows in rows.values() for row in label_rows]
    for chunk in _batches(all_ids, 5000):
        foreign = mem.store.read("admin/foreign_ids", ids=list(chunk), group=target)
        if foreign:
            shown = ", ".join(f"{r['id']} ({r['group_id']!r})" for r in foreign[:3])
            raise TransferError(
                path,
                "$.nodes",
                f"{len(foreign)}+ node id(s) of the file belong to another group: {shown}; "
                "refusing to import",
            )
    for chunk in _batches(to_embed, 256):  # before any write: a failure here writes nothing
        vectors, tokens = embed_texts(
            mem.embedder, [text for _, text, _ in chunk], [speaker for _, _, speaker in chunk]
        )
        for (props, _, _), vec, kept in zip(chunk, vectors, tokens, strict=True):
            props["embedding"] = [float(x) for x in vec]
            props.update(kept)
    for label in PRIMARY_LABELS:
        for chunk in _batches(rows[label], batch):
            written = mem.store.write(_WRITE_STATEMENT[label], nodes=list(chunk), group=target)
            _expect(written, "nodes", len(chunk), label, path)
    for chunk in _batches(rels, batch * 4):
        written = mem.store.write("admin/import_relationships", rels=list(chunk), group=target)
        _expect(written, "relationships", len(chunk), "relationship", path)
    for cid in completes:
        mem.store.write("ingest/mark_conversation_complete", id=cid)
    if data.forgets:  # the group's forget audit entries come along (issue 50)
        mem.store.write(
            "forget/import_audit",
            group=target,
            rows=[f.model_dump() for f in data.forgets],
        )
    # a new vector epoch: searching processes read the group again whole, relationships too
    # (an imported relationship does not stamp its ends)
    mem.store.write("admin/forget_group_vectors", group=target)
    vector_source: Literal["from the file", "recomputed", "none"] = (
        "recomputed" if to_embed else ("from the file" if data.embeddings else "none")
    )
    return ImportSummary(
        group=target,
        source_group=data.group,
        nodes=len(data.nodes),
        relationships=len(rels),
        labels=data.label_counts(),
        types=data.type_counts(),
        ids_rewritten=rewrite,
        derived_ids=derived,
        vectors=vector_source,
    )


def _expect(rows: list[dict[str, Any]], key: str, wanted: int, what: str, path: Path | str) -> None:
    got = int(rows[0][key]) if rows else 0
    if got != wanted:
        raise TransferError(
            path,
            "",
            f"only {got} of {wanted} {what} rows could be written (their ids belong to "
            "another group, or an end of a relationship is missing); the import is "
            "incomplete: rerun it after fixing the file",
        )
