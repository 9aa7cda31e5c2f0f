"""The two multi-hop conversations of our own (benchmarks/data/own-multihop.json) read as
LoCoMo does: every question is multi-hop, its evidence spans turns that exist, and more
than one session for most."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogmem.bench.locomo import EvidenceStats, load_questions
from cogmem.ingest import read_file

pytestmark = pytest.mark.unit

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "own-multihop.json"


def test_the_own_multihop_conversations_load_with_every_evidence_turn() -> None:
    read = read_file(DATA)
    assert read.format == "locomo" and not read.skipped
    conversations = read.conversations
    assert {c.id for c in conversations} == {"own-hana-oskar", "own-amara-teodor"}
    stats = EvidenceStats()
    questions = load_questions(DATA, conversations, {1, 2, 3, 4}, stats)
    assert len(questions) == 18 and {q.category for q in questions} == {1}
    assert stats == EvidenceStats()  # nothing normalised, dropped or left without evidence
    assert all(len(q.evidence) >= 2 for q in questions)
    sessions = [{e.split(":")[0] for e in q.evidence} for q in questions]
    assert sum(len(s) > 1 for s in sessions) >= 15  # most gather across sessions
