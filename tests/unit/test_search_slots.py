"""FairSlots: the bound on concurrent searches, first come first served."""

from __future__ import annotations

import threading
import time

import pytest

from cogmem.clients import Clients, FairSlots
from cogmem.config import Settings


def test_no_more_than_n_hold_a_slot_at_once() -> None:
    slots = FairSlots(2)
    inside = 0
    most = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal inside, most
        for _ in range(20):
            with slots:
                with lock:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.001)
                with lock:
                    inside -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most == 2 and inside == 0


def test_waiters_get_the_slot_in_arrival_order() -> None:
    slots = FairSlots(1)
    order: list[int] = []
    queued = threading.Semaphore(0)
    slots.__enter__()  # the slot is taken: everyone below waits
    threads = []
    for n in range(5):

        def wait_then_record(n: int = n) -> None:
            queued.release()
            with slots:
                order.append(n)

        t = threading.Thread(target=wait_then_record)
        t.start()
        queued.acquire()
        time.sleep(0.02)  # let it reach the queue before the next one starts
        threads.append(t)
    slots.__exit__(None, None, None)
    for t in threads:
        t.join()
    assert order == [0, 1, 2, 3, 4]


def test_a_releasing_thread_cannot_take_the_slot_back_ahead_of_a_waiter() -> None:
    slots = FairSlots(1)
    got: list[str] = []
    slots.__enter__()
    waiter = threading.Thread(target=lambda: (slots.__enter__(), got.append("waiter")))
    waiter.start()
    time.sleep(0.02)
    slots.__exit__(None, None, None)
    # the slot went to the waiter: trying again now would block until it leaves
    waiter.join()
    assert got == ["waiter"]
    taken = threading.Event()
    again = threading.Thread(target=lambda: (slots.__enter__(), taken.set()))
    again.start()
    assert not taken.wait(0.05)
    slots.__exit__(None, None, None)  # the waiter's slot
    assert taken.wait(1)
    slots.__exit__(None, None, None)
    again.join()


def test_the_bound_comes_from_the_setting() -> None:
    assert Clients(Settings(search_concurrency=3)).search_slots._free == 3
    assert Clients(Settings()).search_slots._free >= 2
    with pytest.raises(ValueError):
        FairSlots(0)
