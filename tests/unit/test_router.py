from __future__ import annotations

import json
from typing import get_args

import pytest

from cogmem.llm import LLMClient
from cogmem.models import RecordType
from cogmem.retrieval.router import EntityRef, LLMRouter, RecordTypeName, RuleRouter
from tests.llm_server import ScriptedLLMServer, settings_for

pytestmark = pytest.mark.unit

PERSONS = [
    EntityRef(name="Caroline", id="c"),
    EntityRef(name="Melanie", id="m"),
    EntityRef(name="Melanie", id="m", mention="Mel"),
]


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("When did Caroline go to the LGBTQ support group?", "temporal"),
        ("How long ago was Caroline's 18th birthday?", "temporal"),
        ("What did Melanie do in May 2023?", "temporal"),
        ("What does Melanie think of Caroline?", "opinion"),
        ("How does Caroline feel about Melanie's painting?", "opinion"),
        ("Does Melanie still go running?", "update"),
        ("What activities does Melanie partake in?", "multi-hop"),
        ("What do Caroline and Melanie both like?", "multi-hop"),
        ("Would Caroline likely enjoy a national park?", "open"),
        ("What did Caroline research?", "single-hop"),
        # the present perfect asked of a person gathers every time it happened: a list
        ("What has Melanie painted?", "multi-hop"),
        ("Where has Mel camped?", "multi-hop"),
        ("What career path has Caroline decided to pursue?", "multi-hop"),
        # … but not a perfect about something else
        ("What has been the hardest part for Caroline?", "single-hop"),
        # asked yes or no of one person, the perfect (or "can") asks where a plan stands
        # now, done yet or able yet: its latest word, as "is X still …" does
        ("Has Melanie renewed her passport?", "update"),
        ("Has Mel repainted the kitchen yet?", "update"),
        ("Can Caroline drive?", "update"),
        # … still a list when it asks for one, or of two persons
        ("Have Caroline and Melanie both painted sunsets?", "multi-hop"),
        ("Has Melanie visited any countries?", "multi-hop"),
        # … and not when the perfect is not said of the person
        ("Has anyone asked Caroline about the adoption?", "single-hop"),
    ],
)
def test_rule_router_intents(question: str, intent: str) -> None:
    assert RuleRouter().plan(question, PERSONS).intent == intent


def test_rule_router_entities_window_and_types() -> None:
    plan = RuleRouter().plan("What did Mel tell Caroline in May 2023?", PERSONS)
    assert [e.name for e in plan.entities] == ["Melanie", "Caroline"]
    assert plan.entities[0].mention == "Mel"
    assert plan.window is not None and plan.window.start.month == 5 and plan.window.end.month == 6
    opinion = RuleRouter().plan("What does Melanie think of Caroline?", PERSONS)
    assert (opinion.opinion_source, opinion.opinion_target) == ("Melanie", "Caroline")
    assert opinion.node_types == ["Claim"]
    both = RuleRouter().plan("What do Caroline and Melanie both like?", PERSONS)
    assert both.wants_both
    why = RuleRouter().plan("Why was the oven ordered early?", PERSONS)
    assert why.wants_cause


def test_hostile_questions_are_plain_keywords() -> None:
    plan = RuleRouter().plan("') MATCH (n) DETACH DELETE n // AND OR NOT *:*", PERSONS)
    assert "detach" in plan.keywords and plan.intent == "single-hop"


def test_llm_router_uses_the_llm_plan(llm_server: ScriptedLLMServer) -> None:
    llm_server.reply(
        json.dumps(
            {
                "intent": "opinion",
                "entities": ["melanie", "Caroline", "Nobody"],
                "opinion_source": "Melanie",
                "opinion_target": "Caroline",
                "time_expression": "in June 2023",
                "node_types": ["Claim"],
            }
        )
    )
    router = LLMRouter(LLMClient(settings_for(llm_server), backoff_base_s=0.01))
    plan = router.plan("Is Mel's view of her any different lately?", PERSONS)
    assert plan.router == "llm" and plan.intent == "opinion"
    assert [e.name for e in plan.entities] == ["Melanie", "Caroline"]  # unknown names dropped
    assert plan.opinion_source == "Melanie"
    assert plan.window is not None and plan.window.start.month == 6
    request = llm_server.chat_requests[0]
    assert request.json["response_format"]["type"] == "json_schema"
    assert "Caroline" in request.message("user")


def test_llm_router_falls_back_to_rules(llm_server: ScriptedLLMServer) -> None:
    llm_server.garbage().garbage().garbage()
    router = LLMRouter(LLMClient(settings_for(llm_server, llm_max_retries=2), backoff_base_s=0.01))
    plan = router.plan("When did Caroline go to the support group?", PERSONS)
    assert plan.router == "rules" and plan.intent == "temporal"
    assert router.failures == 1


def test_the_llm_router_offers_exactly_the_record_types_of_the_vocabulary() -> None:
    assert get_args(RecordTypeName) == tuple(t.value for t in RecordType)


def test_rule_router_types_are_plain_strings_of_the_vocabulary() -> None:
    known = {t.value for t in RecordType}
    for question in ("When did Caroline decide to move?", "Do I need to call Melanie?"):
        types = RuleRouter().plan(question, PERSONS).node_types
        assert types and set(types) <= known
        assert all(type(t) is str for t in types)  # printed in traces as plain names


def test_a_misspelt_name_is_the_person() -> None:
    """Real questions misspell names ("Nikolas", "Nerbaas" in the REALTALK dev questions):
    the person is still the one asked about, under the word the question used."""
    persons = [
        EntityRef(name="Nicolas", id="n"),
        EntityRef(name="Nebraas", id="b"),
        EntityRef(name="Caroline's dad", id="d"),
        EntityRef(name="Caroline", id="c"),
    ]
    plan = RuleRouter().plan("What symptoms does Nikolas have with his disease?", persons)
    assert [(e.name, e.mention) for e in plan.entities] == [("Nicolas", "Nikolas")]
    plan = RuleRouter().plan("Can Nerbaas be considered a loyal partner of Nicolas?", persons)
    assert [e.name for e in plan.entities] == ["Nebraas", "Nicolas"]
    # a name said exactly is that person only, never a misspelling of another
    plan = RuleRouter().plan("What does Caroline paint?", persons)
    assert [e.name for e in plan.entities] == ["Caroline"]
    # unlike enough, or another first letter: not a person
    for question in ("What did Nicole bring?", "What did Micolas bring?"):
        assert RuleRouter().plan(question, persons).entities == []


def test_a_shortened_name_is_the_person() -> None:
    """Questions shorten names the chat spells out ("Theo" for Theodore): a capitalised word
    that begins one person's name, and no other's, is that person."""
    persons = [
        EntityRef(name="Theodore", id="t"),
        EntityRef(name="Margaret", id="m"),
        EntityRef(name="Margot", id="g"),
        EntityRef(name="Nicolas", id="n"),
        EntityRef(name="Nicolas", id="n", mention="Nicky"),
    ]
    plan = RuleRouter().plan("What sport does Theo play?", persons)
    assert [(e.name, e.mention) for e in plan.entities] == [("Theodore", "Theo")]
    plan = RuleRouter().plan("Did Nico call Theo back?", persons)
    assert [e.name for e in plan.entities] == ["Nicolas", "Theodore"]
    # "Marg" begins Margaret and Margot: nobody; lower case or the first word: not a name
    for question in (
        "What is Marg allergic to?",
        "What did theo say?",
        "Theo, what time?",
    ):
        assert RuleRouter().plan(question, persons).entities == []
    # a stop word in capitals is a title's, not a shortened name
    plan = RuleRouter().plan("Did Margaret like The Office?", persons)
    assert [e.name for e in plan.entities] == ["Margaret"]
