"""Resolve time expressions against the moment a turn was said.

Conversations store the date a thing was *said*; what a memory needs is the date a thing
*happened*. ``"I went to a support group yesterday"`` said at 13:56 on 8 May 2023 refers to
7 May 2023. This module turns such words into :class:`~cogmem.models.TimeRange` values — a
half-open ``[start, end)`` in UTC with a granularity — at ingest time, and reads the time
window a question restricts itself to.

The recogniser is a table of precompiled regular expressions (``_RULES``), each paired with
a small resolver function. ``find_time_expressions`` runs on every turn, so it never calls
dateparser; a cheap keyword scan decides which rules are worth running at all. ``resolve``
(one expression given by a caller) falls back to dateparser for what the table lacks.

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
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, Literal

from cogmem.models import Granularity, TimeRange

__all__ = [
    "Tense",
    "TimeMention",
    "find_time_expressions",
    "infer_tense",
    "parse_session_date",
    "question_window",
    "resolve",
]

Tense = Literal["past", "present", "future"]
_Span = tuple[datetime, datetime, Granularity]

_FLAGS = re.IGNORECASE | re.ASCII
_FAR_FUTURE = datetime(9999, 12, 31, tzinfo=UTC)
_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class TimeMention:
    """One time expression found in a text: ``text == source[start:end]``."""

    start: int
    end: int
    text: str
    range: TimeRange


# --------------------------------------------------------------------------- vocabulary

_MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3,
    "april": 4, "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7,
    "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10,
    "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
# Month names that are also everyday words; without a day or year they must be capitalised.
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar"})

_WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
    "saturday": 5, "sunday": 6,
}  # fmt: skip

# abbreviations count only after "last", "next", "this" or a capitalised "on Fri"
_WEEKDAY_ABBREVIATIONS: dict[str, int] = {
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
    "sat": 5, "sun": 6,
}  # fmt: skip

# fixed-date holidays -> (month, day); movable feasts (Easter, Thanksgiving) are not here
_HOLIDAYS: dict[str, tuple[int, int]] = {
    "christmas": (12, 25), "christmas day": (12, 25), "christmas eve": (12, 24),
    "new year's eve": (12, 31), "new years eve": (12, 31), "new year's day": (1, 1),
    "new years day": (1, 1), "halloween": (10, 31), "valentine's day": (2, 14),
    "valentines day": (2, 14), "independence day": (7, 4), "the fourth of july": (7, 4),
    "the 4th of july": (7, 4),
}  # fmt: skip

# season -> index (0 = spring starting in March ... 3 = winter starting in December)
_SEASONS: dict[str, int] = {"spring": 0, "summer": 1, "autumn": 2, "fall": 2, "winter": 3}

_NUMBER_WORDS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "couple": 2, "a couple": 2, "couple of": 2, "a couple of": 2,
}  # fmt: skip
# vague quantities: (fewest, most) units
_FUZZY_NUMBERS: dict[str, tuple[int, int]] = {
    "a few": (2, 5), "few": (2, 5), "several": (3, 7),
}  # fmt: skip

_UNITS: dict[str, str] = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "wk": "week", "wks": "week",
    "weekend": "weekend", "weekends": "weekend", "month": "month", "months": "month",
    "year": "year", "years": "year", "yr": "year", "yrs": "year",
    "decade": "decade", "decades": "decade",
}  # fmt: skip
_UNIT_GRANULARITY: dict[str, Granularity] = {
    "day": "day", "week": "week", "weekend": "weekend", "month": "month", "year": "year",
    "decade": "decade",
}  # fmt: skip

# (start hour, end hour) of the parts of a day; night runs into the next morning
_PARTS_OF_DAY: dict[str, tuple[int, int]] = {
    "morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 30),
}  # fmt: skip
# day words -> offset in days from the anchor's date
_DAY_WORDS: dict[str, int] = {
    "the day before yesterday": -2, "yesterday": -1, "today": 0, "tomorrow": 1,
    "the day after tomorrow": 2,
}  # fmt: skip
# phrases naming a part of a day -> (offset in days, part)
_PART_PHRASES: dict[str, tuple[int, str]] = {
    "tonight": (0, "night"), "last night": (-1, "night"), "this morning": (0, "morning"),
    "this afternoon": (0, "afternoon"), "this evening": (0, "evening"),
}  # fmt: skip
_DECADE_WORDS: dict[str, int] = {
    "twenties": 2, "thirties": 3, "forties": 4, "fifties": 5, "sixties": 6,
    "seventies": 7, "eighties": 8, "nineties": 9,
}  # fmt: skip


def _alt(words: Any) -> str:
    """A regex alternation of words, longest first, spaces matching any whitespace."""
    ordered = sorted(set(words), key=len, reverse=True)
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ordered) + ")"


_MONTH_NAMES_RE = _alt(_MONTHS)
# a month name; an abbreviation may carry its dot ("Sept.")
_MONTH_ABBREVIATIONS = [k for k in _MONTHS if len(k) <= 4 and k not in ("may", "june", "july")]
_MONTH_RE = rf"(?:{_alt(_MONTH_ABBREVIATIONS)}\.|{_MONTH_NAMES_RE})"
_WEEKDAY_RE = _alt(_WEEKDAYS)
_SEASON_RE = _alt(_SEASONS)
_NUM_RE = _alt(list(_NUMBER_WORDS) + list(_FUZZY_NUMBERS)) + r"|\d{1,3}"
_UNIT_RE = _alt(_UNITS)
_PART_RE = _alt(_PARTS_OF_DAY)
_YEAR_RE = r"(?:1[89]|20)\d{2}"
# vague position inside a unit ("early May", "the end of 2022"): recognised, range unchanged
_VAGUE_PART = r"(?:(?:early|late|mid)[\s-]+|the\s+(?:beginning|start|middle|end)\s+of\s+)?"
# what may follow a dangling "the week before" for it to mean "before now"
_DANGLING_END = r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:and|but|so|too|then|already|again)\b)"


# --------------------------------------------------------------------------- context


class _NoAnchor(Exception):
    """A relative expression was met where no anchor is known."""


class _Ctx:
    """What a resolver may use: the anchor (tracked), the tense, and calendar helpers."""

    __slots__ = ("_anchor", "_tense", "_tense_fn", "strict", "tz")

    def __init__(
        self,
        anchor: datetime | None,
        tense: Tense | None = None,
        *,
        tense_fn: Callable[[], Tense | None] | None = None,
        strict: bool = True,
        tz: tzinfo | None = None,
    ) -> None:
        self._anchor = None if anchor is None else _with_zone(anchor)
        self._tense = tense
        self._tense_fn = tense_fn
        self.strict = strict
        self.tz: tzinfo = tz or (UTC if anchor is None else _zone(anchor))

    @property
    def has_anchor(self) -> bool:
        return self._anchor is not None

    @property
    def anchor(self) -> datetime:
        if self._anchor is None:
            raise _NoAnchor
        return self._anchor

    @property
    def today(self) -> date:
        return self.anchor.date()

    @property
    def tense(self) -> Tense | None:
        if self._tense is None and self._tense_fn is not None:
            self._tense = self._tense_fn()
            self._tense_fn = None
        return self._tense

    def with_tense(self, tense: Tense | None) -> _Ctx:
        return _Ctx(self._anchor, tense, strict=self.strict)

    # calendar helpers: local calendar -> UTC spans
    def at(self, d: date, hours: int = 0) -> datetime:
        local = datetime(d.year, d.month, d.day, tzinfo=self.tz) + timedelta(hours=hours)
        return local.astimezone(UTC)

    def day(self, d: date) -> _Span:
        return self.at(d), self.at(d + _DAY), "day"

    def days(self, first: date, last: date, granularity: Granularity = "day") -> _Span:
        return self.at(first), self.at(last + _DAY), granularity

    def part(self, d: date, part: str) -> _Span:
        lo, hi = _PARTS_OF_DAY[part]
        return self.at(d, lo), self.at(d, hi), "day"

    def week(self, monday: date) -> _Span:
        return self.at(monday), self.at(monday + timedelta(days=7)), "week"

    def weekend(self, saturday: date) -> _Span:
        return self.at(saturday), self.at(saturday + timedelta(days=2)), "weekend"

    def month(self, year: int, month: int, granularity: Granularity = "month") -> _Span:
        ny, nm = _add_months(year, month, 1)
        return self.at(date(year, month, 1)), self.at(date(ny, nm, 1)), granularity

    def year(self, year: int) -> _Span:
        return self.at(date(year, 1, 1)), self.at(date(year + 1, 1, 1)), "year"

    def decade(self, first_year: int) -> _Span:
        return self.at(date(first_year, 1, 1)), self.at(date(first_year + 10, 1, 1)), "decade"

    def season(self, q: int) -> _Span:
        """Season number ``q = year * 4 + index`` (index 3 = winter starting in December)."""
        year, index = divmod(q, 4)
        start, _, _ = self.month(year, 3 + 3 * index)
        ey, em = _add_months(year, 3 + 3 * index, 3)
        return start, self.at(date(ey, em, 1)), "season"

    def week_start(self, d: date | None = None) -> date:
        d = self.today if d is None else d
        return d - timedelta(days=d.weekday())


def _add_months(year: int, month: int, n: int) -> tuple[int, int]:
    k = year * 12 + (month - 1) + n
    return k // 12, k % 12 + 1


def _shift_date_months(d: date, n: int) -> date:
    y, m = _add_months(d.year, d.month, n)
    for day in (d.day, 30, 29, 28):
        try:
            return date(y, m, day)
        except ValueError:
            continue
    raise ValueError("unreachable")  # pragma: no cover


def _current_season(d: date) -> int:
    if d.month <= 2:
        return (d.year - 1) * 4 + 3
    return d.year * 4 + (d.month - 3) // 3


def _key(s: str) -> str:
    return " ".join(s.lower().split())


def _number(word: str) -> tuple[int, int]:
    """(fewest, most) for a number as digits or words."""
    key = _key(word)
    if key.isdigit():
        return int(key), int(key)
    if key in _FUZZY_NUMBERS:
        return _FUZZY_NUMBERS[key]
    n = _NUMBER_WORDS[key]
    return n, n


# --------------------------------------------------------------------------- unit arithmetic


def _unit_instance(ctx: _Ctx, unit: str, k: int) -> _Span:
    """The calendar unit ``k`` units away from the anchor's (0 = the current one)."""
    today = ctx.today
    if unit == "day":
        return ctx.day(today + timedelta(days=k))
    if unit == "week":
        return ctx.week(ctx.week_start() + timedelta(days=7 * k))
    if unit == "weekend":
        return ctx.weekend(ctx.week_start() + timedelta(days=5 + 7 * k))
    if unit == "month":
        return ctx.month(*_add_months(today.year, today.month, k))
    if unit == "year":
        return ctx.year(today.year + k)
    decade = today.year // 10 * 10
    return ctx.decade(decade + 10 * k)


def _units_between(ctx: _Ctx, unit: str, first: int, last: int) -> _Span:
    lo, _, gran = _unit_instance(ctx, unit, first)
    _, hi, _ = _unit_instance(ctx, unit, last)
    return lo, hi, gran


def _window(ctx: _Ctx, unit: str, n: int, future: bool) -> _Span:
    """The last (or next) ``n`` units up to (or from) the anchor, day-aligned at the far end."""
    today = ctx.today
    gran = _UNIT_GRANULARITY["week" if unit == "weekend" else unit]
    if unit == "day":
        far = today + timedelta(days=n if future else -n)
    elif unit in ("week", "weekend"):
        far = today + timedelta(days=7 * n if future else -7 * n)
    else:
        months = {"month": 1, "year": 12, "decade": 120}[unit] * n
        far = _shift_date_months(today, months if future else -months)
    if future:
        return ctx.anchor, ctx.at(far + _DAY), gran
    return ctx.at(far), ctx.anchor, gran


def _weekday_before(d: date, weekday: int) -> date:
    return d - timedelta(days=(d.weekday() - weekday) % 7 or 7)


def _weekday_after(d: date, weekday: int) -> date:
    return d + timedelta(days=(weekday - d.weekday()) % 7 or 7)


def _saturday_on_or_before(d: date) -> date:
    return d - timedelta(days=(d.weekday() - 5) % 7)


# --------------------------------------------------------------------------- resolvers
# Each resolver takes the rule's match and the context and returns a span, or None when
# the match turns out not to be a time expression (or names an impossible date).

_Resolver = Callable[[re.Match[str], _Ctx], _Span | None]


def _r_day_word(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    if m["pp"]:
        offset, part = _PART_PHRASES[_key(m["pp"])]
        return ctx.part(ctx.today + timedelta(days=offset), part)
    d = ctx.today + timedelta(days=_DAY_WORDS[_key(m["dw"])])
    if m["part"]:
        return ctx.part(d, _key(m["part"]))
    return ctx.day(d)


def _r_earlier_later(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    unit = _key(m["unit"]) if m["unit"] else "day"
    start, end, gran = _unit_instance(ctx, unit, 0)
    if _key(m["el"]) == "earlier":
        return start, max(start, ctx.anchor), gran
    return min(ctx.anchor, end), end, gran


def _r_relative_unit(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    """last / this / next week, weekend, month, year, decade."""
    rel, unit = _key(m["rel"]), _UNITS[_key(m["unit"])]
    offset = {"last": -1, "this": 0, "next": 1}[rel]
    return _unit_instance(ctx, unit, offset)


def _r_window(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    """the past 3 days, over the next few weeks, this past weekend, this coming week."""
    the = _key(m["the"]) if m["the"] else None
    direction = _key(m["dir"])
    unit_word = _key(m["unit"])
    unit = _UNITS[unit_word]
    future = direction in ("next", "coming")
    if m["n"]:
        n = _number(m["n"])[1]
    elif unit_word.endswith("s"):  # "the past weeks", "the coming months"
        n = _FUZZY_NUMBERS["a few"][1]
    else:
        if the is None and direction != "past":
            return None  # plain "last week" / "next week": a calendar unit, another rule
        if the == "this" and direction == "coming":  # "this coming week": the next one
            if unit == "weekend":
                return ctx.weekend(_weekday_after(ctx.today, 5))
            return _unit_instance(ctx, unit, 1)
        if unit == "weekend" and not future:  # "this past weekend"
            return ctx.weekend(_weekday_before(ctx.today, 5))
        if direction == "next" and not m["prep"]:
            return None  # "the next week" narrates; "over the next week" looks ahead
        n = 1
    return _window(ctx, unit, n, future)


def _r_before_last(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    """the day/week/weekend/month/year before (last)."""
    unit = _key(m["unit"])
    offset = -2 if m["last"] else -1
    if unit == "weekend" and not m["last"]:
        # the weekend before the most recent one (the current one on a Saturday or Sunday)
        return ctx.weekend(_saturday_on_or_before(ctx.today) - timedelta(days=7))
    return _unit_instance(ctx, unit, offset)


def _r_ago(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    lo, hi = _number(m["n"])
    return _units_between(ctx, _UNITS[_key(m["unit"])], -hi, -lo)


def _r_in_units(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    lo, hi = _number(m["n"])
    unit = _UNITS[_key(m["unit"])]
    if ctx.tense == "past":  # "I haven't seen her in 5 years": the last 5 years
        return _window(ctx, unit, hi, future=False)
    return _units_between(ctx, unit, lo, hi)


def _r_from_now(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    lo, hi = _number(m["n"])
    return _units_between(ctx, _UNITS[_key(m["unit"])], lo, hi)


def _pick_weekday(ctx: _Ctx, weekday: int, mode: str) -> date:
    today = ctx.today
    if mode in ("last", "this past"):
        return _weekday_before(today, weekday)
    if mode in ("next", "this coming"):
        return _weekday_after(today, weekday)
    this_week = ctx.week_start() + timedelta(days=weekday)
    tense = ctx.tense
    if mode == "this":
        if tense == "future" and this_week < today:
            return this_week + timedelta(days=7)
        return this_week
    if tense == "future":
        return _weekday_after(today, weekday)
    if tense == "present":
        return this_week
    return _weekday_before(today, weekday)


def _r_weekday(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    mode = _key(m["mod"]) if m["mod"] else ""
    if m["abbr"]:
        if ctx.strict and (not mode or (mode == "on" and not m["abbr"][0].isupper())):
            return None  # "sat", "wed", "sun" are words too
        weekday = _WEEKDAY_ABBREVIATIONS[m["abbr"].lower()]
    else:
        weekday = _WEEKDAYS[_key(m["wd"])]
    d = _pick_weekday(ctx, weekday, mode)
    if m["part"]:
        return ctx.part(d, _key(m["part"]))
    return ctx.day(d)


def _month_number(word: str, ctx: _Ctx, *, needs_capital: bool) -> int | None:
    key = _key(word).rstrip(".")
    if needs_capital and ctx.strict and key in _AMBIGUOUS_MONTHS and not word[:1].isupper():
        return None  # "this may be", "they march on"
    return _MONTHS[key]


def _pick_month_year(ctx: _Ctx, month: int, mode: str) -> int:
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
    if tense == "present":
        return year
    return year if month <= current else year - 1


def _r_month(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    """A month name with context but no year: in May, last June, early March, since April."""
    mod = _key(m["mod"]) if m["mod"] else ""
    if not (mod or m["part"] or m["since"]) and ctx.strict:
        return None
    month = _month_number(m["mon"], ctx, needs_capital=True)
    if month is None:
        return None
    return ctx.month(_pick_month_year(ctx, month, mod), month)


def _r_month_year(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    return ctx.month(int(m["y"]), _MONTHS[_key(m["mon"]).rstrip(".")])


def _resolve_date(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    month = _month_number(m["mon"], ctx, needs_capital=not m["y"])
    if month is None:
        return None
    day = int(m["d"])
    if m["y"]:
        return ctx.day(date(int(m["y"]), month, day))
    today = ctx.today
    tense = ctx.tense
    year = today.year
    step = 1 if tense == "future" else -1
    if tense == "future":
        if (month, day) < (today.month, today.day):
            year += 1
    elif tense != "present" and (month, day) > (today.month, today.day):
        year -= 1
    if month == 2 and day == 29:  # the nearest leap year in the tense's direction
        while not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
            year += step
    return ctx.day(date(year, month, day))


def _r_day_of_month(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    """On the 8th: the nearest 8th in the tense's direction (past when unknown)."""
    if not m["on"] and ctx.strict:
        return None  # "the 3rd." is more often a rank than a date
    day = int(m["d"])
    today = ctx.today
    tense = ctx.tense
    if tense == "future":
        offset = 0 if day >= today.day else 1
    elif tense == "present":
        offset = 0
    else:
        offset = 0 if day <= today.day else -1
    step = 1 if tense == "future" else -1
    for _ in range(3):  # "the 31st" skips the months that have no 31st
        year, month = _add_months(today.year, today.month, offset)
        if _is_day(year, month, day):
            return ctx.day(date(year, month, day))
        offset += step
    return None


def _is_day(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _pick_yearly_day(ctx: _Ctx, month: int, day: int, mode: str) -> date:
    """A day that recurs every year, chosen by modifier ("last", "next", "this") or tense."""
    today = ctx.today
    this_year = date(today.year, month, day)
    tense = ctx.tense
    if mode == "this" or (mode == "" and tense == "present"):
        return this_year
    if mode in ("next", "this coming") or (mode == "" and tense == "future"):
        after = this_year > today if mode else this_year >= today
        return this_year if after else date(today.year + 1, month, day)
    before = this_year < today if mode else this_year <= today
    return this_year if before else date(today.year - 1, month, day)


def _r_holiday(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    month, day = _HOLIDAYS[_key(m["h"])]
    if m["y"]:
        return ctx.day(date(int(m["y"]), month, day))
    mod = _key(m["mod"]) if m["mod"] else ""
    if not (mod or m["since"]) and ctx.strict:
        return None  # "a Christmas tree"
    mode = mod if mod in ("last", "next", "this", "this past", "this coming") else ""
    return ctx.day(_pick_yearly_day(ctx, month, day, "last" if mode == "this past" else mode))


def _r_iso(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    if m["time"]:
        moment = _aware(datetime.fromisoformat(m.group(0)))
        return moment, moment + timedelta(minutes=1), "instant"
    return ctx.day(date(int(m["y"]), int(m["m"]), int(m["d"])))


def _r_us_date(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    month, day = int(m["m"]), int(m["d"])
    if month > 12:  # 25/12/2023: day first after all
        month, day = day, month
    return ctx.day(date(int(m["y"]), month, day))


def _r_year(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    return ctx.year(int(m["y"]))


def _r_season(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    index = _SEASONS[_key(m["s"])]
    if m["y"]:
        return ctx.season(int(m["y"]) * 4 + index)
    mod = _key(m["mod"]) if m["mod"] else ""
    if mod in ("", "the") and not m["since"] and ctx.strict:
        return None  # bare "fall", "the spring": too often not a season
    today = ctx.today
    current = _current_season(today)
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
    q = current
    step = 1 if tense == "future" else -1
    while q % 4 != index:
        q += step
    return ctx.season(q)


def _r_season_this(ctx: _Ctx, index: int) -> _Span:
    today = ctx.today
    year = today.year - 1 if index == 3 and today.month <= 2 else today.year
    return ctx.season(year * 4 + index)


def _r_decade(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    if m["full"]:
        return ctx.decade(int(m["full"]))
    digit = int(m["two"][0]) if m["two"] else _DECADE_WORDS[_key(m["word"])]
    if ctx.has_anchor:
        latest = ctx.anchor.year // 10 * 10
        first = latest // 100 * 100 + digit * 10
        if first > latest:
            first -= 100
    else:
        first = (2000 if digit <= 2 else 1900) + digit * 10
    return ctx.decade(first)


def _r_vague(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    today = ctx.today
    if m["other"]:  # "the other day": some day in the last week, not today
        return ctx.at(today - timedelta(days=7)), ctx.at(today), "week"
    return ctx.at(today - timedelta(days=14)), ctx.anchor, "week"


def _r_weekend(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    """over / on / at / during the weekend: the nearest weekend in the tense's direction."""
    today = ctx.today
    if ctx.tense in ("future", "present"):
        return ctx.weekend(ctx.week_start() + timedelta(days=5))
    return ctx.weekend(_weekday_before(today, 5))


# --------------------------------------------------------------------------- the rule table


@dataclass(frozen=True, slots=True)
class _Rule:
    name: str
    pattern: re.Pattern[str]
    resolve: _Resolver
    triggers: frozenset[str]


def _rule(name: str, body: str, resolver: _Resolver, *triggers: str) -> _Rule:
    """Compile a rule; every rule may be preceded by "since" / "ever since"."""
    pattern = rf"(?<![\w'])(?:(?P<since>(?:ever\s+)?since)\s+)?(?:{body})(?!\w)"
    return _Rule(name, re.compile(pattern, _FLAGS), resolver, frozenset(triggers))


_MOD_RE = r"last|next|this\s+past|this\s+coming|this"

_RULES: tuple[_Rule, ...] = (
    _rule(
        "day_word",
        rf"(?:(?P<dw>{_alt(_DAY_WORDS)})(?:\s+(?P<part>{_PART_RE}))?"
        rf"|(?<!the\s)(?P<pp>{_alt(_PART_PHRASES)})(?!\s+of\b))",
        _r_day_word,
        "dayword",
    ),
    _rule(
        "earlier_later",
        r"(?P<el>earlier|later)\s+(?:this\s+(?P<unit>week|month|year)|today)",
        _r_earlier_later,
        "dayword",
        "unit",
    ),
    _rule(
        "relative_unit",
        r"(?<!the\s)(?P<rel>last|this|next)\s+(?P<unit>week|weekend|month|year|decade)"
        r"(?!\w)(?!\s+of\b)",
        _r_relative_unit,
        "unit",
    ),
    _rule(
        "window",
        rf"(?:(?P<prep>in|over|during|within|for|throughout)\s+)?(?:(?P<the>the|this)\s+)?"
        rf"(?P<dir>last|past|next|coming)\s+(?:(?P<n>{_NUM_RE})\s+)?(?P<unit>{_UNIT_RE})"
        r"(?!\w)(?!\s+of\b)",
        _r_window,
        "unit",
    ),
    _rule(
        "before_last",
        rf"the\s+(?P<unit>day|week|weekend|month|year)\s+before"
        rf"(?:\s+(?P<last>last)(?!\w)|{_DANGLING_END})",
        _r_before_last,
        "unit",
    ),
    _rule(
        "ago",
        rf"(?P<n>{_NUM_RE})\s+(?P<unit>{_UNIT_RE})\s+(?:ago|back)",
        _r_ago,
        "unit",
    ),
    _rule(
        "in_units",
        rf"(?<!once\s)(?<!twice\s)in\s+(?P<n>{_NUM_RE})\s+(?P<unit>{_UNIT_RE})",
        _r_in_units,
        "unit",
    ),
    _rule(
        "from_now",
        rf"(?P<n>{_NUM_RE})\s+(?P<unit>{_UNIT_RE})\s+from\s+(?:now|today)",
        _r_from_now,
        "unit",
    ),
    _rule(
        "weekday",
        rf"(?<!every\s)(?<!each\s)(?:(?P<mod>{_MOD_RE}|on)\s+)?"
        rf"(?:(?P<wd>{_WEEKDAY_RE})|(?P<abbr>{_alt(_WEEKDAY_ABBREVIATIONS)}))"
        rf"(?:\s+(?P<part>{_PART_RE}))?",
        _r_weekday,
        "weekday",
    ),
    _rule(
        "month",
        rf"(?<!the\s)(?:(?P<mod>{_MOD_RE}|in|during|throughout|of|around|back\s+in)\s+)?"
        rf"(?P<part>(?:early|late|mid)[\s-]+|the\s+(?:beginning|start|middle|end)\s+of\s+)?"
        rf"(?P<mon>{_MONTH_RE})(?!\w)(?!,?\s*\d)",
        _r_month,
        "month",
    ),
    _rule(
        "month_year",
        rf"(?:(?:in|during|throughout|of|back\s+in)\s+)?{_VAGUE_PART}"
        rf"(?P<mon>{_MONTH_RE}),?\s+(?:of\s+)?(?P<y>{_YEAR_RE})(?!\d)",
        _r_month_year,
        "month",
    ),
    _rule(
        "date_dmy",
        rf"(?:on\s+)?(?:(?P<wd>{_WEEKDAY_RE}),?\s+)?(?:the\s+)?(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
        rf"(?:\s+of)?\s+(?P<mon>{_MONTH_RE})(?:,?\s+(?P<y>{_YEAR_RE})(?!\d))?",
        _resolve_date,
        "month",
    ),
    _rule(
        "date_mdy",
        rf"(?:on\s+)?(?:(?P<wd>{_WEEKDAY_RE}),?\s+)?(?P<mon>{_MONTH_RE})\s+(?:the\s+)?"
        rf"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?(?!\d)(?:,?\s+(?P<y>{_YEAR_RE})(?!\d))?",
        _resolve_date,
        "month",
    ),
    _rule(
        "day_of_month",
        rf"(?P<on>on\s+)?the\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th){_DANGLING_END}",
        _r_day_of_month,
        "digit",
    ),
    _rule(
        "iso_date",
        r"(?:on\s+)?(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})"
        r"(?P<time>[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?",
        _r_iso,
        "digit",
    ),
    _rule(
        "us_date",
        r"(?:on\s+)?(?P<m>[01]?\d)/(?P<d>[0-3]?\d)/(?P<y>\d{4})(?!/)",
        _r_us_date,
        "digit",
    ),
    _rule(
        "year",
        rf"(?(since)(?:in\s+)?|(?:in|during|throughout|from|back\s+in|in\s+the\s+year"
        rf"|the\s+year)\s+){_VAGUE_PART}(?P<y>{_YEAR_RE})(?![\d,.]\d)(?!\s*%)",
        _r_year,
        "digit",
    ),
    _rule(
        "season",
        rf"(?<!the\s)(?:(?P<mod>{_MOD_RE}|(?:in|during|over|throughout|for)(?:\s+the)?"
        rf"|the)\s+)?(?:(?:early|late|mid)[\s-]+)?(?P<s>{_SEASON_RE})"
        rf"(?:\s+(?:of\s+)?(?P<y>{_YEAR_RE})(?!\d))?(?!\w)(?!\s+of\b)",
        _r_season,
        "season",
    ),
    _rule(
        "decade",
        rf"(?:(?:in|during|from|back\s+in)\s+)?the\s+(?:(?:early|late|mid)[\s-]+)?"
        rf"(?:(?P<full>(?:1[89]|20)\d0)'?s|'?(?P<two>\d0)'?s|(?P<word>{_alt(_DECADE_WORDS)}))",
        _r_decade,
        "digit",
        "decade",
    ),
    _rule(
        "vague",
        r"(?:(?:just|very|only|quite)\s+)?(?:recently|lately)|(?P<other>the\s+other\s+day)",
        _r_vague,
        "vague",
    ),
    _rule(
        "holiday",
        rf"(?:(?P<mod>{_MOD_RE}|on|at|over|for|during|around)\s+)?(?P<h>{_alt(_HOLIDAYS)})"
        rf"(?:,?\s+(?P<y>{_YEAR_RE})(?!\d))?",
        _r_holiday,
        "holiday",
        "unit",
        "month",
    ),
    _rule(
        "weekend",
        r"(?:over|on|at|during|for)\s+the\s+weekend",
        _r_weekend,
        "unit",
    ),
)


# Every rule's match contains a keyword of one of its trigger kinds, at most
# _MAX_PREFIX_TOKENS tokens after the match's start ("ever since in the past a couple of
# weeks"). So rules are only tried at the few token starts just before such keywords.
_KEYWORDS: dict[str, str] = {
    **dict.fromkeys(("yesterday", "today", "tomorrow", "tonight", *_PARTS_OF_DAY), "dayword"),
    **dict.fromkeys(_UNITS, "unit"),
    **dict.fromkeys([*_WEEKDAYS, *_WEEKDAY_ABBREVIATIONS], "weekday"),
    **dict.fromkeys(_MONTHS, "month"),
    **dict.fromkeys(_SEASONS, "season"),
    **dict.fromkeys(_DECADE_WORDS, "decade"),
    **dict.fromkeys(("recently", "lately", "other"), "vague"),
    **dict.fromkeys(
        ("christmas", "halloween", "valentine", "valentines", "independence", "fourth"),
        "holiday",
    ),
}
_TOKENS = re.compile(r"[A-Za-z]+|\d+", re.ASCII)
_MAX_PREFIX_TOKENS = 10
# the words a match can begin with (besides digits): rules are only tried there
_START_WORDS = frozenset(
    {"since", "ever", "the", "this", "last", "next", "past", "coming", "in", "on", "over",
     "during", "within", "for", "throughout", "of", "around", "back", "early", "late", "mid",
     "earlier", "later", "just", "very", "only", "quite", "at", "tonight"}
    | {w.split()[0] for w in (*_NUMBER_WORDS, *_FUZZY_NUMBERS, *_DAY_WORDS, *_PART_PHRASES)}
    | set(_KEYWORDS)
)  # fmt: skip


# --------------------------------------------------------------------------- composition
# "the weekend before 27 June 2023", "two days after May 8": a relative phrase applied to
# an explicit day instead of to the anchor (the way LoCoMo's answers are written).

_SHIFT_REL = (
    rf"(?:(?:(?P<unit>(?:the|last)\s+(?:day|week|weekend|month|year))"
    rf"|(?:the\s+)?(?P<wd>{_WEEKDAY_RE})"
    rf"|(?P<n>{_NUM_RE})\s+(?P<nunit>{_UNIT_RE}))"
    r"\s+(?P<dir>before|after)|(?P<weekof>(?:the\s+)?week\s+of))\s+"
)
_SHIFT_LEFT = re.compile(rf"(?<![\w']){_SHIFT_REL}(?:on\s+)?\Z", _FLAGS)
_SHIFT_FULL = re.compile(rf"{_SHIFT_REL}(?P<rest>.+)", _FLAGS | re.DOTALL)


def _shift(m: re.Match[str], day: date, tz: tzinfo) -> _Span | None:
    """Resolve the relative phrase in ``m`` against ``day`` instead of the anchor."""
    if m["weekof"]:  # "the week of 23 August 2023"
        return _Ctx(None, tz=tz).week(day - timedelta(days=day.weekday()))
    before = _key(m["dir"]) == "before"
    ctx = _Ctx(datetime(day.year, day.month, day.day, tzinfo=tz), "past" if before else "future")
    if m["wd"]:
        weekday = _WEEKDAYS[_key(m["wd"])]
        pick = _weekday_before if before else _weekday_after
        return ctx.day(pick(day, weekday))
    if m["n"]:
        lo, hi = _number(m["n"])
        unit = _UNITS[_key(m["nunit"])]
        if before:
            return _units_between(ctx, unit, -hi, -lo)
        return _units_between(ctx, unit, lo, hi)
    unit = _key(m["unit"]).split()[-1]
    if unit == "day":
        return ctx.day(day + timedelta(days=-1 if before else 1))
    if unit == "week":
        if before:
            return ctx.days(day - timedelta(days=7), day - _DAY, "week")
        return ctx.days(day + _DAY, day + timedelta(days=7), "week")
    if unit == "weekend" and not before:
        return ctx.weekend(_weekday_after(day, 5))
    return _unit_instance(ctx, unit, -1 if before else 1)


# --------------------------------------------------------------------------- scanning


@dataclass(slots=True)
class _Candidate:
    start: int
    end: int
    order: int
    span: _Span


def _aware(dt: datetime) -> datetime:
    """Naive means UTC; aware datetimes are converted to UTC."""
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def _with_zone(dt: datetime) -> datetime:
    """Naive means UTC; aware datetimes keep their zone (it sets the calendar)."""
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


def _zone(dt: datetime) -> tzinfo:
    return UTC if dt.tzinfo is None else dt.tzinfo


def _run_rule(rule: _Rule, m: re.Match[str], ctx: _Ctx) -> _Span | None:
    """Resolve one match; "since X" runs from the start of X to the anchor."""
    try:
        if not m["since"]:
            return rule.resolve(m, ctx)
        span = rule.resolve(m, ctx.with_tense("past"))
        if span is None:
            return None
        end = ctx.anchor if ctx.has_anchor else _FAR_FUTURE
        return (span[0], end, span[2]) if span[0] < end else None
    except (_NoAnchor, ValueError, OverflowError):
        return None


def _scan(text: str, ctx_for: Callable[[int], _Ctx], tz: tzinfo) -> list[_Candidate]:
    """All non-overlapping time expressions in ``text``, longest first, in text order."""
    starts: list[int] = []  # where a match may begin: -1 where one cannot
    windows: dict[str, set[int]] = {}
    for i, token in enumerate(_TOKENS.finditer(text)):
        word = token.group()
        if word[0].isdigit():
            kind: str | None = "digit"
            starts.append(token.start())
        else:
            word = word.lower()
            kind = _KEYWORDS.get(word)
            starts.append(token.start() if word in _START_WORDS else -1)
        if kind is not None:
            windows.setdefault(kind, set()).update(starts[max(0, i - _MAX_PREFIX_TOKENS) :])
    for positions in windows.values():
        positions.discard(-1)
    if not windows:
        return []
    candidates: list[_Candidate] = []
    for order, rule in enumerate(_RULES):
        positions: set[int] = set()
        for kind in rule.triggers:
            positions |= windows.get(kind, set())
        for pos in positions:
            m = rule.pattern.match(text, pos)
            if m is None:
                continue
            span = _run_rule(rule, m, ctx_for(pos))
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
    m = _SHIFT_LEFT.search(text, max(0, c.start - 40), c.start)
    if m is None:
        return c
    try:
        span = _shift(m, c.span[0].astimezone(tz).date(), tz)
    except (ValueError, OverflowError):
        return c
    if span is None:
        return c
    return _Candidate(m.start(), c.end, c.order, span)


def _context_factory(
    text: str, anchor: datetime | None, tense: Tense | None
) -> Callable[[int], _Ctx]:
    """Each position's context: the given tense, or else its own sentence's, lazily."""
    if tense is not None:
        shared = _Ctx(anchor, tense)
        return lambda _pos: shared
    bounds: list[int] = []
    contexts: dict[int, _Ctx] = {}

    def ctx_for(pos: int) -> _Ctx:
        if not bounds:
            ends = (m.end() for m in _SENTENCE_END.finditer(text))
            bounds.extend([0, *ends, len(text) + 1])
        i = bisect_right(bounds, pos) - 1
        if i not in contexts:
            sentence = text[bounds[i] : bounds[i + 1]]
            contexts[i] = _Ctx(anchor, tense_fn=lambda: infer_tense(sentence))
        return contexts[i]

    return ctx_for


_SENTENCE_END = re.compile(r"[.!?\n]+(?:\s|$)")


def _time_range(span: _Span, text: str) -> TimeRange:
    return TimeRange(start=span[0], end=span[1], granularity=span[2], text=text)


# --------------------------------------------------------------------------- public API


def find_time_expressions(
    text: str, anchor: datetime, tense: Tense | None = None
) -> list[TimeMention]:
    """Find and resolve the time expressions in one turn, in order of appearance.

    ``anchor`` is when the turn was said (naive means UTC). Without ``tense``, the tense of
    each mention's sentence is inferred, and only where a rule needs it. Mentions never
    overlap; the longest match wins. Each ``mention.text == text[mention.start:mention.end]``.
    """
    anchor = _with_zone(anchor)
    found = _scan(text, _context_factory(text, anchor, tense), _zone(anchor))
    mentions = []
    for c in found:
        words = text[c.start : c.end]
        mentions.append(TimeMention(c.start, c.end, words, _time_range(c.span, words)))
    return mentions


def _fullmatch(expression: str, ctx: _Ctx) -> _Span | None:
    for rule in _RULES:
        m = rule.pattern.fullmatch(expression)
        if m is not None:
            span = _run_rule(rule, m, ctx)
            if span is not None:
                return span
    return None


def _resolve_span(expression: str, ctx: _Ctx, *, fallback: bool = True) -> _Span | None:
    span = _fullmatch(expression, ctx)
    if span is not None:
        return span
    m = _SHIFT_FULL.fullmatch(expression)
    if m is not None:
        inner = _resolve_span(m["rest"], ctx, fallback=False)
        if inner is not None and inner[2] == "day":
            try:
                return _shift(m, inner[0].astimezone(ctx.tz).date(), ctx.tz)
            except (ValueError, OverflowError):
                return None
    span = _fullmatch("in " + expression, ctx)  # a bare "May", "2022", "summer"
    if span is not None or not fallback:
        return span
    return _dateparser_span(expression, ctx)


_FALLBACK_HINT = re.compile(rf"\d|\b(?:{_MONTH_NAMES_RE}|{_WEEKDAY_RE}|noon|midnight)\b", _FLAGS)


def _dateparser_span(expression: str, ctx: _Ctx) -> _Span | None:
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
    if core.endswith(".") and not re.search(rf"\b{_MONTH_RE}\Z", core, _FLAGS):
        core = core[:-1].rstrip()
    if not core:
        return None
    span = _resolve_span(core, _Ctx(anchor, tense, strict=False))
    return None if span is None else _time_range(span, text)


# hedges a caller's expression may carry ("approximately summer of 2022")
_HEDGE = re.compile(r"\A(?:approximately|approx\.?|around|about|roughly|circa|ca\.)\s+", _FLAGS)

_SESSION_DATE = re.compile(
    r"(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?\s*(?:(?P<ap>[ap])\.?\s*m\.?)?\s+on\s+(?P<date>.+)",
    _FLAGS | re.DOTALL,
)
_ISO_START = re.compile(r"\d{4}-\d{2}-\d{2}")
_HAS_YEAR = re.compile(rf"(?<!\d){_YEAR_RE}(?!\d)")


def _absolute_day(text: str) -> date | None:
    """The day an absolute date string names ("8 May, 2023", "May 8 2023", "2023-05-08")."""
    span = _fullmatch(text.strip().rstrip("."), _Ctx(None))
    if span is None or span[2] != "day":
        return None
    return span[0].date()


def parse_session_date(text: str) -> datetime | None:
    """A session's timestamp as an aware UTC datetime, or None when unparseable.

    LoCoMo's "1:56 pm on 8 May, 2023"; ISO 8601 (naive means UTC); plain dates (midnight).
    """
    text = " ".join(text.split())
    if not text:
        return None
    m = _SESSION_DATE.fullmatch(text)
    if m is not None:
        day = _absolute_day(m["date"])
        hour, minute = int(m["h"]), int(m["mi"] or 0)
        if day is not None and minute < 60:
            if m["ap"]:
                if not 1 <= hour <= 12:
                    return None
                hour = hour % 12 + (12 if m["ap"].lower() == "p" else 0)
            if hour < 24:
                return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)
    if _ISO_START.match(text):
        try:
            return _aware(datetime.fromisoformat(text.replace(" ", "T", 1)))
        except ValueError:
            pass
    day = _absolute_day(text)
    if day is not None:
        return datetime(day.year, day.month, day.day, tzinfo=UTC)
    if not _HAS_YEAR.search(text):
        return None  # dateparser would fill a missing year from today's date
    import dateparser  # slow to import; only needed here

    settings = {
        "RELATIVE_BASE": datetime(2000, 1, 1),
        "PREFER_DAY_OF_MONTH": "first",
        "TIMEZONE": "UTC",
        "RETURN_AS_TIMEZONE_AWARE": True,
    }
    try:
        parsed = dateparser.parse(text, languages=["en"], settings=settings)
    except Exception:  # dateparser raises assorted errors on odd input
        return None
    return None if parsed is None else _aware(parsed)


def question_window(question: str, now: datetime | None = None) -> TimeRange | None:
    """The time window a question restricts itself to, if it names one.

    "What did Caroline do in May 2023?" -> May 2023. Relative phrases ("last week") need
    ``now``; without it they are ignored, since questions about memories are not anchored.
    Several mentions give the smallest range covering them all.
    """
    anchor = None if now is None else _with_zone(now)
    tz = UTC if anchor is None else _zone(anchor)
    found = _scan(question, _context_factory(question, anchor, None), tz)
    if not found:
        return None
    start = min(c.span[0] for c in found)
    end = max(c.span[1] for c in found)
    widest = max(found, key=lambda c: c.span[1] - c.span[0]).span[2]
    return _time_range((start, end, widest), question[found[0].start : found[-1].end])


# --------------------------------------------------------------------------- tense

_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_FUTURE_WORDS = frozenset({"shall", "gonna", "tomorrow", "upcoming", "soon", "tonight", "someday"})
_FUTURE_BEFORE_TO = frozenset(
    {"plan", "plans", "planning", "intend", "intends", "intending", "hope", "hoping",
     "want", "wants", "wanna", "about", "aim", "aiming", "excited", "ready"}
)  # fmt: skip
_PAST_WORDS = frozenset(
    {"was", "were", "did", "had", "ago", "yesterday", "last", "went", "came", "saw", "made",
     "took", "gave", "told", "said", "found", "felt", "thought", "bought", "brought", "met",
     "ran", "ate", "wrote", "left", "began", "kept", "spent", "won", "sent", "heard", "knew",
     "held", "stood", "sat", "slept", "drove", "flew", "swam", "sang", "taught", "caught",
     "fought", "built", "paid", "became", "chose", "broke", "forgot", "understood", "grew",
     "threw", "drew", "rode", "wore", "woke", "got", "didn't", "wasn't", "weren't", "hadn't",
     "haven't", "hasn't", "used", "been"}
)  # fmt: skip
_PRESENT_WORDS = frozenset(
    {"am", "is", "are", "i'm", "you're", "we're", "they're", "now", "currently", "nowadays",
     "today", "these", "usually", "always"}
)  # fmt: skip
# words before an -ed word that make it an adjective ("I'm so excited")
_ADJECTIVE_CUES = frozenset(
    {"am", "is", "are", "i'm", "you're", "we're", "they're", "he's", "she's", "it's", "be",
     "being", "so", "very", "really", "too", "feel", "feels", "feeling", "get", "gets",
     "getting", "seem", "seems", "look", "looks", "more", "most", "quite", "pretty", "super",
     "kinda", "a", "an", "the", "my", "your", "our"}
)  # fmt: skip
_NOT_PAST_ED = frozenset(
    {"need", "indeed", "speed", "seed", "feed", "bed", "red", "shed", "hundred", "sacred",
     "naked", "wicked", "proceed", "exceed", "succeed", "breed", "greed", "weed", "deed",
     "embed", "bleed", "kindred", "rugged", "beloved", "talented", "excited", "interested",
     "tired", "scared", "worried", "bored", "thrilled", "pleased", "stressed", "inspired",
     "motivated", "amazed", "blessed", "overwhelmed", "married", "supposed", "based",
     "related", "detailed", "advanced", "limited", "called", "named"}
)  # fmt: skip


def infer_tense(text: str) -> Tense | None:
    """A cheap guess at whether ``text`` talks about the past, present or future.

    Scores auxiliaries and markers ("will", "going to", "plan to", "next" for the future;
    "was", "did", "went", "ago", "last", "-ed" verbs for the past). None on a tie or when
    nothing tells.
    """
    tokens = _TOKEN.findall(text.replace("\u2019", "'"))
    past = future = present = 0
    prev = ""
    for i, raw in enumerate(tokens):
        tok = raw.lower()
        nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        if tok == "will":
            if raw == "will" or i == 0:  # not "I'm Will"
                future += 2
        elif (
            tok.endswith("'ll")
            or tok in _FUTURE_WORDS
            or (tok == "going" and nxt == "to" and prev not in ("was", "were"))
        ):
            future += 2
        elif tok in _FUTURE_BEFORE_TO and nxt == "to":
            future += 1
        elif tok == "next":
            if nxt != "to":
                future += 2
        elif (tok, nxt) in (("can't", "wait"), ("looking", "forward"), ("see", "you")):
            future += 2
        elif tok in _PAST_WORDS:
            past += 2
        elif tok.endswith("'ve") or tok in ("have", "has"):
            past += 1 if nxt.endswith("ed") or nxt in _PAST_WORDS else 0
        elif (
            len(tok) > 4
            and tok.endswith("ed")
            and tok not in _NOT_PAST_ED
            and prev not in _ADJECTIVE_CUES
        ):
            past += 1
        elif tok in _PRESENT_WORDS:
            present += 1
        prev = tok
    if past > future:
        return "past"
    if future > past:
        return "future"
    if past == 0 and present:
        return "present"
    return None
