"""The turn ranking without a server: how signals combine, and the rules about claims,
neighbours, questions, speakers and time windows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from cogmem.models import Intent, TimeRange
from cogmem.retrieval.candidates import Candidate, GroundedRecord, GroundedTurn
from cogmem.retrieval.router import EntityRef, Plan
from cogmem.retrieval.scoring import (
    POOLED_LATE,
    POOLED_UPDATE_CLAIM,
    RAW_COSINES,
    CosineScale,
    RankWeights,
    TurnScore,
    absorb,
    admissible,
    candidate_count,
    candidate_in_window,
    claim_bonus,
    combine,
    cosine,
    finish,
    ground_pool,
    in_window,
    mostly_asks,
    pool_scale,
    preferred_speaker,
    ranked,
    record_order,
    score_turns,
)

pytestmark = pytest.mark.unit

MAY = TimeRange(
    start=datetime(2023, 5, 1, tzinfo=UTC),
    end=datetime(2023, 6, 1, tzinfo=UTC),
    granularity="month",
    text="in May 2023",
)
ALICE = EntityRef(name="Alice", id="p-alice")
BOB = EntityRef(name="Bob", id="p-bob")


def plan(intent: Intent = "single-hop", **fields: object) -> Plan:
    return Plan.model_validate({"question": "q", "intent": intent, **fields})


def turn(idx: int, bm25: float = 0.0, sim: float = 0.5, **fields: object) -> Candidate:
    """A turn candidate; ``sim`` is Neo4j's similarity (0.5 is a cosine of 0)."""
    data: dict[str, Any] = {
        "id": f"t{idx}",
        "type": "Turn",
        "conversation_id": "c1",
        "idx": idx,
        "speaker": "Alice",
        "content": "I went hiking.",
        "bm25": bm25,
        "vector": sim,
        "path": ["anchor:turn-fulltext"],
    }
    data.update(fields)
    return Candidate(**data)


def claim(turn_id: str, source: str, target: str | None, status: str | None) -> Candidate:
    return Candidate(
        id=f"{turn_id}-claim",
        type="Claim",
        turn_id=turn_id,
        source=source,
        target=target,
        status=status,
        vector=0.8,
    )


# -- the claim rules -------------------------------------------------------------------
def test_on_update_questions_a_current_claim_about_the_target_outranks_a_superseded_one() -> None:
    asked = plan("update", entities=[ALICE, BOB], opinion_source="Alice", opinion_target="Bob")
    old = claim("t1", "Alice", "Bob", "SUPERSEDED")
    new = claim("t7", "Alice", "Bob", "CURRENT")
    assert claim_bonus(asked, new) > claim_bonus(asked, old)

    turns = [turn(1, bm25=1.0, sim=0.8), turn(7, bm25=0.8, sim=0.75)]
    scores = score_turns(asked, turns, [old, new], [])
    finish(asked, RankWeights(), scores)
    assert ranked(scores)[0].id == "t7"


def test_on_opinion_questions_an_older_opinion_still_counts_more_than_on_update() -> None:
    old = claim("t1", "Alice", "Bob", "SUPERSEDED")
    opinion = plan("opinion", opinion_source="Alice", opinion_target="Bob")
    update = plan("update", opinion_source="Alice", opinion_target="Bob")
    assert claim_bonus(opinion, old) > claim_bonus(update, old) > 0


def test_the_claim_on_the_asked_target_beats_the_holders_other_claims() -> None:
    asked = plan("opinion", opinion_source="Alice", opinion_target="bob")
    assert claim_bonus(asked, claim("t1", "Alice", "Bob", None)) > claim_bonus(
        asked, claim("t2", "Alice", "Carol", None)
    )


def test_claims_earn_nothing_outside_opinion_questions_or_from_another_holder() -> None:
    bob_says = claim("t1", "Bob", "Alice", "CURRENT")
    assert claim_bonus(plan("single-hop"), bob_says) == 0.0
    assert claim_bonus(plan("opinion", opinion_source="Alice"), bob_says) == 0.0
    event = Candidate(id="e", type="Event", turn_id="t1")
    assert claim_bonus(plan("opinion", opinion_source="Alice"), event) == 0.0


def test_another_speakers_claim_is_never_the_subjects_record() -> None:
    about_alice = plan("single-hop", entities=[ALICE])
    assert not admissible(about_alice, claim("t1", "Bob", "Alice", None), "Alice")
    assert admissible(about_alice, claim("t1", "Alice", "Bob", None), "Alice")
    assert admissible(about_alice, Candidate(id="e", type="Event"), "Alice")
    assert admissible(plan("single-hop"), claim("t1", "Bob", "Alice", None), None)
    opinion = plan("opinion", opinion_source="Alice")
    assert admissible(opinion, claim("t1", "Alice", "Bob", None), "Alice")
    assert not admissible(opinion, claim("t1", "Bob", "Alice", None), "Alice")
    assert admissible(plan("opinion"), claim("t1", "Bob", "Alice", None), None)


def test_a_record_of_another_speakers_claim_does_not_lift_the_subjects_turn() -> None:
    about_alice = plan("single-hop", entities=[ALICE])
    scores = score_turns(about_alice, [], [claim("t1", "Bob", "Alice", None)], [])
    assert scores == {}


# -- neighbours, questions, speakers ---------------------------------------------------
def test_a_question_only_turn_is_damped() -> None:
    asking = turn(1, bm25=1.0, content="What kind of books do you like?")
    telling = turn(9, bm25=1.0, content="I like books about the sea.")
    scores = score_turns(plan(), [asking, telling], [], [])
    finish(plan(), RankWeights(), scores)
    assert scores["t1"].asks and not scores["t9"].asks
    assert scores["t1"].base == pytest.approx(scores["t9"].base)
    assert scores["t1"].final < scores["t9"].final


def test_neighbours_inherit_a_share_of_the_answer_turns_score() -> None:
    w = RankWeights()
    answer = turn(5, bm25=1.0, sim=0.9)
    before, after = turn(4, content="Hm?"), turn(6, content="Nice.")
    elsewhere = turn(6, id="other", conversation_id="c2", content="Nice.")
    scores = score_turns(plan(), [before, answer, after, elsewhere], [], [])
    finish(plan(), w, scores)
    top = scores["t5"].base
    assert top > 0 and scores["t4"].base == scores["t6"].base == 0.0
    assert scores["t6"].final == pytest.approx(w.previous * top)  # the reply after it
    assert scores["t4"].final == pytest.approx(w.following * top * (1 - w.question))
    assert scores["other"].final == 0.0  # same position, another conversation


def test_an_extra_signal_joins_the_base_and_reaches_the_next_turn() -> None:
    # what a benchmark tries out (benchmarks/late_interaction.py) is scored like any signal
    w = RankWeights()
    turns = [turn(4, bm25=1.0, sim=0.9), turn(5, content="Nice."), turn(9, bm25=0.5)]
    scores = score_turns(plan(), turns, [], [])
    finish(plan(), w, scores)
    before = {k: (s.base, s.final) for k, s in scores.items()}
    finish(plan(), w, scores, {"t4": 0.5, "unknown": 9.0})
    assert scores["t4"].base == pytest.approx(before["t4"][0] + 0.5)
    assert scores["t5"].final == pytest.approx(before["t5"][1] + w.previous * 0.5)
    assert (scores["t9"].base, scores["t9"].final) == before["t9"]
    assert "unknown" not in scores
    finish(plan(), w, scores)  # without it, the shipped scores again
    assert {k: (s.base, s.final) for k, s in scores.items()} == before


def test_turns_of_the_one_person_asked_about_are_raised() -> None:
    w = RankWeights()
    hers, his = turn(1, bm25=1.0), turn(9, bm25=1.0, speaker="Bob")
    about_alice = plan("single-hop", entities=[ALICE])
    scores = score_turns(about_alice, [hers, his], [], [])
    finish(about_alice, w, scores)
    assert scores["t1"].final == pytest.approx(scores["t9"].final * (1 + w.speaker))


def test_the_preferred_speaker_is_the_holder_or_the_one_person_named() -> None:
    assert preferred_speaker(plan(entities=[ALICE])) == "Alice"
    assert preferred_speaker(plan(entities=[ALICE, BOB])) is None
    assert preferred_speaker(plan()) is None
    holder = plan("opinion", entities=[BOB, ALICE], opinion_source="Alice")
    assert preferred_speaker(holder) == "Alice"


# -- the base score --------------------------------------------------------------------
def test_the_base_score_weighs_each_signal_and_ignores_negative_cosines() -> None:
    w = RankWeights()
    s = TurnScore(id="t", bm25=1.0, turn_cos=-0.4, record_cos=0.5, graph=0.5, claim=1.0)
    s.window = 1.0
    expected = w.bm25 + w.record_vector * 0.5 + w.graph * 0.5 + w.claim + w.window
    assert combine(w, s) == pytest.approx(expected)
    assert combine(w, TurnScore(id="u", turn_cos=-1.0, record_cos=-1.0)) == 0.0


def test_bm25_is_scaled_to_the_best_turn_of_the_question() -> None:
    scores = score_turns(plan(), [turn(1, bm25=8.0), turn(2, bm25=2.0), turn(3)], [], [])
    assert [scores[f"t{i}"].bm25 for i in (1, 2, 3)] == [1.0, 0.25, 0.0]


def test_neo4j_similarity_is_turned_back_into_a_cosine() -> None:
    assert (cosine(1.0), cosine(0.5), cosine(0.0)) == (1.0, 0.0, -1.0)
    scores = score_turns(plan(), [turn(1, sim=0.75)], [], [])
    assert scores["t1"].turn_cos == pytest.approx(0.5)


def test_intent_overrides_change_only_their_intent() -> None:
    w = RankWeights()
    assert w.for_intent("multi-hop").speaker > w.speaker
    assert w.for_intent("update").claim > w.claim
    assert w.for_intent("temporal").status == 0.0 and w.for_intent("single-hop") is w


def test_graph_hits_count_their_positive_cosine_and_path() -> None:
    hit = Candidate(id="e", type="Event", turn_id="t3", vector=0.9, path=["traverse", "LIKES→"])
    far = Candidate(id="f", type="Event", turn_id="t4", vector=0.2, path=["traverse"])
    scores = score_turns(plan(), [], [], [hit, far])
    assert scores["t3"].graph == pytest.approx(0.8)
    assert scores["t3"].paths == ["traverse/LIKES→"]
    assert scores["t4"].graph == 0.0
    orphan = Candidate(id="g", type="Event", vector=0.9)
    assert score_turns(plan(), [], [orphan], [orphan]) == {}


# -- time windows ----------------------------------------------------------------------
def test_a_record_outside_the_window_gets_zero_and_one_inside_gets_one() -> None:
    may = datetime(2023, 5, 10, tzinfo=UTC)
    june = datetime(2023, 6, 10, tzinfo=UTC)
    assert in_window(MAY, may, may) == 1.0
    assert in_window(MAY, june, june) == 0.0
    assert in_window(None, may, may) == 0.0
    assert in_window(MAY, None, None) == 0.0
    # a record's referenced time counts, not when it was said
    said_in_june_about_may = Candidate(
        id="r", type="Event", at=june, time_start=may, time_end=may.replace(day=11)
    )
    assert candidate_in_window(MAY, said_in_june_about_may) == 1.0
    assert candidate_in_window(MAY, Candidate(id="s", type="Event", at=june)) == 0.0
    assert candidate_in_window(MAY, Candidate(id="u", type="Event", at=may)) == 1.0


def test_the_window_lifts_records_turns_inside_it() -> None:
    asked = plan("temporal", window=MAY)
    inside = Candidate(
        id="a", type="Event", turn_id="t1", time_start=datetime(2023, 5, 2, tzinfo=UTC)
    )
    inside.time_end = datetime(2023, 5, 3, tzinfo=UTC)
    outside = Candidate(id="b", type="Event", turn_id="t2", at=datetime(2023, 7, 1, tzinfo=UTC))
    scores = score_turns(asked, [], [inside, outside], [])
    assert (scores["t1"].window, scores["t2"].window) == (1.0, 0.0)


# -- grounding -------------------------------------------------------------------------
def grounded(
    idx: int, sim: float, records: list[GroundedRecord], text: str = "Sure."
) -> GroundedTurn:
    return GroundedTurn(
        record_id="r",
        turn_id=f"t{idx}",
        id=f"t{idx}",
        source_id=f"D1:{idx}",
        conversation_id="c1",
        speaker="Alice",
        text=text,
        at=datetime(2023, 5, 5, tzinfo=UTC),
        idx=idx,
        offset=0,
        vector=sim,
        records=records,
    )


def test_grounding_adds_neighbours_and_exact_similarities_of_admissible_records() -> None:
    asked = plan("opinion", opinion_source="Alice", opinion_target="Bob", window=MAY)
    scores = score_turns(asked, [turn(2, bm25=1.0, sim=0.6)], [], [])
    mine = GroundedRecord(id="c1", type="Claim", source="Alice", target="Bob", vector=0.9)
    theirs = GroundedRecord(id="c2", type="Claim", source="Bob", target="Alice", vector=1.0)
    absorb(asked, scores, [grounded(2, 0.8, [mine, theirs]), grounded(3, 0.55, [], "Why?")])
    assert scores["t2"].turn_cos == pytest.approx(0.6)
    assert scores["t2"].record_cos == pytest.approx(0.8)  # Bob's claim does not count
    assert scores["t2"].claim > 0 and scores["t2"].window == 1.0
    assert scores["t3"].asks and scores["t3"].turn_cos == pytest.approx(0.1)


def test_ground_pool_and_candidates_grow_with_k() -> None:
    assert ground_pool(10, floor=100) == 100
    assert ground_pool(40, floor=100) > ground_pool(30, floor=100) >= 100
    assert candidate_count(10, dedupe=True) == 10
    assert candidate_count(10, dedupe=False) > 10
    assert candidate_count(0, dedupe=True) == 1


# -- which record of a turn is shown ---------------------------------------------------
def test_outside_opinion_questions_a_turns_claims_are_shown_last() -> None:
    event = Candidate(id="e", type="Event", turn_id="t1", vector=0.6)
    their_claim = Candidate(id="c", type="Claim", turn_id="t1", vector=0.9, source="Alice")
    assert [r.id for r in record_order(plan(), [their_claim, event])] == ["e", "c"]
    opinion = plan("opinion", opinion_source="Alice")
    assert [r.id for r in record_order(opinion, [event, their_claim])] == ["c", "e"]


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("What kind of books do you have in your library?", True),
        ("Wow, Caroline! What kinda jobs are you thinkin' of? Anything that stands out?", True),
        ("Sounds great! What kind of services do you want to pursue?", True),
        ("Nice! Which one? [image: a photo of a bookshelf]", True),
        ("I loved Becoming Nicole. It changed how I see my family. What about you?", False),
        ("I adopted a dog called Pixel yesterday.", False),
        ("Is it true? I thought so.", False),
        ("", False),
    ],
)
def test_a_turn_that_mostly_asks_is_told_apart_from_one_that_answers(text: str, asks: bool) -> None:
    assert mostly_asks(text) is asks


# -- the cosine scale ------------------------------------------------------------------
def _stretched(sim: float, stretch: float, shift: float) -> float:
    """Neo4j's similarity of a cosine ``stretch * cos + shift``: another embedder's view."""
    return (stretch * cosine(sim) + shift + 1.0) / 2.0


def _ranking(w: RankWeights, stretch: float = 1.0, shift: float = 0.0) -> list[str]:
    sims = [0.62, 0.71, 0.80, 0.66, 0.75, 0.58]
    bm25s = [0.0, 3.0, 1.0, 4.0, 0.0, 2.0]
    turns = [
        turn(i, bm25=b, sim=_stretched(v, stretch, shift), content=f"turn {i}.")
        for i, (v, b) in enumerate(zip(sims, bm25s, strict=True))
    ]
    # records far apart so that neighbours do not blur the order
    for i, t in enumerate(turns):
        t.idx = 10 * i
    rec = Candidate(id="r3", type="Event", turn_id="t3", vector=_stretched(0.74, stretch, shift))
    scores = score_turns(plan(), turns, [rec], [])
    finish(plan(), w, scores)
    return [s.id for s in ranked(scores)]


def test_pooled_cosines_rank_the_same_for_an_embedder_with_another_cosine_scale() -> None:
    # an embedder whose cosines crowd into 0.7-0.9 (e5-like) against one that spreads
    # them over 0.2-0.6 (MiniLM-like): raw cosines let the crowded one's vector signal
    # swamp BM25, pooled ones rank both alike
    pooled = RankWeights(cosines="pool")
    wide = _ranking(pooled)
    assert _ranking(pooled, stretch=0.4, shift=0.6) == wide
    assert _ranking(pooled, stretch=1.2, shift=-0.1) == wide
    raw = RankWeights()  # the default
    assert raw.cosines == "raw"
    assert _ranking(raw, stretch=0.4, shift=0.6) != _ranking(raw)


def test_the_raw_scale_is_the_cosine_itself_and_negative_counts_nothing() -> None:
    assert [RAW_COSINES(c) for c in (-0.3, 0.0, 0.42, 1.0)] == [0.0, 0.0, 0.42, 1.0]


def test_the_pool_scale_maps_the_floor_quantile_to_0_and_the_best_to_1() -> None:
    scores = [TurnScore(id=f"t{i}", turn_cos=c) for i, c in enumerate((0.2, 0.4, 0.6, 0.8))]
    scores.append(TurnScore(id="unread"))  # no similarity read yet: not in the pool
    lowest = pool_scale(scores, 0.0)
    assert (lowest(0.2), lowest(0.5), lowest(0.8)) == pytest.approx((0.0, 0.5, 1.0))
    median = pool_scale(scores, 0.5)  # round(0.5 * 3) = 2: 0.6
    assert (median(0.4), median(0.7), median(0.8)) == pytest.approx((0.0, 0.5, 1.0))
    assert lowest(0.0) == 0.0 and lowest(-0.5) == 0.0


def test_a_pool_without_spread_counts_each_cosine_fully() -> None:
    assert pool_scale([], 0.0) is RAW_COSINES
    one = pool_scale([TurnScore(id="t", turn_cos=0.3)], 0.0)
    assert one(0.3) == 1.0
    assert CosineScale(floor=0.2, span=0.4)(0.9) == 1.0


def test_each_embedder_gets_the_cosine_form_its_weights_hold_for() -> None:
    # MiniLM (either backend) ranks with the raw cosines the weights were chosen on
    for name in ("minilm", "minilm-int8", None):
        assert RankWeights.for_embedder(name) == RankWeights()
    # any other model ranks with pooled ones, its claims raised on update questions and
    # late interaction weighed more (but still off where update questions turn it off);
    # every other weight as chosen
    flat = {"cosines", "late", "by_intent"}
    for name in ("mpnet", "bge-m3", "openai:text-embedding-3-small"):
        w = RankWeights.for_embedder(name)
        assert w.cosines == "pool"
        assert w.for_intent("update").claim == POOLED_UPDATE_CLAIM
        assert w.late == POOLED_LATE > RankWeights().late
        assert w.for_intent("multi-hop").late == POOLED_LATE
        assert w.for_intent("update").late == 0.0
        assert w.for_intent("opinion").claim == RankWeights().claim
        assert w.model_dump(exclude=flat) == RankWeights().model_dump(exclude=flat)
        assert w.by_intent["multi-hop"] == RankWeights().by_intent["multi-hop"]
    # the defaults themselves are not changed by asking
    assert RankWeights().by_intent["update"]["claim"] == 1.2
