"""Export and import of one group as a JSON document.

The file (format ``cogmem-export``, :data:`VERSION`) holds every node of the group —
conversations, sessions, turns and memory records (consolidated facts included) — with
their labels and properties, and every relationship between them by type and by the ids
of its two ends. Datetimes are ISO-8601 strings (``temporal`` names the properties that
hold them); vectors are included unless exported with ``embeddings=False``, in which case
import recomputes them with the configured embedder from the same text ingest embeds.

Import is **idempotent**, not all-or-nothing: the whole file is read, validated (pydantic)
and planned — new ids, rewritten properties, recomputed vectors — before anything is
written; then nodes and relationships are MERGEd on their ids in batches, one transaction
per batch. An interrupted import is completed by running it again, and importing the same
file twice changes nothing. Conversations are written ``complete = false`` first and get
their recorded flag at the end, so an interrupted import shows, like an interrupted ingest.

Importing into **another group** rewrites ``group_id`` / ``group_key`` and every id. A
node's new id is the id an ingest into the new group would give it whenever its old id is
reproduced by that recipe from the old group (conversations, turns, sessions keyed by
their number, entities, extracted records: see :mod:`cogmem.graph`), so a later ingest of
the same source into the new group lands on the imported nodes; any other node (e.g. a
consolidated fact) gets ``node_id(new_group, "imported", old_group, old_id)``. Both are
hashes that include the new group, so the two groups never share an id. Every property
value (or list item) that equals an old id of a node in the file is replaced by its new
id (``turn_id``, ``conversation_id``, ``event_ids``, a relationship's ``via``, ...).

An import never touches a node of another group: ids that already belong to another
group are refused before writing, and the write statements only update nodes of the
target group.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from cogmem.embed import embedder_identity
from cogmem.graph import group_key, memory_embed_text, node_id
from cogmem.models import RecordType
from cogmem.readers import ReaderError
from cogmem.schema import recorded_embedder
from cogmem.store import StoreError

if TYPE_CHECKING:
    from cogmem.api import Memory

FORMAT = "cogmem-export"
VERSION = 1
PAGE = 500
BATCH = 500

PRIMARY_LABELS = ("Conversation", "Session", "Turn", "Memory")
TYPE_LABELS = tuple(dict.fromkeys(t.label for t in RecordType))  # KeyFacts are :Fact
Label = Literal[
    "Conversation",
    "Session",
    "Turn",
    "Memory",
    "Person",
    "Concept",
    "Event",
    "Fact",
    "Claim",
    "Decision",
    "Todo",
    "Reminder",
    "Insight",
]
RelName = Literal[
    "HAS_SESSION",
    "HAS_TURN",
    "NEXT",
    "EVIDENCED_BY",
    "PARTICIPATED_IN",
    "INVOLVES",
    "HAS_FACT",
    "ABOUT",
    "LIKES",
    "DISLIKES",
    "USES",
    "KNOWS",
    "CLAIMS",
    "TARGETS",
    "SUPERSEDES",
    "CONFLICTS_WITH",
    "SUPPORTED_BY",
    "REFERENCES",
    "CAUSES",
]
Scalar = StrictStr | StrictBool | StrictInt | StrictFloat
Value = Scalar | list[StrictStr] | list[StrictBool] | list[StrictInt | StrictFloat]
_WRITE_STATEMENT = {
    "Conversation": "admin/import_conversations",
    "Session": "admin/import_sessions",
    "Turn": "admin/import_turns",
    "Memory": "admin/import_memories",
}


class TransferError(ReaderError):
    """An export file cannot be imported; names the file and the place."""


class NothingToExport(StoreError):
    """The group has no nodes (often a mistyped group name)."""


class ExportedEmbedder(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    dimension: int = Field(ge=1, le=65536)


Temporal = dict[str, Literal["datetime", "date"]]


def _check_temporal(properties: dict[str, Any], temporal: Temporal, what: str) -> None:
    for key, kind in temporal.items():
        value = properties.get(key)
        if not isinstance(value, str):
            raise ValueError(f"{what}: temporal property {key!r} is not a string")
        try:
            datetime.fromisoformat(value) if kind == "datetime" else date.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"{what}: property {key!r} is not an ISO-8601 {kind}: {value!r}"
            ) from None


class ExportedNode(BaseModel):
    """One node: its ``id`` property, its labels, its other properties."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    labels: list[Label] = Field(min_length=1)
    properties: dict[str, Value] = Field(default_factory=dict)
    temporal: Temporal = Field(default_factory=dict)
    embedded: bool = False
    embedding: list[float] | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ExportedNode:
        primary = [label for label in self.labels if label in PRIMARY_LABELS]
        if len(primary) != 1:
            raise ValueError(
                f"node {self.id!r} needs exactly one of {', '.join(PRIMARY_LABELS)} "
                f"among its labels, has {self.labels}"
            )
        if primary[0] != "Memory" and len(self.labels) > 1:
            raise ValueError(f"node {self.id!r}: only Memory nodes carry a type label")
        for key in ("id", "embedding"):
            if key in self.properties:
                raise ValueError(f"node {self.id!r}: {key!r} belongs outside 'properties'")
        _check_temporal(self.properties, self.temporal, f"node {self.id!r}")
        if self.embedding is not None:
            self.embedded = True
        return self

    @property
    def primary(self) -> str:
        return next(label for label in self.labels if label in PRIMARY_LABELS)


class ExportedRelationship(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: RelName
    src: str = Field(min_length=1)
    dst: str = Field(min_length=1)
    properties: dict[str, Value] = Field(default_factory=dict)
    temporal: Temporal = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> ExportedRelationship:
        _check_temporal(self.properties, self.temporal, f"{self.type} {self.src}->{self.dst}")
        return self


class ExportFile(BaseModel):
    """A whole group, as written by :func:`export_group` and read by :func:`read_export`."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["cogmem-export"] = FORMAT
    version: Literal[1] = VERSION
    group: str = Field(min_length=1)
    exported_at: datetime
    embedder: ExportedEmbedder
    embeddings: bool
    counts: dict[str, dict[str, int]] = Field(default_factory=dict)
    nodes: list[ExportedNode]
    relationships: list[ExportedRelationship]

    @model_validator(mode="after")
    def _consistent(self) -> ExportFile:
        seen: set[str] = set()
        for i, node in enumerate(self.nodes):
            if node.id in seen:
                raise ValueError(f"nodes[{i}]: duplicate id {node.id!r}")
            seen.add(node.id)
            if node.properties.get("group_id") != self.group:
                raise ValueError(
                    f"nodes[{i}]: group_id {node.properties.get('group_id')!r} is not the "
                    f"file's group {self.group!r}"
                )
            if node.embedding is not None:
                if not self.embeddings:
                    raise ValueError(f"nodes[{i}]: a vector in a file exported without them")
                if len(node.embedding) != self.embedder.dimension:
                    raise ValueError(
                        f"nodes[{i}]: a vector of {len(node.embedding)} dimensions in a file "
                        f"of {self.embedder.dimension}-dimensional vectors"
                    )
        for i, rel in enumerate(self.relationships):
            for end in (rel.src, rel.dst):
                if end not in seen:
                    raise ValueError(f"relationships[{i}]: no node with id {end!r} in the file")
        return self

    def label_counts(self) -> dict[str, int]:
        return dict(Counter(label for n in self.nodes for label in n.labels))

    def type_counts(self) -> dict[str, int]:
        return dict(Counter(r.type for r in self.relationships))


class ImportSummary(BaseModel):
    group: str
    source_group: str
    nodes: int
    relationships: int
    labels: dict[str, int]
    types: dict[str, int]
    ids_rewritten: bool
    derived_ids: int = 0
    vectors: Literal["from the file", "recomputed", "none"]


# --------------------------------------------------------------------------- export


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


def export_group(mem: Memory, embeddings: bool = True, page: int = PAGE) -> ExportFile:
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
    )
    data.counts = {"labels": data.label_counts(), "relationships": data.type_counts()}
    return data


def _label_order(label: str) -> tuple[int, str]:
    return (0 if label in PRIMARY_LABELS else 1, label)


def write_export(data: ExportFile, path: Path) -> Path:
    """Write the file atomically, readable by its owner only (it holds people's words)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data.model_dump_json())
            fh.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# --------------------------------------------------------------------------- reading


def _location(loc: Sequence[int | str]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def parse_export(text: str, path: Path | str = "<export>") -> ExportFile:
    """Validate an export document; :class:`TransferError` names the place of a problem."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TransferError(
            path, f"line {exc.lineno}, column {exc.colno}", f"invalid JSON: {exc.msg}"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise TransferError(path, "", f"invalid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise TransferError(path, "$", "not a cogmem export: expected a JSON object")
    if raw.get("format") != FORMAT:
        raise TransferError(
            path,
            "$.format",
            f"not a cogmem export (format {raw.get('format')!r}, expected {FORMAT!r})",
        )
    if raw.get("version") != VERSION:
        raise TransferError(
            path,
            "$.version",
            f"export format version {raw.get('version')!r} is not supported "
            f"(this cogmem reads version {VERSION})",
        )
    try:
        return ExportFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        more = len(exc.errors()) - 1
        message = first["msg"] + (f" (and {more} more problem(s))" if more else "")
        raise TransferError(path, _location(first["loc"]), message) from None


def read_export(path: Path | str) -> ExportFile:
    path = Path(path)
    if not path.is_file():
        raise TransferError(path, "", "no such file" if not path.exists() else "not a regular file")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TransferError(path, f"byte {exc.start}", "not UTF-8 text") from None
    except OSError as exc:
        raise TransferError(path, "", f"cannot read: {exc.strerror or exc}") from None
    return parse_export(text, path)


# --------------------------------------------------------------------------- import


def _derived_ids(data: ExportFile, new: str) -> dict[str, str]:
    """Old id → the id an ingest into group ``new`` gives the same thing, where the old id
    is reproduced by that recipe from the old group (see :mod:`cogmem.graph`)."""
    old = data.group
    by_id = {n.id: n for n in data.nodes}
    conv_source = {
        n.id: n.properties.get("source_id")
        for n in data.nodes
        if n.primary == "Conversation" and isinstance(n.properties.get("source_id"), str)
    }
    out: dict[str, str] = {}

    def derive(parts: tuple[Any, ...], node_id_now: str) -> None:
        if node_id(old, *parts) == node_id_now:
            out[node_id_now] = node_id(new, *parts)

    for n in data.nodes:
        p = n.properties
        if n.primary == "Conversation" and n.id in conv_source:
            derive(("conversation", conv_source[n.id]), n.id)
        elif n.primary == "Session":
            source = conv_source.get(str(p.get("conversation_id")))
            if source is not None and isinstance(p.get("index"), int):
                derive(("session", source, str(p["index"])), n.id)
        elif n.primary == "Turn":
            source = conv_source.get(str(p.get("conversation_id")))
            if source is not None and isinstance(p.get("source_id"), str):
                derive(("turn", source, p["source_id"]), n.id)
    for n in data.nodes:  # records need their turn's new id
        p = n.properties
        if n.primary != "Memory" or not isinstance(p.get("type"), str):
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
    """What ingest embeds for a turn (:func:`cogmem.graph.turn_embed_text`), from its
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


def import_group(
    mem: Memory,
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
    to_embed: list[tuple[dict[str, Any], str]] = []
    completes: list[str] = []
    for n in data.nodes:
        new_id = ids.get(n.id, n.id)
        props = {
            k: _python_value(n.temporal, k, _rewrite(v, ids) if rewrite else v)
            for k, v in n.properties.items()
        }
        props.update(id=new_id, group_id=target, group_key=gkey)
        if n.primary == "Conversation":
            if props.get("complete") is True:
                completes.append(new_id)
            props["complete"] = False
        if n.embedding is not None and not reembed:
            props["embedding"] = [float(x) for x in n.embedding]
        elif n.embedded or (reembed and n.primary in ("Turn", "Memory")):
            text = turn_embed_text(props) if n.primary == "Turn" else memory_embed_text(props)
            to_embed.append((props, text))
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
        vectors = mem.embedder.embed([text for _, text in chunk])
        for (props, _), vec in zip(chunk, vectors, strict=True):
            props["embedding"] = [float(x) for x in vec]
    for label in PRIMARY_LABELS:
        for chunk in _batches(rows[label], batch):
            written = mem.store.write(_WRITE_STATEMENT[label], nodes=list(chunk), group=target)
            _expect(written, "nodes", len(chunk), label, path)
    for chunk in _batches(rels, batch * 4):
        written = mem.store.write("admin/import_relationships", rels=list(chunk), group=target)
        _expect(written, "relationships", len(chunk), "relationship", path)
    for cid in completes:
        mem.store.write("ingest/mark_conversation_complete", id=cid)
    vectors: Literal["from the file", "recomputed", "none"] = (
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
        vectors=vectors,
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


__all__ = [
    "FORMAT",
    "VERSION",
    "ExportFile",
    "ImportSummary",
    "NothingToExport",
    "TransferError",
    "check_vectors",
    "export_group",
    "import_group",
    "parse_export",
    "read_export",
    "write_export",
]
