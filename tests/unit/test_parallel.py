"""Reads of one search step run at once through Neo4j: results in the order asked, every
job finished before an error is raised, and one after another for the in-process copy."""

from __future__ import annotations

import threading
import time

import pytest

from cogmem.retrieval.parallel import gather, submit


def test_results_come_back_in_the_order_asked_whatever_finishes_first() -> None:
    def job(n: int, delay: float) -> int:
        time.sleep(delay)
        return n

    jobs = [lambda n=n, d=d: job(n, d) for n, d in enumerate([0.05, 0.0, 0.03, 0.01])]
    assert gather(jobs, at_once=True) == [0, 1, 2, 3]


def test_jobs_run_on_other_threads_only_when_asked() -> None:
    seen: list[str] = []
    barrier = threading.Barrier(3, timeout=5)

    def meet() -> str:
        barrier.wait()  # all three must be running together, or this times out
        return threading.current_thread().name

    names = gather([meet, meet, meet], at_once=True)
    assert len(set(names)) == 3
    alone = gather([lambda: seen.append(threading.current_thread().name)] * 3, at_once=False)
    assert alone == [None] * 3 and set(seen) == {threading.current_thread().name}


def test_an_error_is_raised_after_every_job_has_finished() -> None:
    finished: list[int] = []

    def slow() -> int:
        time.sleep(0.05)
        finished.append(1)
        return 1

    def fails() -> int:
        raise ValueError("no such index")

    with pytest.raises(ValueError, match="no such index"):
        gather([fails, slow, slow], at_once=True)
    assert finished == [1, 1]


def test_a_submitted_read_is_taken_later() -> None:
    pending = submit(lambda: sum(range(10)))
    assert pending.result(timeout=5) == 45
