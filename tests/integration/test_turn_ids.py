"""Acknowledged means kept (issue 51): a client's turn id and the ids cogmem gives id-less
turns never collide, a write never replaces a turn it did not create, one conversation is
one chain whoever appends to it, and a turn id sent again with another turn is refused.
Real Neo4j, the real offline embedder."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.live import LiveWriteError, TurnIdConflict, TurnIdError
from cogmem.store import Store
from cogmem.transfer.export import NothingToExport
from tests.live_server import serve

pytestmark = pytest.mark.integration


@pytest.fixture
def mem(neo4j_settings: Settings, store: Store, group: str) -> Memory:
    return Memory(neo4j_settings.model_copy(update={"group": group}), store=store)


def chain_of(settings: Settings, store: Store, group: str) -> list[dict[str, Any]]:
    """The group's turns (one conversation), walked along NEXT from the one no turn points
    at; asserts the chain is one path over every turn (no fork, no cycle, no orphan) and
    that every record's quote is in the text of a turn it is evidenced by."""
    with Memory(settings.model_copy(update={"group": group}), store=store) as mem:
        try:
            export = mem.export(embeddings=False)
        except NothingToExport:  # every turn refused ("@1" twice): no chain at all
            return []
    turns = {n.id: dict(n.properties) for n in export.nodes if "Turn" in n.labels}
    nxt: dict[str, str] = {}
    for rel in export.relationships:
        if rel.type == "NEXT":
            assert rel.src not in nxt, "a turn with two NEXT"
            nxt[rel.src] = rel.dst
    heads = set(turns) - set(nxt.values())
    assert len(heads) == (1 if turns else 0), f"{len(heads)} chain heads"
    walked = list(heads)
    while walked and walked[-1] in nxt:
        walked.append(nxt[walked[-1]])
        assert len(walked) <= len(turns), "a NEXT cycle"
    assert sorted(walked) == sorted(turns), "turns off the chain"
    quotes = {n.id: n.properties.get("quote") for n in export.nodes if "Memory" in n.labels}
    for rel in export.relationships:
        quote = quotes.get(rel.src)
        if rel.type == "EVIDENCED_BY" and isinstance(quote, str) and quote:
            assert quote in str(turns[rel.dst]["text"]), (quote, turns[rel.dst]["text"])
    return [turns[t] for t in walked]


def test_a_client_id_like_a_generated_one_and_id_less_turns_make_three_turns(
    mem: Memory, store: Store
) -> None:
    """The reproducer: id "T2" first, then two turns without ids (once "one" was gone
    and the chain a cycle)."""
    mem.add_turn("Ana", "one", conversation="c", source_id="T2")
    mem.add_turn("Ben", "two", conversation="c")
    mem.add_turn("Ana", "three", conversation="c")
    chain = chain_of(mem.settings, store, mem.group)
    assert [(t["source_id"], t["text"]) for t in chain] == [
        ("T2", "one"),
        ("@1", "two"),
        ("@2", "three"),
    ]
    # the other way round: a client id equal to what was generated is another turn
    mem.add_turn("Ben", "four", conversation="c", source_id="T1")
    assert [t["text"] for t in chain_of(mem.settings, store, mem.group)] == [
        "one",
        "two",
        "three",
        "four",
    ]


def test_a_client_id_in_cogmems_own_form_is_refused_and_nothing_is_written(
    mem: Memory, store: Store
) -> None:
    for bad in ("@3", "@x", " ", "a b"):
        with pytest.raises(TurnIdError):
            mem.add_turn("Ana", "hello", conversation="c", source_id=bad)
        with pytest.raises(TurnIdError):
            mem.queue_turn("Ana", "hello", conversation="c", source_id=bad, durable=True)
    assert store.read("admin/count_group", group=mem.group)[0]["nodes"] == 0
    assert not store.read("live/pending_turns", group=mem.group)


def test_an_id_sent_again_with_another_turn_is_a_conflict_and_changes_nothing(
    mem: Memory, store: Store
) -> None:
    first = mem.add_turn("Ana", "I adopted a cat.", conversation="c", source_id="m-1")
    again = mem.add_turn("Ana", "I adopted a cat.", conversation="c", source_id="m-1")
    assert again.turn_ids == first.turn_ids
    with pytest.raises(TurnIdConflict, match="m-1"):
        mem.add_turn("Ana", "I adopted a dog.", conversation="c", source_id="m-1")
    with pytest.raises(TurnIdConflict):
        mem.queue_turn("Ben", "I adopted a cat.", conversation="c", source_id="m-1", durable=True)
    # queued (not yet written) under an id: another text is refused too
    mem.queue_turn("Ana", "Queued.", conversation="c", source_id="m-2", durable=True)
    with pytest.raises(TurnIdConflict):
        mem.queue_turn("Ana", "Other.", conversation="c", source_id="m-2", durable=True)
    mem.live.flush()
    assert [t["text"] for t in chain_of(mem.settings, store, mem.group)] == [
        "I adopted a cat.",
        "Queued.",
    ]


def test_two_writers_with_their_own_clients_append_one_chain(
    neo4j_settings: Settings, store: Store, group: str
) -> None:
    """Two Memory objects with their own clients (their own in-process locks, as two
    processes have) append to one conversation at once: the database's append lock and
    the check under it keep one chain and every turn."""
    conf = neo4j_settings.model_copy(update={"group": group})
    writers = [Memory(conf), Memory(conf)]
    errors: list[BaseException] = []

    def run(w: int) -> None:
        try:
            for i in range(8):
                writers[w].add_turn(f"P{w}", f"writer {w} says {i}", conversation="c")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in writers:
        w.close()
    assert not errors, errors
    chain = chain_of(neo4j_settings, store, group)
    assert sorted(t["text"] for t in chain) == sorted(
        f"writer {w} says {i}" for w in (0, 1) for i in range(8)
    )
    assert [t["idx"] for t in chain] == list(range(16))
    for w in (0, 1):  # each writer's turns in its own order
        mine = [t["text"] for t in chain if t["speaker"] == f"P{w}"]
        assert mine == [f"writer {w} says {i}" for i in range(8)]


# -- a property: client ids, generated ids and resends over every way in -------------------

Op = tuple[str, str | None, int]  # (how, client id or None, text number)
HOW = ("add", "queue", "durable")


@st.composite
def ops(draw: st.DrawFn) -> list[Op]:
    n = draw(st.integers(2, 9))
    ids = st.one_of(st.none(), st.sampled_from(["T0", "T1", "T2", "a", "b", "1", "@1"]))
    found: list[Op] = []
    for _ in range(n):
        if found and draw(st.booleans()) and draw(st.booleans()):
            found.append(draw(st.sampled_from(found)))  # a resend of an earlier op
        else:
            found.append((draw(st.sampled_from(HOW)), draw(ids), draw(st.integers(0, 4))))
    return found


@pytest.fixture(scope="module")
def shared(neo4j_settings: Settings) -> Iterator[Memory]:
    """One set of clients (one embedder) for every example of the property."""
    with Memory(neo4j_settings) as mem:
        yield mem


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=ops())
def test_every_acknowledged_turn_is_stored_once_in_one_chain(
    neo4j_settings: Settings, store: Store, shared: Memory, plan: list[Op]
) -> None:
    group = f"test-ids-{uuid.uuid4().hex[:10]}"
    conf = neo4j_settings.model_copy(update={"group": group})
    id_less: Counter[str] = Counter()
    by_id: dict[str, str] = {}  # each client id's first text: the one that stays
    clashes = refused = 0  # turns sent under a taken id with another text
    clashing: set[tuple[str, str]] = set()  # (id, text) of those, each once
    try:
        with Memory(conf, clients=shared.clients) as mem:
            for how, cid, n in plan:
                text = f"I went hiking on trail {n} with Pixel."
                if (
                    cid is not None
                    and not cid.startswith("@")
                    and by_id.setdefault(cid, text) != text
                ):
                    clashes += 1
                    clashing.add((cid, text))
                try:
                    if how == "add":
                        mem.add_turn("Ana", text, conversation="c", source_id=cid)
                    else:
                        mem.queue_turn(
                            "Ana", text, conversation="c", source_id=cid, durable=how == "durable"
                        )
                except TurnIdError:
                    assert cid is not None and cid.startswith("@")
                    continue
                except TurnIdConflict:
                    assert cid is not None and by_id[cid] != text
                    refused += 1
                    continue
                if cid is None:
                    id_less[text] += 1
            try:  # a queued turn's clash is found when it is written
                mem.live.flush()
            except LiveWriteError as exc:
                assert isinstance(exc.__cause__, TurnIdConflict)
                refused += exc.failures
        # every clash is refused once; a durable resend of one that is still waiting in
        # the outbox is the same entry (refused once, at flush), while one sent after the
        # clashing id was written is refused at once: which, depends on the writer's pace
        assert len(clashing) <= refused <= clashes
        chain = chain_of(neo4j_settings, store, group)
        stored_by_id = {
            t["source_id"]: t["text"] for t in chain if not t["source_id"].startswith("@")
        }
        assert stored_by_id == by_id  # each client id once, with its first text
        assert Counter(t["text"] for t in chain if t["source_id"].startswith("@")) == id_less
        assert [t["idx"] for t in chain] == list(range(len(chain)))
        assert not store.read("live/pending_turns", group=group)  # nothing left behind
    finally:
        while store.write("admin/forget_group", group=group, batch=5000)[0]["deleted"]:
            pass
        store.write("live/drop_pending_group", group=group)


def test_the_http_reproducer_gives_three_turns_in_one_chain(
    neo4j_settings: Settings, store: Store, group: str, tmp_path: Path
) -> None:
    """From outside, as the issue's attack sent it: three 201s, three turns."""
    with serve(neo4j_settings, tmp_path / "serve.log", "--no-auth", "--group", group) as live:
        url = f"{live.base}/v1/groups/{group}/turns"
        answers = [
            httpx.post(url, json={"id": "T2", "speaker": "Ana", "text": "one"}, timeout=60),
            httpx.post(url, json={"speaker": "Ben", "text": "two"}, timeout=60),
            httpx.post(url, json={"speaker": "Ana", "text": "three"}, timeout=60),
            httpx.post(url, json={"id": "@1", "speaker": "Ana", "text": "four"}, timeout=60),
        ]
    assert [a.status_code for a in answers] == [201, 201, 201, 400], [a.text for a in answers]
    assert "@" in answers[3].json()["detail"]
    chain = chain_of(neo4j_settings, store, group)
    assert [(t["source_id"], t["text"]) for t in chain] == [
        ("T2", "one"),
        ("@1", "two"),
        ("@2", "three"),
    ]
