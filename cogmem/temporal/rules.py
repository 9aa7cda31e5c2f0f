"""The rule table (a regex and a resolver each), the keywords that trigger them, and
composition ("the weekend before 27 June 2023")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from cogmem.temporal.context import (
    DAY,
    FAR_FUTURE,
    Ctx,
    NoAnchor,
    Span,
    key_of,
    number_bounds,
    unit_instance,
    units_between,
    weekday_after,
    weekday_before,
)
from cogmem.temporal.lexicon import (
    DANGLING_END,
    DAY_WORDS,
    DECADE_WORDS,
    FLAGS,
    FUZZY_NUMBERS,
    HOLIDAYS,
    MONTH_RE,
    MONTHS,
    NUM_RE,
    NUMBER_WORDS,
    PART_PHRASES,
    PART_RE,
    PARTS_OF_DAY,
    SEASON_RE,
    SEASONS,
    UNIT_RE,
    UNITS,
    VAGUE_PART,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAY_RE,
    WEEKDAYS,
    YEAR_RE,
    alt,
)
from cogmem.temporal.resolvers import (
    Resolver,
    r_ago,
    r_before_last,
    r_day_of_month,
    r_day_word,
    r_decade,
    r_earlier_later,
    r_from_now,
    r_holiday,
    r_in_units,
    r_iso,
    r_month,
    r_month_year,
    r_relative_unit,
    r_season,
    r_us_date,
    r_vague,
    r_weekday,
    r_weekend,
    r_window,
    r_year,
    resolve_date,
)

# --------------------------------------------------------------------------- the rule table


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    resolve: Resolver
    triggers: frozenset[str]


def _rule(name: str, body: str, resolver: Resolver, *triggers: str) -> Rule:
    """Compile a rule; every rule may be preceded by "since" / "ever since"."""
    pattern = rf"(?<![\w'])(?:(?P<since>(?:ever\s+)?since)\s+)?(?:{body})(?!\w)"
    return Rule(name, re.compile(pattern, FLAGS), resolver, frozenset(triggers))


_MOD_RE = r"last|next|this\s+past|this\s+coming|this"

RULES: tuple[Rule, ...] = (
    _rule(
        "day_word",
        rf"(?:(?P<dw>{alt(DAY_WORDS)})(?:\s+(?P<part>{PART_RE}))?"
        rf"|(?<!the\s)(?P<pp>{alt(PART_PHRASES)})(?!\s+of\b))",
        r_day_word,
        "dayword",
    ),
    _rule(
        "earlier_later",
        r"(?P<el>earlier|later)\s+(?:this\s+(?P<unit>week|month|year)|today)",
        r_earlier_later,
        "dayword",
        "unit",
    ),
    _rule(
        "relative_unit",
        r"(?<!the\s)(?P<rel>last|this|next)\s+(?P<unit>week|weekend|month|year|decade)"
        r"(?!\w)(?!\s+of\b)",
        r_relative_unit,
        "unit",
    ),
    _rule(
        "window",
        rf"(?:(?P<prep>in|over|during|within|for|throughout)\s+)?(?:(?P<the>the|this)\s+)?"
        rf"(?P<dir>last|past|next|coming)\s+(?:(?P<n>{NUM_RE})\s+)?(?P<unit>{UNIT_RE})"
        r"(?!\w)(?!\s+of\b)",
        r_window,
        "unit",
    ),
    _rule(
        "before_last",
        rf"the\s+(?P<unit>day|week|weekend|month|year)\s+before"
        rf"(?:\s+(?P<last>last)(?!\w)|{DANGLING_END})",
        r_before_last,
        "unit",
    ),
    _rule(
        "ago",
        rf"(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})\s+(?:ago|back)",
        r_ago,
        "unit",
    ),
    _rule(
        "in_units",
        rf"(?<!once\s)(?<!twice\s)in\s+(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})",
        r_in_units,
        "unit",
    ),
    _rule(
        "from_now",
        rf"(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})\s+from\s+(?:now|today)",
        r_from_now,
        "unit",
    ),
    _rule(
        "weekday",
        rf"(?<!every\s)(?<!each\s)(?:(?P<mod>{_MOD_RE}|on)\s+)?"
        rf"(?:(?P<wd>{WEEKDAY_RE})|(?P<abbr>{alt(WEEKDAY_ABBREVIATIONS)}))"
        rf"(?:\s+(?P<part>{PART_RE}))?",
        r_weekday,
        "weekday",
    ),
    _rule(
        "month",
        rf"(?<!the\s)(?:(?P<mod>{_MOD_RE}|in|during|throughout|of|around|back\s+in)\s+)?"
        rf"(?P<part>(?:early|late|mid)[\s-]+|the\s+(?:beginning|start|middle|end)\s+of\s+)?"
        rf"(?P<mon>{MONTH_RE})(?!\w)(?!,?\s*\d)",
        r_month,
        "month",
    ),
    _rule(
        "month_year",
        rf"(?:(?:in|during|throughout|of|back\s+in)\s+)?{VAGUE_PART}"
        rf"(?P<mon>{MONTH_RE}),?\s+(?:of\s+)?(?P<y>{YEAR_RE})(?!\d)",
        r_month_year,
        "month",
    ),
    _rule(
        "date_dmy",
        rf"(?:on\s+)?(?:(?P<wd>{WEEKDAY_RE}),?\s+)?(?:the\s+)?(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
        rf"(?:\s+of)?\s+(?P<mon>{MONTH_RE})(?:,?\s+(?P<y>{YEAR_RE})(?!\d))?",
        resolve_date,
        "month",
    ),
    _rule(
        "date_mdy",
        rf"(?:on\s+)?(?:(?P<wd>{WEEKDAY_RE}),?\s+)?(?P<mon>{MONTH_RE})\s+(?:the\s+)?"
        rf"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?(?!\d)(?:,?\s+(?P<y>{YEAR_RE})(?!\d))?",
        resolve_date,
        "month",
    ),
    _rule(
        "day_of_month",
        rf"(?P<on>on\s+)?the\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th){DANGLING_END}",
        r_day_of_month,
        "digit",
    ),
    _rule(
        "iso_date",
        r"(?:on\s+)?(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})"
        r"(?P<time>[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?",
        r_iso,
        "digit",
    ),
    _rule(
        "us_date",
        r"(?:on\s+)?(?P<m>[01]?\d)/(?P<d>[0-3]?\d)/(?P<y>\d{4})(?!/)",
        r_us_date,
        "digit",
    ),
    _rule(
        "year",
        rf"(?(since)(?:in\s+)?|(?:in|during|throughout|from|back\s+in|in\s+the\s+year"
        rf"|the\s+year)\s+){VAGUE_PART}(?P<y>{YEAR_RE})(?![\d,.]\d)(?!\s*%)",
        r_year,
        "digit",
    ),
    _rule(
        "season",
        rf"(?<!the\s)(?:(?P<mod>{_MOD_RE}|(?:in|during|over|throughout|for)(?:\s+the)?"
        rf"|the)\s+)?(?:(?:early|late|mid)[\s-]+)?(?P<s>{SEASON_RE})"
        rf"(?:\s+(?:of\s+)?(?P<y>{YEAR_RE})(?!\d))?(?!\w)(?!\s+of\b)",
        r_season,
        "season",
    ),
    _rule(
        "decade",
        rf"(?:(?:in|during|from|back\s+in)\s+)?the\s+(?:(?:early|late|mid)[\s-]+)?"
        rf"(?:(?P<full>(?:1[89]|20)\d0)'?s|'?(?P<two>\d0)'?s|(?P<word>{alt(DECADE_WORDS)}))",
        r_decade,
        "digit",
        "decade",
    ),
    _rule(
        "vague",
        r"(?:(?:just|very|only|quite)\s+)?(?:recently|lately)|(?P<other>the\s+other\s+day)",
        r_vague,
        "vague",
    ),
    _rule(
        "holiday",
        rf"(?:(?P<mod>{_MOD_RE}|on|at|over|for|during|around)\s+)?(?P<h>{alt(HOLIDAYS)})"
        rf"(?:,?\s+(?P<y>{YEAR_RE})(?!\d))?",
        r_holiday,
        "holiday",
        "unit",
        "month",
    ),
    _rule(
        "weekend",
        r"(?:over|on|at|during|for)\s+the\s+weekend",
        r_weekend,
        "unit",
    ),
)


# Every rule's match contains a keyword of one of its trigger kinds, at most
# MAX_PREFIX_TOKENS tokens after the match's start ("ever since in the past a couple of
# weeks"). So rules are only tried at the few token starts just before such keywords.
KEYWORDS: dict[str, str] = {
    **dict.fromkeys(("yesterday", "today", "tomorrow", "tonight", *PARTS_OF_DAY), "dayword"),
    **dict.fromkeys(UNITS, "unit"),
    **dict.fromkeys([*WEEKDAYS, *WEEKDAY_ABBREVIATIONS], "weekday"),
    **dict.fromkeys(MONTHS, "month"),
    **dict.fromkeys(SEASONS, "season"),
    **dict.fromkeys(DECADE_WORDS, "decade"),
    **dict.fromkeys(("recently", "lately", "other"), "vague"),
    **dict.fromkeys(
        ("christmas", "halloween", "valentine", "valentines", "independence", "fourth"),
        "holiday",
    ),
}
TOKENS = re.compile(r"[A-Za-z]+|\d+", re.ASCII)
MAX_PREFIX_TOKENS = 10
# the words a match can begin with (besides digits): rules are only tried there
START_WORDS = frozenset(
    {"since", "ever", "the", "this", "last", "next", "past", "coming", "in", "on", "over",
     "during", "within", "for", "throughout", "of", "around", "back", "early", "late", "mid",
     "earlier", "later", "just", "very", "only", "quite", "at", "tonight"}
    | {w.split()[0] for w in (*NUMBER_WORDS, *FUZZY_NUMBERS, *DAY_WORDS, *PART_PHRASES)}
    | set(KEYWORDS)
)  # fmt: skip


# --------------------------------------------------------------------------- composition
# "the weekend before 27 June 2023", "two days after May 8": a relative phrase applied to
# an explicit day instead of to the anchor (the way LoCoMo's answers are written).

_SHIFT_REL = (
    rf"(?:(?:(?P<unit>(?:the|last)\s+(?:day|week|weekend|month|year))"
    rf"|(?:the\s+)?(?P<wd>{WEEKDAY_RE})"
    rf"|(?P<n>{NUM_RE})\s+(?P<nunit>{UNIT_RE}))"
    r"\s+(?P<dir>before|after)|(?P<weekof>(?:the\s+)?week\s+of))\s+"
)
SHIFT_LEFT = re.compile(rf"(?<![\w']){_SHIFT_REL}(?:on\s+)?\Z", FLAGS)
SHIFT_FULL = re.compile(rf"{_SHIFT_REL}(?P<rest>.+)", FLAGS | re.DOTALL)


def shift(m: re.Match[str], day: date, tz: tzinfo) -> Span | None:
    """Resolve the relative phrase in ``m`` against ``day`` instead of the anchor."""
    if m["weekof"]:  # "the week of 23 August 2023"
        return Ctx(None, tz=tz).week(day - timedelta(days=day.weekday()))
    before = key_of(m["dir"]) == "before"
    ctx = Ctx(datetime(day.year, day.month, day.day, tzinfo=tz), "past" if before else "future")
    if m["wd"]:
        weekday = WEEKDAYS[key_of(m["wd"])]
        pick = weekday_before if before else weekday_after
        return ctx.day(pick(day, weekday))
    if m["n"]:
        lo, hi = number_bounds(m["n"])
        unit = UNITS[key_of(m["nunit"])]
        if before:
            return units_between(ctx, unit, -hi, -lo)
        return units_between(ctx, unit, lo, hi)
    unit = key_of(m["unit"]).split()[-1]
    if unit == "day":
        return ctx.day(day + timedelta(days=-1 if before else 1))
    if unit == "week":
        if before:
            return ctx.days(day - timedelta(days=7), day - DAY, "week")
        return ctx.days(day + DAY, day + timedelta(days=7), "week")
    if unit == "weekend" and not before:
        return ctx.weekend(weekday_after(day, 5))
    return unit_instance(ctx, unit, -1 if before else 1)


# --------------------------------------------------------------------------- running a rule


def run_rule(rule: Rule, m: re.Match[str], ctx: Ctx) -> Span | None:
    """Resolve one match; "since X" runs from the start of X to the anchor."""
    try:
        if not m["since"]:
            return rule.resolve(m, ctx)
        span = rule.resolve(m, ctx.with_tense("past"))
        if span is None:
            return None
        end = ctx.anchor if ctx.has_anchor else FAR_FUTURE
        return (span[0], end, span[2]) if span[0] < end else None
    except (NoAnchor, ValueError, OverflowError):
        return None
