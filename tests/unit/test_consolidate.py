"""The decision rules of consolidation, without a server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import cast

import numpy as np
import pytest

from cogmem.consolidate import (
    ClaimRow,
    ConsolidationReport,
    ConsolidationSettings,
    EventRow,
    LinkRecord,
    alias_table,
    chains,
    content_words,
    describe_span,
    fact_template,
    keyword_pairs,
    normalise_predicate,
    plan_claims,
    plan_facts,
    qualifies,
)
from cogmem.consolidate.facts import fact_contents
from cogmem.llm import LLMClient, LLMError

pytestmark = pytest.mark.unit

DAY0 = datetime(2023, 6, 2, 10, 0, tzinfo=UTC)
WINDOW = timedelta(days=30)


def ev(day: float, name: str | None = None) -> EventRow:
    t = DAY0 + timedelta(days=day)
    return EventRow(id=name or f"e{day}", t=t, t_end=t, at=t, content=f"hike {day}")


def event_rows(days: list[float], person: str = "p1", concept: str = "c1") -> list[dict]:
    return [
        {
            "person_id": person,
            "person": "Alice",
            "concept_id": concept,
            "concept": "hiking",
            "event_id": f"{person}-{concept}-e{d}",
            "content": "Alice went hiking",
            "t": DAY0 + timedelta(days=d),
            "t_end": DAY0 + timedelta(days=d, hours=1),
            "at": DAY0 + timedelta(days=d),
        }
        for d in days
    ]


@pytest.mark.parametrize(
    ("days", "expected"),
    [
        ([0, 9, 18], True),  # three hikes in 18 days
        ([0, 29, 30], True),  # the first and third exactly 30 days apart
        ([0, 45, 90], False),  # three hikes over 90 days
        ([0, 0.01, 0.02], False),  # three events told on one day are one occasion
        ([0, 25, 50], False),  # one chain, but no 30-day window holds three
    ],
)
def test_a_cluster_needs_min_events_occasions_within_the_window(
    days: list[float], expected: bool
) -> None:
    events = [ev(d) for d in days]
    assert qualifies(events, 3, WINDOW, distinct=True) is expected


def test_counting_events_rather_than_days_is_a_setting() -> None:
    same_day = [ev(0, "a"), ev(0.01, "b"), ev(0.02, "c")]
    assert not qualifies(same_day, 3, WINDOW, distinct=True)
    assert qualifies(same_day, 3, WINDOW, distinct=False)


def test_chains_break_where_events_are_more_than_a_window_apart() -> None:
    parts = chains([ev(d) for d in (50, 0, 10, 40, 80, 200)], WINDOW)
    assert [[e.id for e in c] for c in parts] == [
        ["e0", "e10", "e40", "e50", "e80"],
        ["e200"],
    ]


def test_plan_facts_creates_then_extends_by_shared_events() -> None:
    config = ConsolidationSettings()
    first = plan_facts(event_rows([0, 9, 18]), [], "g", config)
    assert len(first) == 1 and first[0].created
    assert len(first[0].new_event_ids) == 3
    existing = [
        {
            "id": first[0].id,
            "person_id": "p1",
            "concept_id": "c1",
            "status": "CURRENT",
            "time_start": DAY0,
            "event_ids": first[0].new_event_ids,
        }
    ]
    assert plan_facts(event_rows([0, 9, 18]), existing, "g", config) == []
    # a hike a week later, and one three weeks before: same Fact, extended
    later = plan_facts(event_rows([-21, 0, 9, 18, 25]), existing, "g", config)
    assert len(later) == 1 and not later[0].created
    assert later[0].id == first[0].id
    assert sorted(later[0].new_event_ids) == ["p1-c1-e-21", "p1-c1-e25"]
    assert len(later[0].events) == 5


def test_a_bridging_event_joins_two_facts_and_the_older_survives() -> None:
    config = ConsolidationSettings()
    plans = plan_facts(event_rows([0, 2, 4, 50, 52, 54]), [], "g", config)
    assert len(plans) == 2
    existing = [
        {
            "id": p.id,
            "person_id": "p1",
            "concept_id": "c1",
            "status": "CURRENT",
            "time_start": p.events[0].t,
            "event_ids": p.new_event_ids,
        }
        for p in plans
    ]
    joined = plan_facts(event_rows([0, 2, 4, 27, 50, 52, 54]), existing, "g", config)
    assert len(joined) == 1
    assert joined[0].id == plans[0].id
    assert joined[0].retire == [plans[1].id]
    assert len(joined[0].events) == 7


def test_fact_ids_depend_on_group_person_concept_and_cluster() -> None:
    config = ConsolidationSettings()
    a = plan_facts(event_rows([0, 1, 2]), [], "g1", config)[0].id
    assert plan_facts(event_rows([0, 1, 2]), [], "g1", config)[0].id == a
    assert plan_facts(event_rows([0, 1, 2]), [], "g2", config)[0].id != a
    assert plan_facts(event_rows([0, 1, 2], concept="c2"), [], "g1", config)[0].id != a


def test_the_offline_wording() -> None:
    start, end = datetime(2023, 6, 2, tzinfo=UTC), datetime(2023, 6, 20, tzinfo=UTC)
    assert (
        fact_template("Alice", "hiking", 3, start, end)
        == "Alice repeatedly went hiking: 3 times between 2 and 20 June 2023"
    )
    assert "had events involving pottery class" in fact_template(
        "Alice", "pottery class", 4, start, end
    )
    assert describe_span(datetime(2023, 5, 28), end) == "between 28 May and 20 June 2023"
    assert (
        describe_span(datetime(2022, 12, 28), datetime(2023, 1, 3))
        == "between 28 December 2022 and 3 January 2023"
    )


class ScriptedLLM:
    """Stands in for an LLMClient: answers each prompt in turn (an exception is raised)."""

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def complete_text(self, system: str, user: str) -> str:
        self.prompts.append(user)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_an_llm_words_facts_only_when_a_client_is_given() -> None:
    config = ConsolidationSettings()
    rows = event_rows([0, 9, 18]) + event_rows([0, 9, 18], concept="c2")
    plans = plan_facts(rows, [], "g", config)
    templates = [
        fact_template(p.person, p.concept, p.occasions, p.events[0].t, p.events[-1].t)
        for p in plans
    ]
    report = ConsolidationReport(group="g")
    assert fact_contents(plans, None, report) == [(t, "template") for t in templates]

    llm = ScriptedLLM("  Alice   hikes\noften. ", LLMError("down", reason="timeout"))
    contents = fact_contents(plans, cast(LLMClient, llm), report)
    assert contents == [("Alice hikes often.", "llm"), (templates[1], "template")]
    assert report.llm_fallbacks == 1
    assert "Person: Alice" in llm.prompts[0] and "2023-06-20" in llm.prompts[0]


@pytest.mark.parametrize(
    "variant", ["is lazy", "is so lazy", "lazy", "Is  LAZY", "is really very lazy", "is not lazy"]
)
def test_predicates_of_one_dimension_normalise_alike(variant: str) -> None:
    p = normalise_predicate(variant)
    assert p.key == "lazy"
    assert p.evaluative and not p.generic
    assert p.dimension == normalise_predicate("is hardworking").dimension


def test_generic_and_other_predicates() -> None:
    assert normalise_predicate("opinion").generic
    assert normalise_predicate(None).generic
    assert normalise_predicate("is hard-working").key == "hardworking"
    likes = normalise_predicate("likes jazz")
    assert not likes.evaluative and likes.dimension == "likes jazz"


def test_aliases_map_to_the_persons_name() -> None:
    table = alias_table([{"name": "Melanie", "aliases": ["Mel"]}, {"name": "Jon", "aliases": []}])
    assert table["mel"] == "melanie" and table["jon"] == "jon"


def claim(
    cid: str,
    source: str,
    target: str,
    predicate: str,
    sentiment: float,
    at: datetime,
    session: str,
    vector: list[float] | None = None,
) -> ClaimRow:
    vec = np.asarray(vector or [1.0, 0.0], dtype=np.float32)
    return ClaimRow(
        id=cid,
        source=source,
        target=target,
        predicate=normalise_predicate(predicate),
        sentiment=sentiment,
        content=f"{source} thinks {target} {predicate}",
        at=at,
        session_id=session,
        status="CURRENT",
        vector=vec / np.linalg.norm(vec),
    )


MAY = datetime(2023, 5, 3, tzinfo=UTC)
JUNE = datetime(2023, 6, 10, tzinfo=UTC)
JULY = datetime(2023, 7, 1, tzinfo=UTC)


def test_a_change_of_view_supersedes_and_chains() -> None:
    plan = plan_claims(
        [
            claim("may", "a", "b", "is lazy", -0.7, MAY, "s1"),
            claim("june", "a", "b", "is hardworking", 0.7, JUNE, "s2"),
            claim("july", "a", "b", "is so lazy", -0.7, JULY, "s3"),
        ],
        ConsolidationSettings(),
    )
    assert plan.status == {"may": "SUPERSEDED", "june": "SUPERSEDED", "july": "CURRENT"}
    assert plan.supersedes == {("june", "may"), ("july", "june")}
    assert plan.conflicts == set()


def test_compatible_evaluations_both_stay_current() -> None:
    plan = plan_claims(
        [
            claim("brave", "a", "b", "is brave", 0.7, MAY, "s1", [1.0, 0.0]),
            claim("kind", "a", "b", "is kind", 0.7, JUNE, "s2", [0.0, 1.0]),
        ],
        ConsolidationSettings(),
    )
    assert plan.status == {"brave": "CURRENT", "kind": "CURRENT"}
    assert not plan.supersedes


def test_speakers_are_never_reconciled_against_each_other() -> None:
    plan = plan_claims(
        [
            claim("a", "a", "b", "is lazy", -0.7, MAY, "s1"),
            claim("c", "c", "b", "is hardworking", 0.7, JUNE, "s2"),
        ],
        ConsolidationSettings(),
    )
    assert plan.status == {"a": "CURRENT", "c": "CURRENT"}
    assert not plan.supersedes and not plan.conflicts


def test_same_moment_opposites_conflict_until_a_later_claim_settles_it() -> None:
    config = ConsolidationSettings()
    both = [
        claim("lazy", "a", "b", "is lazy", -0.7, MAY, "s1"),
        claim("hard", "a", "b", "is hardworking", 0.7, MAY + timedelta(hours=2), "s1b"),
    ]
    plan = plan_claims(both, config)
    assert plan.status == {"lazy": "CONFLICTING", "hard": "CONFLICTING"}
    assert plan.conflicts == {("lazy", "hard"), ("hard", "lazy")}
    settled = plan_claims([*both, claim("later", "a", "b", "is lazy", -0.7, JUNE, "s2")], config)
    # "later" restates "lazy" (same key) and flips "hard": both superseded, it is current
    assert settled.status == {"lazy": "SUPERSEDED", "hard": "SUPERSEDED", "later": "CURRENT"}
    assert settled.conflicts == plan.conflicts  # the history of the conflict stays


def test_views_of_different_doings_neither_conflict_nor_replace() -> None:
    """ "Emre selling his piano was a sad mistake" and, the same evening, "Emre running the
    half marathon would be fun" judge two things Emre does, not Emre: both stay current. A
    later view of the selling replaces the earlier one."""
    config = ConsolidationSettings()
    doings = [
        claim("sell", "a", "b", "selling is sad", -0.7, MAY, "s1", [1.0, 0.0]),
        claim("run", "a", "b", "running is fun", 0.7, MAY + timedelta(hours=1), "s1", [0.0, 1.0]),
        claim("whole", "a", "b", "is kind", 0.7, MAY + timedelta(hours=2), "s1", [0.6, 0.8]),
    ]
    plan = plan_claims(doings, config)
    assert plan.status == {"sell": "CURRENT", "run": "CURRENT", "whole": "CURRENT"}
    assert not plan.conflicts and not plan.supersedes
    later = claim("sell2", "a", "b", "selling is brave", 0.7, JUNE, "s2", [1.0, 0.0])
    changed = plan_claims([*doings, later], config)
    assert changed.status["sell"] == "SUPERSEDED" and changed.supersedes == {("sell2", "sell")}


def test_an_evaluation_of_a_doing_names_what_it_judges() -> None:
    selling = normalise_predicate("selling is sad")
    assert (selling.about, selling.key, selling.evaluative) == ("selling", "sad", True)
    assert selling.dimension != normalise_predicate("is sad").dimension
    assert normalise_predicate("selling was so sad").dimension == selling.dimension


def test_outside_the_conflict_window_a_flip_is_an_update() -> None:
    config = ConsolidationSettings(conflict_window_hours=1)
    plan = plan_claims(
        [
            claim("lazy", "a", "b", "is lazy", -0.7, MAY, "s1"),
            claim("hard", "a", "b", "is hardworking", 0.7, MAY + timedelta(hours=2), "s2"),
        ],
        config,
    )
    assert plan.status == {"lazy": "SUPERSEDED", "hard": "CURRENT"}


def test_generic_claims_group_by_content_similarity() -> None:
    config = ConsolidationSettings()
    plan = plan_claims(
        [
            claim("old", "a", "plan", "opinion", 0.0, MAY, "s1", [1.0, 0.0]),
            claim("new", "a", "plan", "opinion", 0.0, JUNE, "s2", [0.95, 0.05]),
            claim("other", "a", "plan", "opinion", 0.0, JULY, "s3", [0.0, 1.0]),
        ],
        config,
    )
    assert plan.status == {"old": "SUPERSEDED", "new": "CURRENT", "other": "CURRENT"}
    assert plan.supersedes == {("new", "old")}


def test_each_embedder_groups_claims_on_its_own_cosine_scale() -> None:
    # two generic claims whose vectors have cosine 0.73: below MiniLM's 0.75, above the
    # 0.71 at which all-mpnet-base-v2 keeps MiniLM's share of a conversation's pairs
    angle = np.arccos(0.73)
    rows = [
        claim("old", "a", "plan", "opinion", 0.0, MAY, "s1", [1.0, 0.0]),
        claim("new", "a", "plan", "opinion", 0.0, JUNE, "s2", [np.cos(angle), np.sin(angle)]),
    ]
    minilm = plan_claims(rows, ConsolidationSettings.for_embedder("minilm"))
    mpnet = plan_claims(rows, ConsolidationSettings.for_embedder("mpnet"))
    assert minilm.status == {"old": "CURRENT", "new": "CURRENT"}
    assert mpnet.status == {"old": "SUPERSEDED", "new": "CURRENT"}
    # an option given by hand wins over the embedder's number
    strict = ConsolidationSettings.for_embedder("mpnet", claim_similarity=0.9)
    assert plan_claims(rows, strict).status == {"old": "CURRENT", "new": "CURRENT"}


def test_an_embedder_not_measured_gets_minilms_thresholds() -> None:
    assert ConsolidationSettings.for_embedder("openai:some-model") == ConsolidationSettings()
    assert ConsolidationSettings.for_embedder(None) == ConsolidationSettings()
    mpnet = ConsolidationSettings.for_embedder("mpnet")
    assert mpnet.reference_threshold < ConsolidationSettings().reference_threshold
    assert mpnet.causal_threshold < ConsolidationSettings().causal_threshold


def rec(i: int, text: str, turn: int) -> LinkRecord:
    return LinkRecord(
        id=f"r{i}",
        type="Todo",
        conversation="c",
        turn_idx=turn,
        pos=0,
        session_id="s",
        quote=text,
        words=content_words(text),
    )


def test_keyword_overlap_finds_exactly_the_strong_pairs() -> None:
    texts = [
        "Book the Lisbon conference flights",
        "Lisbon conference flights booked",
        "Buy blue paint for the kitchen",
        "Paint the kitchen blue on Saturday",
        "Lisbon weather is warm",
        "Walk the dog",
    ]
    records = [rec(i, t, i) for i, t in enumerate(texts)]
    found = keyword_pairs(records, 0.5, 2)
    brute = {}
    for i in range(len(records)):
        for j in range(i + 1, len(records)):
            a, b = records[i].words, records[j].words
            if len(a & b) >= 2 and len(a & b) / len(a | b) >= 0.5:
                brute[(i, j)] = len(a & b) / len(a | b)
    assert found == brute
    assert set(found) == {(0, 1), (2, 3)}


def test_an_alias_wins_over_a_node_of_that_name_unless_ambiguous() -> None:
    table = alias_table(
        [
            {"name": "Robert", "aliases": ["Bobby", "Rob"]},
            {"name": "Bobby", "aliases": []},
            {"name": "Robin", "aliases": ["Rob"]},
        ]
    )
    assert table["bobby"] == "robert"
    assert "rob" not in table  # two persons answer to it: left alone


def link_row(
    rid: str, rtype: str, turn: int, vector: list[float], text: str, session: str = "s1"
) -> dict:
    return {
        "id": rid,
        "type": rtype,
        "content": text,
        "quote": text,
        "turn_text": text,
        "embedding": vector,
        "conversation_id": "c",
        "turn_idx": turn,
        "session_id": session,
    }


BUDGET = "The kitchen renovation budget is 500 dollars."


def test_links_follow_the_windows_and_the_cap() -> None:
    from cogmem.consolidate import plan_links

    x, y = [1.0, 0.0], [0.0, 1.0]
    rows = [
        link_row("kf_far", "KeyFact", 0, x, BUDGET),  # similar to the decision, far back
        # dissimilar, two turns before it
        link_row("rem_near", "Reminder", 8, y, "Remember that the venue closes at 9 pm."),
        link_row(
            "kf_other_session", "KeyFact", 9, y, "The train to the venue leaves.", session="s0"
        ),
        link_row(
            "decision",
            "Decision",
            10,
            x,
            "Because the venue closes at 9 pm and the kitchen budget is 500 dollars, "
            "we decided to take the train.",
        ),
        link_row("kf_after", "KeyFact", 11, x, "The venue closes at 9 pm on Fridays."),
        *[link_row(f"todo{i}", "Todo", 20 + i, x, f"Todo {i}") for i in range(8)],
        # close in time and in wording, but no causal cue: no CAUSES
        link_row("kf_plain", "KeyFact", 39, x, BUDGET),
        link_row(
            "decision_plain", "Decision", 40, x, "We decided to keep the kitchen renovation budget."
        ),
    ]
    config = ConsolidationSettings(max_links_per_record=3, link_window_turns=100)
    plan = plan_links(rows, None, config)
    assert plan.causes == {
        ("kf_far", "decision"): {"rule": "similarity", "similarity": 1.0, "cue": "reason"},
        ("rem_near", "decision"): {"rule": "temporal", "similarity": 0.0, "cue": "reason"},
    }
    # every newer record references at most 3 older ones, and only older ones
    for new in ("todo3", "todo7"):
        assert len([1 for a, _ in plan.references if a == new]) == 3
    assert not any(a == "kf_far" for a, _ in plan.references)
    assert not any(b == "decision_plain" for _, b in plan.causes)
    narrow = plan_links(rows, None, ConsolidationSettings(link_window_turns=5))
    assert ("kf_far", "decision") not in narrow.causes
    assert ("todo7", "kf_far") not in narrow.references


def said(text: str, turn: int, pos: int = 0) -> LinkRecord:
    from cogmem.consolidate.links import salient_stems

    return LinkRecord(
        id=f"{turn}-{pos}",
        type="KeyFact",
        conversation="c",
        turn_idx=turn,
        pos=pos,
        session_id="s",
        quote=text,
        words=content_words(text),
        stems=salient_stems(text),
    )


@pytest.mark.parametrize(
    ("cause", "effect", "expected"),
    [
        # the reason clause after "because" names the cause (one word of a short clause)
        (
            said("My landlord raised the rent again.", 0),
            said("We decided to move out because the rent went up so much.", 5),
            "reason",
        ),
        (
            said("My mom has been sick since March.", 2),
            said("I decided to stay in Boston since my mom is sick.", 3),
            "reason",
        ),
        # the clause before "so" names the cause
        (
            said("The venue closes at 9 pm.", 3),
            said("The venue closes early, so we decided to take the train.", 6),
            "result",
        ),
        # a sentence-initial "So" / "That's why" points at what was just said
        (
            said("My mom got sick last month.", 4),
            said("So I decided to move back home.", 5),
            "anaphor",
        ),
        (
            said("The agency helps LGBTQ+ folks adopt.", 5, 0),
            said("That's why I chose them.", 5, 40),
            "anaphor",
        ),
        (
            said("I lost my job in May.", 7),
            said("We decided to sell the car because of that.", 8),
            "anaphor",
        ),
        # ... or further back, at something the decision names
        (
            said(BUDGET, 0),
            said("That is why we decided to keep the kitchen renovation under the 500 budget.", 6),
            "anaphor",
        ),
        # the cause announces a result, the decision follows
        (
            said("My lease ends in May, so...", 3),
            said("I decided to move to Austin.", 5),
            "announce",
        ),
        (
            said("My lease ends in May, which is why I'm looking at flats.", 3),
            said("We went with the flat near the park.", 4),
            "announce",
        ),
        # -- must not link --
        # the cue explains the decision by its own clause, which does not name the cause
        (
            said("I'm keen on counseling or working in mental health.", 10),
            said("I chose them 'cause they help LGBTQ+ folks with adoption.", 12),
            None,
        ),
        (
            said("We looked at the adoption agency's website.", 10),
            said("I chose the adoption agency because they help LGBTQ+ folks.", 11),
            None,
        ),
        # no cue at all, however close
        (said("My mom got sick last month.", 4), said("I decided to move back home.", 5), None),
        # "so" as an intensifier and "since" of time are no cues
        (said("My car broke down yesterday.", 4), said("So glad we decided to adopt!", 5), None),
        (
            said("I sold my first painting in 2019.", 4),
            said("I've been painting since 2019 and decided to sell my work.", 5),
            None,
        ),
        # "So …" points at the last turn, not at an unrelated record four turns back ...
        (said("My mom got sick last month.", 0), said("So I decided to move back home.", 4), None),
        # ... nor at a related one beyond the reach of an anaphor
        (
            said(BUDGET, 0),
            said("That is why we decided to keep the kitchen renovation under budget.", 20),
            None,
        ),
        # an announced result that names something else, or that comes too late
        (
            said("My lease ends in May, which is why I'm looking at flats.", 3),
            said("We decided to adopt a puppy.", 4),
            None,
        ),
        (said("My lease ends in May, so...", 3), said("I decided to move to Austin.", 9), None),
    ],
)
def test_a_causal_cue_must_connect_the_two_records(
    cause: LinkRecord, effect: LinkRecord, expected: str | None
) -> None:
    from cogmem.consolidate.links import cue_connection

    assert cue_connection(cause, effect) == expected
