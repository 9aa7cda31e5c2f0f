"""Concurrency: ingests and searches at the same time give the same graph as one at a time."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.store import Store

pytestmark = pytest.mark.integration

TOPICS = [
    ("hiking in the Alps", "I love hiking in the Alps, it clears my head."),
    ("a dog", "I adopted a dog called Pixel yesterday."),
    ("the cello", "I started learning the cello and I practise every morning."),
    ("the book club", "We decided to move the book club to Thursdays."),
    ("a marathon", "I ran a marathon in Boston last week."),
    ("pottery", "Remember to bring the clay to the pottery class."),
]


def chat(path: Path, conv: str, speakers: tuple[str, str], turns: int) -> Path:
    lines = []
    for i in range(turns):
        _, text = TOPICS[i % len(TOPICS)]
        lines.append(
            json.dumps(
                {
                    "conversation": conv,
                    "session": str(1 + i // 8),
                    "speaker": speakers[i % 2],
                    "text": f"{text} That was on day {i}.",
                    "timestamp": f"2023-06-{1 + i // 8:02d}T10:{i % 60:02d}:00Z",
                }
            )
        )
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def groups(store: Store) -> Iterator[Callable[[str], str]]:
    """Fresh group names (deleted afterwards)."""
    made: list[str] = []

    def make(tag: str) -> str:
        made.append(f"test-{tag}-{uuid.uuid4().hex[:8]}")
        return made[-1]

    yield make
    for g in made:
        while store.write("admin/forget_group", group=g, batch=5000)[0]["deleted"]:
            pass


def _run_threads(targets: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    results: dict[str, Any] = {}

    def wrap(name: str, fn: Callable[[], Any]) -> None:
        try:
            results[name] = fn()
        except BaseException as exc:
            results[name] = exc

    threads = [threading.Thread(target=wrap, args=(n, f), name=n) for n, f in targets.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    stuck = [t.name for t in threads if t.is_alive()]
    assert not stuck, f"deadlocked: {stuck}"
    failed = {n: r for n, r in results.items() if isinstance(r, BaseException)}
    assert not failed, failed
    return results


def test_two_ingests_and_searches_at_once_equal_sequential_runs(
    neo4j_settings: Settings, store: Store, groups: Callable[[str], str], tmp_path: Path
) -> None:
    file_a = chat(tmp_path / "a.jsonl", "conv-a", ("Alice", "Bob"), 24)
    file_b = chat(tmp_path / "b.jsonl", "conv-b", ("Alice", "Bob"), 20)
    shared = Memory(neo4j_settings.model_copy(update={"group": groups("seq-a")}), store=store)
    seq_a, seq_b = shared, shared.for_group(groups("seq-b"))
    seq_a.ingest(file_a, batch_size=4)
    seq_b.ingest(file_b, batch_size=4)
    expected_a, expected_b = seq_a.inspect.counts(), seq_b.inspect.counts()

    # One ingest with a Memory (and driver) of its own, one sharing the session store, and
    # a searcher reading a third group while both write.
    own = Memory(neo4j_settings.model_copy(update={"group": groups("par-a")}))
    par_b = shared.for_group(groups("par-b"))
    reader = shared.for_group(seq_a.group)
    reader_turns = {t["id"] for t in store.read("inspect/turns", group=reader.group)}
    done = threading.Event()

    def ingest_a() -> Any:
        try:
            return own.ingest(file_a, batch_size=4)
        finally:
            own.close()

    def ingest_b() -> Any:
        return par_b.ingest(file_b, batch_size=4)

    def search() -> int:
        n = 0
        while not done.is_set() or n < 3:
            for question in ("Who adopted a dog?", "What did Bob decide about the book club?"):
                for ev in reader.search(question, k=5):
                    assert ev.turn_id in reader_turns
                n += 1
        return n

    def ingests() -> None:
        try:
            _run_threads({"ingest-a": ingest_a, "ingest-b": ingest_b})
        finally:
            done.set()

    results = _run_threads({"ingests": ingests, "search": search})
    assert results["search"] >= 3
    got_a = Memory(
        neo4j_settings.model_copy(update={"group": own.group}), store=store
    ).inspect.counts()
    assert got_a == expected_a
    assert par_b.inspect.counts() == expected_b
    for g, n in ((own.group, 24), (par_b.group, 20)):
        turns = store.read("inspect/turns", group=g)
        assert len({(t["conversation_id"], t["source_id"]) for t in turns}) == len(turns) == n


def test_two_ingests_into_one_group_with_the_same_people_equal_sequential_runs(
    neo4j_settings: Settings, store: Store, groups: Callable[[str], str], tmp_path: Path
) -> None:
    """Both conversations MERGE the same Person and Concept nodes concurrently."""
    file_a = chat(tmp_path / "a.jsonl", "conv-a", ("Alice", "Bob"), 16)
    file_b = chat(tmp_path / "b.jsonl", "conv-b", ("Bob", "Alice"), 16)
    seq = Memory(neo4j_settings.model_copy(update={"group": groups("seq")}), store=store)
    seq.ingest(file_a, batch_size=2)
    seq.ingest(file_b, batch_size=2)
    expected = seq.inspect.counts()

    par = seq.for_group(groups("par"))
    other = Memory(par.settings)  # a second driver, as a second worker process would have
    try:
        _run_threads(
            {
                "a": lambda: par.ingest(file_a, batch_size=2),
                "b": lambda: other.ingest(file_b, batch_size=2),
            }
        )
    finally:
        other.close()
    assert par.inspect.counts() == expected

    def persons(group: str) -> list[tuple[str, list[str]]]:
        rows = store.read("operators/entities", group=group)
        return sorted((p["name"], sorted(p["aliases"])) for p in rows)

    assert persons(par.group) == persons(seq.group)  # one node per person, aliases merged
    assert {"Alice", "Bob"} <= {name for name, _ in persons(par.group)}
