"""What a resolver works with: the anchor, the tense, calendar spans, unit arithmetic."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, tzinfo

from cogmem.models import Granularity, TimeRange
from cogmem.temporal.lexicon import FUZZY_NUMBERS, NUMBER_WORDS, PARTS_OF_DAY, UNIT_GRANULARITY
from cogmem.temporal.tense import Tense

Span = tuple[datetime, datetime, Granularity]


FAR_FUTURE = datetime(9999, 12, 31, tzinfo=UTC)
DAY = timedelta(days=1)


# --------------------------------------------------------------------------- context


class NoAnchor(Exception):
    """A relative expression was met where no anchor is known."""


class Ctx:
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
        self._anchor = None if anchor is None else with_zone(anchor)
        self._tense = tense
        self._tense_fn = tense_fn
        self.strict = strict
        self.tz: tzinfo = tz or (UTC if anchor is None else zone(anchor))

    @property
    def has_anchor(self) -> bool:
        return self._anchor is not None

    @property
    def anchor(self) -> datetime:
        if self._anchor is None:
            raise NoAnchor
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

    def with_tense(self, tense: Tense | None) -> Ctx:
        return Ctx(self._anchor, tense, strict=self.strict)

    # calendar helpers: local calendar -> UTC spans
    def at(self, d: date, hours: int = 0) -> datetime:
        local = datetime(d.year, d.month, d.day, tzinfo=self.tz) + timedelta(hours=hours)
        return local.astimezone(UTC)

    def day(self, d: date) -> Span:
        return self.at(d), self.at(d + DAY), "day"

    def days(self, first: date, last: date, granularity: Granularity = "day") -> Span:
        return self.at(first), self.at(last + DAY), granularity

    def part(self, d: date, part: str) -> Span:
        lo, hi = PARTS_OF_DAY[part]
        return self.at(d, lo), self.at(d, hi), "day"

    def week(self, monday: date) -> Span:
        return self.at(monday), self.at(monday + timedelta(days=7)), "week"

    def weekend(self, saturday: date) -> Span:
        return self.at(saturday), self.at(saturday + timedelta(days=2)), "weekend"

    def month(self, year: int, month: int, granularity: Granularity = "month") -> Span:
        ny, nm = add_months(year, month, 1)
        return self.at(date(year, month, 1)), self.at(date(ny, nm, 1)), granularity

    def year(self, year: int) -> Span:
        return self.at(date(year, 1, 1)), self.at(date(year + 1, 1, 1)), "year"

    def decade(self, first_year: int) -> Span:
        return self.at(date(first_year, 1, 1)), self.at(date(first_year + 10, 1, 1)), "decade"

    def season(self, q: int) -> Span:
        """Season number ``q = year * 4 + index`` (index 3 = winter starting in December)."""
        year, index = divmod(q, 4)
        start, _, _ = self.month(year, 3 + 3 * index)
        ey, em = add_months(year, 3 + 3 * index, 3)
        return start, self.at(date(ey, em, 1)), "season"

    def week_start(self, d: date | None = None) -> date:
        d = self.today if d is None else d
        return d - timedelta(days=d.weekday())


def add_months(year: int, month: int, n: int) -> tuple[int, int]:
    k = year * 12 + (month - 1) + n
    return k // 12, k % 12 + 1


def _shift_date_months(d: date, n: int) -> date:
    y, m = add_months(d.year, d.month, n)
    for day in (d.day, 30, 29, 28):
        try:
            return date(y, m, day)
        except ValueError:
            continue
    raise ValueError("unreachable")  # pragma: no cover


def current_season(d: date) -> int:
    if d.month <= 2:
        return (d.year - 1) * 4 + 3
    return d.year * 4 + (d.month - 3) // 3


def key_of(s: str) -> str:
    return " ".join(s.lower().split())


def number_bounds(word: str) -> tuple[int, int]:
    """(fewest, most) for a number as digits or words."""
    key = key_of(word)
    if key.isdigit():
        return int(key), int(key)
    if key in FUZZY_NUMBERS:
        return FUZZY_NUMBERS[key]
    n = NUMBER_WORDS[key]
    return n, n


# --------------------------------------------------------------------------- unit arithmetic


def unit_instance(ctx: Ctx, unit: str, k: int) -> Span:
    """The calendar unit ``k`` units away from the anchor's (0 = the current one)."""
    today = ctx.today
    if unit == "day":
        return ctx.day(today + timedelta(days=k))
    if unit == "week":
        return ctx.week(ctx.week_start() + timedelta(days=7 * k))
    if unit == "weekend":
        return ctx.weekend(ctx.week_start() + timedelta(days=5 + 7 * k))
    if unit == "month":
        return ctx.month(*add_months(today.year, today.month, k))
    if unit == "year":
        return ctx.year(today.year + k)
    decade = today.year // 10 * 10
    return ctx.decade(decade + 10 * k)


def units_between(ctx: Ctx, unit: str, first: int, last: int) -> Span:
    lo, _, gran = unit_instance(ctx, unit, first)
    _, hi, _ = unit_instance(ctx, unit, last)
    return lo, hi, gran


def window(ctx: Ctx, unit: str, n: int, future: bool) -> Span:
    """The last (or next) ``n`` units up to (or from) the anchor, day-aligned at the far end."""
    today = ctx.today
    gran = UNIT_GRANULARITY["week" if unit == "weekend" else unit]
    if unit == "day":
        far = today + timedelta(days=n if future else -n)
    elif unit in ("week", "weekend"):
        far = today + timedelta(days=7 * n if future else -7 * n)
    else:
        months = {"month": 1, "year": 12, "decade": 120}[unit] * n
        far = _shift_date_months(today, months if future else -months)
    if future:
        return ctx.anchor, ctx.at(far + DAY), gran
    return ctx.at(far), ctx.anchor, gran


def weekday_before(d: date, weekday: int) -> date:
    return d - timedelta(days=(d.weekday() - weekday) % 7 or 7)


def weekday_after(d: date, weekday: int) -> date:
    return d + timedelta(days=(weekday - d.weekday()) % 7 or 7)


def saturday_on_or_before(d: date) -> date:
    return d - timedelta(days=(d.weekday() - 5) % 7)


# --------------------------------------------------------------------------- zones and results


def aware(dt: datetime) -> datetime:
    """Naive means UTC; aware datetimes are converted to UTC."""
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def with_zone(dt: datetime) -> datetime:
    """Naive means UTC; aware datetimes keep their zone (it sets the calendar)."""
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


def zone(dt: datetime) -> tzinfo:
    return UTC if dt.tzinfo is None else dt.tzinfo


def time_range(span: Span, text: str) -> TimeRange:
    return TimeRange(start=span[0], end=span[1], granularity=span[2], text=text)
