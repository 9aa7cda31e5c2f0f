"""The time window a question restricts itself to."""

from __future__ import annotations

from datetime import UTC, datetime

from cogmem.models import TimeRange
from cogmem.temporal.context import time_range, with_zone, zone
from cogmem.temporal.scan import context_factory, scan_text


def question_window(question: str, now: datetime | None = None) -> TimeRange | None:
    """The time window a question restricts itself to, if it names one.

    "What did Caroline do in May 2023?" -> May 2023. Relative phrases ("last week") need
    ``now``; without it they are ignored, since questions about memories are not anchored.
    Several mentions give the smallest range covering them all.
    """
    anchor = None if now is None else with_zone(now)
    tz = UTC if anchor is None else zone(anchor)
    found = scan_text(question, context_factory(question, anchor, None), tz)
    if not found:
        return None
    start = min(c.span[0] for c in found)
    end = max(c.span[1] for c in found)
    widest = max(found, key=lambda c: c.span[1] - c.span[0]).span[2]
    return time_range((start, end, widest), question[found[0].start : found[-1].end])
