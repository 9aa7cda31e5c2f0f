"""Search through Neo4j's own indexes (the operators' statements), against the process's copy
of the group that caches them: the same answers, the first search without the copy, the
copy read behind it, the group filter inside the search."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from neo4j import GraphDatabase

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.retrieval import graph_source
from cogmem.retrieval.graph_source import GraphSource
from cogmem.retrieval.lucene import lucene_query
from cogmem.retrieval.operators import Operators
from cogmem.retrieval.source import CachedSource
from cogmem.retrieval.vector_cache import clear_vector_caches, wait_for_warm_caches
from cogmem.retrieval.vectors import GroupVectors
from cogmem.server.schema import SCHEMA_VERSION
from cogmem.store import Store
from tests.internals import store_of

pytestmark = pytest.mark.integration

SIM_TOLERANCE = 1e-6
"""Neo4j's cosine (doubles) and the copy's (float32 rows) agree to about 1e-7."""

SESSIONS = [
    (
        "2024-02-03T09:30:00Z",
        [
            ("Noor", "I finally signed up for the pottery class at the community centre."),
            ("Tomasz", "Nice! My sister Agata teaches ceramics in Gdansk, she loves it."),
            ("Noor", "The first lesson is on Thursday evening, wheel throwing for beginners."),
            ("Tomasz", "I spent the weekend fixing my old road bike, new chain and brakes."),
            ("Noor", "Do you still ride to work every day?"),
            ("Tomasz", "Yes, twelve kilometres each way along the river."),
        ],
    ),
    (
        "2024-03-17T18:10:00Z",
        [
            ("Noor", "My first bowl came out lopsided but I glazed it blue anyway."),
            ("Tomasz", "Agata says the first hundred bowls are always lopsided."),
            ("Tomasz", "I adopted a rescue greyhound called Biscuit last Friday."),
            ("Noor", "Greyhounds are so calm. Does Biscuit like the bike trailer?"),
            ("Tomasz", "Not yet, he prefers long walks in the park near the old mill."),
            ("Noor", "We should all go hiking in the Tatra mountains this summer."),
        ],
    ),
    (
        "2024-05-02T20:45:00Z",
        [
            ("Noor", "I sold three mugs at the spring craft fair on Saturday."),
            ("Tomasz", "Congratulations! Biscuit and I ran our first five kilometre race."),
            ("Noor", "I think Tomasz is the most patient dog owner I know."),
            ("Tomasz", "The Tatra trip is booked for July, Agata is coming too."),
            ("Noor", "I started learning Portuguese because we may move to Porto."),
            ("Tomasz", "Porto has great tiles, you could paint azulejos."),
        ],
    ),
]

QUESTIONS = [
    "When did Noor sign up for the pottery class?",
    "What is the name of Tomasz's dog?",
    "Where does Agata teach ceramics?",
    "What did Noor sell at the craft fair?",
    "How far does Tomasz ride to work?",
    "What does Noor think of Tomasz?",
    "Where are Noor and Tomasz going hiking?",
    "Which language is Noor learning and why?",
    "What did Tomasz fix on his bike?",
    "What do Noor and Tomasz both like?",
]


def write_chat(path: Path, sessions: int = len(SESSIONS)) -> Path:
    """The chat as JSONL (its first ``sessions`` sessions)."""
    lines = [
        json.dumps(
            {"conversation": "c1", "session": str(n), "speaker": s, "text": t, "timestamp": when}
        )
        for n, (when, turns) in enumerate(SESSIONS[:sessions], 1)
        for s, t in turns
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _store(mem: Memory, mode: str) -> Store:
    return store_of(mem).with_settings(search_cache=mode)


@pytest.fixture
def potters(neo4j_settings: Settings, store: Store, group: str, tmp_path: Path) -> Iterator[Memory]:
    mem = Memory(neo4j_settings.model_copy(update={"group": group}), store=store)
    mem.ingest(write_chat(tmp_path / "chat.jsonl"))
    store_of(mem).admin("meta/await_fulltext")  # Lucene lags a commit by moments
    clear_vector_caches()
    yield mem
    clear_vector_caches()


@pytest.fixture
def other_groups(store: Store, tmp_path: Path, neo4j_settings: Settings) -> Iterator[list[str]]:
    """Two more groups holding the very same chat: the cold path must keep to its own."""
    names = [f"{tmp_path.name[-12:]}-twin-{n}".lower().replace("_", "-") for n in range(2)]
    for name in names:
        twin = Memory(neo4j_settings.model_copy(update={"group": name}), store=store)
        twin.ingest(write_chat(tmp_path / f"{name}.jsonl"))
    yield names
    for name in names:
        while store.write("admin/forget_group", group=name, batch=5000)[0]["deleted"]:
            pass


def _sources(mem: Memory) -> tuple[GraphSource, CachedSource]:
    cold = Operators(_store(mem, "off"), mem.group).source
    warm = Operators(_store(mem, "eager"), mem.group).source
    assert isinstance(cold, GraphSource) and isinstance(warm, CachedSource)
    return cold, warm


def _close_pairs(cold: list[tuple[str, float]], warm: list[tuple[str, float]]) -> None:
    assert [i for i, _ in cold] == [i for i, _ in warm]
    for (_, a), (_, b) in zip(cold, warm, strict=True):
        assert a == pytest.approx(b, abs=SIM_TOLERANCE)


def test_a_fresh_init_creates_the_vector_indexes(potters: Memory) -> None:
    potters.admin.init()
    names = {r["name"] for r in store_of(potters).admin("meta/vector_dimensions")}
    assert {"memory_embedding", "turn_embedding", "claim_embedding"} <= names


def test_neighbours_are_the_same_through_neo4j_and_from_the_copy(potters: Memory) -> None:
    cold, warm = _sources(potters)
    for question in QUESTIONS[:4]:
        vec = potters.embedder.embed_query(question)
        for turns in (True, False):
            for types in (None, ["Event", "Claim"]):
                if turns and types:
                    continue
                _close_pairs(
                    cold.top(vec, turns=turns, types=types, k=12),
                    warm.top(vec, turns=turns, types=types, k=12),
                )
        ids = [i for i, _ in warm.top(vec, turns=False, types=None, k=30)]
        assert cold.similarity(vec, ids) == pytest.approx(warm.similarity(vec, ids), abs=1e-6)
        for node_id in ids:
            a, b = cold.node(node_id), warm.node(node_id)
            assert a is not None and b is not None
            shared = {k for k in a if k in b and k not in ("evidence", "links")}
            assert {k: a[k] for k in shared} == {k: b[k] for k in shared}


def test_the_fulltext_index_matches_the_same_turns_as_the_copys_bm25(potters: Memory) -> None:
    """Both analyse text the same way (Lucene's english analyzer): asked for every match,
    they return the same turns and records. Only BM25's statistics differ (the index's
    against the group's), so their order may."""
    cold, warm = _sources(potters)
    for words in (["pottery", "class"], ["bikes", "riding"], ["greyhound"], ["Tatra"]):
        for turns in (True, False):
            a = {i for i, _ in cold.lexical(words, turns=turns, types=None, k=500)}
            b = {i for i, _ in warm.lexical(words, turns=turns, types=None, k=500)}
            assert a == b and a, words
    assert cold.turn_idf(["greyhound", "the", "first"]) == pytest.approx(
        warm.turn_idf(["greyhound", "the", "first"])
    )


def test_search_gives_the_same_evidence_through_neo4j_and_from_the_copy(
    potters: Memory,
) -> None:
    def searched(mode: str) -> list[list[str]]:
        mem = Memory(potters.settings, store=_store(potters, mode))
        return [[e.turn_id for e in mem.search(q, k=5)] for q in QUESTIONS]

    cold, warm = searched("off"), searched("eager")
    overlap = [len(set(a) & set(b)) / max(len(b), 1) for a, b in zip(cold, warm, strict=True)]
    firsts = sum(a[:1] == b[:1] for a, b in zip(cold, warm, strict=True))
    assert min(overlap) >= 0.6 and sum(overlap) / len(overlap) >= 0.9, overlap
    assert firsts >= len(QUESTIONS) - 1


def test_the_first_search_asks_neo4j_then_the_copy_answers(potters: Memory) -> None:
    mem = Memory(potters.settings, store=_store(potters, "auto"))
    first = mem.retrieve("What is the name of Tomasz's dog?", k=5)
    ran = [s for step in first.trace for s in step.statements]
    for name in ("nearest_turns", "nearest_records", "fulltext_turns", "ground", "entities"):
        assert f"operators/{name}" in ran
    assert any(
        step.operator == "traverse" and "operators/traverse_hop" in step.statements
        for step in first.trace
    )
    wait_for_warm_caches()
    second = mem.retrieve("What is the name of Tomasz's dog?", k=5)
    ran = [s for step in second.trace for s in step.statements]
    assert not [s for s in ran if "nearest" in s or "fulltext" in s or "traverse" in s]
    assert [e.turn_id for e in second.evidence][:1] == [e.turn_id for e in first.evidence][:1]


def test_intersect_runs_its_statement_on_the_cold_path(potters: Memory) -> None:
    mem = Memory(potters.settings, store=_store(potters, "off"))
    found = mem.retrieve("What do Noor and Tomasz both like?", k=5)
    steps = [step for step in found.trace if step.operator == "intersect"]
    assert steps and steps[0].statements == ["operators/intersect"]
    # it ran beside the persons' traversals (it needs nothing from them), each step still
    # listing only its own statements
    walked = [step for step in found.trace if step.operator == "traverse"]
    assert walked and "operators/traverse_hop" in walked[0].statements
    assert not any("operators/intersect" in step.statements for step in walked)


def test_reads_run_at_once_are_still_listed_under_their_own_steps(potters: Memory) -> None:
    """Anchor's four reads run at once and late interaction's word rarity is read ahead,
    in the background: the trace still lists each statement under the step that used it,
    and the evidence is the copy's."""
    question = "Where does Agata teach ceramics?"
    cold = Memory(potters.settings, store=_store(potters, "off")).retrieve(question, k=5)
    warm = Memory(potters.settings, store=_store(potters, "eager")).retrieve(question, k=5)
    assert [e.turn_id for e in cold.evidence] == [e.turn_id for e in warm.evidence]
    first = next(step for step in cold.trace if step.operator == "anchor")
    assert {
        "operators/nearest_records",
        "operators/nearest_turns",
        "operators/fulltext_records",
        "operators/fulltext_turns",
    } <= set(first.statements)
    (late,) = [step for step in cold.trace if step.operator == "late"]
    assert "operators/turn_df" in late.statements
    assert all("operators/turn_df" not in s.statements for s in cold.trace if s is not late)


def test_a_group_among_twins_keeps_to_its_own_nodes(
    potters: Memory, other_groups: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other groups hold the same chat, so every vector and word ties across groups: the
    cold path returns the group's own nodes, through the exact scan and through the HNSW
    index (asked of a group made to count as large), which falls back to the scan when
    the other groups crowd the group out of what it returns."""
    cold, warm = _sources(potters)
    vec = potters.embedder.embed_query("What is the name of Tomasz's dog?")
    exact = cold.top(vec, turns=True, types=None, k=10)
    _close_pairs(exact, warm.top(vec, turns=True, types=None, k=10))
    own = set(warm.vectors.ids)
    assert {i for i, _ in exact} <= own
    assert {i for i, _ in cold.lexical(["Biscuit"], turns=True, types=None, k=50)} <= own

    monkeypatch.setattr(graph_source, "EXACT_SCAN_NODES", 1)
    indexed = Operators(_store(potters, "off"), potters.group).source
    assert isinstance(indexed, GraphSource)
    found = indexed.top(vec, turns=True, types=None, k=10)
    assert "operators/nearest_turns_indexed" in indexed.statements
    assert {i for i, _ in found} <= own and len(found) == 10
    assert len({i for i, _ in found} & {i for i, _ in exact}) >= 9

    monkeypatch.setattr(graph_source, "INDEX_FETCH_CAP", 10)  # too few to get 10 of ours
    crowded = Operators(_store(potters, "off"), potters.group).source
    assert isinstance(crowded, GraphSource)
    _close_pairs(crowded.top(vec, turns=True, types=None, k=10), exact)
    assert crowded.statements[-2:] == ["operators/nearest_turns_indexed", "operators/nearest_turns"]
    # the same ask again in this search (the feedback pass) goes straight to the scan
    asked = len(crowded.statements)
    again = crowded.top(potters.embedder.embed_query("Tomasz's dog"), turns=True, types=None, k=10)
    assert len(again) == 10
    assert crowded.statements[asked:] == ["operators/nearest_turns"]


def test_feedback_through_neo4j_moves_the_vector_as_the_copy_does(potters: Memory) -> None:
    cold, warm = _sources(potters)
    vec = potters.embedder.embed_query("Where does Agata teach?")
    ids = [i for i, _ in warm.top(vec, turns=True, types=None, k=3)]
    a, b = cold.feedback(vec, ids, 0.5), warm.feedback(vec, ids, 0.5)
    assert a is not None and b is not None
    assert np.allclose(a, b, atol=1e-6)


def test_a_typed_search_of_a_large_group_scans_only_those_types(
    potters: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group that counts as large overall but holds few records of the asked types is
    scanned exactly through the (group_id, type) index, with the copy's answer; a type the
    group does not hold costs one count and no scan."""
    _, warm = _sources(potters)
    vec = potters.embedder.embed_query("What does Noor think of Tomasz?")
    counts: dict[str, int] = {}
    for row in store_of(potters).read("inspect/record_labels", group=potters.group):
        counts[row["label"]] = int(row["count"])
    rare = min((n, t) for t, n in counts.items() if t != "Person")[1]
    monkeypatch.setattr(graph_source, "EXACT_SCAN_NODES", counts[rare])
    cold = Operators(_store(potters, "off"), potters.group).source
    assert isinstance(cold, GraphSource)
    found = cold.top(vec, turns=False, types=[rare], k=5)
    _close_pairs(found, warm.top(vec, turns=False, types=[rare], k=5))
    assert found and cold.statements[-2:] == [
        "operators/group_type_size",
        "operators/nearest_records_typed",
    ]
    assert cold.top(vec, turns=False, types=["NoSuchType"], k=5) == []
    assert cold.statements[-1] == "operators/group_type_size"
    # a typed ask counts its types and the store alone: it does not wait on the group's
    # count, which the untyped asks of the same step read at the same time
    assert "operators/group_size" not in cold.statements


def test_a_claim_search_of_a_large_group_asks_the_claim_index(
    potters: Memory, other_groups: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opinions have a vector index of their own: a search for claims in a group that counts
    as large asks ``claim_embedding`` (whose nearest are all claims) and gives the copy's
    answer; without that index (a store of an older cogmem) it asks the shared
    ``memory_embedding`` index instead, with the same answer."""
    _, warm = _sources(potters)
    vec = potters.embedder.embed_query("What does Noor think of Tomasz?")
    expected = warm.top(vec, turns=False, types=["Claim"], k=2)
    assert expected
    monkeypatch.setattr(graph_source, "TYPED_EXACT_SCAN_NODES", 0)
    cold = Operators(_store(potters, "off"), potters.group).source
    assert isinstance(cold, GraphSource)
    _close_pairs(cold.top(vec, turns=False, types=["Claim"], k=2), expected)
    assert "operators/nearest_claims_indexed" in cold.statements
    assert "operators/nearest_records_indexed" not in cold.statements
    store = store_of(potters)
    store.admin("meta/drop_vector_claim")
    try:
        older = Operators(_store(potters, "off"), potters.group).source
        assert isinstance(older, GraphSource)
        _close_pairs(older.top(vec, turns=False, types=["Claim"], k=2), expected)
        assert "operators/nearest_records_indexed" in older.statements
    finally:
        store.admin("schema/vector_claim_embedding", dimension=potters.embedder.dimension)
        store.admin("meta/await_indexes", seconds=120)


# how the fulltext indexes and the nodes of a store from before schema version 6 look
_OLD_FULLTEXT = (
    "MATCH (n) WHERE n.group_id = $group REMOVE n.said_key",
    "DROP INDEX memory_text IF EXISTS",
    "DROP INDEX turn_text IF EXISTS",
    "CREATE FULLTEXT INDEX memory_text FOR (m:Memory) ON EACH [m.content, m.name, m.group_key] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', "
    "`fulltext.eventually_consistent`: true}}",
    "CREATE FULLTEXT INDEX turn_text FOR (t:Turn) ON EACH [t.search_text, t.group_key] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', "
    "`fulltext.eventually_consistent`: true}}",
)


def test_opening_a_store_of_an_older_schema_adds_the_new_indexes(
    potters: Memory, neo4j_settings: Settings
) -> None:
    store = store_of(potters)
    store.admin("meta/drop_group_type_index")
    store.admin("meta/drop_group_type_at_index")
    store.admin("meta/drop_vector_claim")
    settings = potters.settings
    auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        for statement in _OLD_FULLTEXT:
            driver.execute_query(statement, group=potters.group)
    store.admin("meta/await_indexes", seconds=120)
    store.write("meta/set_schema_version", version=1)
    try:
        fresh = Memory(neo4j_settings.model_copy(update={"group": potters.group}))
        fresh.admin.ensure_schema()
        indexes = {row["name"]: row for row in store.admin("meta/show_indexes")}
        assert {"memory_group_type", "memory_group_type_at", "claim_embedding"} <= set(indexes)
        # the fulltext indexes made again with the day key, every node given its day
        assert "said_key" in indexes["memory_text"]["properties"]
        assert "said_key" in indexes["turn_text"]["properties"]
        keyed = [n for n in fresh.export().nodes if {"Turn", "Memory"} & set(n.labels)]
        assert keyed and all(
            str(n.properties.get("said_key", "")).startswith("d2024") for n in keyed
        )
        assert store.read("meta/get_embedder")[0]["schema"] == SCHEMA_VERSION
        store.admin("meta/await_fulltext")
        then = GraphSource(store, potters.group, as_of=datetime(2024, 3, 1, tzinfo=UTC))
        assert then.lexical(["pottery"], turns=True, types=None, k=5)
        fresh.close()
    finally:  # leave the shared store as init makes it
        store.admin("schema/range_memory_group_type")
        store.admin("schema/range_memory_group_type_at")
        store.admin("schema/vector_claim_embedding", dimension=potters.embedder.dimension)
        store.admin("meta/await_indexes", seconds=120)
        store.write("meta/set_schema_version", version=SCHEMA_VERSION)


def persons_step(mem: Memory) -> dict[str, Any]:
    """One Traverse step from both persons of the chat, over their records' links."""
    persons = {p["name"]: p["id"] for p in mem.inspect.operators().persons()}
    return {
        "ids": [persons["Noor"], persons["Tomasz"]],
        "rel_types": ["PARTICIPATED_IN", "CLAIMS", "HAS_FACT", "LIKES", "TARGETS", "ABOUT"],
        "types": None,
        "start": None,
        "end": None,
    }


def _traverse_rows(source: object, mem: Memory, question: str) -> list[tuple[object, ...]]:
    vec = mem.embedder.embed_query(question)
    rows = source.traverse([persons_step(mem)], 4, vec)  # type: ignore[attr-defined]
    return [(r["from_id"], r["id"], r["rel"], round(float(r["vector"]), 6)) for r in rows]


def test_a_dense_node_is_traversed_through_the_vector_index(
    potters: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Persons made to count as dense are reached through ``traverse_hop_indexed`` (their
    neighbours among the store's nearest records), with the rows the copy gives; when the
    index is asked for too few to fill a node's neighbours, that node goes through
    ``traverse_hop`` and the rows are still the copy's."""
    _, warm = _sources(potters)
    question = "What does Noor think of Tomasz?"
    expected = _traverse_rows(warm, potters, question)
    assert expected
    monkeypatch.setattr(graph_source, "DENSE_DEGREE", 1)
    # a person of a few dozen relationships: asking the index would cost more than scoring
    costly = Operators(_store(potters, "off"), potters.group).source
    assert _traverse_rows(costly, potters, question) == expected
    assert "operators/traverse_hop_indexed" not in costly.statements  # type: ignore[attr-defined]
    monkeypatch.setattr(graph_source, "DENSE_FETCH_SHARE", 1e9)  # any ask counts as cheap
    monkeypatch.setattr(graph_source, "INDEX_FETCH_CAP", 10**9)
    dense = Operators(_store(potters, "off"), potters.group).source
    assert _traverse_rows(dense, potters, question) == expected
    assert "operators/traverse_hop_indexed" in dense.statements  # type: ignore[attr-defined]
    monkeypatch.setattr(graph_source, "DENSE_OVERFETCH", 1e-9)  # asks for one: left short
    short = Operators(_store(potters, "off"), potters.group).source
    assert _traverse_rows(short, potters, question) == expected
    assert short.statements[-2:] == [  # type: ignore[attr-defined]
        "operators/traverse_hop_indexed",
        "operators/traverse_hop",
    ]


def test_the_group_clause_filters_without_scoring(potters: Memory, other_groups: list[str]) -> None:
    """With look-alike groups in the index, a word's BM25 in the group is what Lucene gives
    the word alone: the required group clause adds nothing (scored, it would add its idf to
    every match, a constant that grows with the other groups' share)."""
    store, group = store_of(potters), potters.group
    query = lucene_query(group, ["biscuit", "greyhound"], ["search_text"])
    scoped = store.read(
        "operators/fulltext_turns", group=group, query=query, k=10, fetch=10, vector=None
    )
    bare = store.read(
        "operators/fulltext_turns",
        group=group,
        query="search_text:(biscuit greyhound)",
        k=1000,
        fetch=1000,  # every group's matches, the statement keeps this group's
        vector=None,
    )
    assert scoped
    want = {r["node"]["id"]: r["score"] for r in bare}
    for row in scoped:
        assert row["score"] == pytest.approx(want[row["node"]["id"]], abs=1e-4)


def test_closing_a_memory_waits_for_the_copy_read_behind_its_search(
    potters: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Memory that built its own driver and is closed right after a first search (a
    one-shot process) lets the background read of the group's copy finish before the
    driver closes: closed under it, the read broke its connection mid-stream (the driver's
    'defunct connection' retries, a BufferError in `cogmem ask`)."""
    import threading
    import time

    from cogmem.retrieval.vector_cache import VectorCache

    slow_sync = VectorCache.sync

    def sync(self: VectorCache, store: Store, group: str) -> GroupVectors:
        time.sleep(0.5)  # a group that takes a while to read
        return slow_sync(self, store, group)

    monkeypatch.setattr(VectorCache, "sync", sync)
    mem = Memory(potters.settings.model_copy(update={"search_cache": "auto"}))
    mem.retrieve("What is the name of Tomasz's dog?", k=5)
    assert any(t.name.startswith("cogmem-warm-") for t in threading.enumerate())
    mem.close()
    assert not any(t.name.startswith("cogmem-warm-") for t in threading.enumerate())


def test_a_second_vector_is_scored_among_the_first_asks_pool(
    potters: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a group large enough for the HNSW index, the same ask for a second vector of
    the search (the feedback pass) scores the group's nodes the first ask's index call
    returned instead of asking the index again: one index call a kind, the copy's rows
    wherever the pool holds them (here it holds the whole group)."""
    _, warm = _sources(potters)
    monkeypatch.setattr(graph_source, "EXACT_SCAN_NODES", 0)
    monkeypatch.setattr(graph_source, "INDEX_FIRST_FETCH", graph_source.INDEX_FETCH_CAP)
    cold = Operators(_store(potters, "off"), potters.group).source
    assert isinstance(cold, GraphSource)
    first = potters.embedder.embed_query("Where does Agata teach ceramics?")
    ids = [i for i, _ in warm.top(first, turns=True, types=None, k=3)]
    second = cold.feedback(first, ids, 0.2)
    assert second is not None
    for turns in (True, False):
        kind = "turns" if turns else "records"
        _close_pairs(
            cold.top(first, turns=turns, types=None, k=3),
            warm.top(first, turns=turns, types=None, k=3),
        )
        _close_pairs(
            cold.top(second, turns=turns, types=None, k=3),
            warm.top(second, turns=turns, types=None, k=3),
        )
        assert cold.statements.count(f"operators/nearest_{kind}_indexed") == 1
        assert cold.statements.count(f"operators/nearest_{kind}_among") == 1


def test_an_exact_scan_of_a_larger_group_scores_a_second_vector_among_its_nearest(
    potters: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scanned exactly (a group under the HNSW limit) but large enough that a second scan
    costs more than a lookup (``POOLED_SCAN_NODES``), the first vector's scan also returns
    the ids of its nearest few times k, and the second vector of the same ask (the feedback
    pass) scores those: one scan a kind, the copy's rows wherever the pool holds them (here
    it holds the whole group). Below the limit both vectors scan."""
    _, warm = _sources(potters)
    first = potters.embedder.embed_query("Where does Agata teach ceramics?")
    ids = [i for i, _ in warm.top(first, turns=True, types=None, k=3)]
    small = Operators(_store(potters, "off"), potters.group).source
    assert isinstance(small, GraphSource)
    second = small.feedback(first, ids, 0.2)
    assert second is not None
    for vec in (first, second):
        small.top(vec, turns=True, types=None, k=3)
    assert small.statements.count("operators/nearest_turns") == 2
    assert "operators/nearest_turns_among" not in small.statements
    monkeypatch.setattr(graph_source, "POOLED_SCAN_NODES", 0)
    monkeypatch.setattr(graph_source, "INDEX_FIRST_FETCH", graph_source.INDEX_FETCH_CAP)
    cold = Operators(_store(potters, "off"), potters.group).source
    assert isinstance(cold, GraphSource)
    for turns in (True, False):
        kind = "turns" if turns else "records"
        for vec in (first, second):
            _close_pairs(
                cold.top(vec, turns=turns, types=None, k=3),
                warm.top(vec, turns=turns, types=None, k=3),
            )
        assert cold.statements.count(f"operators/nearest_{kind}") == 1
        assert cold.statements.count(f"operators/nearest_{kind}_among") == 1
        assert f"operators/nearest_{kind}_indexed" not in cold.statements


def test_a_failed_index_ask_sizes_the_next_by_the_groups_share_of_it(
    potters: Memory, other_groups: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the group's nodes among the index's nearest are fewer than k, the next ask is
    sized by their share of that first ask, not by the group's count (counted only up to
    the scan limit, it makes the share of a large group look far smaller): still the
    copy's rows, from a smaller second ask."""
    _, warm = _sources(potters)
    vec = potters.embedder.embed_query("Where does Agata teach ceramics?")
    monkeypatch.setattr(graph_source, "EXACT_SCAN_NODES", 1)  # every group counts as huge
    monkeypatch.setattr(graph_source, "INDEX_FIRST_FETCH", 1)  # a first ask of k alone
    fetched: list[int] = []
    read = GraphSource._read

    def spy(self: GraphSource, name: str, **params: object) -> list[dict[str, object]]:
        if name == "operators/nearest_turns_indexed":
            fetched.append(int(str(params["fetch"])))
        return read(self, name, **params)

    monkeypatch.setattr(GraphSource, "_read", spy)
    cold = Operators(_store(potters, "off"), potters.group).source
    assert isinstance(cold, GraphSource)
    k = 6
    _close_pairs(
        cold.top(vec, turns=True, types=None, k=k), warm.top(vec, turns=True, types=None, k=k)
    )
    sizes = cold._sizes_of("turns")
    by_count = min(graph_source.INDEX_FETCH_CAP, k * sizes["all_turns"] // 2 * 2)
    assert len(fetched) >= 2 and fetched[0] == k  # the first ask held too few of them
    assert 2 * k <= fetched[1] < by_count
