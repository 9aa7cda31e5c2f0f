"""One small function per kind of time expression: a rule's match → a span."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

from cogmem.temporal.context import (
    Ctx,
    Span,
    add_months,
    aware,
    current_season,
    key_of,
    number_bounds,
    saturday_on_or_before,
    unit_instance,
    units_between,
    weekday_after,
    weekday_before,
    window,
)
from cogmem.temporal.lexicon import (
    AMBIGUOUS_MONTHS,
    DAY_WORDS,
    DECADE_WORDS,
    FUZZY_NUMBERS,
    HOLIDAYS,
    MONTHS,
    PART_PHRASES,
    SEASONS,
    UNITS,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAYS,
)
from cogmem.temporal.tense import infer_tense

# --------------------------------------------------------------------------- resolvers
# Each resolver takes the rule's match and the context and returns a span, or None when
# the match turns out not to be a time expression (or names an impossible date).

Resolver = Callable[[re.Match[str], Ctx], Span | None]


def r_day_word(m: re.Match[str], ctx: Ctx) -> Span | None:
    if m["pp"]:
        offset, part = PART_PHRASES[key_of(m["pp"])]
        return ctx.part(ctx.today + timedelta(days=offset), part)
    d = ctx.today + timedelta(days=DAY_WORDS[key_of(m["dw"])])
    if m["part"]:
        return ctx.part(d, key_of(m["part"]))
    return ctx.day(d)


def r_earlier_later(m: re.Match[str], ctx: Ctx) -> Span | None:
    unit = key_of(m["unit"]) if m["unit"] else "day"
    start, end, gran = unit_instance(ctx, unit, 0)
    if key_of(m["el"]) == "earlier":
        return start, max(start, ctx.anchor), gran
    return min(ctx.anchor, end), end, gran


def r_relative_unit(m: re.Match[str], ctx: Ctx) -> Span | None:
    """last / this / next week, weekend, month, year, decade."""
    rel, unit = key_of(m["rel"]), UNITS[key_of(m["unit"])]
    offset = {"last": -1, "this": 0, "next": 1}[rel]
    return unit_instance(ctx, unit, offset)


def r_window(m: re.Match[str], ctx: Ctx) -> Span | None:
    """the past 3 days, over the next few weeks, this past weekend, this coming week."""
    the = key_of(m["the"]) if m["the"] else None
    direction = key_of(m["dir"])
    unit_word = key_of(m["unit"])
    unit = UNITS[unit_word]
    future = direction in ("next", "coming")
    if m["n"]:
        n = number_bounds(m["n"])[1]
    elif unit_word.endswith("s"):  # "the past weeks", "the coming months"
        n = FUZZY_NUMBERS["a few"][1]
    else:
        if the is None and direction != "past":
            return None  # plain "last week" / "next week": a calendar unit, another rule
        if the == "this" and direction == "coming":  # "this coming week": the next one
            if unit == "weekend":
                return ctx.weekend(weekday_after(ctx.today, 5))
            return unit_instance(ctx, unit, 1)
        if unit == "weekend" and not future:  # "this past weekend"
            return ctx.weekend(weekday_before(ctx.today, 5))
        if direction == "next" and not m["prep"]:
            return None  # "the next week" narrates; "over the next week" looks ahead
        n = 1
    return window(ctx, unit, n, future)


def r_before_last(m: re.Match[str], ctx: Ctx) -> Span | None:
    """the day/week/weekend/month/year before (last)."""
    unit = key_of(m["unit"])
    offset = -2 if m["last"] else -1
    if unit == "weekend" and not m["last"]:
        # the weekend before the most recent one (the current one on a Saturday or Sunday)
        return ctx.weekend(saturday_on_or_before(ctx.today) - timedelta(days=7))
    return unit_instance(ctx, unit, offset)


def r_ago(m: re.Match[str], ctx: Ctx) -> Span | None:
    lo, hi = number_bounds(m["n"])
    return units_between(ctx, UNITS[key_of(m["unit"])], -hi, -lo)


_CLAUSE_START = re.compile(
    r".*(?:[,;:()\u2014]|\s-\s|\b(?:and|but|so)\s)", re.DOTALL | re.IGNORECASE
)


def clause_before(m: re.Match[str]) -> str:
    """The clause a match ends: from the last comma, dash or "and"/"but"/"so" before it."""
    head = m.string[: m.start()]
    cut = _CLAUSE_START.match(head)
    return m.string[cut.end() if cut else 0 : m.end()]


def r_in_units(m: re.Match[str], ctx: Ctx) -> Span | None:
    """In N units: ahead ("I got the job, I start in two weeks"); the last N units
    only where its own clause is in the past ("I haven't seen her in 5 years"). The clause
    decides before the sentence: a sentence's news in the past does not turn a plan that
    follows it into a memory."""
    lo, hi = number_bounds(m["n"])
    unit = UNITS[key_of(m["unit"])]
    tense = infer_tense(clause_before(m)) or ctx.tense
    if tense == "past":
        return window(ctx, unit, hi, future=False)
    return units_between(ctx, unit, lo, hi)


def r_from_now(m: re.Match[str], ctx: Ctx) -> Span | None:
    lo, hi = number_bounds(m["n"])
    return units_between(ctx, UNITS[key_of(m["unit"])], lo, hi)


def _pick_weekday(ctx: Ctx, weekday: int, mode: str) -> date:
    today = ctx.today
    if mode in ("last", "this past"):
        return weekday_before(today, weekday)
    if mode in ("next", "this coming"):
        return weekday_after(today, weekday)
    this_week = ctx.week_start() + timedelta(days=weekday)
    tense = ctx.tense
    if mode == "this":
        if tense == "future" and this_week < today:
            return this_week + timedelta(days=7)
        return this_week
    if tense == "future":
        return weekday_after(today, weekday)
    if tense == "past":
        return weekday_before(today, weekday)
    if today.weekday() == weekday:  # present or unknown: the nearest one
        return today
    return _nearest_day(today, [weekday_before(today, weekday), weekday_after(today, weekday)])


def _nearest_day(today: date, days: list[date]) -> date:
    """The day closest to ``today``; on a tie the earlier (memories are mostly of the past)."""
    return min(days, key=lambda d: (abs((d - today).days), d))


def r_weekday(m: re.Match[str], ctx: Ctx) -> Span | None:
    mode = key_of(m["mod"]) if m["mod"] else ""
    if m["abbr"]:
        if ctx.strict and (not mode or (mode == "on" and not m["abbr"][0].isupper())):
            return None  # "sat", "wed", "sun" are words too
        weekday = WEEKDAY_ABBREVIATIONS[m["abbr"].lower()]
    else:
        weekday = WEEKDAYS[key_of(m["wd"])]
    d = _pick_weekday(ctx, weekday, mode)
    if m["part"]:
        return ctx.part(d, key_of(m["part"]))
    return ctx.day(d)


def _month_number(word: str, ctx: Ctx, *, needs_capital: bool) -> int | None:
    key = key_of(word).rstrip(".")
    if needs_capital and ctx.strict and key in AMBIGUOUS_MONTHS and not word[:1].isupper():
        return None  # "this may be", "they march on"
    return MONTHS[key]


def _pick_month_year(ctx: Ctx, month: int, mode: str) -> int:
    year, current = ctx.today.year, ctx.today.month
    if mode in ("last", "this past"):
        return year if month < current else year - 1
    if mode in ("next", "this coming"):
        return year if month > current else year + 1
    if mode == "this":
        return year
    tense = ctx.tense
    if tense == "future":
        return year if month > current else year + 1
    if tense == "past":
        return year if month <= current else year - 1
    # present or unknown: the nearest one, the earlier on a tie
    here = year * 12 + current
    return min((year - 1, year, year + 1), key=lambda y: (abs(y * 12 + month - here), y))


def r_month(m: re.Match[str], ctx: Ctx) -> Span | None:
    """A month name with context but no year: in May, last June, early March, since April."""
    mod = key_of(m["mod"]) if m["mod"] else ""
    if not (mod or m["part"] or m["since"]) and ctx.strict:
        return None
    month = _month_number(m["mon"], ctx, needs_capital=True)
    if month is None:
        return None
    return ctx.month(_pick_month_year(ctx, month, mod), month)


def r_month_year(m: re.Match[str], ctx: Ctx) -> Span | None:
    return ctx.month(int(m["y"]), MONTHS[key_of(m["mon"]).rstrip(".")])


def resolve_date(m: re.Match[str], ctx: Ctx) -> Span | None:
    month = _month_number(m["mon"], ctx, needs_capital=not m["y"])
    if month is None:
        return None
    day = int(m["d"])
    if m["y"]:
        return ctx.day(date(int(m["y"]), month, day))
    today = ctx.today
    tense = ctx.tense
    candidates = [
        date(y, month, day)
        for y in range(today.year - 4, today.year + 5)
        if _is_day(y, month, day)  # Feb 29 only in leap years
    ]
    if tense == "future":
        candidates = [d for d in candidates if d >= today]
    elif tense == "past":
        candidates = [d for d in candidates if d <= today]
    if not candidates:
        return None
    return ctx.day(_nearest_day(today, candidates))


def r_day_of_month(m: re.Match[str], ctx: Ctx) -> Span | None:
    """On the 8th: the nearest 8th in the tense's direction (past when unknown)."""
    if not m["on"] and ctx.strict:
        return None  # "the 3rd." is more often a rank than a date
    day = int(m["d"])
    today = ctx.today
    tense = ctx.tense
    candidates = []
    for offset in range(-3, 4):  # "the 31st" skips the months that have no 31st
        year, month = add_months(today.year, today.month, offset)
        if _is_day(year, month, day):
            candidates.append(date(year, month, day))
    if tense == "future":
        candidates = [d for d in candidates if d >= today]
    elif tense == "past":
        candidates = [d for d in candidates if d <= today]
    if not candidates:
        return None
    if tense == "present":  # "the 8th" in the present: this month's, if it has one
        this_month = [d for d in candidates if d.month == today.month]
        candidates = this_month or candidates
    return ctx.day(_nearest_day(today, candidates))


def _is_day(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _pick_yearly_day(ctx: Ctx, month: int, day: int, mode: str) -> date:
    """A day that recurs every year, chosen by modifier ("last", "next", "this") or tense."""
    today = ctx.today
    this_year = date(today.year, month, day)
    tense = ctx.tense
    if mode == "this":
        return this_year
    if mode == "" and tense not in ("past", "future"):  # present or unknown: the nearest
        return _nearest_day(today, [date(today.year + k, month, day) for k in (-1, 0, 1)])
    if mode in ("next", "this coming") or (mode == "" and tense == "future"):
        after = this_year > today if mode else this_year >= today
        return this_year if after else date(today.year + 1, month, day)
    before = this_year < today if mode else this_year <= today
    return this_year if before else date(today.year - 1, month, day)


def r_holiday(m: re.Match[str], ctx: Ctx) -> Span | None:
    month, day = HOLIDAYS[key_of(m["h"])]
    if m["y"]:
        return ctx.day(date(int(m["y"]), month, day))
    mod = key_of(m["mod"]) if m["mod"] else ""
    if not (mod or m["since"]) and ctx.strict:
        return None  # "a Christmas tree"
    mode = mod if mod in ("last", "next", "this", "this past", "this coming") else ""
    return ctx.day(_pick_yearly_day(ctx, month, day, "last" if mode == "this past" else mode))


def r_iso(m: re.Match[str], ctx: Ctx) -> Span | None:
    if m["time"]:
        moment = aware(datetime.fromisoformat(m.group(0)))
        return moment, moment + timedelta(minutes=1), "instant"
    return ctx.day(date(int(m["y"]), int(m["m"]), int(m["d"])))


def r_us_date(m: re.Match[str], ctx: Ctx) -> Span | None:
    month, day = int(m["m"]), int(m["d"])
    if month > 12:  # 25/12/2023: day first after all
        month, day = day, month
    return ctx.day(date(int(m["y"]), month, day))


def r_year(m: re.Match[str], ctx: Ctx) -> Span | None:
    return ctx.year(int(m["y"]))


def r_season(m: re.Match[str], ctx: Ctx) -> Span | None:
    index = SEASONS[key_of(m["s"])]
    if m["y"]:
        return ctx.season(int(m["y"]) * 4 + index)
    mod = key_of(m["mod"]) if m["mod"] else ""
    if mod in ("", "the") and not m["since"] and ctx.strict:
        return None  # bare "fall", "the spring": too often not a season
    today = ctx.today
    current = current_season(today)
    if mod == "this":
        return _r_season_this(ctx, index)
    if mod in ("last", "this past"):
        q = current - 1
        while q % 4 != index:
            q -= 1
        return ctx.season(q)
    if mod in ("next", "this coming"):
        q = current + 1
        while q % 4 != index:
            q += 1
        return ctx.season(q)
    tense = ctx.tense
    if tense == "present":
        return _r_season_this(ctx, index)
    if tense is None:  # the nearest, the earlier on a tie
        near = [q for q in range(current - 3, current + 4) if q % 4 == index]
        return ctx.season(min(near, key=lambda q: (abs(q - current), q)))
    q = current
    step = 1 if tense == "future" else -1
    while q % 4 != index:
        q += step
    return ctx.season(q)


def _r_season_this(ctx: Ctx, index: int) -> Span:
    today = ctx.today
    year = today.year - 1 if index == 3 and today.month <= 2 else today.year
    return ctx.season(year * 4 + index)


def r_decade(m: re.Match[str], ctx: Ctx) -> Span | None:
    if m["full"]:
        return ctx.decade(int(m["full"]))
    digit = int(m["two"][0]) if m["two"] else DECADE_WORDS[key_of(m["word"])]
    if ctx.has_anchor:
        latest = ctx.anchor.year // 10 * 10
        first = latest // 100 * 100 + digit * 10
        if first > latest:
            first -= 100
    else:
        first = (2000 if digit <= 2 else 1900) + digit * 10
    return ctx.decade(first)


def r_vague(m: re.Match[str], ctx: Ctx) -> Span | None:
    today = ctx.today
    if m["other"]:  # "the other day": some day in the last week, not today
        return ctx.at(today - timedelta(days=7)), ctx.at(today), "week"
    return ctx.at(today - timedelta(days=14)), ctx.anchor, "week"


def r_weekend(m: re.Match[str], ctx: Ctx) -> Span | None:
    """over / on / at / during the weekend: the nearest weekend in the tense's direction."""
    today = ctx.today
    if ctx.tense in ("future", "present"):
        return ctx.weekend(ctx.week_start() + timedelta(days=5))
    return ctx.weekend(weekday_before(today, 5))
