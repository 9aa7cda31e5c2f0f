"""What a search hands back, made from its ranked turns: a turn shown as itself when no
record of it was found, and whether the evidence covers what the question asks."""

from __future__ import annotations

from typing import Any

from cogmem.models import Evidence
from cogmem.retrieval.router import Plan
from cogmem.retrieval.scoring import PATHS_SHOWN, SCORE_DECIMALS, TurnScore

TURN = "Turn"
"""Evidence type of a turn shown as itself (no record of it was found)."""


def turn_evidence(turn: dict[str, Any], s: TurnScore) -> Evidence:
    """The turn itself as Evidence, with its score and the paths that reached it."""
    return Evidence(
        record_id=turn["id"],
        type=TURN,
        content=turn["text"],
        quote=turn["text"],
        speaker=turn["speaker"],
        turn_id=turn["id"],
        turn_source_id=turn["source_id"],
        turn_text=turn["text"],
        turn_at=turn["at"],
        score=round(s.final, SCORE_DECIMALS),
        path=sorted(set(s.paths))[:PATHS_SHOWN],
    )


def sufficient_for(plan: Plan, evidence: list[Evidence]) -> bool:
    """Whether the evidence names every asked person and touches the time window."""
    if not evidence:
        return False
    text = " ".join(f"{e.speaker} {e.content} {e.turn_text}" for e in evidence).lower()
    for entity in plan.entities:
        if entity.name.lower() not in text and (entity.mention or "").lower() not in text:
            return False
    if plan.window is not None:
        window = plan.window
        hit = False
        for e in evidence:
            start, end = e.time_start or e.turn_at, e.time_end or e.turn_at
            if start is not None and end is not None and start < window.end and end > window.start:
                hit = True
                break
        if not hit:
            return False
    return True
