"""The offline extractor on single turns: opinions become Claims with the right holder and
target, and the rewritten content names people instead of "I" and "you"."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cogmem.extract import ExtractionContext, HeuristicExtractor
from cogmem.extract.heuristic import third_person
from cogmem.models import RecordType, Turn

pytestmark = pytest.mark.unit


def claims(speaker: str, text: str, known: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    ctx = ExtractionContext(speakers=["Alma", "Petra"])
    ctx.persons.update(known)
    turn = Turn(
        conversation="c",
        session="1",
        session_index=1,
        index=0,
        source_id="D1:1",
        speaker=speaker,
        text=text,
        at=datetime(2023, 5, 1, tzinfo=UTC),
    )
    records = HeuristicExtractor().extract(turn, ctx).records
    return [(r.source or "", r.target or "") for r in records if r.type is RecordType.CLAIM]


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("If you ask me, Gunnar running the Vienna marathon was reckless.", "Gunnar"),
        ("In my opinion Gunnar's motorcycle is a waste of money.", "Gunnar"),
        ("I think Gunnar is brave.", "Gunnar"),
        ("If you ask me, you did a great job on the garden.", "Petra"),
    ],
)
def test_an_opinion_is_a_claim_of_its_speaker_about_the_person_judged(
    text: str, target: str
) -> None:
    assert claims("Alma", text, known=("Gunnar",)) == [("Alma", target)]


def test_a_plain_report_is_not_a_claim() -> None:
    assert claims("Alma", "Gunnar ran the Vienna marathon last week.", known=("Gunnar",)) == []


@pytest.mark.parametrize(
    ("sentence", "rewritten"),
    [
        ("If you ask me, you did great.", "In Alma's opinion, Petra did great."),
        ("Honestly, if you ask me, it was fun.", "Honestly, in Alma's opinion, it was fun."),
        ("I love my dog and you're kind.", "Alma loves Alma's dog and Petra is kind."),
    ],
)
def test_third_person_names_the_speaker_and_the_addressee(sentence: str, rewritten: str) -> None:
    assert third_person(sentence, "Alma", "Petra") == rewritten


def persons(text: str) -> set[str]:
    ctx = ExtractionContext(speakers=["Alma", "Petra"])
    turn = Turn(
        conversation="c",
        session="1",
        session_index=1,
        index=0,
        source_id="D1:1",
        speaker="Alma",
        text=text,
    )
    records = HeuristicExtractor().extract(turn, ctx).records
    return {r.name or "" for r in records if r.type is RecordType.PERSON} - {"Alma", "Petra"}


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Because Lima is at the end of the line, we picked the other office.", set()),
        ("We moved the team since Oslo is cheaper.", set()),
        ("I went hiking with Marco yesterday.", {"Marco"}),
        ("Honestly, Marco is the best cook I know.", {"Marco"}),
    ],
)
def test_a_capitalised_word_after_because_is_not_taken_for_a_person(
    text: str, found: set[str]
) -> None:
    assert persons(text) == found
