"""The export file: its pydantic models (validation names the place of a problem), and
reading and writing it."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

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

from cogmem.ingest import ReaderError
from cogmem.models import PRIMARY_LABELS as PRIMARY_NODE_LABELS
from cogmem.models import RECORD_LABELS, NodeLabel, RelType

FORMAT: Final = "cogmem-export"
VERSION: Final = 1

PRIMARY_LABELS: tuple[str, ...] = tuple(label.value for label in PRIMARY_NODE_LABELS)
LABEL_NAMES: tuple[str, ...] = (*PRIMARY_LABELS, *RECORD_LABELS)
"""The labels a node of an export may carry: the graph's labels of a group (models.py)."""
REL_NAMES: tuple[str, ...] = tuple(t.value for t in RelType)
if TYPE_CHECKING:  # mypy cannot read a Literal built at run time: for it, a plain string
    Label = str
    RelName = str
else:
    Label = Literal[LABEL_NAMES]
    RelName = Literal[REL_NAMES]

Scalar = StrictStr | StrictBool | StrictInt | StrictFloat
Value = Scalar | list[StrictStr] | list[StrictBool] | list[StrictInt | StrictFloat]


class TransferError(ReaderError):
    """An export file cannot be imported; names the file and the place."""


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
        if primary[0] != NodeLabel.MEMORY and len(self.labels) > 1:
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


class ExportedForget(BaseModel):
    """One forget audit entry of the group (issue 50): when, what kind, how many turns,
    records and consolidated facts, which actor. Never what was forgotten."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    at: datetime
    kind: Literal["turns", "conversation", "span"]
    turns: int = Field(ge=0)
    records: int = Field(ge=0)
    facts: int = Field(default=0, ge=0)
    actor: str | None = None


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
    forgets: list[ExportedForget] = Field(default_factory=list)

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
