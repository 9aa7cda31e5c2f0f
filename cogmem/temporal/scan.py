"""Finding every time expression in a turn: a keyword scan picks the rules worth running."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo

from cogmem.models import TimeRange
from cogmem.temporal.context import Ctx, Span, time_range, with_zone, zone
from cogmem.temporal.rules import (
    KEYWORDS,
    MAX_PREFIX_TOKENS,
    RULES,
    SHIFT_LEFT,
    START_WORDS,
    TOKENS,
    run_rule,
    shift,
)
from cogmem.temporal.tense import Tense, infer_tense
from cogmem.text import sentences


@dataclass(frozen=True, slots=True)
class TimeMention:
    """One time expression found in a text: ``text == source[start:end]``."""

    start: int
    end: int
    text: str
    range: TimeRange


# --------------------------------------------------------------------------- scanning


@dataclass(slots=True)
class _Candidate:
    start: int
    end: int
    order: int
    span: Span


def scan_text(text: str, ctx_for: Callable[[int], Ctx], tz: tzinfo) -> list[_Candidate]:
    """All non-overlapping time expressions in ``text``, longest first, in text order."""
    starts: list[int] = []  # where a match may begin: -1 where one cannot
    windows: dict[str, set[int]] = {}
    for i, token in enumerate(TOKENS.finditer(text)):
        word = token.group()
        if word[0].isdigit():
            kind: str | None = "digit"
            starts.append(token.start())
        else:
            word = word.lower()
            kind = KEYWORDS.get(word)
            starts.append(token.start() if word in START_WORDS else -1)
        if kind is not None:
            windows.setdefault(kind, set()).update(starts[max(0, i - MAX_PREFIX_TOKENS) :])
    for kind_starts in windows.values():
        kind_starts.discard(-1)
    if not windows:
        return []
    candidates: list[_Candidate] = []
    for order, rule in enumerate(RULES):
        positions: set[int] = set()
        for kind in rule.triggers:
            positions |= windows.get(kind, set())
        for pos in positions:
            m = rule.pattern.match(text, pos)
            if m is None:
                continue
            span = run_rule(rule, m, ctx_for(pos))
            if span is not None:
                candidates.append(_Candidate(m.start(), m.end(), order, span))
    # longest first; among equals the earlier, then the rule listed first
    candidates.sort(key=lambda c: (c.start - c.end, c.start, c.order))
    chosen: list[_Candidate] = []
    for c in candidates:
        if all(c.end <= k.start or c.start >= k.end for k in chosen):
            chosen.append(c)
    chosen.sort(key=lambda c: c.start)
    result: list[_Candidate] = []
    for c in chosen:
        c = _compose(text, c, tz)
        while result and result[-1].end > c.start:  # widened over an earlier mention
            result.pop()
        result.append(c)
    return result


def _compose(text: str, c: _Candidate, tz: tzinfo) -> _Candidate:
    """Widen a day mention into "the weekend before <day>", "two days after <day>"."""
    if c.span[2] != "day" or c.start == 0:
        return c
    m = SHIFT_LEFT.search(text, max(0, c.start - 40), c.start)
    if m is None:
        return c
    try:
        span = shift(m, c.span[0].astimezone(tz).date(), tz)
    except (ValueError, OverflowError):
        return c
    if span is None:
        return c
    return _Candidate(m.start(), c.end, c.order, span)


def context_factory(
    text: str, anchor: datetime | None, tense: Tense | None
) -> Callable[[int], Ctx]:
    """Each position's context: the given tense, or else its own sentence's, lazily."""
    if tense is not None:
        shared = Ctx(anchor, tense)
        return lambda _pos: shared
    bounds: list[int] = []
    contexts: dict[int, Ctx] = {}

    def ctx_for(pos: int) -> Ctx:
        if not bounds:
            ends = (span.end for span in sentences(text))
            bounds.extend([0, *ends, len(text) + 1])
        i = bisect_right(bounds, pos) - 1
        if i not in contexts:
            sentence = text[bounds[i] : bounds[i + 1]]
            contexts[i] = Ctx(anchor, tense_fn=lambda: infer_tense(sentence))
        return contexts[i]

    return ctx_for


# --------------------------------------------------------------------------- public API


def find_time_expressions(
    text: str, anchor: datetime, tense: Tense | None = None
) -> list[TimeMention]:
    """Find and resolve the time expressions in one turn, in order of appearance.

    ``anchor`` is when the turn was said (naive means UTC). Without ``tense``, the tense of
    each mention's sentence is inferred, and only where a rule needs it. Mentions never
    overlap; the longest match wins. Each ``mention.text == text[mention.start:mention.end]``.
    """
    anchor = with_zone(anchor)
    found = scan_text(text, context_factory(text, anchor, tense), zone(anchor))
    mentions = []
    for c in found:
        words = text[c.start : c.end]
        mentions.append(TimeMention(c.start, c.end, words, time_range(c.span, words)))
    return mentions
