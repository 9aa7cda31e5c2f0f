"""The live-turn queue alone: order, per-group waits, failures reported once, close."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta, timezone

import pytest

from cogmem.live import (
    LiveQueue,
    LiveWriteError,
    TurnIdError,
    check_client_id,
    generated_id,
    live_turn,
)


def test_work_runs_in_the_order_queued_across_groups() -> None:
    queue = LiveQueue()
    done: list[int] = []
    futures = [queue.submit(f"g{i % 3}", str(i), lambda i=i: done.append(i)) for i in range(30)]
    queue.flush()
    assert done == list(range(30))
    assert all(f.done() for f in futures)
    assert not queue.pending()
    queue.close()


def test_settle_waits_for_its_group_only() -> None:
    queue = LiveQueue()
    first = threading.Event()
    release = threading.Event()

    def slow() -> str:
        first.set()
        release.wait(10)
        return "a"

    a = queue.submit("a", "a", slow)
    assert first.wait(10)
    assert queue.pending("a") and not queue.pending("b")
    queue.settle("b")  # nothing queued for b: returns at once, a still running
    assert not a.done()
    threading.Timer(0.05, release.set).start()
    queue.settle("a")
    assert a.result() == "a" and not queue.pending("a")
    queue.close()


def test_flush_raises_the_first_failure_once_and_later_work_still_runs() -> None:
    queue = LiveQueue()

    def boom(n: int) -> None:
        raise OSError(f"disk {n} gone")

    queue.submit("g", "t1", lambda: boom(1))
    queue.submit("g", "t2", lambda: boom(2))
    ran = queue.submit("g", "t3", lambda: "ok")
    with pytest.raises(LiveWriteError, match=r"t1 was not written \(and 1 more\): disk 1 gone"):
        queue.flush()
    assert ran.result() == "ok"
    queue.flush()  # reported: gone
    queue.close()


def test_close_runs_what_is_queued_then_refuses() -> None:
    queue = LiveQueue()
    gate = threading.Event()
    done: list[str] = []
    queue.submit("g", "gate", lambda: gate.wait(10))
    queue.submit("g", "after", lambda: done.append("after"))
    threading.Timer(0.05, gate.set).start()
    queue.close()
    assert done == ["after"]
    with pytest.raises(RuntimeError, match="closed"):
        queue.submit("g", "late", lambda: None)


def test_a_live_turn_is_stamped_when_made_and_naive_times_are_utc() -> None:
    before = datetime.now(UTC)
    turn = live_turn(" Noor ", "hi")
    assert before <= turn.at <= datetime.now(UTC)  # type: ignore[operator]
    assert turn.speaker == "Noor" and turn.session == "1" and turn.session_index == 1
    naive = live_turn("Noor", "hi", at=datetime(2025, 1, 2, 3, 4), session="7")
    assert naive.at == datetime(2025, 1, 2, 3, 4, tzinfo=UTC) and naive.session_index == 7
    east = timezone(timedelta(hours=2))
    assert live_turn("Noor", "hi", at=datetime(2025, 1, 2, 5, 4, tzinfo=east)).at == naive.at


def test_a_full_queue_makes_the_producer_wait_for_room() -> None:
    queue = LiveQueue(limit=2)
    gate = threading.Event()
    queue.submit("g", "1", lambda: gate.wait(10))
    queue.submit("g", "2", lambda: None)
    third = threading.Event()

    def produce() -> None:
        queue.submit("g", "3", lambda: None)
        third.set()

    producer = threading.Thread(target=produce)
    producer.start()
    assert not third.wait(0.2)  # two waiting: no room for a third
    gate.set()
    assert third.wait(10)
    producer.join(10)
    queue.flush()
    queue.close()


@pytest.mark.parametrize(
    "at",
    [
        datetime(9999, 12, 31, tzinfo=UTC),
        datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=14))),
    ],
)
def test_a_live_turn_at_the_calendars_edge_is_one_line(at: datetime) -> None:
    with pytest.raises(ValueError) as refused:
        live_turn("Ana", "hello", at)
    assert "\n" not in str(refused.value) and "outside the times cogmem keeps" in str(refused.value)


def test_client_ids_in_cogmems_own_form_or_blank_are_refused_and_others_pass() -> None:
    for bad in ("@0", "@x", "", " ", "a b", "tab\there"):
        with pytest.raises(TurnIdError):
            check_client_id(bad)
    for good in (None, "T2", "turn-001", "D1:3", "a@b"):
        check_client_id(good)
    assert generated_id(7) == "@7"
