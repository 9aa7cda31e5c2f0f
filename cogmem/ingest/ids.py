"""Deterministic ids: a hash of group, kind and content key, so a rerun MERGEs onto the
same nodes.

Entities (Person, Concept) are keyed by their canonical name within a group; every other
record by its turn, type, quote and content. A Claim's key includes its source speaker, so
claims of different speakers are never merged.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from cogmem.models import ENTITY_TYPES, ExtractedRecord, RecordType


def node_id(*parts: object) -> str:
    digest = hashlib.sha1("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return digest[:24]


def group_key(group: str) -> str:
    """A single Lucene token standing for the group inside fulltext indexes."""
    return "g" + hashlib.sha1(group.encode("utf-8")).hexdigest()[:20]


def said_key(at: datetime) -> str:
    """The UTC day ``at`` falls on as one Lucene token (``d20250330``): the ``said_key``
    every turn and record carries (written in Cypher from its time: ingest/merge_turns),
    which a search as of a date asks the fulltext indexes for up to its own day."""
    utc = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    return f"d{utc.year:04d}{utc.month:02d}{utc.day:02d}"


def conversation_id(group: str, conversation: str) -> str:
    return node_id(group, "conversation", conversation)


def session_id(group: str, conversation: str, session: str) -> str:
    return node_id(group, "session", conversation, session)


def turn_id(group: str, conversation: str, source_id: str) -> str:
    return node_id(group, "turn", conversation, source_id)


def entity_id(group: str, rtype: RecordType, name: str) -> str:
    return node_id(group, rtype.label, " ".join(name.lower().split()))


def record_id(group: str, tid: str, record: ExtractedRecord) -> str:
    if record.type in ENTITY_TYPES:
        return entity_id(group, record.type, record.name or record.content)
    return node_id(group, record.type.value, tid, record.source or "", record.quote, record.content)
