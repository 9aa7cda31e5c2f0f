"""Consolidation jobs against the real server, on hand-built graphs written by the real ingest
path (scripted extraction, the real offline embedder)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.consolidate import ConsolidationReport, ConsolidationSettings, consolidate
from cogmem.embed import Embedder, make_embedder
from cogmem.extract import ExtractionContext
from cogmem.ingest import Ingestor
from cogmem.models import Conversation, ExtractedRecord, Extraction, RecordType, TimeRange, Turn
from cogmem.store import Store
from tests.internals import store_of

pytestmark = pytest.mark.integration

JUNE_2 = datetime(2023, 6, 2, 9, 0, tzinfo=UTC)
MAY = datetime(2023, 5, 3, 18, 0, tzinfo=UTC)
JUNE = datetime(2023, 6, 10, 18, 0, tzinfo=UTC)


# -- building graphs ------------------------------------------------------------------------
@dataclass
class Said:
    """One turn and the records the scripted extractor finds in it."""

    speaker: str
    text: str
    at: datetime
    records: list[ExtractedRecord] = field(default_factory=list)
    session: int = 1


class ScriptedExtractor:
    name = "scripted"

    def __init__(self, script: dict[str, list[ExtractedRecord]]) -> None:
        self.script = script

    def extract(self, turn: Turn, ctx: ExtractionContext) -> Extraction:
        return Extraction(records=self.script.get(turn.source_id, []))


@pytest.fixture(scope="module")
def embedder(neo4j_settings: Settings) -> Embedder:
    return make_embedder(neo4j_settings)


def ingest(store: Store, embedder: Embedder, group: str, conv: str, said: list[Said]) -> None:
    turns = [
        Turn(
            conversation=conv,
            session=str(s.session),
            session_index=s.session,
            index=i,
            source_id=f"{conv}:{i}",
            speaker=s.speaker,
            text=s.text,
            at=s.at,
        )
        for i, s in enumerate(said)
    ]
    script = {t.source_id: s.records for t, s in zip(turns, said, strict=True)}
    conversation = Conversation(
        id=conv, speakers=sorted({s.speaker for s in said}), turns=turns, source_format="test"
    )
    summary = Ingestor(store, embedder, ScriptedExtractor(script), group).ingest([conversation])
    assert summary.dropped == 0


def hike(person: str, at: datetime) -> Said:
    text = f"I went hiking on {at:%d %B}."
    record = ExtractedRecord(
        type=RecordType.EVENT,
        content=f"{person} went hiking on {at.day} {at:%B %Y}",
        quote=text,
        speaker=person,
        subject=person,
        concepts=["hiking"],
        time=TimeRange(start=at, end=at + timedelta(days=1), granularity="day", text="today"),
    )
    return Said(person, text, at, [record])


def opinion(
    source: str,
    target: str,
    adjective: str,
    sentiment: float,
    at: datetime,
    session: int,
    predicate: str | None = None,
) -> Said:
    text = f"I think {target} is {adjective}."
    record = ExtractedRecord(
        type=RecordType.CLAIM,
        content=f"{source} thinks {target} is {adjective}",
        quote=text,
        speaker=source,
        subject=target,
        source=source,
        target=target,
        predicate=predicate or f"is {adjective}",
        sentiment=sentiment,
    )
    return Said(source, text, at, [record], session=session)


def artifact(speaker: str, rtype: RecordType, text: str, at: datetime, session: int = 1) -> Said:
    record = ExtractedRecord(
        type=rtype, content=text, quote=text, speaker=speaker, subject=speaker, confidence=0.7
    )
    return Said(speaker, text, at, [record], session=session)


def filler(speaker: str, at: datetime, n: int, session: int = 1) -> Said:
    return Said(speaker, f"Okay ({n}).", at, [], session=session)


def hikes(person: str, days: list[int]) -> list[Said]:
    return [hike(person, JUNE_2 + timedelta(days=d)) for d in days]


# -- reading graphs -------------------------------------------------------------------------
@pytest.fixture
def mem(neo4j_settings: Settings, store: Store, group: str) -> Memory:
    return Memory(neo4j_settings.model_copy(update={"group": group}), store=store)


def run(mem: Memory, embedder: Embedder, **kwargs: Any) -> ConsolidationReport:
    return consolidate(store_of(mem), mem.group, embedder, **kwargs)


def consolidated_facts(mem: Memory) -> list[dict[str, Any]]:
    return store_of(mem).read("consolidation/consolidated_facts", group_id=mem.group)


def claims(mem: Memory) -> dict[str, dict[str, Any]]:
    rows = store_of(mem).read("consolidation/claim_candidates", group_id=mem.group)
    return {r["content"]: r for r in rows}


def edges(mem: Memory, job: str) -> set[tuple[str, str, str]]:
    rows = store_of(mem).read("consolidation/job_edges", group_id=mem.group, job=job)
    return {(r["src"], r["type"], r["dst"]) for r in rows}


def link_rows(mem: Memory) -> list[dict[str, Any]]:
    return store_of(mem).read("consolidation/job_edges", group_id=mem.group, job="link")


def records_by_content(mem: Memory) -> dict[str, dict[str, Any]]:
    rows = store_of(mem).read("inspect/records_with_turns", group=mem.group)
    return {r["content"]: r for r in rows if r["content"]}


def settled(mem: Memory, embedder: Embedder) -> ConsolidationReport:
    """Claims are reconciled at ingest: a later claims job finds nothing to change and leaves
    statuses and edges exactly as ingest wrote them."""
    before = ({c["id"]: c["status"] for c in claims(mem).values()}, edges(mem, "reconcile"))
    report = run(mem, embedder, jobs=["claims"])
    assert report.changes == 0, report
    after = ({c["id"]: c["status"] for c in claims(mem).values()}, edges(mem, "reconcile"))
    assert after == before
    return report


# -- events → facts -------------------------------------------------------------------------
def test_three_hikes_in_twenty_days_make_one_fact(
    mem: Memory, store: Store, embedder: Embedder
) -> None:
    ingest(store, embedder, mem.group, "c1", hikes("Alice", [0, 9, 18]))
    report = run(mem, embedder)
    assert (report.facts_created, report.facts_extended, report.supported_by_created) == (1, 0, 3)

    [fact] = consolidated_facts(mem)
    assert len(fact["event_ids"]) == 3
    assert fact["content"] == "Alice repeatedly went hiking: 3 times between 2 and 20 June 2023"
    assert fact["time_start"] == JUNE_2
    assert fact["time_end"] == JUNE_2 + timedelta(days=19)  # the last hike's day ends
    counts = mem.inspect.counts()
    assert counts["labels"]["Event"] == 3  # the episodes are kept
    assert counts["relationships"]["SUPPORTED_BY"] == 3
    row = records_by_content(mem)[fact["content"]]
    assert row["type"] == "Fact"
    assert len(row["turn_texts"]) == 3  # EVIDENCED_BY the three turns
    # HAS_FACT from Alice, ABOUT hiking, vector for search
    ops = mem.inspect.operators()
    vec = embedder.embed_query(fact["content"])
    hits = ops.traverse([fact["id"]], vec, ("HAS_FACT", "ABOUT"), per_node=10)
    assert {(h.path[0][:-1], h.name) for h in hits} == {("HAS_FACT", "Alice"), ("ABOUT", "hiking")}
    # its vector is its content's: traverse from Alice with that vector scores it ~1
    alice = next(h.id for h in hits if h.path[0].startswith("HAS_FACT"))
    back = [
        {"id": h.id, "vector": h.vector}
        for h in mem.inspect.operators().traverse([alice], vec, ("HAS_FACT",), per_node=10)
    ]
    assert [(h["id"], round(h["vector"], 3)) for h in back] == [(fact["id"], 1.0)]


def test_three_hikes_over_ninety_days_make_no_fact(
    mem: Memory, store: Store, embedder: Embedder
) -> None:
    ingest(store, embedder, mem.group, "c1", hikes("Alice", [0, 45, 90]))
    report = run(mem, embedder)
    assert report.facts_created == 0 and report.supported_by_created == 0
    assert consolidated_facts(mem) == []


def test_a_later_hike_extends_the_same_fact(mem: Memory, store: Store, embedder: Embedder) -> None:
    ingest(store, embedder, mem.group, "c1", hikes("Alice", [0, 9, 18]))
    run(mem, embedder)
    [before] = consolidated_facts(mem)

    ingest(store, embedder, mem.group, "c2", hikes("Alice", [25]))  # a week later
    report = run(mem, embedder)
    assert (report.facts_created, report.facts_extended, report.supported_by_created) == (0, 1, 1)
    [after] = consolidated_facts(mem)
    assert after["id"] == before["id"]
    assert len(after["event_ids"]) == 4
    assert set(before["event_ids"]) < set(after["event_ids"])
    assert after["time_start"] == before["time_start"]
    assert after["time_end"] == JUNE_2 + timedelta(days=26)
    assert "4 times between 2 and 27 June 2023" in after["content"]
    assert mem.inspect.counts()["relationships"]["SUPPORTED_BY"] == 4


def test_a_bridging_hike_joins_two_facts(mem: Memory, store: Store, embedder: Embedder) -> None:
    ingest(store, embedder, mem.group, "c1", hikes("Alice", [0, 2, 4, 50, 52, 54]))
    assert run(mem, embedder).facts_created == 2
    older, newer = sorted(consolidated_facts(mem), key=lambda f: f["time_start"])

    ingest(store, embedder, mem.group, "c2", hikes("Alice", [27]))
    report = run(mem, embedder)
    assert (report.facts_created, report.facts_extended, report.facts_superseded) == (0, 1, 1)
    facts = {f["id"]: f for f in consolidated_facts(mem)}
    assert len(facts[older["id"]]["event_ids"]) == 7
    assert facts[newer["id"]]["status"] == "SUPERSEDED"  # kept, not deleted
    assert run(mem, embedder).changes == 0


def test_facts_are_worded_by_the_llm_when_configured(
    mem: Memory, store: Store, embedder: Embedder, llm_server: Any
) -> None:
    from cogmem.llm import LLMClient
    from tests.llm_server import settings_for

    ingest(store, embedder, mem.group, "c1", hikes("Alice", [0, 9, 18]))
    llm_server.reply("Alice goes hiking regularly, three times in June 2023.")
    with LLMClient(settings_for(llm_server)) as llm:
        report = consolidate(store_of(mem), mem.group, embedder, llm=llm)
        assert report.facts_created == 1 and report.llm_fallbacks == 0
        [fact] = consolidated_facts(mem)
        assert fact["content"] == "Alice goes hiking regularly, three times in June 2023."
        prompt = llm_server.chat_requests[0].message("user")
        assert "hiking" in prompt and "2023-06-11" in prompt

        ingest(store, embedder, mem.group, "c2", hikes("Alice", [25]))
        llm_server.fail(500).fail(500).fail(500)  # every attempt fails: the template is used
        report = consolidate(store_of(mem), mem.group, embedder, llm=llm)
        assert report.facts_extended == 1 and report.llm_fallbacks == 1
    [fact] = consolidated_facts(mem)
    assert fact["content"].startswith("Alice repeatedly went hiking: 4 times")


# -- claims ---------------------------------------------------------------------------------
def test_a_change_of_view_supersedes_the_older_claim(
    mem: Memory, store: Store, embedder: Embedder
) -> None:
    ingest(
        store,
        embedder,
        mem.group,
        "c1",
        [
            opinion("Alice", "Bob", "lazy", -0.7, MAY, 1),
            opinion("Alice", "Bob", "hardworking", 0.7, JUNE, 2),
        ],
    )
    found = claims(mem)  # reconciled at ingest, without consolidate
    may, june = found["Alice thinks Bob is lazy"], found["Alice thinks Bob is hardworking"]
    assert (may["status"], june["status"]) == ("SUPERSEDED", "CURRENT")
    report = settled(mem, embedder)
    assert report.claims_by_status == {"CURRENT": 1, "SUPERSEDED": 1, "CONFLICTING": 0}
    assert len(edges(mem, "reconcile")) == 1
    found = claims(mem)
    may, june = found["Alice thinks Bob is lazy"], found["Alice thinks Bob is hardworking"]
    assert (may["status"], june["status"]) == ("SUPERSEDED", "CURRENT")
    assert june["supersedes"] == [may["id"]] and may["supersedes"] == []
    assert mem.inspect.counts()["labels"]["Claim"] == 2  # the original is kept


COOK, KIDS = "Alice thinks Bob is a great cook", "Alice thinks Bob is patient with the kids"
BETWEEN = 0.73
"""The cosine given to the two views: below MiniLM's claim_similarity, at or above mpnet's."""


class Named:
    """The suite's embedder under another embedder's name (the claim rules read their
    cosine thresholds by the name: cogmem.consolidate.thresholds), giving the two views
    below vectors whose cosine is :data:`BETWEEN`, whatever model the suite runs."""

    def __init__(self, inner: Embedder, name: str) -> None:
        self.inner, self.name, self.dimension = inner, name, inner.dimension
        first = np.zeros(inner.dimension, dtype=np.float32)
        first[0] = 1.0
        second = np.zeros(inner.dimension, dtype=np.float32)
        second[0], second[1] = BETWEEN, np.sqrt(1.0 - BETWEEN**2)
        self.fixed = {COOK: first, KIDS: second}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = self.inner.embed(texts)
        for i, text in enumerate(texts):
            if text in self.fixed:
                rows[i] = self.fixed[text]
        return rows

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


@pytest.mark.parametrize("name", ["minilm", "mpnet"])
def test_ingest_reconciles_claims_at_the_embedders_own_threshold(
    mem: Memory, store: Store, embedder: Embedder, name: str
) -> None:
    views = [
        opinion("Alice", "Bob", "a great cook", 0.6, MAY, 1, predicate="opinion"),
        opinion("Alice", "Bob", "patient with the kids", 0.6, JUNE, 2, predicate="opinion"),
    ]
    minilm, mpnet = (ConsolidationSettings.for_embedder(n).claim_similarity for n in NAMES)
    assert mpnet <= BETWEEN < minilm  # the premise
    ingest(store, Named(embedder, name), mem.group, "c1", views)
    found = claims(mem)  # reconciled at ingest, at the thresholds of the embedder's name
    assert found[KIDS]["status"] == "CURRENT"
    assert found[COOK]["status"] == ("SUPERSEDED" if name == "mpnet" else "CURRENT")
    # consolidate reads the suite's embedder and settles the pair at its number
    report = mem.consolidate(jobs=["claims"])
    suites = ConsolidationSettings.for_embedder(mem.admin.embedder_identity()[0]).claim_similarity
    assert report.claims_by_status["SUPERSEDED"] == (1 if suites <= BETWEEN else 0)


NAMES = ("minilm", "mpnet")


def test_people_who_disagree_both_stay_current(
    mem: Memory, store: Store, embedder: Embedder
) -> None:
    ingest(
        store,
        embedder,
        mem.group,
        "c1",
        [
            opinion("Alice", "Bob", "lazy", -0.7, MAY, 1),
            opinion("Carol", "Bob", "hardworking", 0.7, JUNE, 2),
            opinion("Carol", "Bob", "so hardworking", 0.7, MAY, 1, predicate="is so hardworking"),
        ],
    )
    settled(mem, embedder)
    found = claims(mem)
    alice = found["Alice thinks Bob is lazy"]
    assert alice["status"] == "CURRENT"
    assert alice["supersedes"] == [] and alice["conflicts_with"] == []
    carol = [c for c in found.values() if c["source"] == "Carol"]
    assert len(carol) == 2
    assert all(not c["conflicts_with"] for c in carol)  # nothing between speakers
    # Carol restated her view in June: her May claim is superseded by her own, not Alice's
    assert sorted(c["status"] for c in carol) == ["CURRENT", "SUPERSEDED"]


def test_contradictory_claims_from_one_moment_conflict(
    mem: Memory, store: Store, embedder: Embedder
) -> None:
    ingest(
        store,
        embedder,
        mem.group,
        "c1",
        [
            opinion("Alice", "Bob", "lazy", -0.7, MAY, 1),
            opinion("Alice", "Bob", "hardworking", 0.7, MAY + timedelta(minutes=5), 1),
        ],
    )
    settled(mem, embedder)
    assert len(edges(mem, "reconcile")) == 2  # CONFLICTS_WITH both ways
    found = claims(mem)
    lazy, hard = found["Alice thinks Bob is lazy"], found["Alice thinks Bob is hardworking"]
    assert lazy["status"] == hard["status"] == "CONFLICTING"
    assert lazy["conflicts_with"] == [hard["id"]] and hard["conflicts_with"] == [lazy["id"]]


def test_aliases_of_a_speaker_are_one_source(mem: Memory, store: Store, embedder: Embedder) -> None:
    robert = ExtractedRecord(
        type=RecordType.PERSON, name="Robert", aliases=["Bobby"], content="Robert", quote="Bobby"
    )
    said = [
        Said("Carl", "Hi Bobby, Robert here.", MAY - timedelta(days=1), [robert]),
        opinion("Robert", "Dana", "lazy", -0.7, MAY, 1),
        opinion("Bobby", "Dana", "so hardworking", 0.7, JUNE, 2, predicate="is so hardworking"),
    ]
    ingest(store, embedder, mem.group, "c1", said)
    settled(mem, embedder)
    found = claims(mem)
    assert found["Robert thinks Dana is lazy"]["status"] == "SUPERSEDED"
    assert found["Bobby thinks Dana is so hardworking"]["status"] == "CURRENT"


# -- links ----------------------------------------------------------------------------------
def canvas() -> list[Said]:
    t = datetime(2023, 3, 1, 10, 0, tzinfo=UTC)
    at = [t + timedelta(minutes=i) for i in range(20)]
    return [
        artifact(
            "Ann",
            RecordType.KEYFACT,
            "The budget for the kitchen renovation is 500 dollars.",
            at[0],
        ),
        artifact(
            "Bob", RecordType.TODO, "Ann will book the flights to Lisbon for the conference.", at[1]
        ),
        *[filler("Ann" if i % 2 else "Bob", at[i], i) for i in range(2, 6)],
        artifact(
            "Bob",
            RecordType.DECISION,
            "That is why we decided to keep the kitchen renovation under the 500 dollar budget.",
            at[6],
        ),
        artifact("Ann", RecordType.REMINDER, "Remember that the venue closes at 9 pm.", at[7]),
        artifact("Bob", RecordType.DECISION, "So we decided to take the train.", at[8]),
        artifact(
            "Ann", RecordType.TODO, "Ann needs to book flights to Lisbon before Friday.", at[9]
        ),
        artifact("Ann", RecordType.INSIGHT, "Ann realized that painting calms her down.", at[10]),
        artifact(
            "Ann", RecordType.KEYFACT, "The train to the venue leaves at 7 am.", at[11], session=2
        ),
        artifact("Bob", RecordType.DECISION, "We decided to adopt a puppy.", at[12], session=3),
    ]


def test_cogcanvas_links(mem: Memory, store: Store, embedder: Embedder) -> None:
    ingest(store, embedder, mem.group, "c1", canvas())
    report = run(mem, embedder, jobs=["links"])
    ids = {content: row["id"] for content, row in records_by_content(mem).items()}
    budget = ids["The budget for the kitchen renovation is 500 dollars."]
    keep_budget = ids[
        "That is why we decided to keep the kitchen renovation under the 500 dollar budget."
    ]
    reminder = ids["Remember that the venue closes at 9 pm."]
    train = ids["So we decided to take the train."]
    flights_1 = ids["Ann will book the flights to Lisbon for the conference."]
    flights_2 = ids["Ann needs to book flights to Lisbon before Friday."]
    painting = ids["Ann realized that painting calms her down."]
    train_time = ids["The train to the venue leaves at 7 am."]
    puppy = ids["We decided to adopt a puppy."]

    found = edges(mem, "link")
    causes = {(a, b) for a, t, b in found if t == "CAUSES"}
    references = {(a, b) for a, t, b in found if t == "REFERENCES"}
    assert (budget, keep_budget) in causes  # by similarity, six turns apart
    assert (reminder, train) in causes  # by the temporal heuristic, the next turn
    assert (train_time, train) not in causes  # said after the decision
    assert (train_time, puppy) not in causes  # the next turn, but another session
    assert (reminder, keep_budget) not in causes  # said after it
    assert causes == {(budget, keep_budget), (reminder, train)}
    assert (flights_2, flights_1) in references  # newer references older
    assert (keep_budget, budget) in references
    assert not any(painting in pair for pair in references)
    assert report.causes_created == 2 and report.references_created == len(references)
    rules = {(r["src"], r["dst"]): r["rule"] for r in link_rows(mem) if r["type"] == "CAUSES"}
    assert rules == {(budget, keep_budget): "similarity", (reminder, train): "temporal"}
    # the temporal edge is made whatever the similarity
    unrelated = embedder.embed(
        ["Remember that the venue closes at 9 pm.", "So we decided to take the train."]
    )
    assert float(unrelated[0] @ unrelated[1]) < 0.45


def test_stricter_thresholds_remove_the_edges_they_no_longer_derive(
    mem: Memory, store: Store, embedder: Embedder
) -> None:
    ingest(store, embedder, mem.group, "c1", canvas())
    first = run(mem, embedder, jobs=["links"])
    strict = ConsolidationSettings(
        reference_threshold=0.95, causal_threshold=0.95, causal_window_turns=0, keyword_jaccard=1
    )
    report = run(mem, embedder, jobs=["links"], config=strict)
    assert report.references_removed == first.references_created
    assert report.causes_removed == first.causes_created == 2
    assert edges(mem, "link") == set()


# -- idempotency, dry run, isolation --------------------------------------------------------
def everything() -> list[Said]:
    return [
        *hikes("Alice", [0, 9, 18]),
        opinion("Alice", "Bob", "lazy", -0.7, MAY, 1),
        opinion("Alice", "Bob", "hardworking", 0.7, JUNE, 2),
        opinion("Carol", "Bob", "lazy", -0.7, JUNE, 2),
        opinion("Carol", "Bob", "kind", 0.7, JUNE, 2),
        *canvas(),
    ]


@pytest.mark.parametrize("job", ["facts", "claims", "links"])
def test_every_job_run_twice_is_a_no_op_the_second_time(
    mem: Memory, store: Store, embedder: Embedder, job: str
) -> None:
    ingest(store, embedder, mem.group, "c1", everything())
    first = run(mem, embedder, jobs=[job])
    if job == "claims":  # reconciled at ingest already
        assert first.changes == 0 and first.claims_by_status["SUPERSEDED"] == 1
    else:
        assert first.changes > 0
    after_first = mem.inspect.counts()
    second = run(mem, embedder, jobs=[job])
    assert second.changes == 0
    assert mem.inspect.counts() == after_first
    assert second.claims_by_status == first.claims_by_status


def test_all_jobs_twice_then_a_reingest(mem: Memory, store: Store, embedder: Embedder) -> None:
    ingest(store, embedder, mem.group, "c1", everything())
    first = run(mem, embedder)
    assert first.facts_created == 1 and first.causes_created == 2
    assert first.claims_by_status == {"CURRENT": 1, "SUPERSEDED": 1, "CONFLICTING": 2}
    counts = mem.inspect.counts()
    statuses = {c: r["status"] for c, r in claims(mem).items()}
    assert run(mem, embedder).changes == 0
    assert mem.inspect.counts() == counts
    assert {c: r["status"] for c, r in claims(mem).items()} == statuses
    # re-ingesting the same chat and consolidating again lands on the same graph
    ingest(store, embedder, mem.group, "c1", everything())
    again = run(mem, embedder)
    assert again.facts_created == again.facts_extended == again.supported_by_created == 0
    assert again.references_created == again.causes_created == 0
    assert mem.inspect.counts() == counts
    assert {c: r["status"] for c, r in claims(mem).items()} == statuses
    assert run(mem, embedder).changes == 0


def cli(neo4j_settings: Settings, *args: str) -> Any:
    from cogmem.cli import app

    base = ["--uri", neo4j_settings.neo4j_uri, "--user", neo4j_settings.neo4j_user]
    if neo4j_settings.neo4j_password:
        base += ["--password", neo4j_settings.neo4j_password]
    result = CliRunner().invoke(app, [*base, *args])
    assert result.exit_code == 0, result.output
    return result


def test_dry_run_writes_nothing_and_reports_what_it_would_do(
    mem: Memory, store: Store, embedder: Embedder, neo4j_settings: Settings
) -> None:
    ingest(store, embedder, mem.group, "c1", everything())
    before = mem.inspect.counts()
    statuses = {c: r["status"] for c, r in claims(mem).items()}
    result = cli(neo4j_settings, "consolidate", "--group", mem.group, "--dry-run", "--json")
    would = json.loads(result.stdout)
    assert would["dry_run"] is True
    assert would["facts_created"] == 1 and would["supported_by_created"] == 3
    # claims were reconciled at ingest: nothing left to change, the statuses are reported
    assert sum(would["claims_changed"].values()) == 0
    assert would["claims_by_status"] == {"CURRENT": 1, "SUPERSEDED": 1, "CONFLICTING": 2}
    assert would["causes_created"] == 2 and would["references_created"] > 0
    assert mem.inspect.counts() == before
    assert {c: r["status"] for c, r in claims(mem).items()} == statuses

    done = json.loads(cli(neo4j_settings, "consolidate", "-g", mem.group, "--json").stdout)
    for key in ("facts_created", "supported_by_created", "claims_changed", "causes_created"):
        assert done[key] == would[key], key
    assert mem.inspect.counts() != before

    table = cli(neo4j_settings, "consolidate", "--group", mem.group).stdout
    assert "facts created" in table and "CAUSES edges created" in table
    again = json.loads(cli(neo4j_settings, "consolidate", "-g", mem.group, "--json").stdout)
    assert ConsolidationReport.model_validate(again).changes == 0


def test_cli_options_reach_the_jobs(
    mem: Memory, store: Store, embedder: Embedder, neo4j_settings: Settings
) -> None:
    ingest(store, embedder, mem.group, "c1", hikes("Alice", [0, 9]))
    args = ("consolidate", "-g", mem.group, "--dry-run", "--json", "--job", "facts")
    assert json.loads(cli(neo4j_settings, *args).stdout)["facts_created"] == 0
    report = json.loads(cli(neo4j_settings, *args, "--min-events", "2").stdout)
    assert report["facts_created"] == 1 and report["jobs"] == ["facts"]


def test_only_the_given_group_is_touched(
    mem: Memory, store: Store, embedder: Embedder, group: str
) -> None:
    other = mem.for_group(group + "-other")
    try:
        ingest(store, embedder, mem.group, "c1", everything())
        ingest(store, embedder, other.group, "c1", everything())
        before = other.inspect.counts()
        statuses = {c: r["status"] for c, r in claims(other).items()}
        reconciled = edges(other, "reconcile")  # written by its own ingest
        assert len(reconciled) == 3
        report = run(mem, embedder)
        assert report.facts_created == 1
        assert other.inspect.counts() == before
        assert consolidated_facts(other) == []
        assert {c: r["status"] for c, r in claims(other).items()} == statuses
        assert edges(other, "link") == set() and edges(other, "reconcile") == reconciled
        # the other group consolidates on its own, into its own nodes
        assert run(other, embedder).facts_created == 1
        assert {f["id"] for f in consolidated_facts(other)}.isdisjoint(
            f["id"] for f in consolidated_facts(mem)
        )
    finally:
        other.forget()
