from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cogmem.answer import estimate_tokens, extractive_answer, pack, render
from cogmem.models import Evidence
from cogmem.retrieval.router import Plan

pytestmark = pytest.mark.unit


def ev(i: int, score: float, text: str, **kw: object) -> Evidence:
    base = dict(
        record_id=f"r{i}",
        type="Event",
        content=text,
        quote=text,
        speaker="Ann",
        turn_id=f"t{i}",
        turn_source_id=f"D1:{i}",
        turn_text=text,
        turn_at=datetime(2023, 5, 8, 13, 0, tzinfo=UTC),
        score=score,
    )
    base.update(kw)
    return Evidence(**base)  # type: ignore[arg-type]


def test_token_estimate_is_monotone_and_sane() -> None:
    assert estimate_tokens("") == 0
    short, long = estimate_tokens("hello world"), estimate_tokens("hello world " * 50)
    assert 1 <= short < long
    assert 80 <= estimate_tokens("word " * 100) <= 140


def test_pack_is_greedy_by_score_and_respects_the_budget() -> None:
    items = [ev(1, 0.2, "low " * 5), ev(2, 0.9, "high " * 40), ev(3, 0.5, "mid " * 5)]
    block = pack(items, budget_tokens=estimate_tokens(render(1, items[1])) + 5)
    assert [e.record_id for e in block.included] == ["r2"]
    assert block.left_out == 2 and block.tokens <= block.budget
    roomy = pack(items, budget_tokens=10_000)
    assert [e.record_id for e in roomy.included] == ["r2", "r3", "r1"]
    assert pack(items, budget_tokens=0).included == []


def test_render_shows_type_speaker_turn_quote_and_times() -> None:
    item = ev(
        4,
        1.0,
        "I went to the support group yesterday.",
        time_start=datetime(2023, 5, 7, tzinfo=UTC),
        time_end=datetime(2023, 5, 8, tzinfo=UTC),
        time_text="yesterday",
    )
    text = render(1, item)
    assert "Event" in text and "Ann" in text and "D1:4" in text
    assert "said 8 May 2023" in text and "refers to 7 May 2023" in text
    assert '"I went to the support group yesterday."' in text


def test_extractive_answer_resolves_dates_and_cites_turns() -> None:
    item = ev(
        3,
        1.0,
        "I went to the support group yesterday.",
        time_start=datetime(2023, 5, 7, tzinfo=UTC),
        time_end=datetime(2023, 5, 8, tzinfo=UTC),
        time_text="yesterday",
    )
    plan = Plan(
        question="When did Ann go to the support group?",
        intent="temporal",
        keywords=["ann", "support", "group"],
    )
    answer = extractive_answer(plan, [item])
    assert answer.startswith("7 May 2023") and "D1:3" in answer
    assert "don't know" in extractive_answer(plan, [])
