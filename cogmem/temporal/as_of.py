"""The moment a search looks back from (``as_of``): what a person or a program types as a
point in time, read as an aware UTC datetime.

* A datetime object: kept (a naive one is UTC, as everywhere in cogmem).
* ISO 8601 with a time: ``2024-03-01T14:00``, ``2024-03-01 14:00:00+02:00``; that instant.
* A date alone, ISO or plain: ``2024-03-01``, ``1 March 2024``, ``March 1, 2024``,
  ``1 Mar 2024``, ``2024/03/01``: the end of that day (everything said that day counts).
* A month or a year alone: ``March 2024``, ``2024``: the end of that month or year.

Anything else is an :class:`AsOfError` naming what was accepted; nothing is guessed. A
time outside the range every client time keeps to (:mod:`cogmem.temporal.client_time`:
``9999-12-31``, ``0001-01-01T00:30+14:00``) is an :class:`AsOfError` too.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta

from cogmem.models import as_utc
from cogmem.temporal.client_time import RANGE, ClientTimeError, check_time

_MONTHS = {
    name.lower(): n
    for n in range(1, 13)
    for name in (calendar.month_name[n], calendar.month_abbr[n])
}
_MONTHS["sept"] = 9
_DAY_MONTH_YEAR = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?\s+(\d{4})$")
_MONTH_DAY_YEAR = re.compile(r"^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$")
_MONTH_YEAR = re.compile(r"^([a-z]+)\.?,?\s+(\d{4})$")
_SLASHED = re.compile(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$")
_YEAR = re.compile(r"^(\d{4})$")
_END = timedelta(microseconds=1)

ACCEPTED = "an ISO date or time (2024-03-01, 2024-03-01T14:00), '1 March 2024', 'March 2024'"


class AsOfError(ClientTimeError):
    """A time that cannot be read as a point in time, or one outside the range kept."""


def _end_of_day(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC) + timedelta(days=1) - _END


def _month(word: str) -> int:
    month = _MONTHS.get(word.lower())
    if month is None:
        raise AsOfError(f"{word!r} is not a month")
    return month


def _day(year: int, month: int, day: int) -> date:
    try:
        return date(year, month, day)
    except ValueError as exc:
        raise AsOfError(f"no such day: {year}-{month:02d}-{day:02d}") from exc


def parse_as_of(value: datetime | date | str | None) -> datetime | None:
    """``value`` as the instant a search looks back from (None stays None: now), in UTC
    and inside :func:`~cogmem.temporal.client_time.check_time`'s range."""
    try:
        at = _read(value)
    except OverflowError:  # the end of 9999-12-31, an offset before 0001-01-01
        shown = value if isinstance(value, str) else str(value)
        raise AsOfError(
            f"{' '.join(shown.split())[:64]!r} is outside the times cogmem keeps ({RANGE})"
        ) from None
    if at is None:
        return None
    try:
        return check_time(at).astimezone(UTC)
    except ClientTimeError as exc:
        raise AsOfError(str(exc)) from None


def _read(value: datetime | date | str | None) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return as_utc(value).astimezone(UTC)
    if isinstance(value, date):
        return _end_of_day(value)
    text = " ".join(str(value).strip().split())
    if not text:
        raise AsOfError(f"an empty time; give {ACCEPTED}")
    low = text.lower()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return _end_of_day(date.fromisoformat(text))
        if re.match(r"^\d{4}-\d{2}-\d{2}[T ]\d", text):
            return as_utc(datetime.fromisoformat(text.replace("Z", "+00:00"))).astimezone(UTC)
    except ValueError as exc:
        raise AsOfError(f"{text!r} is not a valid ISO date or time") from exc
    if m := _SLASHED.match(low):
        return _end_of_day(_day(int(m[1]), int(m[2]), int(m[3])))
    if m := _DAY_MONTH_YEAR.match(low):
        return _end_of_day(_day(int(m[3]), _month(m[2]), int(m[1])))
    if m := _MONTH_DAY_YEAR.match(low):
        return _end_of_day(_day(int(m[3]), _month(m[1]), int(m[2])))
    if m := _MONTH_YEAR.match(low):
        year, month = int(m[2]), _month(m[1])
        last = calendar.monthrange(year, month)[1]
        return _end_of_day(date(year, month, last))
    if m := _YEAR.match(low):
        return _end_of_day(date(int(m[1]), 12, 31))
    raise AsOfError(f"cannot read {text!r} as a time; give {ACCEPTED}")


def describe_as_of(at: datetime) -> str:
    """How an answer names the time it speaks for: '1 March 2024' for the end of a day,
    else with the time ('1 March 2024 14:00 UTC')."""
    if (at + _END).time() == datetime.min.time():
        return f"{at.day} {at:%B %Y}"
    return f"{at.day} {at:%B %Y %H:%M} UTC"
