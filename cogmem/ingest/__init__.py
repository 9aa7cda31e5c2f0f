"""Ingest: a conversation file → readers → Turns → extraction → rows → the graph.

``readers`` (one module per format: ``locomo``, ``jsonl``, ``openai_chat``; shared checks in
``parsing``), ``ids`` (deterministic node ids), ``rows`` (the rows and texts written),
``ingestor`` (batches, embeddings, transactions).
"""

from __future__ import annotations

from cogmem.ingest.ingestor import Ingestor, IngestSummary, Progress
from cogmem.ingest.readers import FORMATS, ReaderError, ReadResult, read_conversations, read_file

__all__ = [
    "FORMATS",
    "IngestSummary",
    "Ingestor",
    "Progress",
    "ReadResult",
    "ReaderError",
    "read_conversations",
    "read_file",
]
