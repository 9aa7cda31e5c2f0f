"""A search as of a time through Neo4j alone (issue 32): the cheaper ways the cold path reads
a large group's past give the rows of the exact scan, and word rarity as of a time is that
of a group that holds only what was said by then."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.ingest.ids import said_key
from cogmem.retrieval import graph_source
from cogmem.retrieval.graph_source import GraphSource
from cogmem.store import Store
from tests.integration.test_cold_search import persons_step, potters, write_chat
from tests.internals import store_of

__all__ = ["potters"]  # the chat, ingested: test_cold_search's fixture

pytestmark = pytest.mark.integration

THEN = datetime(2024, 3, 1, tzinfo=UTC)
"""Between the chat's first session (3 February) and its second (17 March)."""
SAME_DAY = datetime(2024, 3, 17, 12, 0, tzinfo=UTC)
"""The second session's day, hours before it: the group held the first session alone."""


@pytest.fixture
def first_session(neo4j_settings: Settings, store: Store, tmp_path: Path) -> Iterator[Memory]:
    """A group into which only the first session (all that was said by THEN) was ingested."""
    name = f"{tmp_path.name[-12:]}-then".lower().replace("_", "-")
    mem = Memory(neo4j_settings.model_copy(update={"group": name}), store=store)
    mem.ingest(write_chat(tmp_path / "then.jsonl", sessions=1))
    store_of(mem).admin("meta/await_fulltext")  # Lucene lags a commit by moments
    yield mem
    while store.write("admin/forget_group", group=name, batch=5000)[0]["deleted"]:
        pass


def _said_then(mem: Memory) -> dict[str, int]:
    """How many turns and records the group held at THEN, counted without a cap."""
    (row,) = store_of(mem).read(
        "operators/group_size", group=mem.group, cap=10**9, as_of=THEN, as_of_cap=10**9
    )
    return {"turns": int(row["turns_then"]), "records": int(row["records_then"])}


def _pairs(found: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    assert found and [i for i, _ in found] == [i for i, _ in expected]
    assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=1e-9)


@pytest.mark.parametrize("as_of", [THEN, SAME_DAY], ids=["between-sessions", "same-day"])
def test_word_rarity_as_of_a_time_is_that_of_the_group_then(
    potters: Memory, first_session: Memory, as_of: datetime
) -> None:
    """Lucene keeps the turns said by the end of the day; those of that day said after the
    time (all of the second session, at SAME_DAY) are counted apart and taken off."""
    words = ["greyhound", "pottery", "the", "class", "first"]
    then = GraphSource(store_of(potters), potters.group, as_of=as_of).turn_idf(words)
    only = GraphSource(store_of(first_session), first_session.group).turn_idf(words)
    assert then == pytest.approx(only)
    # the greyhound was not yet named then (the rarest word); it was by now
    now = GraphSource(store_of(potters), potters.group).turn_idf(words)
    assert then[0] > then[1] > 0.0 and now[0] < then[0]
    before = GraphSource(store_of(potters), potters.group, as_of=datetime(2020, 1, 1, tzinfo=UTC))
    assert before.turn_idf(words) == [0.0] * len(words)


def test_an_early_time_in_a_large_group_asks_the_index_for_its_share_at_once(
    potters: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The group counts as large now, but what it held then is counted exactly: the HNSW
    index is asked once, for that share (no small first ask that could not hold k of
    them), and gives the exact scan's rows."""
    vec = potters.embedder.embed_query("When did Noor sign up for the pottery class?")
    expected = GraphSource(store_of(potters), potters.group, as_of=THEN).top(
        vec, turns=True, types=None, k=4
    )
    visible = _said_then(potters)["turns"]
    monkeypatch.setattr(graph_source, "EXACT_SCAN_NODES", visible)
    monkeypatch.setattr(graph_source, "AS_OF_EXACT_SCAN_NODES", 0)
    cold = GraphSource(store_of(potters), potters.group, as_of=THEN)
    _pairs(cold.top(vec, turns=True, types=None, k=4), expected)
    assert cold.statements.count("operators/nearest_turns_indexed") == 1
    assert "operators/nearest_turns" not in cold.statements


@pytest.mark.parametrize("types", [["Event", "Claim"], ["Person", "Concept", "Event", "Claim"]])
def test_a_typed_search_as_of_a_time_reads_only_those_types_said_by_then(
    potters: Memory, monkeypatch: pytest.MonkeyPatch, types: list[str]
) -> None:
    """As of a time in a group that counts as large, a search of some types counts the
    records of those types said by then (records through the (group_id, type, at) index,
    entities through (group_id, first_at)): few are scanned exactly, more ask the HNSW
    index for their share; the exact scan's rows either way."""
    vec = potters.embedder.embed_query("What does Noor think of the pottery class?")
    expected = GraphSource(store_of(potters), potters.group, as_of=THEN).top(
        vec, turns=False, types=types, k=5
    )
    monkeypatch.setattr(graph_source, "EXACT_SCAN_NODES", _said_then(potters)["records"])
    monkeypatch.setattr(graph_source, "AS_OF_EXACT_SCAN_NODES", 0)
    cold = GraphSource(store_of(potters), potters.group, as_of=THEN)
    _pairs(cold.top(vec, turns=False, types=types, k=5), expected)
    assert cold.statements[-2:] == [
        "operators/group_type_size",
        "operators/nearest_records_typed_as_of",
    ]
    monkeypatch.setattr(graph_source, "TYPED_EXACT_SCAN_NODES", 0)
    asked = GraphSource(store_of(potters), potters.group, as_of=THEN)
    _pairs(asked.top(vec, turns=False, types=types, k=5), expected)
    assert "operators/nearest_records_indexed" in asked.statements


def test_a_typed_count_as_of_a_time_counts_what_was_said_by_then(potters: Memory) -> None:
    counts = {}
    for as_of in (None, THEN, datetime(2020, 1, 1, tzinfo=UTC)):
        (row,) = store_of(potters).read(
            "operators/group_type_size",
            group=potters.group,
            types=["Person", "Event"],
            cap=10**9,
            as_of=as_of,
        )
        counts[as_of] = (int(row["records"]), int(row["records_then"]))
        # the store's records and claims come with it: a typed ask needs no group_size
        assert int(row["all_records"]) >= int(row["records"]) and int(row["all_claims"]) > 0
    now, _ = counts[None]
    assert counts[None] == (now, 0)
    assert 0 < counts[THEN][1] < now and counts[THEN][0] == now
    assert counts[datetime(2020, 1, 1, tzinfo=UTC)] == (now, 0)


def test_the_group_is_counted_for_the_kind_asked(potters: Memory) -> None:
    """A search's turn and record asks count the group apart (each waits on its own count):
    each kind's counts, now and then, are those of the count of both."""
    rows = {
        kind: store_of(potters).read(
            "operators/group_size",
            group=potters.group,
            kind=kind,
            cap=10**9,
            as_of=THEN,
            as_of_cap=10**9,
        )[0]
        for kind in (None, "turns", "records")
    }
    both, turns, records = rows[None], rows["turns"], rows["records"]
    assert both["turns"] > both["turns_then"] > 0 and both["records"] > both["records_then"] > 0
    assert (turns["turns"], turns["turns_then"]) == (both["turns"], both["turns_then"])
    assert (turns["records"], turns["records_then"]) == (0, 0)
    assert (records["records"], records["records_then"]) == (both["records"], both["records_then"])
    assert (records["turns"], records["turns_then"]) == (0, 0)
    assert records["all_turns"] == both["all_turns"] and turns["all_claims"] == both["all_claims"]


def test_each_turn_and_record_carries_the_utc_day_it_was_said(
    neo4j_settings: Settings, store: Store, group: str
) -> None:
    """Said at 00:30 in Berlin (+01:00) is said the day before in UTC: the Lucene day key
    of the turn, its records and its entities is that UTC day, as the query side computes
    it from a search's time."""
    mem = Memory(neo4j_settings.model_copy(update={"group": group}), store=store)
    at = datetime(2024, 3, 2, 0, 30, tzinfo=timezone(timedelta(hours=1)))
    mem.add_turn(speaker="Ines", text="I started learning the cello with Tomas.", at=at)
    nodes = [n for n in mem.export().nodes if {"Turn", "Memory"} & set(n.labels)]
    assert {"Turn", "Person", "Event"} <= {label for n in nodes for label in n.labels}
    assert said_key(at) == "d20240301"
    assert {n.properties.get("said_key") for n in nodes} == {"d20240301"}


@pytest.mark.parametrize(
    ("turns", "types"), [(True, None), (False, None), (False, ["Event", "Claim"])]
)
def test_lucene_as_of_a_time_gives_the_matches_of_now_said_by_then(
    potters: Memory, turns: bool, types: list[str] | None
) -> None:
    """Lucene keeps what was said by the end of the day asked (the day key, scored ^0), the
    statement what was said by the time: the best matches of now said by then, with the
    very BM25 scores of now."""
    words = ["pottery", "class", "noor", "greyhound", "kiln", "bikes", "tatra"]
    now = GraphSource(store_of(potters), potters.group)
    everything = now.lexical(words, turns=turns, types=types, k=500)
    said = store_of(potters).read(  # what was said by then: a record's at, an entity's first_at
        "operators/nodes_by_id",
        group=potters.group,
        ids=[i for i, _ in everything],
        vector=None,
        as_of=THEN,
    )
    said_ids = {row["node"]["id"] for row in said}
    visible = [(i, s) for i, s in everything if i in said_ids]
    assert len(visible) >= 2 and len(everything) > len(visible)
    cold = GraphSource(store_of(potters), potters.group, as_of=THEN)
    _pairs(cold.lexical(words, turns=turns, types=types, k=4), visible[:4])


def test_as_of_a_time_a_second_vector_scores_the_first_scans_nearest(
    potters: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a group too large to scan now, a search as of a time that held few nodes scans
    those exactly for its first vector and scores that scan's nearest for its second (the
    feedback pass), as a search of now scores its HNSW ask's pool: the exact scan's rows
    wherever the pool holds them (here the pool holds all said by then). A small group
    scans for both vectors, as it does now."""
    first = potters.embedder.embed_query("Where does Agata teach ceramics?")
    small = GraphSource(store_of(potters), potters.group, as_of=THEN)
    ids = [i for i, _ in small.top(first, turns=True, types=None, k=3)]
    second = small.feedback(first, ids, 0.2)
    assert second is not None
    expected = {
        (turns, n): small.top(vec, turns=turns, types=None, k=3)
        for turns in (True, False)
        for n, vec in enumerate((first, second))
    }
    for kind in ("turns", "records"):  # the small group scanned for each vector
        assert small.statements.count(f"operators/nearest_{kind}_as_of") >= 2
        assert f"operators/nearest_{kind}_among" not in small.statements
    monkeypatch.setattr(graph_source, "EXACT_SCAN_NODES", 0)  # the group counts as large
    monkeypatch.setattr(graph_source, "INDEX_FIRST_FETCH", graph_source.INDEX_FETCH_CAP)
    large = GraphSource(store_of(potters), potters.group, as_of=THEN)
    for turns in (True, False):
        kind = "turns" if turns else "records"
        for n, vec in enumerate((first, second)):
            _pairs(large.top(vec, turns=turns, types=None, k=3), expected[(turns, n)])
        assert large.statements.count(f"operators/nearest_{kind}_as_of") == 1
        assert large.statements.count(f"operators/nearest_{kind}_among") == 1


def test_as_of_an_early_time_a_dense_nodes_neighbours_are_scored(
    potters: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fewer of a dense node's neighbours had been said by then: the HNSW ask grows by the
    group's records now over those said then, and where that ask is no longer cheap the
    neighbours are scored (``traverse_hop``), with the rows of a search as of then that
    never asked the index."""
    step = persons_step(potters)
    ids = [str(i) for i in step["ids"]]
    vec = potters.embedder.embed_query("What does Noor think of Tomasz?")
    expected = GraphSource(store_of(potters), potters.group, as_of=THEN).traverse([step], 4, vec)
    assert expected
    monkeypatch.setattr(graph_source, "DENSE_DEGREE", 1)  # both persons count as dense
    monkeypatch.setattr(graph_source, "INDEX_FETCH_CAP", 10**9)
    monkeypatch.setattr(graph_source, "DENSE_FETCH_SHARE", 10**9)  # any ask is cheap
    now = GraphSource(store_of(potters), potters.group)._dense([step], 4)
    then_source = GraphSource(store_of(potters), potters.group, as_of=THEN)
    then = then_source._dense([step], 4)
    sizes = then_source._sizes_of("records")
    grown = sizes["records"] / sizes["records_then"]
    assert grown > 1.2 and set(now) == set(then) == set(ids)
    for node, fetch in now.items():
        assert then[node] == pytest.approx(fetch * grown, rel=0.05)
    # an ask of now's size is cheap, one grown by then's share is not: scored instead
    degrees = {
        str(r["id"]): int(r["degree"])
        for r in store_of(potters).read("operators/degrees", group=potters.group, ids=ids)
    }
    monkeypatch.setattr(
        graph_source, "DENSE_FETCH_SHARE", max(f / degrees[i] for i, f in now.items()) * 1.01
    )
    assert set(GraphSource(store_of(potters), potters.group)._dense([step], 4)) == set(now)
    scored = GraphSource(store_of(potters), potters.group, as_of=THEN)
    assert scored.traverse([step], 4, vec) == expected
    assert "operators/traverse_hop_indexed" not in scored.statements
