"""Resolve time expressions against the moment a turn was said.

Conversations store the date a thing was *said*; what a memory needs is the date a thing
*happened*. ``"I went to a support group yesterday"`` said at 13:56 on 8 May 2023 refers to
7 May 2023. This package turns such words into :class:`~cogmem.models.TimeRange` values — a
half-open ``[start, end)`` in UTC with a granularity — at ingest time, and reads the time
window a question restricts itself to.

The recogniser is a table of precompiled regular expressions (``rules.RULES``), each
paired with a small resolver function (``resolvers``). ``find_time_expressions`` runs on
every turn, so it never calls dateparser; a cheap keyword scan decides which rules are
worth running at all. ``resolve`` (one expression given by a caller) falls back to
dateparser for what the table lacks.

Conventions:

* Weeks start on Monday. A weekend is Saturday 00:00 to Monday 00:00 (granularity
  ``"weekend"``).
* Seasons are northern-hemisphere meteorological seasons: spring = Mar-May, summer =
  Jun-Aug, autumn/fall = Sep-Nov, winter = Dec-Feb. "winter 2022" is Dec 2022 - Feb 2023.
* Calendar arithmetic happens in the anchor's own time zone (UTC for naive anchors); every
  returned datetime is converted to UTC.
* Where a phrase is ambiguous about direction (a bare "on Friday", "in May", "in the
  summer") the tense decides; with no tense the past is assumed, since memories are mostly
  about things that happened.
* Vague qualifiers ("early May", "the end of 2022", "late last year") keep the whole
  unit: the range is a superset, never a guess.
* A span from ``find_time_expressions`` includes the preposition or modifier that the rule
  needed to recognise it ("in May", "on Friday", "since 2016", "3 days ago").

Modules: ``lexicon`` (the words), ``context`` (anchor, tense, calendar arithmetic),
``resolvers`` and ``rules`` (the table), ``scan`` (:func:`find_time_expressions`),
``expression`` (:func:`resolve`), ``sessions`` (:func:`parse_session_date`), ``questions``
(:func:`question_window`), ``tense`` (:func:`infer_tense`), ``describe``
(:func:`describe_time`). Only the names below are the package's interface.
"""

from __future__ import annotations

from cogmem.temporal.describe import describe_time
from cogmem.temporal.expression import resolve
from cogmem.temporal.questions import question_window
from cogmem.temporal.scan import TimeMention, find_time_expressions
from cogmem.temporal.sessions import parse_session_date
from cogmem.temporal.tense import Tense, infer_tense

__all__ = [
    "Tense",
    "TimeMention",
    "describe_time",
    "find_time_expressions",
    "infer_tense",
    "parse_session_date",
    "question_window",
    "resolve",
]
