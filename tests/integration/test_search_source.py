"""One contract, two sources (issue 49): every read of the ``SearchSource`` protocol gives
the same answer through Neo4j's own indexes (``GraphSource``, the operators' statements) and
from the process's copy of the group (``CachedSource``), on one group, now and as of a time
after everything was said (a look back that drops nothing must change nothing). A change
to one source alone fails here. The copy is never asked as of a time: such a search always
runs on Neo4j (:class:`cogmem.retrieval.operators.Operators`)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.retrieval.graph_source import GraphSource
from cogmem.retrieval.operators import DEFAULT_TRAVERSE_RELS, INTERSECT_RELS, Operators
from cogmem.retrieval.source import CachedSource, SearchSource
from cogmem.retrieval.vector_cache import clear_vector_caches, vector_cache
from cogmem.retrieval.vectors import GroupVectors
from cogmem.store import Store
from tests.integration.test_cold_search import QUESTIONS, write_chat
from tests.internals import store_of

pytestmark = pytest.mark.integration

LATER = datetime(2030, 1, 1, tzinfo=UTC)
TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def chat(
    neo4j_settings: Settings, store: Store, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Memory]:
    """The potters' chat of test_cold_search, ingested once for the module."""
    group = f"test-source-{uuid.uuid4().hex[:10]}"
    mem = Memory(neo4j_settings.model_copy(update={"group": group}), store=store)
    mem.ingest(write_chat(tmp_path_factory.mktemp("chat") / "chat.jsonl"))
    store_of(mem).admin("meta/await_fulltext")  # Lucene lags a commit by moments
    clear_vector_caches()
    yield mem
    clear_vector_caches()
    while store.write("admin/forget_group", group=group, batch=5000)[0]["deleted"]:
        pass


@pytest.fixture(params=[None, LATER], ids=["now", "as-of-later"])
def pair(request: pytest.FixtureRequest, chat: Memory) -> tuple[SearchSource, SearchSource]:
    """The graph source (now, or as of a time after everything) and the cached one."""
    graph = Operators(store_of(chat).with_settings(search_cache="off"), chat.group, request.param)
    cached = Operators(store_of(chat).with_settings(search_cache="eager"), chat.group)
    assert isinstance(graph.source, GraphSource) and isinstance(cached.source, CachedSource)
    return graph.source, cached.source


def same_ranked(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> None:
    assert [i for i, _ in a] == [i for i, _ in b]
    assert [s for _, s in a] == pytest.approx([s for _, s in b], abs=TOLERANCE)


def test_the_sources_say_which_reads_to_run_at_once(
    pair: tuple[SearchSource, SearchSource],
) -> None:
    graph, cached = pair
    assert graph.reads_at_once and not cached.reads_at_once


def test_nearest_nodes_and_similarities_agree(
    chat: Memory, pair: tuple[SearchSource, SearchSource]
) -> None:
    graph, cached = pair
    for question in QUESTIONS[:5]:
        vec = chat.embedder.embed_query(question)
        for turns, types in ((True, None), (False, None), (False, ["Event", "Claim"])):
            same_ranked(
                graph.top(vec, turns=turns, types=types, k=10),
                cached.top(vec, turns=turns, types=types, k=10),
            )
        ids = [i for i, _ in cached.top(vec, turns=False, types=None, k=20)]
        assert graph.similarity(vec, ids) == pytest.approx(
            cached.similarity(vec, ids), abs=TOLERANCE
        )


def test_word_matches_and_word_rarity_agree(pair: tuple[SearchSource, SearchSource]) -> None:
    graph, cached = pair
    for words in (["pottery", "class"], ["greyhound"], ["bike", "chain"]):
        for turns in (True, False):
            a = graph.lexical(words, turns=turns, types=None, k=500)
            b = cached.lexical(words, turns=turns, types=None, k=500)
            assert {i for i, _ in a} == {i for i, _ in b} and a, words
    graph.prefetch_idf(["greyhound", "the"])
    cached.prefetch_idf(["greyhound", "the"])
    assert graph.turn_idf(["greyhound", "the"]) == pytest.approx(
        cached.turn_idf(["greyhound", "the"])
    )


def test_nodes_and_persons_agree(chat: Memory, pair: tuple[SearchSource, SearchSource]) -> None:
    graph, cached = pair
    vec = chat.embedder.embed_query(QUESTIONS[0])
    for node_id, _ in cached.top(vec, turns=False, types=None, k=15):
        a, b = graph.node(node_id), cached.node(node_id)
        assert a is not None and b is not None
        shared = {k for k in a if k in b and k not in ("evidence", "links")}
        assert {k: a[k] for k in shared} == {k: b[k] for k in shared}
    assert graph.node("no-such-node") is None and cached.node("no-such-node") is None
    persons = [sorted((p["name"], p["id"]) for p in s.persons) for s in pair]
    assert persons[0] == persons[1] and persons[0]


def test_traverse_and_intersect_agree(
    chat: Memory, pair: tuple[SearchSource, SearchSource]
) -> None:
    graph = pair[0]
    vec = chat.embedder.embed_query("What does Tomasz like?")
    ids = sorted(p["id"] for p in graph.persons if p["name"] in ("Noor", "Tomasz"))
    assert len(ids) == 2
    steps = [
        {
            "ids": ids,
            "rel_types": [r.value for r in DEFAULT_TRAVERSE_RELS],
            "types": None,
            "start": None,
            "end": None,
        }
    ]
    walked = [sorted((r["step"], r["id"]) for r in s.traverse(steps, 15, vec)) for s in pair]
    assert walked[0] == walked[1] and walked[0]
    shared_rels = [r.value for r in INTERSECT_RELS]
    shared = [sorted(r["id"] for r in s.intersect(ids, shared_rels, 10, vec, 2)) for s in pair]
    assert shared[0] == shared[1]


def test_ground_and_feedback_agree(chat: Memory, pair: tuple[SearchSource, SearchSource]) -> None:
    graph, cached = pair
    vec = chat.embedder.embed_query("What is the name of Tomasz's dog?")
    turns = [i for i, _ in cached.top(vec, turns=True, types=None, k=3)]
    records = [i for i, _ in cached.top(vec, turns=False, types=["Event"], k=3)]
    for seeds, window in ((turns, 1), (turns, 0), (records, 0)):
        grounded = [
            sorted((r["id"], r["offset"]) for r in s.ground(seeds, window, 3, None)) for s in pair
        ]
        assert grounded[0] == grounded[1] and grounded[0], (seeds, window)
    a, b = graph.feedback(vec, turns, 0.5), cached.feedback(vec, turns, 0.5)
    assert a is not None and b is not None
    assert np.allclose(a, b, atol=1e-5)


def test_a_copy_caught_up_after_live_turns_equals_one_read_afresh(
    neo4j_settings: Settings, store: Store, group: str, tmp_path: Path
) -> None:
    """The catch-up read ships a person's or concept's relationships to what changed only,
    and the copy keeps the rest: after live turns that name persons (new events, a new
    person, new likes), every node's fields and relationships, and the persons, are those
    of a copy read from scratch."""
    mem = Memory(neo4j_settings.model_copy(update={"group": group}), store=store)
    mem.ingest(write_chat(tmp_path / "chat.jsonl"))
    clear_vector_caches()
    cache = vector_cache(neo4j_settings.vector_cache_mb)
    cache.sync(store, group)
    for speaker, text in (
        ("Noor", "Tomasz and I went climbing with Agata on Sunday."),
        ("Tomasz", "I love bouldering now, and my cousin Ewa joined us too."),
        ("Noor", "Ewa and Agata both like the new climbing gym in Gdansk."),
    ):
        mem.add_turn(speaker, text, conversation="c1")
        caught_up = cache.sync(store, group)

    def links_of(copy: GroupVectors) -> dict[str, Any]:
        return {
            i: (sorted(map(tuple, f.get("links") or ())), f.get("name"), f.get("content"))
            for i in copy.ids
            if (f := copy.node(i)) is not None
        }

    clear_vector_caches()
    afresh = vector_cache(neo4j_settings.vector_cache_mb).sync(store, group)
    assert caught_up is not afresh
    assert links_of(caught_up) == links_of(afresh)
    assert caught_up.persons == afresh.persons
    assert any(p["name"] == "Ewa" for p in afresh.persons)
