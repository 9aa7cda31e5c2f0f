"""What the retrieval operators return: plain data, no I/O.

Dataclasses, not pydantic models: a search builds hundreds of candidates from rows the
process already holds (typed as they are), and validating each cost ~7 µs (7 % of a
search on a LoCoMo group). What leaves the library is :class:`cogmem.models.Evidence`.

The operators (``operators.py``) build these from Cypher rows, the ranking
(``scoring.py``) reads them, and the controller passes them between the two; keeping them
here lets the ranking be imported and tested without a driver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from cogmem.models import TimeRange


@dataclass(slots=True)
class Candidate:
    """A node an operator returned, with the scores that ranked it. ``vector`` (here and
    below) is Neo4j's similarity, (1 + cos) / 2; :func:`cogmem.retrieval.scoring.cosine`
    turns it back into the cosine.

    Positional on purpose: Anchor builds a few hundred a search from a node's fields kept
    as a tuple in this order, then the five scores last (twice as fast as by keyword)."""

    id: str
    type: str
    name: str | None = None
    content: str = ""
    quote: str | None = None
    speaker: str | None = None
    subject: str | None = None
    source: str | None = None
    target: str | None = None
    status: str | None = None
    turn_id: str | None = None
    source_id: str | None = None
    conversation_id: str | None = None
    idx: int | None = None
    prev_idx: int | None = None
    """A turn's: the idx of the turn before it in its conversation (its neighbour by order;
    None: idx - 1, or none), which differs from idx - 1 after a forget (cogmem.forget)."""
    time_start: datetime | None = None
    time_end: datetime | None = None
    time_text: str | None = None
    at: datetime | None = None
    consolidated: bool = False
    bm25: float = 0.0
    fuzzy: float = 0.0
    vector: float = 0.0
    score: float = 0.0
    path: list[str] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class AnchorResult:
    entries: list[Candidate]
    records: list[Candidate]
    turns: list[Candidate]
    types: list[str] | None
    widened: bool = False


@dataclass(slots=True, kw_only=True)
class Shared:
    """A concept several entities' neighbourhoods share, with the linking records."""

    id: str
    name: str
    similarity: float
    links: dict[str, list[str]]


@dataclass(slots=True, kw_only=True)
class GroundedRecord:
    id: str
    type: str
    source: str | None = None
    target: str | None = None
    status: str | None = None
    vector: float = 0.0


@dataclass(slots=True, kw_only=True)
class GroundedTurn:
    """A turn that grounds a record (offset 0) or neighbours it (offset ≠ 0)."""

    record_id: str
    turn_id: str
    id: str
    source_id: str
    conversation_id: str
    speaker: str
    text: str
    at: datetime | None = None
    idx: int
    prev_idx: int | None = None
    """The idx of the turn before it (None: idx - 1, or none), as :attr:`Candidate.prev_idx`."""
    offset: int
    vector: float = 0.0
    records: list[GroundedRecord] = field(default_factory=list)


@dataclass(frozen=True)
class Hop:
    """One traversal to run: from ``ids`` over ``rel_types``, ``depth`` hops, inside
    ``window`` when given."""

    ids: list[str]
    rel_types: tuple[str, ...]
    window: TimeRange | None = None
    depth: int = 1
