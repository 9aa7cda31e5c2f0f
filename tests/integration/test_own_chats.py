"""Chats written like a user's own, answered offline without consolidation.

``tests/data/own/*.jsonl`` are conversations written for this test (not LoCoMo, not
the first-hour chat): other names, topics and timestamp styles (ISO-8601 with an offset,
LoCoMo's "7:15 pm on 3 February, 2025", Unix seconds). ``tests/data/own/questions.json``
holds, per chat, its questions with what the answer must say (``must``, in that order when
there are several), must not say (``must_not``), and the turns it must rest on
(``evidence``: the first turn the answer cites, then any others in order). The questions
cover the classes a user's chat trips over:

- a pronoun across speakers: one speaker names a person, the other answers "I think he
  is …"; "what does B think of X now?" wants that view, not an older one;
- plan vs done: "when did X renew …" wants the turn that did it ("I finally renewed it
  three days ago"), not the plan ("I need to renew … before the trip"); a question about a
  plan or a date ahead wants the plan;
- a cancelled plan: "is X still going to …" wants the turn that calls it off;
- an opinion that changed: the history, old before new;
- opinions of what another person did ("I think Emre selling his piano was a sad mistake"):
  views of two doings of one person are two views, neither conflicting with the other.

Each chat is ingested once into its own group through :class:`cogmem.api.Memory` with the
offline defaults (heuristic extractor, offline embedder, no LLM) and never consolidated.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.store import Store

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parent.parent / "data" / "own"
CHATS: dict[str, dict[str, Any]] = json.loads((DATA / "questions.json").read_text())
CASES = [
    (chat, q["question"], q["must"], q["must_not"], q["evidence"])
    for chat, spec in CHATS.items()
    for q in spec["questions"]
]
_TURN_ID = re.compile(r"\(([a-z]\d{2})[,)]")


def cited(text: str) -> list[str]:
    """The turn ids an extractive answer cites, in the order it cites them."""
    return list(dict.fromkeys(_TURN_ID.findall(text)))


@pytest.fixture(scope="module")
def memories(neo4j_settings: Settings) -> Iterator[dict[str, Memory]]:
    """Every chat ingested once into a fresh group of its own, deleted afterwards."""
    store = Store(neo4j_settings)
    mems: dict[str, Memory] = {}
    try:
        for chat, spec in CHATS.items():
            group = f"test-own-{uuid.uuid4().hex[:8]}"
            settings = neo4j_settings.model_copy(update={"group": group, "llm": "none"})
            mem = Memory(settings, store=store)
            mems[chat] = mem
            summary = mem.ingest(DATA / chat)
            assert summary.turns == spec["turns"]
        yield mems
    finally:
        for mem in mems.values():
            while store.write("admin/forget_group", group=mem.group, batch=5000)[0]["deleted"]:
                pass
            mem.close()
        store.close()


def test_chats_are_answered_offline(memories: dict[str, Memory]) -> None:
    assert all(mem.llm is None for mem in memories.values())


def test_names_the_speakers_call_each_other_are_their_aliases(
    memories: dict[str, Memory],
) -> None:
    """Display names that are handles (Bluejay, Orca) and a chat that calls the two Tom and
    Sarah: each person carries the name the other calls them by, and a question that uses
    it asks about that speaker."""
    mem = memories["bluejay_orca.jsonl"]
    persons = {r["name"] for r in mem.inspect.records() if r["type"] == "Person"}
    assert {"Orca", "Bluejay"} <= persons and not {"Sarah", "Tom"} & persons
    for question, person, said in (
        ("What is Sarah allergic to?", "Orca", "Sarah"),
        ("What is Tom cooking tonight?", "Bluejay", "Tom"),
    ):
        plan = mem.retrieve(question).plan
        assert [(e.name, e.mention) for e in plan.entities] == [(person, said)]


@pytest.mark.parametrize(
    ("chat", "question", "must", "must_not", "evidence"),
    CASES,
    ids=[f"{chat.removesuffix('.jsonl')}: {q}" for chat, q, *_ in CASES],
)
def test_own_chat_question(
    memories: dict[str, Memory],
    chat: str,
    question: str,
    must: list[str],
    must_not: list[str],
    evidence: list[str],
) -> None:
    text = memories[chat].ask(question).text
    low = text.lower()
    for fact in must:
        assert fact.lower() in low, f"{question!r}: {fact!r} missing from\n{text}"
    for wrong in must_not:
        assert wrong.lower() not in low, f"{question!r}: {wrong!r} in\n{text}"
    positions = [low.index(fact.lower()) for fact in must]
    assert positions == sorted(positions), f"{question!r}: not in order\n{text}"
    turns = cited(text)
    assert turns[:1] == evidence[:1], f"{question!r}: rests on {turns}, not {evidence}\n{text}"
    if len(evidence) > 1:  # a history: these turns, in this order, and no other
        assert turns == evidence, f"{question!r}: cites {turns}, wants {evidence}\n{text}"
