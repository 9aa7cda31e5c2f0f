"""A search's trace: what each step ran, returned and took (:class:`TraceStep` rows)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from cogmem.models import TraceStep

T = TypeVar("T")


class Trace(list[TraceStep]):
    """A search's trace: each step appended takes the statements run since the step
    before it (``drain``: the operators' record of what they ran, when they keep one)."""

    def __init__(self, drain: Callable[[], list[str]] | None) -> None:
        super().__init__()
        self._drain = drain

    def append(self, step: TraceStep) -> None:
        if self._drain is not None:
            step.statements = self._drain()
        super().append(step)


def timed(
    trace: list[TraceStep],
    name: str,
    detail: str,
    fn: Callable[[], T],
    count: Callable[[T], int] | None = None,
) -> T:
    """Run ``fn`` and append its step: how many it returned (``count``, else its length)
    and the seconds it took."""
    started = time.perf_counter()
    result = fn()
    n = count(result) if count else (len(result) if hasattr(result, "__len__") else 0)
    trace.append(
        TraceStep(
            operator=name,
            detail=detail,
            returned=n,
            seconds=round(time.perf_counter() - started, 4),
        )
    )
    return result
