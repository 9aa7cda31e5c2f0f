"""Faults: Neo4j killed in the middle of an ingest, transient errors retried by managed
transactions (a real deadlock), and a failing LLM endpoint during ingest."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import Neo4jError

from cogmem.api import Memory
from cogmem.config import Settings, load_settings
from cogmem.llm import LLMStats
from cogmem.server import local as localserver
from cogmem.store import Store, Unreachable
from tests.internals import store_of
from tests.llm_server import ScriptedLLMServer, settings_for

pytestmark = pytest.mark.integration


def conversation(turns: int, conv_id: str = "faults-1") -> list[dict[str, Any]]:
    """A LoCoMo sample with ``turns`` turns over two sessions."""
    lines = [
        "I went to a pottery class yesterday and loved it.",
        "You're so brave for trying new things, Melanie.",
        "We decided to paint the kitchen blue next month.",
        "Remember to buy the paint before Friday.",
        "I realized that painting calms me down.",
        "The budget for the Lisbon trip is 500 dollars.",
        "I adopted a dog called Pixel last week.",
        "I started learning the cello in spring.",
    ]
    half = turns // 2
    sessions: dict[str, Any] = {
        "speaker_a": "Melanie",
        "speaker_b": "Caroline",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_2_date_time": "10:00 am on 20 May, 2023",
    }
    for s, (lo, hi) in enumerate(((0, half), (half, turns)), 1):
        sessions[f"session_{s}"] = [
            {
                "speaker": "Melanie" if i % 2 == 0 else "Caroline",
                "dia_id": f"D{s}:{i - lo + 1}",
                "text": f"{lines[i % len(lines)]} (note {i})",
            }
            for i in range(lo, hi)
        ]
    return [{"sample_id": conv_id, "conversation": sessions, "qa": []}]


def write(tmp_path: Path, data: object, name: str = "conv.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- Neo4j killed mid-ingest -----------------------------------------------------------


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A throwaway server of this module's own, which the tests may kill and restart."""
    home = load_settings().home
    localserver.install(home)
    inst = tmp_path_factory.mktemp("faults-neo4j")
    ports = {"bolt_port": localserver.free_port(), "http_port": localserver.free_port()}

    def start() -> localserver.InstanceState:
        state, _ = localserver.start(inst, home, auth=False, heap="512m", pagecache="128m", **ports)
        return state

    state = start()
    try:
        yield {"inst": inst, "uri": state.bolt_uri, "start": start}
    finally:
        localserver.stop(inst)


def test_kill_during_ingest_then_rerun_completes_it(
    own_server: dict[str, Any], tmp_path: Path
) -> None:
    settings = load_settings({"neo4j_uri": own_server["uri"], "neo4j_password": None})
    path = write(tmp_path, conversation(12))
    with Memory(settings.model_copy(update={"group": "clean"})) as clean:
        clean.ingest(path, batch_size=3)
        expected = clean.inspect.counts()
    assert expected["labels"]["Turn"] == 12

    # A driver that gives up after 2 s instead of the production 30 s of retries: the
    # server stays down until the test restarts it, so waiting longer proves nothing.
    driver = GraphDatabase.driver(
        own_server["uri"], max_transaction_retry_time=2.0, connection_timeout=2
    )
    store = Store(settings, driver=driver)
    mem = Memory(settings.model_copy(update={"group": "killed"}), store=store)
    batches: list[int] = []

    def kill_after_first_batch(n: int) -> None:
        batches.append(n)
        if len(batches) == 1:  # batch 1 has landed; batch 2 is about to be written
            assert localserver.kill(own_server["inst"]) is not None

    try:
        with pytest.raises(Unreachable, match=own_server["uri"]):
            mem.ingest(path, batch_size=3, progress=kill_after_first_batch)
        assert batches == [3]
        assert localserver.running_state(own_server["inst"]) is None
        own_server["start"]()  # crash recovery on restart
        conversations = store_of(mem).read("inspect/conversations", group="killed")
        assert [c["complete"] for c in conversations] == [False]
        partial = mem.inspect.counts()
        assert 3 <= partial["labels"]["Turn"] < 12  # the first batch survived the kill
        mem.ingest(path, batch_size=3)
        assert mem.inspect.counts() == expected
        conversations = store_of(mem).read("inspect/conversations", group="killed")
        assert [c["complete"] for c in conversations] == [True]
        texts = [t["text"] for t in store_of(mem).read("inspect/turns", group="killed")]
        assert len(texts) == len(set(texts)) == 12  # nothing lost, nothing doubled
    finally:
        store.close()


# -- transient errors are retried ------------------------------------------------------


class _Gated(Sequence[tuple[str, dict[str, Any]]]):
    """Statements for one ``write_many`` transaction that, on the first attempt only,
    wait at a barrier between the first and the second statement: two such transactions
    locking two nodes in opposite orders deadlock for certain."""

    def __init__(self, steps: list[tuple[str, dict[str, Any]]], barrier: threading.Barrier):
        self.steps = steps
        self.barrier = barrier
        self.attempts = 0

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i: Any) -> Any:
        return self.steps[i]

    def __iter__(self) -> Iterator[tuple[str, dict[str, Any]]]:
        self.attempts += 1
        first = self.attempts == 1
        for i, step in enumerate(self.steps):
            if i == 1 and first:
                self.barrier.wait(timeout=60)
            yield step


def test_deadlock_is_a_transient_error_that_managed_transactions_retry(
    neo4j_settings: Settings, store: Store, group: str, tmp_path: Path
) -> None:
    mem = Memory(neo4j_settings.model_copy(update={"group": group}), store=store)
    mem.ingest(write(tmp_path, conversation(2, "a") + conversation(2, "b")))
    ids = [c["id"] for c in store.read("inspect/conversations", group=group)]
    assert len(ids) == 2
    barrier = threading.Barrier(2)

    def locking(order: list[str]) -> _Gated:
        return _Gated([("ingest/mark_conversation_complete", {"id": i}) for i in order], barrier)

    first, second = locking(ids), locking(ids[::-1])
    results: dict[str, Any] = {}

    def run(name: str, steps: _Gated) -> None:
        try:
            results[name] = store.write_many(steps)
        except BaseException as exc:  # reported below
            results[name] = exc

    threads = [
        threading.Thread(target=run, args=("first", first)),
        threading.Thread(target=run, args=("second", second)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "the transactions never finished"
    for name in ("first", "second"):
        assert not isinstance(results[name], BaseException), results[name]
        assert [rows[0]["id"] for rows in results[name]] in (ids, ids[::-1])
    # Neo4j chose one of them as the deadlock victim (TransientError): it ran again.
    assert sorted([first.attempts, second.attempts]) == [1, 2]


# -- the LLM endpoint fails during ingest ----------------------------------------------


def _valid_records(request: dict[str, Any]) -> str:
    """A usable extraction for whatever turn is asked: one KeyFact quoting the turn."""
    prompt = request["messages"][-1]["content"]
    text = json.loads(prompt.split("\n", 1)[1])["turn"]["text"]
    return json.dumps({"records": [{"type": "KeyFact", "content": text, "quote": text}]})


@pytest.mark.parametrize(
    ("case", "script"),
    [
        ("server errors", lambda s: s.fail(500).fail(503).fail(502)),
        ("timeouts", lambda s: s.hang(5).hang(5).hang(5)),
        ("garbage JSON", lambda s: s.garbage().garbage().reply('{"records": "nope"}')),
    ],
)
def test_llm_failures_are_retried_then_fall_back_and_are_counted(
    neo4j_settings: Settings,
    store: Store,
    group: str,
    tmp_path: Path,
    llm_server: ScriptedLLMServer,
    case: str,
    script: Any,
) -> None:
    llm = settings_for(llm_server, llm_timeout_s=0.5, llm_max_retries=2)
    settings = neo4j_settings.model_copy(
        update={
            "group": group,
            **llm.model_dump(include={"llm", "llm_base_url", "llm_api_key", "llm_model"}),
            "llm_timeout_s": 0.5,
            "llm_max_retries": 2,
        }
    )
    llm_server.set_default(_valid_records)
    script(llm_server)  # the first turn's three attempts fail
    mem = Memory(settings, store=store)
    # a client that a first good call has taught the server's response format (a fresh
    # client takes two 5xx in one call as a refusal of the format and steps down instead:
    # tests/unit/test_llm.py)
    assert mem.llm is not None
    mem.llm.stats = LLMStats(response_format=mem.llm.response_format, format_confirmed=True)
    summary = mem.ingest(write(tmp_path, conversation(4)))
    assert summary.extractor == "llm"
    assert summary.turns == 4
    assert summary.fallbacks == 1, case
    assert len(llm_server.chat_requests) == 3 + 3  # bounded: 3 attempts, then 1 per turn
    assert llm_server.pending() == 0
    rows = store.read("inspect/records_with_turns", group=group)
    first = "I went to a pottery class yesterday and loved it. (note 0)"
    from_heuristic = [r for r in rows if first in r["turn_texts"] and r["type"] == "Event"]
    assert from_heuristic, "the failed turn was extracted by the heuristic fallback"
    assert mem.inspect.counts()["labels"]["Turn"] == 4


# -- the read every search starts with -------------------------------------------------


class _FailingSession:
    """A real read session whose statements fail with ``code`` before reaching the server."""

    def __init__(self, session: Any, code: str, tried: list[str]) -> None:
        self.session, self.code, self.tried = session, code, tried

    def __enter__(self) -> _FailingSession:
        self.session.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.session.__exit__(*exc)

    def run(self, *args: object, **kwargs: object) -> None:
        self.tried.append(self.code)
        raise Neo4jError._hydrate_neo4j(code=self.code, message="injected by the test")


def test_the_search_state_read_falls_back_to_a_retried_read_on_a_transient_error(
    store: Store, group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = store._session
    tried: list[str] = []
    transient = "Neo.TransientError.Transaction.DeadlockDetected"
    monkeypatch.setattr(
        store, "_session", lambda read=False: _FailingSession(real(read), transient, tried)
    )
    # the auto-commit read failed once; the managed read behind it answered
    assert store.glance("operators/vector_state", group=group) == [{"seq": 0, "epoch": 0}]
    assert tried == [transient]

    syntax = "Neo.ClientError.Statement.SyntaxError"
    monkeypatch.setattr(
        store, "_session", lambda read=False: _FailingSession(real(read), syntax, tried)
    )
    with pytest.raises(Neo4jError):  # not retryable: raised as it is
        store.glance("operators/vector_state", group=group)
    assert tried == [transient, syntax]
