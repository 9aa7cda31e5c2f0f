"""Durable, retry-safe writes: a 202 is sent once the raw turn is stored, a restart writes
what was pending, and a turn sent again with its id (body `id`, `Idempotency-Key`, MCP
`remember(id=…)`) changes nothing and is answered as the first time. `kill -9` of a live
server during a batch of 201s and of 202s, the batch resent with its ids: the graph equals
a clean run's. Real Neo4j, real `cogmem serve` processes."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.service.core import Limits, Service
from cogmem.service.mcp_server import build_server
from cogmem.service.tokens import Grant
from cogmem.store import Store
from tests.live_server import serve

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SPEAKERS = ("Ana", "Ben")
SENTENCES = [
    "I moved to Porto in May and I love the tiles there.",
    "Nice! I adopted a dog called Pixel yesterday.",
    "I decided to learn the cello next spring.",
    "Remember to send me the book list by Friday.",
    "My sister Carla works as a nurse in Lisbon.",
    "I think the new cafe on our street is overrated.",
]


def batch(n: int, wait: bool) -> list[dict[str, Any]]:
    """``n`` turns with their ids and times (a text may recur: it is another turn)."""
    return [
        {
            "id": f"turn-{i:03d}",
            "speaker": SPEAKERS[i % 2],
            "text": f"{SENTENCES[i % len(SENTENCES)]} ({i // len(SENTENCES)})",
            "time": f"2024-05-01T10:{i:02d}:00Z",
            "conversation": "chat",
            "wait": wait,
        }
        for i in range(n)
    ]


def forget(store: Store, *groups: str) -> None:
    for g in groups:
        while store.write("admin/forget_group", group=g, batch=5000)[0]["deleted"]:
            pass
        store.write("live/drop_pending_group", group=g)


def snapshot(settings: Settings, store: Store, group: str) -> dict[str, Any]:
    """What a group holds, free of its name: turns in order, records, counts."""
    with Memory(settings.model_copy(update={"group": group}), store=store) as mem:
        turns = [(t["source_id"], t["speaker"], t["text"], t["idx"]) for t in mem.inspect.turns()]
        records = Counter((r["type"], r["content"]) for r in mem.inspect.records())
    (counts,) = store.read("admin/count_group", group=group)
    return {
        "turns": turns,
        "records": records,
        "labels": Counter(counts["labels"]),
        "types": Counter(counts["types"]),
        "nodes": counts["nodes"],
    }


@pytest.fixture
def groups(store: Store) -> Iterator[tuple[str, str]]:
    clean, crashed = (f"test-durable-{k}-{uuid.uuid4().hex[:8]}" for k in ("clean", "kill"))
    yield clean, crashed
    forget(store, clean, crashed)


def send(base: str, group: str, turns: list[dict[str, Any]], answers: list[Any]) -> None:
    with httpx.Client(base_url=base, timeout=60) as client:
        for turn in turns:
            try:
                r = client.post(f"/v1/groups/{group}/turns", json=turn)
            except httpx.HTTPError:
                return  # the server was killed
            answers.append((r.status_code, r.json()))


def settle(base: str, group: str) -> None:
    """A search waits for the group's queued turns: once it answers, they are written."""
    r = httpx.post(f"{base}/v1/groups/{group}/search", json={"query": "cello"}, timeout=120)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("wait", [True, False], ids=["201s", "202s"])
def test_kill_9_during_a_batch_then_the_batch_resent_equals_a_clean_run(
    neo4j_settings: Settings, store: Store, groups: tuple[str, str], tmp_path: Path, wait: bool
) -> None:
    """On main 30 of 30 turns answered 202 were gone after kill -9, and a resent batch
    doubled every turn already written (a turn had no id a client could give)."""
    clean, crashed = groups
    turns = batch(24, wait)
    log = tmp_path / "serve.log"
    with serve(neo4j_settings, log, "--no-auth", "--group", clean) as live:
        answers: list[Any] = []
        send(live.base, clean, turns, answers)
        settle(live.base, clean)
    assert [a[0] for a in answers] == [201 if wait else 202] * len(turns)
    expected = snapshot(neo4j_settings, store, clean)
    assert len(expected["turns"]) == len(turns)

    with serve(neo4j_settings, log, "--no-auth", "--group", crashed) as live:
        answers = []
        if wait:  # killed in the middle of the batch, a request in flight
            sender = threading.Thread(target=send, args=(live.base, crashed, turns, answers))
            sender.start()
            while len(answers) < len(turns) // 2:
                sender.join(0.05)
            live.kill()
            sender.join(60)
        else:  # every turn answered 202, then killed before most are written
            send(live.base, crashed, turns, answers)
            live.kill()
            assert len(answers) == len(turns)
        first = {turns[i]["id"]: a for i, a in enumerate(answers)}
    written = len(snapshot(neo4j_settings, store, crashed)["turns"])
    assert written < len(turns), "the kill came too late to test anything"

    with serve(neo4j_settings, log, "--no-auth", "--group", crashed) as live:
        settle(live.base, crashed)  # the restart writes the turns it had stored
        kept = [t[0] for t in snapshot(neo4j_settings, store, crashed)["turns"]]
        acknowledged = [tid for tid, (status, _) in first.items() if status in (201, 202)]
        assert set(acknowledged) <= set(kept), "a turn answered 201/202 was lost"
        again: list[Any] = []
        send(live.base, crashed, turns, again)
        settle(live.base, crashed)
    assert len(again) == len(turns)
    for turn, (status, body) in zip(turns, again, strict=True):
        assert status == (201 if wait else 202), body
        if turn["id"] in first and first[turn["id"]][0] < 500:  # answered as the first time
            assert (status, body) == first[turn["id"]], turn["id"]
    got = snapshot(neo4j_settings, store, crashed)
    assert got == expected
    assert not store.read("live/pending_turns", group=crashed)


def test_a_turn_sent_again_with_its_id_changes_nothing_over_http_and_mcp(
    neo4j_settings: Settings, store: Store, groups: tuple[str, str], tmp_path: Path
) -> None:
    group = groups[0]
    turn = {
        "speaker": "Ana",
        "text": "I adopted a dog called Pixel.",
        "time": "2024-05-01T10:00:00Z",
    }
    with serve(neo4j_settings, tmp_path / "serve.log", "--no-auth", "--group", group) as live:
        url = f"{live.base}/v1/groups/{group}/turns"
        first = httpx.post(url, json={**turn, "id": "t-1"}, timeout=60)
        assert first.status_code == 201 and first.json()["records"], first.text
        before = snapshot(neo4j_settings, store, group)
        for again in (
            httpx.post(url, json={**turn, "id": "t-1"}, timeout=60),
            httpx.post(url, json=turn, headers={"Idempotency-Key": "t-1"}, timeout=60),
        ):
            assert (again.status_code, again.json()) == (201, first.json())
        # the same id with another text is another turn: refused, not silently the first
        for wait in (True, False):
            other = {**turn, "text": "Something else.", "id": "t-1", "wait": wait}
            clash = httpx.post(url, json=other, timeout=60)
            assert clash.status_code == 409 and "t-1" in clash.json()["detail"], clash.text
        queued = [
            httpx.post(url, json={**turn, "id": "t-2", "wait": False}, timeout=60) for _ in range(3)
        ]
        assert {(r.status_code, str(r.json())) for r in queued} == {(202, str(queued[0].json()))}
        differ = httpx.post(url, json={**turn, "id": "a"}, headers={"Idempotency-Key": "b"})
        assert differ.status_code == 400 and "differ" in differ.json()["detail"]
        settle(live.base, group)
    after = snapshot(neo4j_settings, store, group)
    assert len(after["turns"]) == 2 and after["turns"][0] == before["turns"][0]
    assert [t[0] for t in after["turns"]] == ["t-1", "t-2"]

    with Memory(neo4j_settings) as mem:
        service = Service(mem, Limits(timeout_s=60))
        args = {"speaker": "Ben", "text": "I play chess on Sundays.", "id": "m-1"}

        async def go() -> list[Any]:
            async with Client(build_server(service, Grant(group=group))) as client:
                return [await client.call_tool("remember", args) for _ in range(3)]

        results = anyio.run(go)
    assert not any(r.is_error for r in results), results
    assert len({str(r.structured_content) for r in results}) == 1
    final = snapshot(neo4j_settings, store, group)
    assert [t[0] for t in final["turns"]] == ["t-1", "t-2", "m-1"]
