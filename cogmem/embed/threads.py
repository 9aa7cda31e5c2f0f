"""Threads for forward passes: a BLAS thread limit around a block (through threadpoolctl,
when installed) and the pool that runs batches side by side."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

log = logging.getLogger(__name__)

B = TypeVar("B")


class BlasThreads:
    """Limits the BLAS thread pool around a block, through threadpoolctl when installed.

    threadpoolctl is optional: without it, limits are ignored (set OPENBLAS_NUM_THREADS /
    OMP_NUM_THREADS before starting Python instead).
    """

    def __init__(self) -> None:
        self._controller: Any = None
        self._looked = False
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self._get() is not None

    def _get(self) -> Any:
        if not self._looked:
            with self._lock:
                if not self._looked:
                    try:
                        from threadpoolctl import ThreadpoolController

                        self._controller = ThreadpoolController()
                    except Exception as exc:  # ImportError, or a library it cannot inspect
                        log.debug("BLAS thread limits unavailable: %s", exc)
                        self._controller = None
                    self._looked = True
        return self._controller

    def limit(self, threads: int) -> contextlib.AbstractContextManager[Any]:
        controller = self._get() if threads > 0 else None
        if controller is None:
            return contextlib.nullcontext()
        return controller.limit(limits=threads, user_api="blas")


BLAS = BlasThreads()


class Workers:
    """A lazily started pool that runs forward passes side by side, one BLAS thread each.

    On a small machine two single-threaded forward passes at once beat one pass on two
    BLAS threads by far (measured 1.5-1.7x on 2 cores): the elementwise numpy work
    (GELU, layer norm, softmax) runs single-threaded and releases the GIL, and small
    matrices scale poorly across BLAS threads.
    """

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._size = 0
        self._lock = threading.Lock()

    def get(self, size: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._size < size:
                old = self._pool
                self._pool = ThreadPoolExecutor(size, thread_name_prefix="cogmem-embed")
                self._size = size
                if old is not None:
                    old.shutdown(wait=False)
            return self._pool


WORKERS = Workers()


def default_workers() -> int:
    """Forward passes run side by side for batch work when threads=0: the cores, up to 2."""
    return max(1, min(2, os.cpu_count() or 1))


def side_by_side(run: Callable[[B], None], batches: Sequence[B], workers: int) -> None:
    """``run`` each batch on the shared pool of ``workers`` threads, one BLAS thread each,
    longest batches first (batches come sorted by length: the workers finish close
    together); returns when all are done, raising the first failure."""
    with BLAS.limit(1):
        pool = WORKERS.get(workers)
        for future in [pool.submit(run, batch) for batch in reversed(batches)]:
            future.result()
