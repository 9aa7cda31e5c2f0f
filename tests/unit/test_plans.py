"""Plans and what became of them, without a server: the status a sentence tells (planned,
done, cancelled), the link from a later turn to the plan it did or called off, and how the
ranking and the extractive answer use the status for "when did", "when is … going to" and
"is … still …" questions."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from cogmem.answer import extractive_answer
from cogmem.extract import ExtractionContext, HeuristicExtractor
from cogmem.extract.plans import completes, plan_status
from cogmem.ingest.rows import GraphBuilder
from cogmem.models import Conversation, Evidence, ExtractedRecord, Intent, RecordType, Turn
from cogmem.retrieval.candidates import Candidate
from cogmem.retrieval.router import EntityRef, Plan, RuleRouter
from cogmem.retrieval.scoring import (
    RankWeights,
    claim_bonus,
    finish,
    ranked,
    record_order,
    score_turns,
    status_fit,
)
from cogmem.temporal import infer_tense
from cogmem.text import topic_stems

pytestmark = pytest.mark.unit

AT = datetime(2025, 5, 20, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "status"),
    [
        ("I need to renew my passport before the trip to Montreal in August.", "PLANNED"),
        ("I'm also planning to run the Bristol half marathon in October.", "PLANNED"),
        ("We're going to repaint the kitchen next weekend.", "PLANNED"),
        ("Yes, I finally renewed it three days ago, just in time for Montreal.", "DONE"),
        ("We repainted the kitchen on Saturday.", "DONE"),
        ("I'm not going to run the half marathon anymore.", "CANCELLED"),
        ("Bad news though: we called off the Cornwall trip, the car failed its MOT.", "CANCELLED"),
        ("I'm not doing the Spanish class anymore.", "CANCELLED"),
    ],
)
def test_a_sentence_tells_whether_a_plan_is_planned_done_or_cancelled(
    sentence: str, status: str
) -> None:
    assert plan_status(sentence, infer_tense(sentence)) == status


def _records(speaker: str, text: str) -> list[ExtractedRecord]:
    turn = Turn(
        conversation="c",
        session="1",
        session_index=1,
        index=0,
        source_id="1:1",
        speaker=speaker,
        text=text,
        at=AT,
    )
    ctx = ExtractionContext(speakers=["Tomasz", "Priya"])
    return HeuristicExtractor().extract(turn, ctx).records


def test_the_extractor_gives_events_and_todos_a_status_and_nothing_else() -> None:
    records = _records("Tomasz", "I need to renew my passport before the trip in August.")
    plans = [r for r in records if r.type in (RecordType.EVENT, RecordType.TODO)]
    assert plans and {r.plan_status for r in plans} == {"PLANNED"}
    assert all(r.plan_status is None for r in records if r not in plans)
    # a plan called off is an event even without a past verb or a date
    called_off = _records("Kofi", "I'm not doing the Spanish class anymore.")
    assert [r.plan_status for r in called_off if r.type is RecordType.EVENT] == ["CANCELLED"]


def test_a_later_turn_that_does_a_plan_supersedes_it_and_one_on_another_topic_does_not() -> None:
    texts = [
        "I need to renew my passport before the trip to Montreal in August.",
        "I'm also planning to run the Bristol half marathon in October.",
        "Declan stayed until ten last night to help me fix the payroll export.",
        "Yes, I finally renewed it three days ago, just in time for Montreal.",
        "I'm not going to run the half marathon anymore.",
    ]
    turns = [
        Turn(
            conversation="c",
            session="1",
            session_index=1,
            index=i,
            source_id=f"1:{i}",
            speaker="Tomasz",
            text=text,
            at=AT,
        )
        for i, text in enumerate(texts)
    ]
    ctx = ExtractionContext(speakers=["Tomasz", "Priya"])
    extractor = HeuristicExtractor()
    extractions = []
    for t in turns:
        ex = extractor.extract(t, ctx)
        ctx.observe(t, ex)
        extractions.append(ex.records)
    builder = GraphBuilder("g", Conversation(id="c", speakers=["Tomasz", "Priya"], turns=turns))
    # two batches: the plans in the first, what became of them in the second
    first = builder.batch(turns[:2], extractions[:2], None, {})
    second = builder.batch(turns[2:], extractions[2:], first.turns[-1]["id"], {})
    quote = {r["id"]: r["props"].get("quote") for r in first.records + second.records}
    links = {
        (quote[e["src"]], quote[e["dst"]], e["props"]["rule"])
        for e in second.edges
        if e["type"] == "SUPERSEDES"
    }
    assert links == {
        (texts[3], texts[0], "done"),
        (texts[4], texts[1], "cancelled"),
    }
    assert not any(e["type"] == "SUPERSEDES" for e in first.edges)


def test_completes_picks_the_latest_plan_sharing_a_content_word() -> None:
    plans = [
        (pid, frozenset(topic_stems(quote)))
        for pid, quote in (("a", "I have to sell the motorbike."), ("b", "We will sell the sofa."))
    ]
    assert completes("I sold the motorbike yesterday.", plans) == "a"
    assert completes("We finally went to the dentist.", plans) is None


def test_a_question_tells_no_plan_status() -> None:
    assert plan_status("How did Caroline feel about her time there?", "past") is None
    assert plan_status("Are you going to renew it before the trip?", "future") is None
    assert plan_status("Caroline felt great about her time there.", "past") == "DONE"


def test_a_name_shared_by_every_record_of_a_person_links_nothing() -> None:
    """Rewritten in the third person, every record of Caroline names her: "Caroline loved
    the book" shares only her name with "Caroline will do her best for these kids" and does
    not finish it (on LoCoMo such links demoted live plans)."""
    plans = [("a", frozenset(topic_stems("Caroline will do Caroline's best for these kids.")))]
    names = frozenset(topic_stems("Caroline"))
    assert completes("Caroline loved the book by Amy.", plans, names) is None
    assert completes("Caroline loved the book by Amy.", plans) == "a"  # the name alone
    assert completes("Caroline finally met the kids.", plans, names) == "a"


# -- questions -------------------------------------------------------------------------
def _plan(question: str) -> Plan:
    return RuleRouter().plan(question, [EntityRef(name="Tomasz", id="p1")])


def test_the_router_reads_the_question_tense_and_searches_every_type_for_a_plan_update() -> None:
    assert _plan("When did Tomasz renew his passport?").tense == "past"
    assert _plan("When is Tomasz going to renew his passport?").tense == "future"
    still = _plan("Is Tomasz still going to run the half marathon?")
    assert still.intent == "update" and still.node_types is None
    # an opinion update still searches claims
    opinion = RuleRouter().plan(
        "What does Tomasz think of Declan now?",
        [EntityRef(name="Tomasz", id="p1"), EntityRef(name="Declan", id="p2")],
    )
    assert opinion.node_types == ["Claim", "Fact"]


@pytest.mark.parametrize(
    ("intent", "tense", "wanted"),
    [
        ("temporal", "past", {"DONE"}),
        ("temporal", "future", {"PLANNED", "SUPERSEDED"}),
        ("temporal", None, {"PLANNED", "SUPERSEDED"}),
        ("update", "present", {"DONE", "CANCELLED"}),
        ("single-hop", "past", set()),
    ],
)
def test_status_fit_says_which_status_a_question_asks_for(
    intent: Intent, tense: str | None, wanted: set[str]
) -> None:
    p = Plan(question="q", intent=intent, tense=tense)  # type: ignore[arg-type]
    fits = {s for s in ("PLANNED", "DONE", "CANCELLED", "SUPERSEDED") if status_fit(p, s)}
    assert fits == wanted
    assert status_fit(p, "CURRENT") == 0.0  # a claim's status is no plan's


DONE = "Yes, Tomasz finally renewed it three days ago."


def _cand(idx: int, bm25: float, **fields: Any) -> Candidate:
    data: dict[str, Any] = {
        "id": f"t{idx}",
        "type": "Turn",
        "conversation_id": "c1",
        "idx": idx,
        "speaker": "Tomasz",
        "bm25": bm25,
        "vector": 0.8,
    }
    data.update(fields)
    return Candidate(**data)


def test_the_status_signal_lifts_the_done_turn_over_the_plan_that_matches_it_better() -> None:
    p = RuleRouter().plan("When did Tomasz renew his passport?", [EntityRef(name="Tomasz")])
    turns = [_cand(0, 1.0), _cand(10, 0.8)]
    said = "Tomasz needs to renew Tomasz's passport before the trip."
    records = [
        _cand(0, 0.0, id="plan", type="Event", turn_id="t0", status="PLANNED", content=said),
        _cand(10, 0.0, id="done", type="Event", turn_id="t10", status="DONE", content=DONE),
    ]
    weights = RankWeights(late=0.0, by_intent={})  # the signal itself (off for temporal)
    scores = score_turns(p, turns, records, [])
    finish(p, weights, scores)
    assert [s.id for s in ranked(scores)] == ["t10", "t0"]
    finish(p, weights.model_copy(update={"status": 0.0}), scores)
    assert [s.id for s in ranked(scores)] == ["t0", "t10"]  # without the signal: the plan


def test_done_on_another_matter_earns_nothing() -> None:
    p = RuleRouter().plan("When did Tomasz renew his passport?", [EntityRef(name="Tomasz")])
    other = _cand(3, 0.0, type="Event", turn_id="t3", status="DONE", content="Tomasz sold a car.")
    assert score_turns(p, [], [other], [])["t3"].status == 0.0
    assert (
        score_turns(
            p, [], [_cand(10, 0.0, type="Event", turn_id="t10", status="DONE", content=DONE)], []
        )["t10"].status
        == 1.0
    )


def test_an_update_question_damps_a_plan_that_a_later_turn_called_off() -> None:
    p = RuleRouter().plan(
        "Is Tomasz still going to run the half marathon?", [EntityRef(name="Tomasz")]
    )
    turns = [_cand(4, 1.0), _cand(11, 0.3)]
    said = "Tomasz is also planning to run the Bristol half marathon in October."
    off = "Tomasz is not going to run the half marathon anymore."
    records = [
        _cand(4, 0.0, id="plan", type="Event", turn_id="t4", status="SUPERSEDED", content=said),
        _cand(11, 0.0, id="off", type="Event", turn_id="t11", status="CANCELLED", content=off),
    ]
    scores = score_turns(p, turns, records, [])
    finish(p, RankWeights(), scores)
    assert ranked(scores)[0].id == "t11"
    assert scores["t4"].overtaken and not scores["t11"].overtaken


def test_a_claim_about_someone_the_question_does_not_name_earns_no_bonus() -> None:
    p = Plan(
        question="Is Jin still driving to Cornwall?",
        intent="update",
        entities=[EntityRef(name="Jin")],
        opinion_source="Jin",
    )
    about_helen = _cand(7, 0.0, id="c", type="Claim", source="Jin", target="Helen")
    about_a_thing = _cand(7, 0.0, id="d", type="Claim", source="Jin", target="the trip")
    assert claim_bonus(p, about_helen) == 0.0
    assert claim_bonus(p, about_a_thing) > 0.0


def test_the_record_shown_for_a_turn_is_the_one_with_the_status_asked_for() -> None:
    p = Plan(question="When did Tomasz renew it?", intent="temporal", tense="past")
    fact = _cand(1, 0.0, id="f", type="Fact", turn_id="t1", vector=0.9)
    event = _cand(1, 0.0, id="e", type="Event", turn_id="t1", status="DONE", vector=0.7)
    assert [r.id for r in record_order(p, [fact, event])] == ["e", "f"]


def _ev(source_id: str, text: str, status: str, day: int) -> Evidence:
    return Evidence(
        record_id=source_id,
        type="Event",
        content=text,
        quote=text,
        speaker="Tomasz",
        turn_id=source_id,
        turn_source_id=source_id,
        turn_text=text,
        turn_at=datetime(2025, 5, day, tzinfo=UTC),
        status=status,
    )


def test_when_did_is_answered_by_the_done_turn_and_when_is_by_the_plan() -> None:
    plan_turn = _ev(
        "p03", "I need to renew my passport before the trip in August.", "SUPERSEDED", 4
    )
    done_turn = _ev("p10", "Yes, I finally renewed it three days ago.", "DONE", 20)
    evidence = [plan_turn, done_turn]
    past = RuleRouter().plan("When did Tomasz renew his passport?", [EntityRef(name="Tomasz")])
    assert "(p10," in extractive_answer(past, evidence)
    assert "17 May 2025" in extractive_answer(past, evidence)
    ahead = RuleRouter().plan(
        "When does Tomasz need to renew his passport by?", [EntityRef(name="Tomasz")]
    )
    assert "(p03," in extractive_answer(ahead, evidence)
