"""Pydantic records at the boundaries: turns in, extracted records, evidence and answers out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class RecordType(StrEnum):
    PERSON = "Person"
    CONCEPT = "Concept"
    EVENT = "Event"
    FACT = "Fact"
    CLAIM = "Claim"
    DECISION = "Decision"
    TODO = "Todo"
    REMINDER = "Reminder"
    INSIGHT = "Insight"
    KEYFACT = "KeyFact"  # stored as a :Fact with kind 'KeyFact'

    @property
    def label(self) -> str:
        """The node label the record is stored under (besides :Memory)."""
        return "Fact" if self is RecordType.KEYFACT else self.value


ENTITY_TYPES = frozenset({RecordType.PERSON, RecordType.CONCEPT})
ARTIFACT_TYPES = frozenset(
    {
        RecordType.DECISION,
        RecordType.TODO,
        RecordType.REMINDER,
        RecordType.INSIGHT,
        RecordType.KEYFACT,
    }
)


class RelType(StrEnum):
    """The fixed relationship vocabulary. Nothing else is ever written."""

    HAS_SESSION = "HAS_SESSION"
    HAS_TURN = "HAS_TURN"
    NEXT = "NEXT"
    EVIDENCED_BY = "EVIDENCED_BY"
    PARTICIPATED_IN = "PARTICIPATED_IN"
    INVOLVES = "INVOLVES"
    HAS_FACT = "HAS_FACT"
    ABOUT = "ABOUT"
    LIKES = "LIKES"
    DISLIKES = "DISLIKES"
    USES = "USES"
    KNOWS = "KNOWS"
    CLAIMS = "CLAIMS"
    TARGETS = "TARGETS"
    SUPERSEDES = "SUPERSEDES"
    CONFLICTS_WITH = "CONFLICTS_WITH"
    SUPPORTED_BY = "SUPPORTED_BY"
    REFERENCES = "REFERENCES"
    CAUSES = "CAUSES"


class NodeLabel(StrEnum):
    """Labels of the nodes that are not records; a record's type label is ``RecordType.label``."""

    CONVERSATION = "Conversation"
    SESSION = "Session"
    TURN = "Turn"
    MEMORY = "Memory"  # every record carries it besides its type label
    META = "CogmemMeta"  # store-wide settings (the embedder); belongs to no group
    FORGET_AUDIT = "ForgetAudit"  # that a forget happened in a group (cogmem.forget); no text


PRIMARY_LABELS: tuple[NodeLabel, ...] = (
    NodeLabel.CONVERSATION,
    NodeLabel.SESSION,
    NodeLabel.TURN,
    NodeLabel.MEMORY,
)
"""Every node of a group carries exactly one of these."""
RECORD_LABELS: tuple[str, ...] = tuple(dict.fromkeys(t.label for t in RecordType))
"""The type labels of records, in RecordType order (a KeyFact is stored as a :Fact)."""
LABELS: frozenset[str] = frozenset({*(label.value for label in NodeLabel), *RECORD_LABELS})
"""Every node label the graph uses; nothing else is ever written."""


Intent = Literal["single-hop", "temporal", "multi-hop", "opinion", "update", "open"]
"""What a question asks for; the router decides it, the recipes map it to operator steps."""
INTENTS: tuple[Intent, ...] = ("single-hop", "temporal", "multi-hop", "opinion", "update", "open")

ClaimStatus = Literal["CURRENT", "SUPERSEDED", "CONFLICTING"]
"""Where a claim stands after reconciliation; the originals are always kept."""
CLAIM_STATUSES: tuple[ClaimStatus, ...] = ("CURRENT", "SUPERSEDED", "CONFLICTING")

PlanStatus = Literal["PLANNED", "DONE", "CANCELLED", "SUPERSEDED"]
"""Where a plan stands as a turn tells it: still to come ("I need to renew my passport"),
done ("I finally renewed it"), or called off ("I'm not going to run it anymore"); a plan
that a later turn did or called off is SUPERSEDED (that turn's record SUPERSEDES it). Stored
as the ``status`` of an Event or a Todo (a Claim's ``status`` is its reconciliation
status)."""
PLAN_STATUSES: tuple[PlanStatus, ...] = ("PLANNED", "DONE", "CANCELLED", "SUPERSEDED")
PLAN_TYPES = frozenset({RecordType.EVENT, RecordType.TODO})
"""The record types that carry a plan status."""

Granularity = Literal["instant", "day", "weekend", "week", "month", "season", "year", "decade"]


def as_utc(at: datetime) -> datetime:
    """``at`` with a time zone: a naive datetime is taken as UTC, an aware one is kept."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None or at.utcoffset() is None else at


# The times cogmem keeps (see cogmem.temporal.client_time, which every client time passes).
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=UTC)
RANGE = "0001-01-02 to 9999-12-30 UTC"
MAX_OFFSET = timedelta(hours=18)


class ClientTimeError(ValueError):
    """A time a client sent that cannot be used; the message is one line."""


def _shown(at: datetime) -> str:
    return at.isoformat()


def check_time(at: datetime) -> datetime:
    """``at`` (a naive datetime is UTC; an offset is kept) if it is inside the range and
    its offset within 18 hours, else :class:`ClientTimeError`."""
    aware = as_utc(at)
    offset = aware.utcoffset() or timedelta(0)
    if abs(offset) > MAX_OFFSET:
        raise ClientTimeError(
            f"{_shown(aware)} has a UTC offset beyond 18 hours, which Neo4j cannot keep"
        )
    try:
        utc = aware.astimezone(UTC)
    except OverflowError:
        utc = None
    if utc is None or not EARLIEST <= utc <= LATEST:
        raise ClientTimeError(f"{_shown(aware)} is outside the times cogmem keeps ({RANGE})")
    return aware


class TimeRange(BaseModel):
    """A resolved time reference: [start, end) at some granularity, with the words used."""

    model_config = ConfigDict(frozen=True)

    start: datetime
    end: datetime
    granularity: Granularity
    text: str

    @field_validator("end")
    @classmethod
    def _ordered(cls, end: datetime, info: Any) -> datetime:
        start = info.data.get("start")
        if start is not None and end < start:
            raise ValueError("time range ends before it starts")
        return end


class Turn(BaseModel):
    """One utterance, verbatim, with where it came from."""

    conversation: str = Field(min_length=1)
    session: str = Field(min_length=1)
    session_index: int = Field(ge=0)
    index: int = Field(ge=0, description="position of the turn in its conversation")
    source_id: str = Field(min_length=1, description="the source's own id (LoCoMo dia_id)")
    speaker: str = Field(min_length=1)
    text: str
    at: datetime | None = None
    session_date_text: str | None = None
    caption: str | None = None

    @field_validator("at")
    @classmethod
    def _utc(cls, at: datetime | None) -> datetime | None:
        """A naive datetime is UTC (as the readers take it): never stored as local time;
        a time outside the range kept is refused (:mod:`cogmem.temporal.client_time`)."""
        return check_time(at) if at is not None else None

    @property
    def full_text(self) -> str:
        """The text a reader sees: an image turn keeps its caption as part of the turn."""
        if self.caption:
            return f"{self.text} [image: {self.caption}]".strip()
        return self.text


class Conversation(BaseModel):
    """A whole conversation as read from a file, in order."""

    id: str = Field(min_length=1)
    speakers: list[str] = Field(default_factory=list)
    turns: list[Turn] = Field(default_factory=list)
    source_format: str = "unknown"


class ExtractedRecord(BaseModel):
    """One record an extractor found in one turn.

    ``quote`` must be an exact substring of the turn's text (checked on the way in);
    ``subject`` is the person the record is about (the speaker unless stated otherwise).
    """

    type: RecordType
    content: str = Field(min_length=1)
    quote: str = Field(min_length=1)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    speaker: str | None = None
    subject: str | None = None
    name: str | None = None
    aliases: list[str] = Field(default_factory=list)
    persons: list[str] = Field(default_factory=list)
    concepts: list[str] = Field(default_factory=list)
    relation: Literal["LIKES", "DISLIKES", "USES", "KNOWS"] | None = None
    relation_label: str | None = None
    # claims
    source: str | None = None
    target: str | None = None
    predicate: str | None = None
    sentiment: float | None = Field(default=None, ge=-1.0, le=1.0)
    # time
    time: TimeRange | None = None
    tense: Literal["past", "present", "future"] | None = None
    # plans (Events and Todos)
    plan_status: PlanStatus | None = None


class Extraction(BaseModel):
    """What an extractor returns for one turn."""

    records: list[ExtractedRecord] = Field(default_factory=list)
    dropped: int = 0
    fallback: bool = False


class Evidence(BaseModel):
    """One retrieved item, grounded in the turn it came from."""

    record_id: str
    type: str
    content: str
    quote: str | None = None
    speaker: str | None = None
    turn_id: str | None = None
    turn_source_id: str | None = None
    turn_text: str | None = None
    turn_at: datetime | None = None
    time_start: datetime | None = None
    time_end: datetime | None = None
    time_text: str | None = None
    status: str | None = None
    supersedes: list[str] = Field(
        default_factory=list, description="older claims this one replaced, verbatim, dated"
    )
    score: float = 0.0
    path: list[str] = Field(default_factory=list)


class TraceStep(BaseModel):
    operator: str
    detail: str
    returned: int
    seconds: float = 0.0
    #: the statements (``operators/…``) this step ran against Neo4j, in order; none when
    #: the process's copy of the group answered it
    statements: list[str] = Field(default_factory=list)


class Answer(BaseModel):
    text: str
    evidence: list[Evidence] = Field(default_factory=list)
    trace: list[TraceStep] = Field(default_factory=list)
    intent: str | None = None
    answered_by: Literal["llm", "extractive"] = "extractive"
    """Who wrote ``text``: the LLM (its answer held against the evidence) or the extractive
    answer (offline, or the LLM failed, or its answer did not hold)."""
    as_of: datetime | None = None
    """The time the answer speaks for (memory as it stood then); None: now."""

    def __str__(self) -> str:
        """The answer, then the turns it rests on: ``text`` and ``(evidence: D1:3, D2:1)``."""
        cited = list(dict.fromkeys(e.turn_source_id for e in self.evidence[:5] if e.turn_source_id))
        return f"{self.text} (evidence: {', '.join(cited)})" if cited else self.text
