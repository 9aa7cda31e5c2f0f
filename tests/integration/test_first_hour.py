"""A new user's first hour: a chat of their own, twelve-plus ordinary questions, offline.

``tests/data/first_hour.jsonl`` is a four-session chat between Lena and Oskar (May to July
2024), written for this test (not LoCoMo). It is ingested through the public API
(:class:`cogmem.api.Memory`) with the offline extractor and embedder, and each answer of
``mem.ask(question).text`` must contain the fact a reader of the chat would give.

Expected dates were worked out by hand from the calendar: 13 May 2024 is a Monday (so "on
Saturday" in a past sentence is 11 May 2024), 17 June 2024 is a Monday (so "we fly out on
Friday" is Friday 21 June 2024), and "the conference in October", said in May 2024 about
something still to come, is October 2024.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.store import Store

pytestmark = pytest.mark.integration

CHAT = Path(__file__).resolve().parent.parent / "data" / "first_hour.jsonl"

# (question, every one of these must be in the answer, none of these may be)
QUESTIONS: list[tuple[str, list[str], list[str]]] = [
    # who with: the companion is named in the sentence next to the quoted one
    ("Who did Lena drive to Porto with?", ["Jonas"], []),
    ("Who is Lena going to the film festival with?", ["Jonas"], []),
    ("Who is Oskar travelling to Lisbon with?", ["Clara"], []),
    ("Who did Oskar stay with in Lisbon?", ["Ines"], []),
    # current opinion: the later view, not the old one
    ("What does Lena think of Rita now?", ["reliable"], ["careless"]),
    ("What does Oskar think of Marlene now?", ["generous"], ["rude"]),
    # opinion history: both views, old before new
    ("How has Lena's opinion of Rita changed?", ["careless", "reliable"], []),
    # when, past statements
    ("When did Lena adopt Biscuit?", ["11 May 2024"], []),
    ("When did Oskar move into his new flat?", ["3 March 2024"], []),
    # when, future statements
    ("When is Lena's conference?", ["October 2024"], ["2023"]),
    ("When does Oskar fly out to Lisbon?", ["21 June 2024"], []),
    ("When is the film festival?", ["September 2024"], ["2023"]),
    # why: the reason may sit in the next sentence
    ("Why did Lena quit the choir?", ["night shifts"], []),
    ("Why did Oskar sell his car?", ["parking fees"], []),
    # what is still owed
    ("What does Lena still owe Oskar?", ["40 euros"], []),
    ("What did Oskar promise to return to Lena?", ["tent"], []),
]


@pytest.fixture(scope="module")
def lena(neo4j_settings: Settings) -> Iterator[Memory]:
    """The chat ingested once into a fresh group, deleted afterwards."""
    group = f"test-first-hour-{uuid.uuid4().hex[:8]}"
    store = Store(neo4j_settings)
    mem = Memory(neo4j_settings.model_copy(update={"group": group, "llm": "none"}), store=store)
    try:
        summary = mem.ingest(CHAT)
        assert summary.turns == 24
        yield mem
    finally:
        while store.write("admin/forget_group", group=group, batch=5000)[0]["deleted"]:
            pass
        mem.close()
        store.close()


def test_the_chat_is_answered_offline(lena: Memory) -> None:
    assert lena.llm is None


@pytest.mark.parametrize(
    ("question", "must", "must_not"), QUESTIONS, ids=[q for q, *_ in QUESTIONS]
)
def test_first_hour_question(
    lena: Memory, question: str, must: list[str], must_not: list[str]
) -> None:
    text = lena.ask(question).text
    for fact in must:
        assert fact.lower() in text.lower(), f"{question!r}: {fact!r} missing from\n{text}"
    for wrong in must_not:
        assert wrong.lower() not in text.lower(), f"{question!r}: {wrong!r} in\n{text}"
    if len(must) > 1:  # a history reads old -> new
        positions = [text.lower().index(fact.lower()) for fact in must]
        assert positions == sorted(positions), f"{question!r}: not in order\n{text}"
