"""The outbox of durable live turns is taken from once (issue 51): several processes resume
one backlog, and one is killed with ``kill -9`` while it writes, and still every stored turn
is written exactly once, in the order it was queued, in one chain. Real processes, a real
Neo4j; the writers' lease is shortened to 2 s so that a killed writer's entries free soon."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from cogmem.config import Settings
from cogmem.store import Store
from tests.integration.test_turn_ids import chain_of
from tests.live_server import serve, server_environ

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LEASE = "2"
N = 30

# Stores N durable turns of group argv[1]; "exit" leaves them to others at once (a process
# that died before writing any), "write" queues their writes too (the test kills it midway).
STORE = """
import os, sys
from datetime import UTC, datetime
from cogmem.api import Memory
from cogmem.config import load_settings
from cogmem.live import live_turn, store_pending
from tests.internals import store_of
group, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
mem = Memory(load_settings({"group": group}))
mem.admin.ensure_schema()
for i in range(n):
    at = datetime(2024, 5, 1, 10, i, tzinfo=UTC)
    text = f"Turn number {i}: I walked the dog along the river."
    if mode == "exit":
        turn = live_turn("Ana", text, at, "chat")
        store_pending(store_of(mem), group, turn, None, None, mem.clients.outbox)
    else:
        mem.queue_turn("Ana", text, at=at, conversation="chat", durable=True)
print("stored", flush=True)
if mode == "exit":
    os._exit(0)  # no close: its heartbeat stays behind and grows stale
mem.live.flush()
"""

# Resumes group argv[1] until its outbox is empty (or argv[2] seconds pass).
RESUME = """
import sys, time
from cogmem.api import Memory
from cogmem.config import load_settings
from tests.internals import store_of
group, until = sys.argv[1], time.monotonic() + float(sys.argv[2])
with Memory(load_settings({"group": group})) as mem:
    while time.monotonic() < until:
        mem.live.resume_pending()
        mem.live.flush()
        if not store_of(mem).read("live/pending_turns", group=group):
            break
        time.sleep(0.3)
"""


@pytest.fixture
def backlog_group(store: Store) -> Iterator[str]:
    group = f"test-outbox-{uuid.uuid4().hex[:10]}"
    yield group
    while store.write("admin/forget_group", group=group, batch=5000)[0]["deleted"]:
        pass
    store.write("live/drop_pending_group", group=group)


def python(settings: Settings, script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        env=server_environ(settings, COGMEM_OUTBOX_LEASE_S=LEASE),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def resume_together(settings: Settings, group: str, n: int) -> None:
    resumers = [python(settings, RESUME, group, "90") for _ in range(n)]
    for proc in resumers:
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err


def turn_count(store: Store, group: str) -> int:
    return len(store.read("inspect/turns", group=group))


def expect_each_once_in_order(settings: Settings, store: Store, group: str) -> None:
    assert not store.read("live/pending_turns", group=group)
    chain = chain_of(settings, store, group)
    assert [t["text"] for t in chain] == [
        f"Turn number {i}: I walked the dog along the river." for i in range(N)
    ]


def test_three_processes_resume_one_backlog_and_write_each_turn_once(
    neo4j_settings: Settings, store: Store, backlog_group: str
) -> None:
    dead = python(neo4j_settings, STORE, backlog_group, "exit", str(N))
    _, err = dead.communicate(timeout=120)
    assert dead.returncode == 0, err
    assert len(store.read("live/pending_turns", group=backlog_group)) == N
    resume_together(neo4j_settings, backlog_group, 3)
    expect_each_once_in_order(neo4j_settings, store, backlog_group)


def test_a_writer_killed_midway_then_two_restarted_together_write_each_turn_once(
    neo4j_settings: Settings, store: Store, backlog_group: str
) -> None:
    writer = python(neo4j_settings, STORE, backlog_group, "write", str(N))
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "stored"  # all N acknowledged (stored)
    deadline = time.monotonic() + 120
    while turn_count(store, backlog_group) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    written = turn_count(store, backlog_group)
    assert 3 <= written < N, "kill the writer while it writes"
    resume_together(neo4j_settings, backlog_group, 2)
    expect_each_once_in_order(neo4j_settings, store, backlog_group)


def test_thirty_202s_stay_thirty_through_a_kill_and_two_servers_restarted_together(
    neo4j_settings: Settings, store: Store, backlog_group: str, tmp_path: Path
) -> None:
    """From outside, as the issue's attack did it (on main: 30 acknowledged became 40)."""
    group, log = backlog_group, tmp_path / "serve.log"
    turns = [
        {
            "speaker": "Ana",
            "text": f"Turn number {i}: I walked the dog along the river.",
            "time": f"2024-05-01T10:{i:02d}:00Z",
            "conversation": "chat",
            "wait": False,
        }
        for i in range(N)
    ]
    with serve(neo4j_settings, log, "--no-auth", "--group", group) as live:
        with httpx.Client(base_url=live.base, timeout=60) as client:
            answers = [client.post(f"/v1/groups/{group}/turns", json=t) for t in turns]
        live.kill()
    assert [a.status_code for a in answers] == [202] * N
    assert turn_count(store, group) < N, "the kill came too late to test anything"
    with ExitStack() as both:
        for _ in range(2):
            both.enter_context(serve(neo4j_settings, log, "--no-auth", "--group", group))
        deadline = time.monotonic() + 120
        while store.read("live/pending_turns", group=group) and time.monotonic() < deadline:
            time.sleep(0.2)
    expect_each_once_in_order(neo4j_settings, store, group)
