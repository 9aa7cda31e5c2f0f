"""The controller over an in-memory fake of the operators: which steps a recipe runs, in
which order, with which relationship types, and what comes back as Evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from cogmem.embed.tokens import TOKEN_ROWS, TOKEN_SCALES, pack
from cogmem.models import INTENTS, TimeRange
from cogmem.retrieval.candidates import (
    AnchorResult,
    Candidate,
    GroundedRecord,
    GroundedTurn,
    Hop,
    Shared,
)
from cogmem.retrieval.controller import Controller, SearchOperators
from cogmem.retrieval.recipes import RECIPES
from cogmem.retrieval.scoring import RankWeights

pytestmark = pytest.mark.unit

DAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
TURNS = [  # (speaker, text)
    ("Alice", "I love hiking in the Alps, it clears my head."),
    ("Bob", "I love hiking too, especially in the Alps in autumn."),
    ("Alice", "What do you think of my painting?"),
    ("Bob", "Honestly, your painting of the lake is wonderful."),
    ("Alice", "I adopted a dog called Pixel yesterday."),
]


def record(id: str, type: str, turn: int | None, vector: float, **fields: Any) -> Candidate:
    data: dict[str, Any] = {
        "id": id,
        "type": type,
        "content": fields.pop("content", id),
        "turn_id": f"t{turn}" if turn is not None else None,
        "vector": vector,
        "at": DAY if turn is not None else None,
    }
    return Candidate(**data, **fields)


RECORDS = [
    record("alice", "Person", None, 0.7, name="Alice"),
    record("bob", "Person", None, 0.7, name="Bob"),
    record("hiking", "Concept", None, 0.9, name="hiking"),
    record("alice-hikes", "Event", 0, 0.85, speaker="Alice", content="Alice hikes in the Alps"),
    record("bob-hikes", "Event", 1, 0.8, speaker="Bob", content="Bob hikes in autumn"),
    record("hiker", "Fact", 0, 0.8, speaker="Alice", consolidated=True, content="Alice hikes"),
    record(
        "bob-on-painting",
        "Claim",
        3,
        0.75,
        speaker="Bob",
        source="Bob",
        target="Alice",
        status="CURRENT",
        content="Bob thinks Alice's painting is wonderful",
    ),
    record("pixel", "Event", 4, 0.6, speaker="Alice", content="Alice adopted a dog, Pixel"),
]
EDGES = [  # (from, relationship, to)
    ("alice", "PARTICIPATED_IN", "alice-hikes"),
    ("bob", "PARTICIPATED_IN", "bob-hikes"),
    ("bob", "CLAIMS", "bob-on-painting"),
    ("alice", "PARTICIPATED_IN", "pixel"),
    ("hiking", "INVOLVES", "alice-hikes"),
    ("hiking", "INVOLVES", "bob-hikes"),
    ("hiker", "SUPPORTED_BY", "alice-hikes"),
]
UNGROUNDED = ("Person", "Concept")


class FakeOperators:
    """The operators over the lists above; similarities are fixed per node."""

    reads_at_once = False

    def __init__(self) -> None:
        self.records = {r.id: r for r in RECORDS}
        self.calls: list[tuple[str, Any]] = []
        self.as_of: datetime | None = None

    # the search's session: no time of its own, nothing held, no statements
    def end_scope(self) -> None:
        self.as_of = None

    def look_back(self, as_of: datetime) -> None:
        self.as_of = as_of

    def latest_said(self) -> datetime | None:
        return None

    def drain_statements(self) -> list[str]:
        return []

    def release(self) -> None:
        self.calls.append(("release", None))

    def prefetch_idf(self, words: list[str]) -> None:
        self.calls.append(("prefetch_idf", words))

    def _turn(self, idx: int) -> dict[str, Any]:
        speaker, text = TURNS[idx]
        return {"id": f"t{idx}", "source_id": f"D1:{idx + 1}", "speaker": speaker, "text": text}

    def persons(self) -> list[dict[str, Any]]:
        return [{"name": r.name, "id": r.id, "aliases": []} for r in RECORDS if r.type == "Person"]

    def anchor(
        self,
        question: str,
        vector: np.ndarray,
        types: list[str] | None,
        *,
        pool: int,
        drop_terms: set[str] | None,
    ) -> AnchorResult:
        self.calls.append(("anchor", types))
        found = [replace(r, path=list(r.path)) for r in RECORDS if types is None or r.type in types]
        words = {w.strip("?,.").lower() for w in question.split()} - (drop_terms or set())
        turns = []
        for idx, (speaker, text) in enumerate(TURNS):
            overlap = len(words & {w.strip("?,.").lower() for w in text.split()})
            turns.append(
                Candidate(
                    id=f"t{idx}",
                    type="Turn",
                    content=text,
                    speaker=speaker,
                    conversation_id="c1",
                    idx=idx,
                    at=DAY,
                    bm25=float(overlap),
                    vector=0.6,
                    path=["anchor:turn-fulltext"],
                )
            )
        entries = sorted(found, key=lambda c: c.vector, reverse=True)[:15]
        return AnchorResult(entries=entries, records=found, turns=turns, types=types)

    def feedback(self, vector: np.ndarray, ids: list[str], share: float) -> np.ndarray | None:
        self.calls.append(("feedback", list(ids)))
        return vector  # similarities are fixed per node here: the second pass ranks the same

    def traverse(
        self,
        ids: list[str],
        vector: np.ndarray,
        rel_types: Sequence[str],
        window: TimeRange | None = None,
        depth: int = 1,
    ) -> list[Candidate]:
        self.calls.append(("traverse", (list(ids), list(rel_types), depth)))
        out = []
        for start, rel, end in EDGES:
            if start in ids and rel in rel_types:
                hit = replace(self.records[end], path=list(self.records[end].path))
                hit.path = ["traverse", f"{rel}→"]
                out.append(hit)
        return out

    def traverse_many(self, hops: Sequence[Hop], vector: np.ndarray) -> list[list[Candidate]]:
        return [self.traverse(h.ids, vector, h.rel_types, h.window, h.depth) for h in hops]

    def intersect(self, entity_ids: list[str], vector: np.ndarray) -> list[Shared]:
        self.calls.append(("intersect", list(entity_ids)))
        links = {"Alice": ["alice-hikes"], "Bob": ["bob-hikes"]}
        return [Shared(id="hiking", name="hiking", similarity=0.9, links=links)]

    def ground(
        self, ids: list[str], *, window: int, vector: np.ndarray | None
    ) -> list[GroundedTurn]:
        self.calls.append(("ground", window))
        out = []
        for id in ids:
            turn_id = id if id.startswith("t") else self.records[id].turn_id
            if turn_id is None:
                continue
            centre = int(turn_id[1:])
            for idx in range(max(0, centre - window), min(len(TURNS), centre + window + 1)):
                recs = [
                    GroundedRecord(id=r.id, type=r.type, source=r.source, status=r.status)
                    for r in RECORDS
                    if r.turn_id == f"t{idx}" and r.type not in UNGROUNDED
                ]
                row = self._turn(idx)
                out.append(
                    GroundedTurn(
                        record_id=id,
                        turn_id=turn_id,
                        conversation_id="c1",
                        at=DAY,
                        idx=idx,
                        offset=idx - centre,
                        vector=0.6,
                        records=recs,
                        **row,
                    )
                )
        return out

    def turns(self, turn_ids: list[str]) -> list[dict[str, Any]]:
        return [{**self._turn(int(t[1:])), "at": DAY} for t in turn_ids]

    def turn_records(self, turn_ids: list[str], vector: np.ndarray) -> list[Candidate]:
        return [r for r in RECORDS if r.turn_id in turn_ids and r.type not in UNGROUNDED]

    def superseded(self, claim_ids: list[str]) -> dict[str, list[str]]:
        return {cid: ['"It is fine." (D1:1, 1 May 2023)'] for cid in claim_ids}

    def turn_tokens(self, turn_ids: list[str]) -> dict[str, tuple[bytes, list[float]]]:
        self.calls.append(("turn_tokens", list(turn_ids)))
        out = {}
        for t in turn_ids:
            kept = pack(token_rows(TURNS[int(t[1:])][1]))
            out[t] = (kept[TOKEN_ROWS], kept[TOKEN_SCALES])
        return out

    def turn_idf(self, words: list[str]) -> list[float]:
        return [1.0] * len(words)


MEANING = {"pet": 0, "dog": 0, "adopt": 1, "adopted": 1}
"""Token rows of the fake token embedder: words of one meaning share an axis, every other
word lies on a third one."""


def fake_pieces(text: str) -> list[str]:
    return [w.strip("?,.!").lower() for w in text.split()]


def token_rows(text: str) -> np.ndarray:
    rows = np.zeros((len(fake_pieces(text)), 3), np.float32)
    for i, word in enumerate(fake_pieces(text)):
        rows[i, MEANING.get(word, 2)] = 1.0
    return rows


class FakeEmbedder:
    name = "fake"
    dimension = 4

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2

    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(4, dtype=np.float32) / 2


class FakeTokenEmbedder(FakeEmbedder):
    """The fake embedder with token rows (:data:`MEANING`)."""

    def embed_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        return self.embed(texts), [token_rows(t) for t in texts]

    def pieces(self, text: str) -> list[str]:
        return fake_pieces(text)


def controller(ops: SearchOperators) -> Controller:
    return Controller(ops, FakeEmbedder())


def steps(trace: list[Any]) -> list[tuple[str, str]]:
    return [(s.operator, s.detail) for s in trace]


def test_every_intent_has_a_recipe_of_at_most_five_steps() -> None:
    assert set(RECIPES) == set(INTENTS)
    assert all(len(recipe) <= 5 for recipe in RECIPES.values())


def test_a_multi_hop_question_walks_persons_shared_concepts_and_facts() -> None:
    ops = FakeOperators()
    result = controller(ops).run("What do Alice and Bob both like?", k=3)
    assert result.plan.intent == "multi-hop"
    everyday = ["PARTICIPATED_IN", "HAS_FACT", "LIKES", "USES", "DISLIKES", "INVOLVES"]
    assert steps(result.trace) == [
        ("entities", "persons of the group"),
        (
            "route",
            "rules: intent=multi-hop entities=['Alice', 'Bob'] types=None window=None",
        ),
        ("anchor", "types=None"),
        ("feedback", "question vector + 0.2 × mean of the first pass's best 2 turns"),
        ("anchor", "types=None"),
        ("traverse", f"from ['Alice', 'Bob'] over {everyday}"),
        ("intersect", "shared neighbourhood of ['Alice', 'Bob']"),
        ("traverse", "from anchored concepts 1 over INVOLVES/ABOUT/TARGETS"),
        ("traverse", "down SUPPORTED_BY from 1 consolidated facts"),
        ("ground", "5 turns ±1 neighbour, with their records"),
        ("sufficiency", "sufficient"),
    ]
    traversed = [args for name, args in ops.calls if name == "traverse"]
    assert traversed == [
        (["alice", "bob"], everyday, 1),
        (["hiking"], ["INVOLVES", "ABOUT", "TARGETS"], 1),
        (["hiker"], ["SUPPORTED_BY"], 1),
    ]
    assert all(type(rel) is str for _, rels, _ in traversed for rel in rels)
    assert ("ground", 1) in ops.calls
    # the two hiking turns, which the graph reached from both persons, rank first
    assert {e.turn_source_id for e in result.evidence[:2]} == {"D1:1", "D1:2"}
    assert result.evidence[0].type == "Event" and len(result.evidence) == 3


def test_feedback_searches_with_the_first_passs_best_turns_and_can_be_off() -> None:
    ops = FakeOperators()
    result = controller(ops).run("What do Alice and Bob both like?", k=3)
    (fed,) = [ids for name, ids in ops.calls if name == "feedback"]
    assert len(fed) == 2 and "t1" in fed  # turns, best by Anchor's signals alone
    assert [name for name, _ in ops.calls].count("anchor") == 2
    assert {e.turn_source_id for e in result.evidence[:2]} == {"D1:1", "D1:2"}

    ops = FakeOperators()
    one_pass = Controller(ops, FakeEmbedder(), weights=RankWeights(feedback=0.0)).run(
        "What do Alice and Bob both like?", k=3
    )
    assert "feedback" not in [name for name, _ in ops.calls]
    assert [name for name, _ in ops.calls].count("anchor") == 1
    assert "feedback" not in [step.operator for step in one_pass.trace]


def test_late_interaction_raises_the_turn_whose_words_answer() -> None:
    # "pet" and "adopt" are nowhere in the texts, but "dog" and "adopted" mean them
    question = "Which pet did Alice adopt?"
    without = Controller(FakeOperators(), FakeTokenEmbedder(), weights=RankWeights(late=0))
    plain = without.run(question, k=3)
    assert "late" not in [step.operator for step in plain.trace]
    assert plain.evidence[0].turn_id != "t4"

    ops = FakeOperators()
    result = Controller(ops, FakeTokenEmbedder()).run(question, k=3)
    (late,) = [step for step in result.trace if step.operator == "late"]
    assert late.returned == len(TURNS) and "2 words" in late.detail  # pet, adopt
    assert result.evidence[0].turn_id == "t4"
    (asked,) = [ids for name, ids in ops.calls if name == "turn_tokens"]
    assert len(asked) <= RankWeights().late_pool


def test_no_late_interaction_without_token_rows() -> None:
    ops = FakeOperators()
    result = controller(ops).run("Which pet did Alice adopt?", k=3)  # no token states
    assert "late" not in [step.operator for step in result.trace]
    assert "turn_tokens" not in [name for name, _ in ops.calls]


def test_an_opinion_question_follows_only_the_holders_claims() -> None:
    ops = FakeOperators()
    result = controller(ops).run("What does Bob think of Alice's painting?", k=3)
    plan = result.plan
    assert (plan.intent, plan.opinion_source, plan.opinion_target) == ("opinion", "Bob", "Alice")
    assert [name for name, _ in steps(result.trace)] == [
        "entities",
        "route",
        "anchor",
        "feedback",
        "anchor",
        "traverse",
        "ground",
        "sufficiency",
    ]
    assert result.trace[5].detail == "from ['Bob', 'Alice'] over ['CLAIMS']"
    assert ("anchor", ["Claim"]) in ops.calls
    best = result.evidence[0]
    assert (best.record_id, best.type, best.speaker) == ("bob-on-painting", "Claim", "Bob")
    assert best.supersedes == ['"It is fine." (D1:1, 1 May 2023)']


def test_a_why_question_follows_causes_two_hops_without_the_window() -> None:
    ops = FakeOperators()
    result = controller(ops).run("Why did Alice adopt Pixel?", k=2)
    assert result.plan.wants_cause
    assert ("traverse", "causes and references of anchored decisions") in steps(result.trace)
    assert (["hiker"], ["CAUSES", "REFERENCES", "SUPPORTED_BY"], 2) in [
        args for name, args in ops.calls if name == "traverse"
    ]


def test_a_learned_configuration_orders_the_turns_and_shows_each_feature_s_share() -> None:
    from cogmem.retrieval.learned import FEATURES, LearnedRanking
    from cogmem.retrieval.search_config import SearchConfig

    question = "Which pet did Alice adopt?"
    plain = Controller(FakeOperators(), FakeTokenEmbedder()).run(question, k=3)
    embedder = FakeTokenEmbedder().name
    assert plain.config == SearchConfig.for_embedder(embedder)
    assert "learned" not in steps_of(plain.trace)

    def only(feature: str, sign: float = 1.0) -> SearchConfig:
        coef = [sign if f == feature else 0.0 for f in FEATURES]
        learned = LearnedRanking(coef=coef, fitted_on=["x"])
        return SearchConfig.for_embedder(embedder).model_copy(update={"learned": learned})

    by_late = Controller(FakeOperators(), FakeTokenEmbedder(), config=only("late")).run(question)
    assert by_late.evidence[0].turn_id == "t4"  # the turn whose words answer
    (step,) = [s for s in by_late.trace if s.operator == "learned"]
    assert "fitted on x" in step.detail and "t4" in step.detail and "late +" in step.detail
    against = Controller(FakeOperators(), FakeTokenEmbedder(), config=only("late", -1.0))
    assert against.run(question).evidence[0].turn_id != "t4"


def steps_of(trace: list[Any]) -> list[str]:
    return [step.operator for step in trace]
