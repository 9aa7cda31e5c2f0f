"""Queued live turns (Memory.queue_turn) against the real server and the real embedder:
the same graph as add_turn, in the order queued, read by the next search, written before
close, failures surfaced by flush."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.embed import Embedder
from cogmem.live import LiveWriteError
from cogmem.store import Store
from tests.internals import store_of

pytestmark = pytest.mark.integration

CHAT = [
    ("Noor", "I signed up for a glassblowing course in Porto last Tuesday."),
    ("Tadeo", "Glassblowing! Is that the studio near the river?"),
    ("Noor", "Yes, the teacher is called Ilse and she used to work in Murano."),
    ("Tadeo", "My sister Vera wants to try it too, she loves making vases."),
    ("Noor", "Then bring her next week, the class on Thursday still has places."),
]


@pytest.fixture
def mem(neo4j_settings: Settings, store: Store, group: str) -> Memory:
    return Memory(neo4j_settings.model_copy(update={"group": group}), store=store)


def graph_of(mem: Memory) -> tuple[list[tuple[int, str, str]], dict[str, int], dict[str, int]]:
    """Turns (index, speaker, text), node labels and relationship types of the group."""
    turns = sorted(
        (int(str(n.properties["idx"])), str(n.properties["speaker"]), str(n.properties["text"]))
        for n in mem.export().nodes
        if n.primary == "Turn"
    )
    counts = mem.inspect.counts()
    return turns, counts["labels"], counts["relationships"]


def test_queued_turns_make_the_graph_add_turn_makes_in_the_order_queued(
    mem: Memory, store: Store, neo4j_settings: Settings
) -> None:
    at = datetime(2025, 3, 4, 18, 30, tzinfo=UTC)
    futures = [
        mem.queue_turn(speaker, text, at=at + timedelta(minutes=i))
        for i, (speaker, text) in enumerate(CHAT)
    ]
    summaries = [f.result(timeout=120) for f in futures]
    assert [s.turns for s in summaries] == [1] * len(CHAT)
    queued = graph_of(mem)
    assert [(i, s, t) for i, s, t in queued[0]] == [(i, s, t) for i, (s, t) in enumerate(CHAT)]
    other = mem.for_group(f"{mem.group}-sync")
    try:
        for i, (speaker, text) in enumerate(CHAT):
            other.add_turn(speaker, text, at=at + timedelta(minutes=i))
        assert graph_of(other) == queued  # the same turns, records and edges
    finally:
        other.forget()


def test_a_search_right_after_queuing_reads_the_queued_turn(mem: Memory) -> None:
    mem.add_turn("Noor", "Hello Tadeo, long time no see.")
    for speaker, text in CHAT:
        mem.queue_turn(speaker, text)
    # no flush: the search waits for the group's queued turns before it reads
    found = mem.search("Who is the glassblowing teacher?", k=5)
    assert any("Ilse" in (e.turn_text or "") for e in found)
    assert not mem.clients.live.pending(mem.group)


def test_another_memory_of_the_group_sharing_the_clients_also_waits(mem: Memory) -> None:
    mem.queue_turn("Noor", "My new bicycle is a green Gazelle from 1987.")
    same = mem.for_group(mem.group)
    found = same.search("What bicycle does Noor have?", k=3)
    assert any("Gazelle" in (e.turn_text or "") for e in found)


def test_a_queued_turn_keeps_the_time_it_was_queued(mem: Memory) -> None:
    gate = threading.Event()
    blocker = mem.clients.live.submit(mem.group, "gate", gate.wait)  # holds the writer
    before = datetime.now(UTC)
    future = mem.queue_turn("Noor", "The kiln cracked my first vase.")
    after = datetime.now(UTC)
    assert not future.done()  # queued behind the gate: nothing written yet
    assert store_of(mem).read("inspect/turns", group=mem.group) == []
    gate.set()
    blocker.result(timeout=10)
    future.result(timeout=120)
    (turn,) = [n for n in mem.export().nodes if n.primary == "Turn"]
    said = datetime.fromisoformat(str(turn.properties["at"]))
    assert before <= said <= after


@pytest.mark.parametrize(
    ("speaker", "text", "conversation", "message"),
    [
        ("  ", "hi", "live", "the speaker is empty"),
        ("Noor", None, "live", "the text must be a string"),
        ("Noor", "hi", " ", "the conversation is empty"),
    ],
)
def test_bad_input_is_refused_at_once_and_nothing_is_queued(
    mem: Memory, speaker: str, text: object, conversation: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        mem.queue_turn(speaker, text, conversation=conversation)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)
    assert not mem.clients.live.pending()
    with pytest.raises(ValueError, match=message):
        mem.add_turn(speaker, text, conversation=conversation)  # type: ignore[arg-type]
    assert mem.inspect.counts()["nodes"] == 0


class FailingEmbedder:
    """The real embedder, failing on texts that contain ``poison``."""

    def __init__(self, inner: Embedder, poison: str) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.poison = poison

    def _check(self, texts: Sequence[str]) -> None:
        if any(self.poison in t for t in texts):
            raise RuntimeError(f"embedder down while embedding {self.poison!r}")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self._check(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self._check([text])
        return self.inner.embed_query(text)


def test_a_failed_write_fails_its_future_and_flush_raises_once(
    mem: Memory, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    live = Memory(mem.settings, store=store, embedder=FailingEmbedder(mem.embedder, "POISON"))
    ok = live.queue_turn("Noor", "The course ends in May.")
    bad = live.queue_turn("Noor", "POISON pill text.")
    later = live.queue_turn("Tadeo", "See you at the studio then.")
    with (
        caplog.at_level(logging.ERROR, logger="cogmem.live"),
        pytest.raises(LiveWriteError, match="not written: embedder down") as caught,
    ):
        live.live.flush()
    assert caught.value.failures == 1
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert ok.result().turns == 1 and later.result().turns == 1
    with pytest.raises(RuntimeError, match="embedder down"):
        bad.result()
    assert "not written" in caplog.text
    live.live.flush()  # the failure was reported once
    texts = [t for _, _, t in graph_of(mem)[0]]
    assert texts == ["The course ends in May.", "See you at the studio then."]
    live.close()


def test_close_writes_what_is_queued_and_then_refuses_more(
    neo4j_settings: Settings, group: str
) -> None:
    own = Memory(neo4j_settings.model_copy(update={"group": group}))  # its own clients
    for speaker, text in CHAT[:3]:
        own.queue_turn(speaker, text)
    own.close()
    with pytest.raises(RuntimeError, match="closed"):
        own.queue_turn("Noor", "one more")
    check = Memory(neo4j_settings.model_copy(update={"group": group}))
    try:
        assert [t for _, _, t in graph_of(check)[0]] == [t for _, t in CHAT[:3]]
    finally:
        check.close()


def test_forget_waits_for_queued_turns_so_none_comes_back(mem: Memory) -> None:
    for speaker, text in CHAT:
        mem.queue_turn(speaker, text)
    mem.forget()
    mem.live.flush()
    assert mem.inspect.counts()["nodes"] == 0


def in_threads(chat: Callable[[int], None], threads: int = 4, timeout: float = 120) -> None:
    """``chat(n)`` on ``threads`` threads at once, n = 0, 1, …; returns when all are done."""
    running = [threading.Thread(target=chat, args=(n,)) for n in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join(timeout)


def test_turns_queued_from_several_threads_form_one_unbroken_conversation(mem: Memory) -> None:
    def chat(n: int) -> None:
        for i in range(6):
            mem.queue_turn(f"Speaker{n}", f"Message {i} from thread {n} about rowing.")

    in_threads(chat)
    mem.live.flush()
    turns, _, rels = graph_of(mem)
    assert [i for i, _, _ in turns] == list(range(24))  # every index once, none skipped
    assert rels["NEXT"] == 23  # one chain through all of them
    for n in range(4):  # each thread's turns in the order it queued them
        own = [t for _, s, t in turns if s == f"Speaker{n}"]
        assert own == [f"Message {i} from thread {n} about rowing." for i in range(6)]


def test_add_turn_from_several_threads_keeps_every_turn(mem: Memory) -> None:
    def chat(n: int) -> None:
        for i in range(5):
            mem.add_turn(f"Rower{n}", f"Stroke {i} from rower {n}.")

    in_threads(chat)
    turns, _, rels = graph_of(mem)
    assert [i for i, _, _ in turns] == list(range(20))  # before the lock: 11 of 20 kept
    assert rels["NEXT"] == 19
