"""LLMExtractor against the scripted OpenAI-compatible server (the real ``openai`` client)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from cogmem.extract.base import ExtractionContext, Extractor
from cogmem.extract.heuristic import HeuristicExtractor
from cogmem.extract.llm_extractor import (
    PROMPT_HEADER,
    SYSTEM_PROMPT,
    LLMExtractionResponse,
    LLMExtractor,
)
from cogmem.llm import LLMClient
from cogmem.models import RecordType, Turn
from tests.llm_server import GARBAGE, ScriptedLLMServer, settings_for

pytestmark = pytest.mark.unit

AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # LoCoMo: "1:56 pm on 8 May, 2023"
SPEAKERS = ["Caroline", "Melanie"]
HOSTILE = "'}) DETACH DELETE n //"

T1 = "I went to a LGBTQ support group yesterday and it was so powerful."
T2 = "Wow, Caroline, you're so brave for sharing that! I love painting landscapes, by the way."
T3 = f"My new password manager is called {HOSTILE} and I use it daily."

# what a good LLM answers for each turn (by turn text)
ANSWERS: dict[str, list[dict[str, Any]]] = {
    T1: [
        {
            "type": "Event",
            "content": "Caroline went to an LGBTQ support group, which felt powerful",
            "quote": "I went to a LGBTQ support group yesterday",
            "confidence": 0.9,
            "persons": ["Caroline"],
            "concepts": ["LGBTQ support group"],
            "time_text": "yesterday",
        },
        {
            "type": "Concept",
            "name": "LGBTQ support group",
            "content": "LGBTQ support group",
            "quote": "LGBTQ support group",
        },
    ],
    T2: [
        {
            "type": "Claim",
            "content": "Melanie thinks Caroline is brave for sharing her story",
            "quote": "you're so brave for sharing that",
            "source": "Mel",
            "target": "Caroline",
            "predicate": "brave",
            "sentiment": 0.8,
            "confidence": 0.85,
        },
        {
            "type": "Fact",
            "content": "Melanie likes painting landscapes",
            "quote": "I love painting landscapes",
            "relation": "LIKES",
            "subject": "Melanie",
            "concepts": ["painting landscapes"],
        },
        {
            "type": "Person",
            "name": "Caroline",
            "content": "Caroline",
            "quote": "Caroline",
            "relation": "KNOWS",
        },
        {  # paraphrased quote: must be dropped
            "type": "Fact",
            "content": "Melanie really loves painting",
            "quote": "I really love painting",
            "relation": "LIKES",
        },
    ],
    T3: [
        {
            "type": "Fact",
            "content": f"Melanie uses a password manager called {HOSTILE}",
            "quote": f"My new password manager is called {HOSTILE}",
            "relation": "USES",
            "name": HOSTILE,
            "concepts": [HOSTILE],
        },
        {  # a type that does not exist: dropped, not executed
            "type": f"Fact`) {HOSTILE}",
            "content": HOSTILE,
            "quote": HOSTILE,
        },
    ],
}


def turn_payload(request: dict[str, Any]) -> dict[str, Any]:
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    assert user.startswith(PROMPT_HEADER)
    payload: dict[str, Any] = json.loads(user[len(PROMPT_HEADER) :])
    return payload


def scripted(request: dict[str, Any]) -> str:
    """A realistic LLM: answers by the turn it is shown, wrapped in a json fence."""
    text = turn_payload(request)["turn"]["text"]
    return "```json\n" + json.dumps({"records": ANSWERS.get(text, [])}) + "\n```"


def make_turn(text: str, speaker: str = "Caroline", index: int = 0, at: Any = AT) -> Turn:
    return Turn(
        conversation="conv-26",
        session="session_1",
        session_index=1,
        index=index,
        source_id=f"D1:{index + 1}",
        speaker=speaker,
        text=text,
        at=at,
    )


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(default=scripted) as server:
        yield server


@pytest.fixture
def extractor(llm_server: ScriptedLLMServer) -> Iterator[LLMExtractor]:
    settings = settings_for(llm_server, llm_timeout_s=1.0, llm_max_retries=1)
    with LLMClient(settings, backoff_base_s=0.001) as client:
        yield LLMExtractor(client)


def ctx() -> ExtractionContext:
    return ExtractionContext(speakers=list(SPEAKERS))


def test_is_an_extractor(extractor: LLMExtractor) -> None:
    as_protocol: Extractor = extractor
    assert as_protocol.name == "llm"
    assert extractor.stats.llm is extractor.client.stats  # the caller's client, counted


def test_event_with_time_resolved_against_turn(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    result = extractor.extract(make_turn(T1), ctx())
    assert not result.fallback
    event = next(r for r in result.records if r.type is RecordType.EVENT)
    assert event.quote == "I went to a LGBTQ support group yesterday"
    assert event.speaker == "Caroline"
    assert event.persons == ["Caroline"]
    assert event.time is not None
    assert event.time.start == datetime(2023, 5, 7, tzinfo=UTC)
    assert event.time.end == datetime(2023, 5, 8, tzinfo=UTC)
    assert event.time.granularity == "day"
    assert event.time.text == "yesterday"
    assert event.tense == "past"
    assert "7 May 2023" in event.content
    concept = next(r for r in result.records if r.type is RecordType.CONCEPT)
    assert concept.name == "LGBTQ support group"
    assert extractor.stats.llm_ok == 1
    assert extractor.stats.fallbacks == 0
    # the request: schema, system prompt, speakers and turn
    (request,) = llm_server.chat_requests
    fmt = request.json["response_format"]
    assert fmt["json_schema"]["schema"] == LLMExtractionResponse.model_json_schema()
    assert "invalid_records" not in json.dumps(fmt["json_schema"]["schema"])
    assert request.message("system") == SYSTEM_PROMPT
    payload = turn_payload(request.json)
    assert payload["speakers"] == SPEAKERS
    assert payload["turn"] == {
        "speaker": "Caroline",
        "time": AT.isoformat(),
        "id": "D1:1",
        "text": T1,
    }


def test_claim_fact_and_person_come_out_typed(extractor: LLMExtractor) -> None:
    context = ctx()
    result = extractor.extract(make_turn(T2, speaker="Melanie", index=1), context)
    by_type = {r.type: r for r in result.records}
    claim = by_type[RecordType.CLAIM]
    assert claim.source == "Melanie"  # "Mel" canonicalised
    assert claim.target == "Caroline"
    assert claim.subject == "Caroline"
    assert claim.predicate == "brave"
    assert claim.sentiment == pytest.approx(0.8)
    assert claim.speaker == "Melanie"
    fact = by_type[RecordType.FACT]
    assert fact.relation == "LIKES"
    assert fact.subject == "Melanie"
    assert fact.concepts == ["painting landscapes"]
    assert fact.time is None
    person = by_type[RecordType.PERSON]
    assert person.name == "Caroline"
    assert person.relation == "KNOWS"
    for record in result.records:
        assert record.quote in T2


def test_non_verbatim_quote_is_dropped_and_counted(extractor: LLMExtractor) -> None:
    result = extractor.extract(make_turn(T2, speaker="Melanie", index=1), ctx())
    assert all(r.quote != "I really love painting" for r in result.records)
    assert len(result.records) == 3
    assert result.dropped == 1
    assert extractor.stats.dropped_quotes == 1


def test_previous_records_reach_the_next_prompt(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    context = ctx()
    first = make_turn(T1)
    context.observe(first, extractor.extract(first, context))
    second = make_turn(T2, speaker="Melanie", index=1)
    extractor.extract(second, context)
    assert len(llm_server.chat_requests) == 2
    payload = turn_payload(llm_server.chat_requests[1].json)
    previous = payload["previous_records"]
    assert any(
        p["type"] == "Event" and "support group" in p["content"] and p["time"] == "yesterday"
        for p in previous
    )
    assert turn_payload(llm_server.chat_requests[0].json)["previous_records"] == []
    assert payload["turn"]["speaker"] == "Melanie"


def test_previous_records_are_bounded(llm_server: ScriptedLLMServer) -> None:
    with LLMClient(settings_for(llm_server)) as client:
        extractor = LLMExtractor(client, max_previous=3)
        context = ctx()
        for i in range(6):
            turn = make_turn(f"I went hiking on trail number {i} yesterday.", index=i)
            context.observe(turn, extractor.extract(turn, context))
    payload = turn_payload(llm_server.chat_requests[-1].json)
    assert len(payload["previous_records"]) == 3


def test_malformed_answer_falls_back_to_heuristic(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_default(lambda request: GARBAGE)
    turn = make_turn(T1)
    result = extractor.extract(turn, ctx())
    expected = HeuristicExtractor().extract(turn, ctx())
    assert result.fallback is True
    assert result.records == expected.records
    assert result.records
    assert extractor.stats.fallbacks == 1
    assert extractor.stats.llm_ok == 0
    assert extractor.stats.llm.failures == {"malformed_json": 2}
    assert extractor.stats.llm is extractor.client.stats


def test_schema_invalid_answer_falls_back(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_default(lambda request: '{"items": []}')
    result = extractor.extract(make_turn(T1), ctx())
    assert result.fallback is True
    assert extractor.stats.llm.failures == {"invalid_schema": 2}


def test_server_errors_until_retries_run_out_fall_back(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    first = extractor.extract(make_turn(T1), ctx())  # the client learns its format
    assert first.fallback is False
    llm_server.fail(500).fail(503)
    result = extractor.extract(make_turn(T1), ctx())
    assert result.fallback is True
    assert result.records
    assert extractor.stats.fallbacks == 1
    assert extractor.stats.llm.failures == {"http_500": 1, "http_503": 1}
    assert extractor.stats.llm.retries == 1
    assert extractor.client.response_format == "json_schema"  # server errors, not a refusal
    # the next turn goes to the LLM again
    again = extractor.extract(make_turn(T1), ctx())
    assert again.fallback is False
    assert extractor.stats.llm_ok == 2


def test_one_retry_then_llm_answer(extractor: LLMExtractor, llm_server: ScriptedLLMServer) -> None:
    llm_server.fail(429)
    result = extractor.extract(make_turn(T1), ctx())
    assert result.fallback is False
    assert extractor.stats.llm.retries == 1


def test_unknown_relation_is_coerced_to_none(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    text = "I can't stand pineapple on pizza."
    record = {
        "type": "Fact",
        "content": "Caroline hates pineapple on pizza",
        "quote": "I can't stand pineapple on pizza",
        "relation": "HATES_WITH_PASSION",
    }
    llm_server.reply(json.dumps({"records": [record]}))
    result = extractor.extract(make_turn(text), ctx())
    (fact,) = result.records
    assert fact.type is RecordType.FACT
    assert fact.relation is None
    assert "HATES_WITH_PASSION" not in result.model_dump_json()


def test_lowercase_relation_and_type_are_normalised(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    record = {"type": "fact", "content": "Caroline uses Figma", "quote": "I use Figma"}
    record["relation"] = "uses"
    llm_server.reply(json.dumps({"records": [record]}))
    (fact,) = extractor.extract(make_turn("I use Figma at work."), ctx()).records
    assert fact.type is RecordType.FACT
    assert fact.relation == "USES"


def test_hostile_content_stays_plain_data(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    turn = make_turn(T3, speaker="Melanie", index=2)
    result = extractor.extract(turn, ctx())
    (fact,) = result.records
    assert fact.type is RecordType.FACT
    assert fact.relation == "USES"
    assert fact.quote == f"My new password manager is called {HOSTILE}"
    assert HOSTILE in fact.content
    assert fact.name == HOSTILE
    assert fact.concepts == [HOSTILE]
    assert extractor.stats.dropped_invalid == 1  # the record with the invented type
    assert result.dropped == 1
    # the turn travels as a JSON string value in the prompt, not as prompt text
    payload = turn_payload(llm_server.chat_requests[0].json)
    assert payload["turn"]["text"] == T3


def test_zero_valid_records_still_yield_a_keyfact(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    text = "Haha, that is such a funny story. It made my whole afternoon better."
    llm_server.reply('{"records": []}')
    result = extractor.extract(make_turn(text), ctx())
    assert result.fallback is False
    (keyfact,) = result.records
    assert keyfact.type is RecordType.KEYFACT
    assert keyfact.quote == "It made my whole afternoon better."
    assert keyfact.confidence == pytest.approx(0.2)
    assert extractor.stats.keyfact_fills == 1


def test_only_dropped_records_still_yield_a_keyfact(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    text = "We adopted a puppy named Oscar last week."
    bad = {"type": "Event", "content": "Caroline adopted a dog", "quote": "we got a dog"}
    person = {"type": "Person", "name": "Oscar", "content": "Oscar", "quote": "Oscar"}
    llm_server.reply(json.dumps({"records": [bad, person]}))
    result = extractor.extract(make_turn(text), ctx())
    assert [r.type for r in result.records] == [RecordType.PERSON, RecordType.KEYFACT]
    assert result.dropped == 1


def test_quote_differing_only_in_whitespace_or_apostrophes_is_aligned(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    text = "I'm  starting a pottery class next month."
    record = {
        "type": "Event",
        "content": "Caroline is starting a pottery class",
        "quote": "“I’m starting a pottery class next month”",
        "time_text": "next month",
    }
    llm_server.reply(json.dumps({"records": [record]}))
    (event,) = extractor.extract(make_turn(text), ctx()).records
    assert event.quote == "I'm  starting a pottery class next month"
    assert event.time is not None
    assert event.time.start == datetime(2023, 6, 1, tzinfo=UTC)
    assert event.tense == "future"


def test_time_text_not_in_the_turn_is_ignored(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    text = "I went to the beach with my kids."
    record = {
        "type": "Event",
        "content": "Caroline went to the beach with her kids",
        "quote": text,
        "time_text": "in May 2023",
    }
    llm_server.reply(json.dumps({"records": [record]}))
    (event,) = extractor.extract(make_turn(text), ctx()).records
    assert event.time is None


def test_no_timestamp_means_no_resolution(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    (event, _) = extractor.extract(make_turn(T1, at=None), ctx()).records
    assert event.type is RecordType.EVENT
    assert event.time is None
    assert turn_payload(llm_server.chat_requests[0].json)["turn"]["time"] is None


def test_empty_turn_calls_nothing(extractor: LLMExtractor, llm_server: ScriptedLLMServer) -> None:
    result = extractor.extract(make_turn("   "), ctx())
    assert result.records == []
    assert llm_server.chat_requests == []


def test_invalid_records_are_dropped_individually() -> None:
    answer = LLMExtractionResponse.model_validate(
        [
            {"type": "Opinion", "content": "x", "quote": "y"},
            {"type": "Fact", "content": "", "quote": ""},
            {"type": "KeyFact", "content": "ok", "quote": "ok", "confidence": 7, "sentiment": -9},
            "not even a record",
        ]
    )
    assert answer.invalid_records == 3
    (record,) = answer.records
    assert record.type is RecordType.KEYFACT
    assert record.confidence == 1.0
    assert record.sentiment == -1.0


def test_claim_about_a_concept_never_becomes_a_person(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    text = "I think pottery is so relaxing, my car rides are not."
    claim = {
        "type": "Claim",
        "content": "Caroline thinks pottery is relaxing",
        "quote": "I think pottery is so relaxing",
        "source": "Caroline",
        "target": "Pottery",
        "predicate": "relaxing",
        "sentiment": 0.7,
        "subject": "pottery",
        "persons": ["her friends"],
    }
    fact = {"type": "Fact", "content": "car rides", "quote": "my car rides", "subject": "car"}
    llm_server.reply(json.dumps({"records": [claim, claim, fact]}))
    context = ctx()
    records = extractor.extract(make_turn(text), context).records
    assert [r.type for r in records] == [RecordType.CLAIM, RecordType.FACT]  # one claim kept
    got = records[0]
    assert got.source == "Caroline"
    assert got.target == "pottery"  # a concept: lower case, so the graph types it so
    assert got.subject == "Caroline"
    assert got.persons == ["Caroline"]
    assert records[1].subject == "Caroline"
    assert "car" not in context.aliases
    assert "pottery" not in context.aliases


def test_person_alias_from_the_answer_resolves_a_claim_target(
    extractor: LLMExtractor, llm_server: ScriptedLLMServer
) -> None:
    text = "Thanks, Mel! Jon said you are the kindest neighbour."
    person = {"type": "Person", "name": "Jon", "content": "Jon", "quote": "Jon"}
    claim = {
        "type": "Claim",
        "content": "Jon thinks Melanie is kind",
        "quote": "Jon said you are the kindest neighbour",
        "source": "Jon",
        "target": "Mel",
        "predicate": "kindest neighbour",
        "sentiment": 0.9,
    }
    llm_server.reply(json.dumps({"records": [person, claim]}))
    records = extractor.extract(make_turn(text), ctx()).records
    got = next(r for r in records if r.type is RecordType.CLAIM)
    assert got.source == "Jon"
    assert got.target == "Melanie"
    assert got.subject == "Melanie"
    assert got.persons == ["Jon", "Melanie"]
