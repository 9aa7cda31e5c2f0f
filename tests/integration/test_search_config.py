"""The search configuration on the real server: a search reports the configuration it ranked
with, and a learned one (named by COGMEM_SEARCH_CONFIG) orders the turns by its features and
shows each feature's share in the trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.retrieval.learned import FEATURES, LearnedRanking
from cogmem.retrieval.search_config import CONFIG_ENV, SearchConfig
from cogmem.store import Store

pytestmark = pytest.mark.integration

TURNS = [
    ("Ann", "I adopted a grey kitten from the shelter on Monday."),
    ("Ben", "Did you? What is the kitten called?"),
    ("Ann", "Her name is Pebble, she sleeps all day."),
    ("Ben", "My sister adopted a kitten too, a grey one."),
]


@pytest.fixture
def mem(neo4j_settings: Settings, store: Store, group: str, tmp_path: Path) -> Memory:
    memory = Memory(neo4j_settings.model_copy(update={"group": group}), store=store)
    lines = [
        json.dumps(
            {
                "conversation": "c1",
                "session": "1",
                "speaker": who,
                "text": text,
                "timestamp": f"2024-03-04T10:0{i}:00Z",
            }
        )
        for i, (who, text) in enumerate(TURNS)
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    memory.ingest(path)
    return memory


def _only(feature: str, sign: float = 1.0) -> SearchConfig:
    coef = [sign if f == feature else 0.0 for f in FEATURES]
    return SearchConfig(name=f"only {feature}", learned=LearnedRanking(coef=coef, fitted_on=["t"]))


def test_a_search_ranks_with_the_configured_file(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "Which kitten did Ann adopt?"
    monkeypatch.delenv(CONFIG_ENV, raising=False)
    plain = mem.retrieve(question, k=4)
    assert plain.config == SearchConfig.for_embedder(mem.embedder.name)
    assert "learned" not in [s.operator for s in plain.trace]

    monkeypatch.setenv(CONFIG_ENV, str(_only("speaker").write(tmp_path / "speaker.json")))
    by_speaker = mem.retrieve(question, k=4)
    assert by_speaker.config is not None and by_speaker.config.name == "only speaker"
    assert {e.speaker for e in by_speaker.evidence[:2]} == {"Ann"}  # the asked person's turns
    (step,) = [s for s in by_speaker.trace if s.operator == "learned"]
    assert "speaker +1.00" in step.detail

    monkeypatch.setenv(CONFIG_ENV, str(_only("speaker", -1.0).write(tmp_path / "against.json")))
    against = mem.retrieve(question, k=4)
    assert {e.speaker for e in against.evidence[:2]} == {"Ben"}
