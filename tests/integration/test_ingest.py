"""Ingest against the real server with the real offline embedder."""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import Future
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from neo4j import GraphDatabase

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.embed import Embedder
from cogmem.ingest import Ingestor, ReaderError, read_file
from cogmem.ingest.ingestor import Embedded, KnownVectors
from cogmem.models import Conversation, Turn
from cogmem.store import Store
from tests.internals import store_of

pytestmark = pytest.mark.integration

HOSTILE = "'}) DETACH DELETE n // MATCH (m) SET m.x = 1"


def locomo_sample(sample_id: str = "t-1") -> dict:
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Melanie",
            "speaker_b": "Caroline",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Melanie",
                    "dia_id": "D1:1",
                    "text": "Hey Caroline! I went to a pottery class yesterday and loved it.",
                },
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:2",
                    "text": (
                        "Thanks, Mel! You're so brave for trying new things. I think Jon is lazy."
                    ),
                },
                {
                    "speaker": "Melanie",
                    "dia_id": "D1:3",
                    "text": "We decided to paint the kitchen together next month.",
                    "blip_caption": "a photo of a blue kitchen",
                    "img_url": ["http://x/y.jpg"],
                },
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:4",
                    "text": "Remember to buy the blue paint. I'll call the shop tomorrow.",
                },
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:1",
                    "text": "I realized that painting calms me down. I love painting.",
                },
                {"speaker": "Caroline", "dia_id": "D2:2", "text": HOSTILE},
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:3",
                    "text": "The budget for the trip is 500 dollars, booked for Lisbon in June.",
                },
                {"speaker": "Caroline", "dia_id": "D2:4", "text": "Ünïcødé ✓ 日本語 — “quotes”"},
            ],
        },
        "qa": [],
    }


@pytest.fixture
def mem(neo4j_settings: Settings, store: Store, group: str) -> Memory:
    return Memory(neo4j_settings.model_copy(update={"group": group}), store=store)


def write(tmp_path: Path, data: object, name: str = "conv.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def memory_rows(mem: Memory) -> list[dict]:
    return store_of(mem).read("inspect/records_with_turns", group=mem.group)


def test_ingest_builds_a_provenance_graph(mem: Memory, tmp_path: Path) -> None:
    summary = mem.ingest(write(tmp_path, [locomo_sample()]))
    assert summary.format == "locomo"
    assert summary.turns == 8
    assert summary.dropped == 0
    counts = mem.inspect.counts()
    assert counts["labels"]["Turn"] == 8
    assert counts["labels"]["Session"] == 2
    assert counts["labels"]["Conversation"] == 1
    assert counts["relationships"]["NEXT"] == 7
    for label in ("Person", "Event", "Fact", "Claim", "Decision", "Todo", "Reminder", "Insight"):
        assert counts["labels"].get(label, 0) > 0, label
    persons = {r["name"] for r in store_of(mem).read("operators/entities", group=mem.group)}
    assert {"Melanie", "Caroline"} <= persons
    rows = memory_rows(mem)
    assert rows, "no records"
    for row in rows:
        assert row["turn_texts"], f"{row['type']} {row['id']} has no EVIDENCED_BY edge"
        if row["quote"] is not None and row["type"] not in ("Person", "Concept"):
            assert any(row["quote"] in text for text in row["turn_texts"]), row


def test_turns_keep_text_speaker_time_and_source_id(mem: Memory, tmp_path: Path) -> None:
    mem.ingest(write(tmp_path, [locomo_sample()]))
    turns = {t["source_id"]: t for t in store_of(mem).read("inspect/turns", group=mem.group)}
    assert turns["D2:2"]["text"] == HOSTILE  # stored verbatim, harmless
    assert turns["D2:4"]["text"] == "Ünïcødé ✓ 日本語 — “quotes”"
    assert turns["D1:3"]["caption"] == "a photo of a blue kitchen"
    assert "a photo of a blue kitchen" in turns["D1:3"]["full_text"]
    assert turns["D1:1"]["speaker"] == "Melanie"
    assert turns["D1:1"]["at"] == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert turns["D2:1"]["at"] == datetime(2023, 5, 20, 10, 0, tzinfo=UTC)
    # the hostile text did not run: no node ever got an x property
    assert "x" not in store_of(mem).read("inspect/property_keys")[0]["keys"]


def test_relative_dates_are_resolved_against_the_turn(mem: Memory, tmp_path: Path) -> None:
    mem.ingest(write(tmp_path, [locomo_sample()]))
    events = [r for r in memory_rows(mem) if r["type"] == "Event" and r["time_text"]]
    pottery = next(r for r in events if "pottery" in r["quote"])
    assert pottery["time_text"] == "yesterday"
    assert pottery["time_start"] == datetime(2023, 5, 7, tzinfo=UTC)
    assert pottery["time_end"] == datetime(2023, 5, 8, tzinfo=UTC)


def test_alias_and_claims_keep_their_speaker(mem: Memory, tmp_path: Path) -> None:
    mem.ingest(write(tmp_path, [locomo_sample()]))
    persons = {r["name"]: r for r in store_of(mem).read("operators/entities", group=mem.group)}
    assert "Mel" not in persons  # "Thanks, Mel!" resolved to Melanie
    assert "Mel" in persons["Melanie"]["aliases"]
    claims = [r for r in memory_rows(mem) if r["type"] == "Claim"]
    brave = next(c for c in claims if "brave" in c["quote"])
    assert brave["source"] == "Caroline" and brave["target"] == "Melanie"
    lazy = next(c for c in claims if "lazy" in c["quote"])
    assert lazy["source"] == "Caroline" and lazy["target"] == "Jon"


def test_reingest_changes_nothing(mem: Memory, tmp_path: Path) -> None:
    path = write(tmp_path, [locomo_sample()])
    mem.ingest(path)
    first = mem.inspect.counts()
    mem.ingest(path)
    assert mem.inspect.counts() == first


def test_a_name_learned_late_is_found_early_and_reingest_still_changes_nothing(
    mem: Memory, tmp_path: Path
) -> None:
    """ "Max" is only shown to be a name in the second session; the first ingest already
    links Max to the first session, so a second ingest (seeded from the graph) adds no
    edge."""
    lines = [
        ("1", "John", "What are the names of your pets?"),
        ("1", "James", "Max and Daisy. They love the park."),
        ("2", "James", "Yesterday I went to the beach with Max, he loved it."),
        ("2", "John", "He looks so happy!"),
    ]
    path = tmp_path / "pets.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"conversation": "pets", "session": s, "speaker": who, "text": text})
            for s, who, text in lines
        ),
        encoding="utf-8",
    )
    mem.ingest(path)
    first = mem.inspect.counts()
    max_turns = {
        turn
        for r in memory_rows(mem)
        if r["type"] == "Person" and r["name"] == "Max"
        for turn in r["turn_texts"]
    }
    assert any(t.startswith("Max and Daisy") for t in max_turns)
    mem.ingest(path)
    assert mem.inspect.counts() == first


def test_interrupted_ingest_is_completed_by_a_rerun(
    mem: Memory, tmp_path: Path, neo4j_settings: Settings, store: Store
) -> None:
    path = write(tmp_path, [locomo_sample()])
    clean = mem.for_group(mem.group + "-clean")
    try:
        clean.ingest(path)
        expected = clean.inspect.counts()
    finally:
        clean.forget()

    calls = {"n": 0}
    original = store.transaction

    def failing(work):  # the second batch dies mid-ingest
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("simulated crash")
        return original(work)

    conversations = read_file(path).conversations
    ingestor = Ingestor(store, mem.embedder, mem.extractor, mem.group, batch_size=4)
    store.transaction = failing  # type: ignore[method-assign]
    try:
        with pytest.raises(RuntimeError, match="simulated crash"):
            ingestor.ingest(conversations)
    finally:
        store.transaction = original  # type: ignore[method-assign]
    complete = store_of(mem).read("inspect/conversations", group=mem.group)
    assert [c["complete"] for c in complete] == [False]
    assert mem.inspect.counts() != expected
    mem.ingest(path)
    assert mem.inspect.counts() == expected
    assert [
        c["complete"] for c in store_of(mem).read("inspect/conversations", group=mem.group)
    ] == [True]


def test_malformed_file_writes_nothing(mem: Memory, tmp_path: Path) -> None:
    bad = [
        locomo_sample(),
        {"sample_id": "broken", "conversation": {"speaker_a": "A", "session_1": "oops"}},
    ]
    with pytest.raises(ReaderError) as info:
        mem.ingest(write(tmp_path, bad))
    assert "conv.json" in str(info.value)
    assert mem.inspect.counts()["nodes"] == 0


def test_jsonl_huge_and_empty_turns(mem: Memory, tmp_path: Path) -> None:
    big = "word " * 20_000  # 100k characters
    lines = [
        {"conversation": "c", "speaker": "ann", "text": big, "timestamp": "2024-01-02T10:00:00"},
        {"conversation": "c", "speaker": "bob", "text": "", "timestamp": "2024-01-02T10:01:00"},
        {"conversation": "c", "role": "assistant", "content": "Noted, I'll remember it."},
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    summary = mem.ingest(path)
    assert summary.format == "jsonl"
    assert summary.skipped_turns == 1  # the empty one, counted, not stored
    turns = store_of(mem).read("inspect/turns", group=mem.group)
    assert len(turns) == 2
    assert any(t["text"] == big for t in turns)


def test_add_turn_appends_a_live_chat(mem: Memory) -> None:
    at = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)
    mem.add_turn(speaker="Ann", text="I adopted a cat named Miso last week.", at=at)
    mem.add_turn(speaker="Bob", text="Congrats, Ann! Cats are great.", at=at)
    counts = mem.inspect.counts()
    assert counts["labels"]["Turn"] == 2
    assert counts["relationships"]["NEXT"] == 1
    event = next(r for r in memory_rows(mem) if r["type"] == "Event")
    assert event["time_text"] == "last week"
    assert event["time_start"] == datetime(2024, 1, 22, tzinfo=UTC)
    mem.add_turn(speaker="Cleo", text="Hi both, what did I miss?", at=at)
    mem.add_turn(speaker="Ann", text="Miso, my new cat.", at=at)
    (conv,) = [n for n in mem.export().nodes if "Conversation" in n.labels]
    assert conv.properties["speakers"] == ["Ann", "Bob", "Cleo"]  # everyone, first come first
    assert conv.properties["complete"] is True and conv.properties["source_format"] == "live"


class RecordingEmbedder:
    """The real embedder, recording every text it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.texts.append(text)
        return self.inner.embed_query(text)


def test_an_entity_is_embedded_once_per_group_and_every_node_has_its_vector(
    mem: Memory, tmp_path: Path
) -> None:
    conversations = read_file(write(tmp_path, [locomo_sample()])).conversations
    mem.admin.ensure_schema()
    cache = KnownVectors()
    first = RecordingEmbedder(mem.embedder)
    Ingestor(store_of(mem), first, mem.extractor, mem.group, cache=cache).ingest(conversations)
    assert first.texts.count("Melanie") == 1  # once, though she speaks in both batches
    # a second run with the same cache (as a Memory's ingests and live turns share one)
    # sends no entity to the embedder again: their stored vectors are kept
    second = RecordingEmbedder(mem.embedder)
    Ingestor(store_of(mem), second, mem.extractor, mem.group, 3, cache).ingest(conversations)
    names = {r["name"] for r in memory_rows(mem) if r["type"] in ("Person", "Concept")}
    assert names and not names & set(second.texts)
    mem.add_turn(speaker="Melanie", text="Thanks, Caroline!")
    nodes = mem.export().nodes
    assert all(n.embedding is not None for n in nodes if n.primary in ("Memory", "Turn"))
    person = next(n for n in nodes if n.properties.get("name") == "Melanie")
    assert person.embedding is not None
    assert np.allclose(person.embedding, mem.embedder.embed_query("Melanie"), atol=1e-5)


def test_an_entity_deleted_behind_the_cache_is_written_again_with_its_vector(
    mem: Memory,
) -> None:
    recorder = RecordingEmbedder(mem.embedder)
    live = Memory(mem.settings, store=store_of(mem), embedder=recorder)
    at = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    live.add_turn(speaker="Ines", text="I started learning the cello with Tomas.", at=at)
    tomas = next(r for r in memory_rows(mem) if r["type"] == "Person" and r["name"] == "Tomas")
    assert recorder.texts.count("Tomas") == 1
    live.add_turn(speaker="Ines", text="Tomas is teaching me scales.", at=at)
    assert recorder.texts.count("Tomas") == 1  # known to this Memory: not embedded again
    # another process deletes the node; this Memory's cache still holds its id
    settings = mem.settings
    auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        driver.execute_query("MATCH (m:Memory {id: $id}) DETACH DELETE m", id=tomas["id"])
    live.add_turn(speaker="Ines", text="Tomas says my bowing improved.", at=at)
    assert recorder.texts.count("Tomas") == 2  # the write found it without a vector
    node = next(n for n in mem.export().nodes if n.id == tomas["id"])
    assert node.embedding is not None
    assert np.allclose(node.embedding, mem.embedder.embed_query("Tomas"), atol=1e-5)


def test_a_live_turns_vector_is_computed_once_ahead_and_stored(mem: Memory) -> None:
    recorder = RecordingEmbedder(mem.embedder)
    live = Memory(mem.settings, store=store_of(mem), embedder=recorder)
    at = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    live.add_turn(speaker="Ines", text="I started learning the cello with Tomas.", at=at)
    live.add_turn(speaker="Tomas", text="She practises every morning before work.", at=at)
    for speaker, text in [
        ("Ines", "I started learning the cello with Tomas."),
        ("Tomas", "She practises every morning before work."),
    ]:
        key = f"{speaker}: {text}"
        assert recorder.texts.count(key) == 1  # ahead of the read, never again after it
        (turn,) = [n for n in mem.export().nodes if n.properties.get("text") == text]
        assert turn.embedding is not None
        assert np.allclose(turn.embedding, mem.embedder.embed_query(key), atol=1e-5)


def test_append_takes_a_turn_vector_computed_ahead(mem: Memory) -> None:
    mem.admin.ensure_schema()
    recorder = RecordingEmbedder(mem.embedder)
    turn = Turn(
        conversation="c",
        session="1",
        session_index=1,
        index=0,
        source_id="T0",
        speaker="Ana",
        text="We adopted a puppy called Brie.",
    )
    marker = np.zeros(mem.embedder.dimension, np.float32)
    marker[7] = 1.0
    ready: Future[Embedded] = Future()
    ready.set_result((marker, {}))
    ingestor = Ingestor(store_of(mem), recorder, mem.extractor, mem.group)
    conversation = Conversation(id="c", speakers=["Ana"], turns=[turn], source_format="live")
    ingestor.append(conversation, None, ahead={"Ana: We adopted a puppy called Brie.": ready})
    assert "Ana: We adopted a puppy called Brie." not in recorder.texts
    assert recorder.texts  # the records were embedded
    (stored,) = [n for n in mem.export().nodes if n.primary == "Turn"]
    assert stored.embedding is not None and np.allclose(stored.embedding, marker)


def _token_rows(mem: Memory) -> dict[str, dict[str, Any]]:
    """source id → the stored token rows of each turn of the group that has them."""
    turns = {t["id"]: t["source_id"] for t in store_of(mem).read("inspect/turns", group=mem.group)}
    rows = store_of(mem).read("operators/turn_tokens", ids=list(turns), group=mem.group)
    return {turns[r["id"]]: r for r in rows}


def test_turns_keep_the_token_rows_of_their_own_words(mem: Memory, tmp_path: Path) -> None:
    # ingest, a live turn, export (which leaves them out) and import (which makes them again)
    mem.ingest(write(tmp_path, [locomo_sample()]))
    mem.add_turn(speaker="Ana Lu", text="We adopted a puppy called Brie.", conversation="chat")
    stored = _token_rows(mem)
    turns = store_of(mem).read("inspect/turns", group=mem.group)
    assert set(stored) == {t["source_id"] for t in turns}
    dim = mem.embedder.dimension
    for t in turns:
        n = len(mem.embedder.pieces(t["full_text"]))  # the words, not the "Speaker:" prefix
        row = stored[t["source_id"]]
        assert len(row["scales"]) == n and len(row["rows"]) == n * dim
    data = mem.export()
    assert not any("token_rows" in node.properties for node in data.nodes)
    copy = mem.for_group(mem.group + "-copy")
    try:
        copy.import_(data)
        again = _token_rows(copy)
        assert {k: bytes(v["rows"]) for k, v in again.items()} == {
            k: bytes(v["rows"]) for k, v in stored.items()
        }
    finally:
        copy.forget()
