"""Resolving one expression given by a caller: the rule table, then dateparser."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from cogmem.models import TimeRange
from cogmem.temporal.context import Ctx, Span, time_range
from cogmem.temporal.lexicon import FLAGS, MONTH_NAMES_RE, MONTH_RE, WEEKDAY_RE
from cogmem.temporal.rules import RULES, SHIFT_FULL, run_rule, shift
from cogmem.temporal.tense import Tense


def rule_span(expression: str, ctx: Ctx) -> Span | None:
    for rule in RULES:
        m = rule.pattern.fullmatch(expression)
        if m is not None:
            span = run_rule(rule, m, ctx)
            if span is not None:
                return span
    return None


def _resolve_span(expression: str, ctx: Ctx, *, fallback: bool = True) -> Span | None:
    span = rule_span(expression, ctx)
    if span is not None:
        return span
    m = SHIFT_FULL.fullmatch(expression)
    if m is not None:
        inner = _resolve_span(m["rest"], ctx, fallback=False)
        if inner is not None and inner[2] == "day":
            try:
                return shift(m, inner[0].astimezone(ctx.tz).date(), ctx.tz)
            except (ValueError, OverflowError):
                return None
    span = rule_span("in " + expression, ctx)  # a bare "May", "2022", "summer"
    if span is not None or not fallback:
        return span
    return _dateparser_span(expression, ctx)


_FALLBACK_HINT = re.compile(rf"\d|\b(?:{MONTH_NAMES_RE}|{WEEKDAY_RE}|noon|midnight)\b", FLAGS)


def _dateparser_span(expression: str, ctx: Ctx) -> Span | None:
    """What the rule table lacks ("at 3pm", "the 8th"), from dateparser, given an anchor."""
    if not ctx.has_anchor or not _FALLBACK_HINT.search(expression):
        return None
    from dateparser.date import DateDataParser  # slow to import; only needed here

    prefer = {"future": "future", "present": "current_period"}.get(ctx.tense or "", "past")
    settings = {
        "RELATIVE_BASE": ctx.anchor.astimezone(ctx.tz).replace(tzinfo=None),
        "PREFER_DATES_FROM": prefer,
        "RETURN_TIME_AS_PERIOD": True,
    }
    try:
        data = DateDataParser(languages=["en"], settings=settings).get_date_data(expression)
    except Exception:  # dateparser raises assorted errors on odd input
        return None
    if data.date_obj is None:
        return None
    local: datetime = data.date_obj
    d = local.date()
    if data.period == "time":
        moment = local.replace(tzinfo=ctx.tz).astimezone(UTC)
        return moment, moment + timedelta(minutes=1), "instant"
    if data.period == "week":
        return ctx.week(ctx.week_start(d))
    if data.period == "month":
        return ctx.month(d.year, d.month)
    if data.period == "year":
        return ctx.year(d.year)
    return ctx.day(d)


def resolve(expression: str, anchor: datetime, tense: Tense | None = None) -> TimeRange | None:
    """Resolve one time expression said at ``anchor``; None when it names no time.

    The rule table first (also "<phrase> before/after <day>"), then dateparser.
    ``TimeRange.text`` keeps the expression's words.
    """
    text = expression.strip()
    core = _HEDGE.sub("", text.rstrip(",;:!?").strip())
    if core.endswith(".") and not re.search(rf"\b{MONTH_RE}\Z", core, FLAGS):
        core = core[:-1].rstrip()
    if not core:
        return None
    span = _resolve_span(core, Ctx(anchor, tense, strict=False))
    return None if span is None else time_range(span, text)


# hedges a caller's expression may carry ("approximately summer of 2022")
_HEDGE = re.compile(r"\A(?:approximately|approx\.?|around|about|roughly|circa|ca\.)\s+", FLAGS)
