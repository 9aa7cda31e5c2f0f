"""The benchmarks end to end on a tiny size against the real server: result files are
written, every metric is a fraction, throwaway groups are gone afterwards, and cogmem
beats the baselines where it must (recall vs truncation, misattribution vs flat)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cogmem.api import Memory
from cogmem.bench.collapse import run_collapse
from cogmem.bench.planted import run_planted
from cogmem.config import Settings
from cogmem.store import Store

pytestmark = pytest.mark.integration


def _fractions(node: Any, path: str = "") -> list[tuple[str, float]]:
    """Every rate-like number in a results tree (keys that name a rate or a metric)."""
    names = (
        "recall",
        "exact",
        "coverage",
        "pass",
        "misattribution",
        "correct",
        "other",
        "record_to_opinion",
        "opinion_to_record",
    )
    found: list[tuple[str, float]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{path}.{key}"
            if isinstance(value, int | float) and any(n in key for n in names):
                found.append((here, float(value)))
            else:
                found += _fractions(value, here)
    return found


@pytest.fixture
def settings(neo4j_settings: Settings) -> Settings:
    """One BLAS thread: on a busy 2-core machine threads fight and embedding slows down."""
    return neo4j_settings.model_copy(update={"embed_threads": 1})


def _gone(settings: Settings, store: Store, groups: list[str]) -> None:
    mem = Memory(settings, store=store)
    for group in groups:
        assert group.startswith("bench-")
        assert mem.for_group(group).inspect.counts()["nodes"] == 0


def test_planted_small(settings: Settings, store: Store, tmp_path: Path) -> None:
    result = run_planted(
        settings,
        conversations=1,
        seed=1,
        out_dir=tmp_path,
        store=store,
        argv=["cogmem", "bench", "planted", "-n", "1", "--seed", "1"],
    )
    for name in ("planted.md", "planted.json", "planted.png"):
        assert (tmp_path / name).is_file() and (tmp_path / name).stat().st_size > 0
    data = json.loads((tmp_path / "planted.json").read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(result.data, default=str))
    assert data["command"].endswith("cogmem bench planted -n 1 --seed 1")
    assert "cores" in data["machine_line"] and "Neo4j" in data["machine_line"]
    assert data["systems"] == ["cogmem", "truncation", "rag-top3", "rag-top10"]
    assert data["summarization"].startswith("skipped")  # no LLM in tests
    rates = _fractions(data["results"])
    assert len(rates) > 40
    for where, value in rates:
        assert 0.0 <= value <= 1.0, where
    res = data["results"]
    assert data["dataset"]["facts"] == 14 and data["dataset"]["multihop_questions"] == 4
    assert res["cogmem"]["recall"] >= res["truncation"]["recall"]
    assert res["cogmem"]["recall"] > 0.5  # the planted facts are findable at all
    assert res["truncation"]["recall"] == 0.0  # nothing is planted in the last 5 turns
    for system in data["systems"]:
        assert 0 < res[system]["mean_context_tokens"] <= 2000
    md = (tmp_path / "planted.md").read_text(encoding="utf-8")
    assert "| cogmem |" in md and "skipped" in md and data["machine_line"] in md
    _gone(settings, store, data["groups"])


def test_collapse_small(settings: Settings, store: Store, tmp_path: Path) -> None:
    result = run_collapse(settings, pairs=10, seed=0, out_dir=tmp_path, store=store)
    for name in ("collapse.md", "collapse.json", "collapse.png"):
        assert (tmp_path / name).is_file() and (tmp_path / name).stat().st_size > 0
    data = result.data
    assert data["parameters"]["pairs"] == 10
    assert len(data["per_pair"]) == 10
    for where, value in _fractions(data["results"]) + _fractions(data["splits"]):
        assert 0.0 <= value <= 1.0, where
    assert -1.0 <= data["cosine"]["mean_sentences"] <= 1.0
    res = data["results"]
    assert res["cogmem"]["questions"] == res["flat-text"]["questions"] == 20
    # opinions kept apart from records: cogmem confuses them no more than flat retrieval
    assert res["cogmem"]["misattribution"] <= res["flat-text"]["misattribution"]
    assert res["cogmem"]["record_to_opinion"] <= res["flat-text"]["record_to_opinion"]
    _gone(settings, store, data["groups"])


def _tiny_locomo(path: Path) -> Path:
    turns = [
        ("Ines", "Rafael, the sourdough starter finally rose after four days of feeding!"),
        ("Rafael", "Great news, Ines. I hiked the Arrábida ridge last Sunday with Tiago."),
        ("Ines", "I will bake rye loaves for the market on Saturday."),
        ("Rafael", "Honestly, Tiago is a terrible navigator; we got lost twice."),
    ]
    conv: dict[str, Any] = {
        "speaker_a": "Ines",
        "speaker_b": "Rafael",
        "session_1_date_time": "9:10 am on 3 March, 2025",
        "session_1": [
            {"speaker": s, "dia_id": f"D1:{i + 1}", "text": t} for i, (s, t) in enumerate(turns)
        ],
    }
    path.write_text(json.dumps([{"sample_id": "tiny-1", "conversation": conv, "qa": []}]))
    return path


def test_ingest_bench_small(settings: Settings, store: Store, tmp_path: Path) -> None:
    from cogmem.bench.ingest import _has_pandas, markdown, run_ingest

    mem = Memory(settings, store=store)
    report = run_ingest(mem, _tiny_locomo(tmp_path / "tiny.json"), add_turns=3)
    (check,) = report.checks
    assert check.turn_nodes == check.turns_in_file == 4
    assert check.speakers_as_persons
    assert check.records_without_evidence == 0 and check.quotes_not_in_turn == 0
    assert not check.reingest_changed_counts
    assert report.add_turn is not None and report.add_turn.turns == 3
    queued = report.add_turn
    assert 0 < queued.queued_p50_ms <= queued.queued_max_ms
    assert queued.written_p50_ms > queued.queued_p50_ms  # a write takes longer than the call
    assert "`Memory.queue_turn`" in markdown(report)
    assert report.raw_embed_seconds > 0 and report.fraction_of_raw > 0
    rss = report.cli_rss
    assert rss is not None and rss.peak_rss_mib > 90  # the 91 MB model is in it
    if _has_pandas():  # hiding what the driver imports at start can only lower the peak
        assert rss.without_pandas_mib is not None and rss.without_pandas_mib < rss.peak_rss_mib
    assert "Peak RSS of `cogmem ingest" in markdown(report)
    _gone(
        settings,
        store,
        [
            "bench-ingest-tiny-1",
            "bench-ingest-live",
            "bench-ingest-live-warmup",
            "bench-ingest-cli",
        ],
    )
