"""benchmarks/score_spread.py measures the spread of the cosine part of the base score over
the turns late interaction weighs; checked here on the controller's in-memory fake."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from cogmem.retrieval.controller import Controller
from cogmem.retrieval.scoring import RankWeights, ranked
from tests.unit.test_controller import FakeEmbedder, FakeOperators

QUESTION = "What do Alice and Bob both like?"


@pytest.fixture(scope="module")
def spread() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "score_spread.py"
    spec = importlib.util.spec_from_file_location("score_spread", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spread(module: ModuleType, **weights: float) -> float:
    # no feedback: the weights would move the feedback vector and so the cosines themselves;
    # no per-intent weights: the multi-hop question would take its own vector weights
    chosen = RankWeights(feedback=0.0, by_intent={}, **weights)
    controller = Controller(FakeOperators(), FakeEmbedder(), weights=chosen)
    value = module.cosine_spread(controller, QUESTION)
    assert isinstance(value, float)
    return value


def test_the_spread_is_of_the_cosine_part_alone(spread: ModuleType) -> None:
    base = _spread(spread)
    assert base > 0.0
    # BM25 and the bonuses are left out: without cosine weights nothing is spread
    assert _spread(spread, turn_vector=0.0, record_vector=0.0, graph=0.0) == 0.0
    # linear in the cosine weights (the fake's few turns all fall in the late pool)
    doubled = _spread(spread, turn_vector=1.6, record_vector=1.0, graph=0.4)
    assert doubled == pytest.approx(2 * base)


def test_scored_is_the_ranking_a_search_makes_evidence_of() -> None:
    plan, scores = Controller(FakeOperators(), FakeEmbedder()).scored(QUESTION, k=3)
    result = Controller(FakeOperators(), FakeEmbedder()).run(QUESTION, k=3)
    assert plan.intent == result.plan.intent
    best = [s.id for s in ranked(scores)[:3]]
    assert [e.turn_id for e in result.evidence] == best
