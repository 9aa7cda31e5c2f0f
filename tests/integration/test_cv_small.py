"""The five-fold CV benchmark (benchmarks/cv5.py, :mod:`cogmem.bench.cv`) end to end on
three tiny self-made conversations in two LoCoMo-layout files, against the real server:
the result files, the evidence counts, and a cross-validated figure that is built from
held-out folds only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cogmem.api import Memory
from cogmem.bench.cv import main
from cogmem.config import Settings
from cogmem.store import Store

pytestmark = pytest.mark.integration

PREFIX = "bench-cv-test-"

CHATS: dict[str, list[tuple[str, str]]] = {
    "tiny-a": [
        ("Ines", "The sourdough starter finally rose after four days of feeding!"),
        ("Rafael", "Great news. I hiked the Arrabida ridge last Sunday with Tiago."),
        ("Ines", "I will bake rye loaves for the farmers market on Saturday."),
        ("Rafael", "Tiago is a terrible navigator; we got lost twice on the ridge."),
        ("Ines", "My cat Miso knocked the flour jar off the shelf this morning."),
        ("Rafael", "Miso has opinions about baking, clearly."),
    ],
    "tiny-b": [
        ("Oda", "I signed up for a pottery class at the community centre."),
        ("Per", "Nice! I'm training for the Bergen half marathon in June."),
        ("Oda", "My first bowl came out lopsided but I love it."),
        ("Per", "My knee hurt after the long run on Sunday."),
        ("Oda", "Try the physiotherapist on Storgata, she fixed my shoulder."),
        ("Per", "Thanks, I booked her for Thursday."),
    ],
    "tiny-c": [
        ("Lea", "good morning!! the new job at the bakery starts in two weeks"),
        ("Tom", "congrats!!! which bakery"),
        ("Lea", "the one on Rua Augusta, they make pastel de nata"),
        ("Tom", "I fixed my bike last night, the chain was rusty"),
        ("Lea", "did you ride it to the beach yet"),
        ("Tom", "not yet, maybe tomorrow after work"),
    ],
}
QA: dict[str, list[dict[str, Any]]] = {
    "tiny-a": [
        {"question": "Who did Rafael hike with?", "evidence": ["D1:2"], "category": 4},
        {"question": "What did Miso do?", "evidence": ["D1:05"], "category": 4},  # normalised
        {"question": "What does Ines bake?", "evidence": ["D1:1", "D1:3"], "category": 1},
        {"question": "Adversarial?", "evidence": ["D1:1"], "category": 5},  # not scored
    ],
    "tiny-b": [
        {"question": "What class did Oda sign up for?", "evidence": ["D1:1"], "category": 4},
        {"question": "Why did Per book a physio?", "evidence": ["D1:4", "D1:6"], "category": 1},
        # one id names no turn: dropped
        {"question": "What race is Per training for?", "evidence": ["D1:2", "D7:7"], "category": 4},
    ],
    "tiny-c": [
        {"question": "Where is Lea's new job?", "evidence": ["D1:1", "D1:3"], "category": 1},
        {"question": "When did Tom fix his bike?", "evidence": ["D1:4"], "category": 2},
        {"question": "What is missing?", "evidence": ["D9:99"], "category": 3},  # none left
    ],
}


def _sample(cid: str, timestamps: bool) -> dict[str, Any]:
    turns = []
    for i, (speaker, text) in enumerate(CHATS[cid]):
        turn: dict[str, Any] = {"speaker": speaker, "dia_id": f"D1:{i + 1}", "text": text}
        if timestamps:  # a session that crosses midnight, as real chats do
            turn["timestamp"] = f"2024-03-0{1 if i < 3 else 2}T{23 if i < 3 else 0}:{10 + i}:00"
        turns.append(turn)
    speakers = list(dict.fromkeys(s for s, _ in CHATS[cid]))
    conv = {
        "speaker_a": speakers[0],
        "speaker_b": speakers[1],
        "session_1_date_time": "11:10 pm on 1 March, 2024",
        "session_1": turns,
    }
    return {"sample_id": cid, "conversation": conv, "qa": QA[cid]}


def _pooled(settings: list[dict[str, Any]], index: int, convs: list[str]) -> tuple[float, float]:
    """A setting's R@10 and multi-hop AllHit@10 pooled over ``convs``, from the per
    conversation figures of the results (question-weighted)."""
    by = settings[index]["by_conversation"]
    n = sum(by[c]["questions"] for c in convs)
    r10 = sum(by[c]["r10"] * by[c]["questions"] for c in convs) / n
    mh = [by[c]["by_category"].get("1") for c in convs]
    mh_n = sum(m["questions"] for m in mh if m)
    mh_hit = sum(m["allhit10"] * m["questions"] for m in mh if m) / mh_n if mh_n else 0.0
    return r10, mh_hit


def test_cv_small(neo4j_settings: Settings, store: Store, tmp_path: Path) -> None:
    first = tmp_path / "first.json"
    first.write_text(json.dumps([_sample("tiny-a", False), _sample("tiny-b", False)]))
    second = tmp_path / "second.json"
    second.write_text(json.dumps([_sample("tiny-c", True)]))
    memory = Memory(neo4j_settings.model_copy(update={"embed_threads": 1}), store=store)
    argv = [str(first), str(second), "--out", str(tmp_path), "--name", "cv", "--prefix", PREFIX]
    argv += ["--set", "previous=0.7,0.0", "--set", "vectors=1,0"]
    assert main(argv, memory=memory) == 0

    assert (tmp_path / "cv.md").stat().st_size > 0
    data = json.loads((tmp_path / "cv.json").read_text(encoding="utf-8"))
    convs = ["tiny-a", "tiny-b", "tiny-c"]
    assert list(data["conversations"]) == convs
    assert {c: v["dataset"] for c, v in data["conversations"].items()} == {
        "tiny-a": "first",
        "tiny-b": "first",
        "tiny-c": "second",
    }
    assert data["evidence"][str(first)] == {
        "normalised": 1,
        "dropped": 1,
        "questions_without_evidence": 0,
        "questions": 6,
    }
    assert data["evidence"][str(second)]["dropped"] == 1
    assert data["evidence"][str(second)]["questions_without_evidence"] == 1
    assert [data["conversations"][c]["questions"] for c in convs] == [3, 3, 2]
    assert len(data["settings"]) == 4 and data["current"] == "previous=0.7 vectors=1"

    # the CV figure is built from held-out folds only: each fold's setting is the best on
    # the other two conversations, and its figure is that setting's on the held-out one
    settings = data["settings"]
    labels = [s["setting"] for s in settings]
    cv = data["cv"]
    held_out_r10 = []
    for fold in cv["folds"]:
        held, rest = fold["held_out"], fold["tuned_on"]
        assert sorted([held, *rest]) == convs
        scores = [(_pooled(settings, i, rest), -i) for i in range(len(settings))]
        assert fold["chosen"] == labels[-max(scores)[1]]
        mine = settings[labels.index(fold["chosen"])]["by_conversation"][held]
        assert fold["held_out_figures"] == mine
        assert cv["cross_validated"]["by_conversation"][held] == mine
        held_out_r10.append((mine["r10"], mine["questions"]))
    total = sum(q for _, q in held_out_r10)
    assert cv["cross_validated"]["all"]["r10"] == pytest.approx(
        sum(r * q for r, q in held_out_r10) / total
    )
    best = max(range(len(settings)), key=lambda i: (_pooled(settings, i, convs), -i))
    assert cv["in_sample_setting"] == labels[best]
    assert cv["in_sample"]["all"]["r10"] >= cv["cross_validated"]["all"]["r10"] - 1e-9

    # the flat baselines of the same run, per conversation and per file; every R@10 a share
    assert set(data["baselines"]) == {"bm25-stemmed+date", "dense+date", "rrf+date"}
    for summary in [*data["baselines"].values(), cv["cross_validated"], cv["in_sample"]]:
        assert set(summary["by_conversation"]) == set(convs)
        assert set(summary["by_dataset"]) == {"first", "second"}
        for figures in summary["by_conversation"].values():
            assert 0.0 <= figures["r10"] <= 100.0
    assert data["baselines"]["bm25-stemmed+date"]["all"]["questions"] == 8
    assert data["search"]["searches"] == 8 and data["search"]["p50_ms"] > 0
    assert set(data["ingest"]) == set(convs)

    md = (tmp_path / "cv.md").read_text(encoding="utf-8")
    assert "cogmem, cross-validated" in md and "rrf+date" in md and data["command"] in md
    after = Memory(neo4j_settings, store=store)  # main closed the one it was given
    for cid in convs:  # the throwaway groups are gone
        assert after.for_group(f"{PREFIX}own-{cid}").inspect.counts()["nodes"] == 0
