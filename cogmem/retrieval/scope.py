"""A question that carries its own time: "What did Lena think of Jonas in May?", "What was
Rafael planning in January?". Such a question asks what held *then*, so it is answered
from memory as it stood at the end of that time (the search's ``as_of``), not from today's
memory filtered to what was said in May: a view given in March and superseded in July
is the one Lena held in May.

Only questions about what someone thought or planned, asked in the past tense, are read
this way. "When did X renew …" keeps its window (it asks when something happened), and
"What does Lena think of the June trip?" names the trip's time, not the question's.
Relative words ("in May", "last summer") are read against the group's last turn (or the
search's own ``as_of``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from cogmem.models import TimeRange
from cogmem.retrieval.router import Plan
from cogmem.temporal import question_window

SCOPED_INTENTS = ("opinion", "update")
"""Intents whose question asks what held at a time."""
_PLANNING = re.compile(
    r"\b(?:plann(?:ing|ed)|going to|intend(?:ed|ing)?|meant to|hop(?:ed|ing) to)\b",
    re.IGNORECASE,
)
_PROBE = datetime(2000, 7, 1, tzinfo=UTC)
"""Any moment: a question whose words resolve against it has relative time words."""
_END = timedelta(microseconds=1)


def question_scope(
    plan: Plan, question: str, latest: Callable[[], datetime | None]
) -> TimeRange | None:
    """The time the question's own words scope it to, or None. ``latest`` gives the moment
    relative words are read against (asked only when the question has such words)."""
    if plan.tense != "past":
        return None
    if plan.intent not in SCOPED_INTENTS and not _PLANNING.search(question):
        return None
    if plan.window is not None:
        return plan.window
    if question_window(question, now=_PROBE) is None:
        return None
    anchor = latest()
    return None if anchor is None else question_window(question, now=anchor)


def scope_end(window: TimeRange) -> datetime:
    """The last moment of a scope (its window is half-open)."""
    return window.end - _END
