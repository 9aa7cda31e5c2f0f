"""Consolidation's cosine thresholds, per embedder.

Three rules compare two records' cosine with a number: claims of one speaker about one
target are grouped at ``claim_similarity``, records are linked by REFERENCES at
``reference_threshold`` and by CAUSES at ``causal_threshold``. A cosine's scale belongs to
the model that made it: all-mpnet-base-v2 gives the same pairs of a conversation lower
cosines than all-MiniLM-L6-v2 near the top (at MiniLM's 0.75 it keeps half as many pairs),
so one number for every embedder would make consolidation stricter or looser with the
model. Each embedder therefore has its own numbers: MiniLM's were chosen on MiniLM; another
model's keep the same share of a conversation's record pairs as MiniLM's do (measured on the
LoCoMo dev conversations by ``benchmarks/calibrate_thresholds.py``, results in
``benchmarks/results/thresholds_<embedder>.md``). An embedder that has not been measured
gets MiniLM's; ``cogmem consolidate --claim-similarity …`` and the other options still set
any of them by hand."""

from __future__ import annotations

from pydantic import BaseModel, Field

from cogmem.embed.minilm import MINILM_NAMES


class CosineThresholds(BaseModel):
    """The cosine thresholds of the consolidation rules for one embedder."""

    claim_similarity: float = Field(ge=-1.0, le=1.0)
    reference_threshold: float = Field(ge=-1.0, le=1.0)
    causal_threshold: float = Field(ge=-1.0, le=1.0)


MINILM = CosineThresholds(claim_similarity=0.75, reference_threshold=0.5, causal_threshold=0.45)
"""Chosen on all-MiniLM-L6-v2 (float or int8 vectors: :data:`MINILM_NAMES`)."""

BY_EMBEDDER: dict[str, CosineThresholds] = {
    **dict.fromkeys(MINILM_NAMES, MINILM),
    # the cosines at which all-mpnet-base-v2 keeps MiniLM's share of the record pairs of
    # LoCoMo dev (benchmarks/results/thresholds_mpnet.md)
    "mpnet": CosineThresholds(
        claim_similarity=0.71, reference_threshold=0.44, causal_threshold=0.40
    ),
}


def thresholds_for(embedder: str | None) -> CosineThresholds:
    """The thresholds measured for ``embedder`` (its recorded name, e.g. ``mpnet``), or
    MiniLM's for one not measured (or None)."""
    return BY_EMBEDDER.get(embedder or "", MINILM)
