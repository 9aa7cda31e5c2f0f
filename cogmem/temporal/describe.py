"""A resolved time range in a few words, for memory contents and answers."""

from __future__ import annotations

from cogmem.models import TimeRange


def describe_time(tr: TimeRange) -> str:
    """A short human rendering of a resolved time range."""
    start = tr.start
    if tr.granularity in ("instant", "day"):
        return f"{start.day} {start:%B %Y}"
    if tr.granularity == "weekend":
        return f"weekend of {start.day} {start:%B %Y}"
    if tr.granularity == "week":
        return f"week of {start.day} {start:%B %Y}"
    if tr.granularity == "month":
        return f"{start:%B %Y}"
    if tr.granularity == "season":
        return f"{tr.text} ({start:%B %Y} to {tr.end:%B %Y})"
    if tr.granularity == "year":
        return f"{start.year}"
    return f"the {start.year}s"
