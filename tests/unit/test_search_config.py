"""The one search configuration: JSON out and back, today's weights as its default, and
its constants read by the ranking."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogmem.retrieval import scoring
from cogmem.retrieval.learned import FEATURES, LearnedRanking
from cogmem.retrieval.router import Plan
from cogmem.retrieval.scoring import RankWeights, ScoringConstants, claim_bonus
from cogmem.retrieval.search_config import CONFIG_ENV, SearchConfig


def test_default_is_todays_weights_and_constants() -> None:
    config = SearchConfig()
    assert config.weights == RankWeights()
    assert config.weights.by_intent["multi-hop"]["speaker"] == 1.0
    assert config.constants.claim_of_holder == scoring.CLAIM_OF_HOLDER
    assert config.constants.overtaken_on_update == scoring.OVERTAKEN_ON_UPDATE
    assert config.learned is None
    mpnet = "sentence-transformers/all-mpnet-base-v2"
    assert SearchConfig.for_embedder(mpnet).weights == RankWeights.for_embedder(mpnet)
    assert SearchConfig.for_embedder(mpnet).weights != RankWeights()


def test_json_round_trip(tmp_path: Path) -> None:
    learned = LearnedRanking(coef=[0.5] * len(FEATURES), fitted_on=["a", "b"], l2=0.1)
    changed = SearchConfig(
        name="fitted",
        weights=RankWeights(previous=0.4, by_intent={"update": {"claim": 2.0}}),
        constants=ScoringConstants(claim_on_target=1.5),
        learned=learned,
    )
    for config in (SearchConfig(), changed):
        path = config.write(tmp_path / f"{config.name}.json")
        back = SearchConfig.read(path)
        assert back == config
        assert back.model_dump() == config.model_dump()
    assert SearchConfig.read(tmp_path / "fitted.json").weights.for_intent("update").claim == 2.0


def test_the_environment_names_the_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CONFIG_ENV, raising=False)
    assert SearchConfig.configured(None) == SearchConfig()
    path = SearchConfig(name="mine", weights=RankWeights(previous=0.4)).write(tmp_path / "c.json")
    monkeypatch.setenv(CONFIG_ENV, str(path))
    assert SearchConfig.configured(None).weights.previous == 0.4


class _Claim:
    type = "Claim"
    source = "Ann"
    target = "Bob"
    status: str | None = None


def test_the_ranking_reads_the_configured_constants() -> None:
    plan = Plan.model_validate(
        {"question": "q", "intent": "opinion", "opinion_source": "Ann", "opinion_target": "Bob"}
    )
    assert claim_bonus(plan, _Claim()) == scoring.CLAIM_ON_TARGET
    assert claim_bonus(plan, _Claim(), ScoringConstants(claim_on_target=0.25)) == 0.25
