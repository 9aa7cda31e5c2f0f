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
their number, entities, extracted records: see :mod:`cogmem.ingest.ids`), so a later ingest of
the same source into the new group lands on the imported nodes; any other node (e.g. a
consolidated fact) gets ``node_id(new_group, "imported", old_group, old_id)``. Both are
hashes that include the new group, so the two groups never share an id. Every property
value (or list item) that equals an old id of a node in the file is replaced by its new
id (``turn_id``, ``conversation_id``, ``event_ids``, a relationship's ``via``, ...).

An import never touches a node of another group: ids that already belong to another
group are refused before writing, and the write statements only update nodes of the
target group.

Modules: ``file`` (the format, validated by pydantic; reading and writing it), ``export``
(:func:`export_group`), ``importer`` (:func:`import_group`).
"""

from __future__ import annotations

from cogmem.transfer.export import NothingToExport, export_group
from cogmem.transfer.file import (
    FORMAT,
    VERSION,
    ExportFile,
    ImportSummary,
    Label,
    RelName,
    TransferError,
    parse_export,
    read_export,
    write_export,
)
from cogmem.transfer.importer import check_vectors, import_group

__all__ = [
    "FORMAT",
    "VERSION",
    "ExportFile",
    "ImportSummary",
    "Label",
    "NothingToExport",
    "RelName",
    "TransferError",
    "check_vectors",
    "export_group",
    "import_group",
    "parse_export",
    "read_export",
    "write_export",
]
