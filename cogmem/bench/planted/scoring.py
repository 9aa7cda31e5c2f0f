"""Scoring: recall and exact match per planted fact, keyword coverage per multi-hop question."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cogmem.answer import estimate_tokens
from cogmem.bench.common import exact_found, fuzzy_found, fuzzy_score, keyword_coverage, mean
from cogmem.bench.planted.generator import MultiHopQuestion, PlantedFact
from cogmem.bench.planted.templates import FACT_TYPES

PASS_COVERAGE = 0.8


@dataclass
class SystemScores:
    """Per-item outcomes of one system."""

    name: str
    recall: dict[str, bool] = field(default_factory=dict)
    exact: dict[str, bool] = field(default_factory=dict)
    fuzzy: dict[str, float] = field(default_factory=dict)
    coverage: dict[str, float] = field(default_factory=dict)
    tokens: list[int] = field(default_factory=list)

    def score_fact(self, fact: PlantedFact, context: str) -> None:
        self.fuzzy[fact.id] = fuzzy_score(fact.wording, context)
        self.recall[fact.id] = fuzzy_found(fact.wording, context)
        self.exact[fact.id] = exact_found(fact.wording, context)
        self.tokens.append(estimate_tokens(context))

    def score_question(self, q: MultiHopQuestion, context: str) -> None:
        self.coverage[q.id] = keyword_coverage(q.keywords, context)
        self.tokens.append(estimate_tokens(context))


def summarise_scores(
    scores: SystemScores,
    facts: Sequence[PlantedFact],
    questions: Sequence[MultiHopQuestion],
) -> dict[str, Any]:
    def rate(values: Sequence[bool]) -> float:
        return mean(1.0 if v else 0.0 for v in values)

    by_type = {}
    for fact_type in FACT_TYPES:
        ids = [f.id for f in facts if f.type == fact_type]
        by_type[fact_type] = {
            "facts": len(ids),
            "recall": rate([scores.recall[i] for i in ids]),
            "exact": rate([scores.exact[i] for i in ids]),
        }
    by_kind = {}
    for kind in ("causal", "impact"):
        ids = [q.id for q in questions if q.kind == kind]
        by_kind[kind] = {
            "questions": len(ids),
            "coverage": mean(scores.coverage[i] for i in ids),
            "pass": rate([scores.coverage[i] >= PASS_COVERAGE for i in ids]),
        }
    return {
        "recall": rate(list(scores.recall.values())),
        "exact": rate(list(scores.exact.values())),
        "multihop_coverage": mean(scores.coverage.values()),
        "multihop_pass": rate([c >= PASS_COVERAGE for c in scores.coverage.values()]),
        "by_type": by_type,
        "by_kind": by_kind,
        "mean_context_tokens": round(mean(scores.tokens), 1),
    }
