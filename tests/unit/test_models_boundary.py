"""Boundary models: naive datetimes are UTC; an Answer prints as words, not a repr."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from cogmem.models import Answer, Evidence, Turn

pytestmark = pytest.mark.unit


def turn(at: datetime | None) -> Turn:
    return Turn(
        conversation="c",
        session="1",
        session_index=1,
        index=0,
        source_id="T0",
        speaker="ann",
        text="hi",
        at=at,
    )


def test_a_naive_turn_time_is_utc() -> None:
    at = turn(datetime(2024, 7, 10, 12, 2)).at
    assert at == datetime(2024, 7, 10, 12, 2, tzinfo=UTC) and at.utcoffset() == timedelta(0)


def test_an_aware_turn_time_is_kept() -> None:
    cest = timezone(timedelta(hours=2))
    at = turn(datetime(2024, 7, 10, 12, 2, tzinfo=cest)).at
    assert at is not None and at.utcoffset() == timedelta(hours=2) and at.hour == 12
    assert turn(None).at is None


def test_answer_prints_its_text_and_the_turns_it_rests_on() -> None:
    evidence = [
        Evidence(record_id=f"r{i}", type="Fact", content="x", turn_source_id=sid)
        for i, sid in enumerate(["D1:3", "D2:1", "D1:3", None])
    ]
    answer = Answer(text="Priya met Marco.", evidence=evidence)
    assert str(answer) == "Priya met Marco. (evidence: D1:3, D2:1)"
    assert str(Answer(text="I don't know.")) == "I don't know."
    assert "Answer(" not in f"{answer}"
