"""The vocabulary of consolidation: job names, the jobs' settings and the run's report."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from cogmem.consolidate.thresholds import MINILM, thresholds_for

Job = Literal["facts", "claims", "links"]
JOBS: tuple[Job, ...] = ("facts", "claims", "links")
CLAIM_STATUSES = ("CURRENT", "SUPERSEDED", "CONFLICTING")
LINK_TYPES_DEFAULT = ["Decision", "Todo", "Reminder", "Insight", "KeyFact", "Fact"]


class ConsolidationSettings(BaseModel):
    """Parameters of the three jobs; every one can be set from ``cogmem consolidate``.

    The cosine thresholds default to all-MiniLM-L6-v2's; :meth:`for_embedder` gives the
    settings with another embedder's (:mod:`cogmem.consolidate.thresholds`)."""

    # events → facts
    min_events: int = Field(default=3, ge=2, description="occasions needed for a Fact")
    window_days: float = Field(default=30.0, gt=0, description="window holding them (days)")
    distinct_days: bool = Field(
        default=True,
        description="count occasions as distinct days (three events told on one day are one)",
    )
    # claims
    claim_similarity: float = Field(
        default=MINILM.claim_similarity,
        ge=-1.0,
        le=1.0,
        description="cosine that puts two claims in one group",
    )
    conflict_window_hours: float = Field(
        default=24.0,
        ge=0,
        description="claims this close in time (or from one session) are 'the same moment'",
    )
    # links
    link_types: list[str] = Field(default_factory=lambda: list(LINK_TYPES_DEFAULT))
    reference_threshold: float = Field(default=MINILM.reference_threshold, ge=-1.0, le=1.0)
    keyword_jaccard: float = Field(default=0.5, gt=0.0, le=1.0)
    keyword_min_shared: int = Field(default=2, ge=1)
    causal_threshold: float = Field(default=MINILM.causal_threshold, ge=-1.0, le=1.0)
    causal_window_turns: int = Field(
        default=3, ge=0, description="temporal heuristic: KeyFact/Reminder this many turns back"
    )
    causal_same_session: bool = Field(
        default=True, description="temporal heuristic also needs the same session"
    )
    link_window_turns: int = Field(
        default=200, ge=1, description="pairs are compared within a conversation, this far apart"
    )
    max_links_per_record: int = Field(
        default=5, ge=1, description="similarity edges kept per newer record (best first)"
    )

    @classmethod
    def for_embedder(cls, embedder: str | None, **options: object) -> ConsolidationSettings:
        """Settings with ``embedder``'s cosine thresholds (its recorded name; MiniLM's for
        one not measured), then ``options`` over them."""
        return cls.model_validate({**thresholds_for(embedder).model_dump(), **options})


class ConsolidationReport(BaseModel):
    """What a consolidation run created or changed (or would, with ``dry_run``)."""

    group: str
    dry_run: bool = False
    jobs: list[str] = Field(default_factory=list)
    facts_created: int = 0
    facts_extended: int = 0
    facts_superseded: int = 0
    supported_by_created: int = 0
    claims_changed: dict[str, int] = Field(
        default_factory=lambda: dict.fromkeys(CLAIM_STATUSES, 0),
        description="claims whose status changed, by their new status",
    )
    claims_by_status: dict[str, int] = Field(
        default_factory=dict, description="all claims of the group by status, after the run"
    )
    supersedes_created: int = 0
    supersedes_removed: int = 0
    conflicts_with_created: int = 0
    conflicts_with_removed: int = 0
    references_created: int = 0
    references_removed: int = 0
    causes_created: int = 0
    causes_removed: int = 0
    llm_fallbacks: int = 0
    seconds: float = 0.0
    job_seconds: dict[str, float] = Field(default_factory=dict)

    @property
    def changes(self) -> int:
        """How many things were created or changed in all (0 after a no-op run)."""
        return (
            self.facts_created
            + self.facts_extended
            + self.facts_superseded
            + self.supported_by_created
            + sum(self.claims_changed.values())
            + self.supersedes_created
            + self.supersedes_removed
            + self.conflicts_with_created
            + self.conflicts_with_removed
            + self.references_created
            + self.references_removed
            + self.causes_created
            + self.causes_removed
        )
