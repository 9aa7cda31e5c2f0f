"""Leave-one-conversation-out CV (cogmem.bench.cv): each conversation is scored with the
setting chosen on the others, never on itself; in-sample and current figures beside it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from cogmem.bench.cv import best_setting, cross_validate, figures, load, parse_args
from cogmem.bench.locomo import Question

pytestmark = pytest.mark.unit


def _ranked(
    conv: str, hits: int, questions: int = 4, category: int = 4
) -> list[tuple[Question, list[str]]]:
    """``questions`` questions of ``conv``, the first ``hits`` of them found at rank 1."""
    out = []
    for i in range(questions):
        q = Question(conversation=conv, question=f"q{i}?", category=category, evidence=[f"D1:{i}"])
        out.append((q, [f"D1:{i}"] if i < hits else ["D9:9"]))
    return out


# setting 0 is right on a and b and wrong on c; setting 1 the other way round, but not as far
HITS = {0: {"a": 4, "b": 4, "c": 0}, 1: {"a": 1, "b": 2, "c": 4}}
RUNS = {(s, c): _ranked(c, h) for s, by in HITS.items() for c, h in by.items()}
DATASETS = {"a": "x", "b": "x", "c": "y"}


def test_each_fold_is_chosen_without_its_conversation() -> None:
    cv = cross_validate(RUNS, ["s0", "s1"], current=1, convs=["a", "b", "c"], datasets=DATASETS)
    chosen = {f["held_out"]: f["chosen"] for f in cv["folds"]}
    # a held out: on b + c, s0 finds 4 of 8, s1 6 of 8; b held out: s0 4/8, s1 5/8;
    # c held out: s0 8/8, s1 3/8
    assert chosen == {"a": "s1", "b": "s1", "c": "s0"}
    by_conv = cv["cross_validated"]["by_conversation"]
    assert [by_conv[c]["r10"] for c in "abc"] == [25.0, 50.0, 0.0]
    assert cv["cross_validated"]["all"]["r10"] == 25.0  # 3 of 12 questions
    assert cv["cross_validated"]["by_dataset"]["x"]["r10"] == 37.5
    assert cv["cross_validated"]["by_dataset"]["y"]["r10"] == 0.0
    # in-sample: s0 is best on all three together (8 of 12), far above what CV can claim
    assert cv["in_sample_setting"] == "s0"
    assert cv["in_sample"]["all"]["r10"] == pytest.approx(200 / 3)
    assert cv["current_weights"]["all"]["r10"] == pytest.approx(700 / 12)
    for fold in cv["folds"]:
        assert fold["held_out"] not in fold["tuned_on"]


def test_ties_go_to_the_earlier_setting_and_multi_hop_breaks_them() -> None:
    same = {(s, "a"): _ranked("a", 2) for s in (0, 1)}
    assert best_setting(same, 2, ["a"]) == 0
    mh = {
        (0, "a"): _ranked("a", 2, category=1)[:1] + _ranked("a", 0, category=4)[1:2],
        (1, "a"): _ranked("a", 0, category=1)[:1] + _ranked("a", 2, category=4)[1:2],
    }
    # both find one of two questions; setting 0 finds the multi-hop one
    assert figures(mh[(0, "a")])["r10"] == figures(mh[(1, "a")])["r10"] == 50.0
    assert best_setting(mh, 2, ["a"]) == 0
    flipped = {(0, "a"): mh[(1, "a")], (1, "a"): mh[(0, "a")]}
    assert best_setting(flipped, 2, ["a"]) == 1


def test_figures_per_category() -> None:
    ranked = _ranked("a", 1, questions=2, category=1) + _ranked("a", 2, questions=2, category=2)
    f = figures(ranked)
    assert f["questions"] == 4 and f["r10"] == 75.0
    assert f["mh_allhit10"] == 50.0
    assert f["by_category"]["1"] == {"r10": 50.0, "allhit10": 50.0, "questions": 2}
    assert f["by_category"]["2"]["r10"] == 100.0
    assert figures([]) == {"r10": None, "mh_allhit10": None, "questions": 0, "by_category": {}}


def _file(path: Path) -> Path:
    def sample(cid: str, n: int) -> dict[str, Any]:
        turns = [
            {
                "speaker": "Ana" if i % 2 else "Ben",
                "dia_id": f"D1:{i + 1}",
                "text": f"message {i}",
                "timestamp": f"2024-03-02T00:0{i}:00+14:00",
            }
            for i in range(n)
        ]
        conv = {
            "speaker_a": "Ben",
            "speaker_b": "Ana",
            "session_1_date_time": "11:50 pm on 1 March, 2024",
            "session_1": turns,
        }
        qa = [{"question": f"q{i}?", "evidence": [f"D1:{i + 1}"], "category": 4} for i in range(n)]
        return {"sample_id": cid, "conversation": conv, "qa": qa}

    path.write_text(json.dumps([sample("one", 3), sample("two", 4), sample("three", 2)]))
    return path


def test_a_slice_of_samples_and_questions(tmp_path: Path) -> None:
    path = _file(tmp_path / "dev.json")
    convs, evidence = load(parse_args([str(path), "--samples", "one", "two", "--questions", "2"]))
    assert [(c.id, c.dataset, len(c.questions)) for c in convs] == [
        ("one", "dev", 2),
        ("two", "dev", 2),
    ]
    assert evidence[str(path)]["questions"] == 7  # before the slice: one and two
    with pytest.raises(SystemExit, match="no such sample: nine"):
        load(parse_args([str(path), "--samples", "one", "nine"]))
    with pytest.raises(SystemExit, match="at least two conversations"):
        load(parse_args([str(path), "--samples", "one"]))


def test_turn_times_own_or_session(tmp_path: Path) -> None:
    path = _file(tmp_path / "dev.json")
    own, _ = load(parse_args([str(path)]))
    session, _ = load(parse_args([str(path), "--turn-times", "session"]))
    said = [t.at for t in own[0].conversation.turns]
    assert said[0] == datetime(2024, 3, 2, 0, 0, tzinfo=timezone(timedelta(hours=14)))
    assert said[0] is not None and said[0].utcoffset() == timedelta(hours=14)
    assert len(set(said)) == 3
    assert {t.at for t in session[0].conversation.turns} == {
        datetime(2024, 3, 1, 23, 50, tzinfo=UTC)
    }
