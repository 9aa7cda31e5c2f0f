"""A session's timestamp from its date string (LoCoMo's "1:56 pm on 8 May, 2023", ISO)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from cogmem.temporal.context import Ctx, aware, with_zone
from cogmem.temporal.expression import rule_span
from cogmem.temporal.lexicon import FLAGS, YEAR_RE

_SESSION_DATE = re.compile(
    r"(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?\s*(?:(?P<ap>[ap])\.?\s*m\.?)?\s+on\s+(?P<date>.+)",
    FLAGS | re.DOTALL,
)
_ISO_START = re.compile(r"\d{4}-\d{2}-\d{2}")
# REALTALK's own message time, day first: "29.12.2023, 22:42:04" (naive: UTC)
_DAY_FIRST = re.compile(
    r"(?P<d>\d{1,2})\.(?P<mo>\d{1,2})\.(?P<y>\d{4}),?\s+"
    r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?"
)
_HAS_YEAR = re.compile(rf"(?<!\d){YEAR_RE}(?!\d)")


def _absolute_day(text: str) -> date | None:
    """The day an absolute date string names ("8 May, 2023", "May 8 2023", "2023-05-08")."""
    span = rule_span(text.strip().rstrip("."), Ctx(None))
    if span is None or span[2] != "day":
        return None
    return span[0].date()


def parse_session_date(text: str) -> datetime | None:
    """A session's (or a message's) timestamp as an aware datetime, or None when unparseable.

    LoCoMo's "1:56 pm on 8 May, 2023"; ISO 8601 (naive means UTC; a time with an offset keeps
    it, so the speaker's local day stays the day "yesterday" counts from); REALTALK's day-first
    "29.12.2023, 22:42:04"; plain dates (midnight UTC).
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
            return with_zone(datetime.fromisoformat(text.replace(" ", "T", 1)))
        except ValueError:
            pass
    m = _DAY_FIRST.fullmatch(text)
    if m is not None:
        try:
            return datetime(
                int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]),
                int(m["s"] or 0), tzinfo=UTC,
            )  # fmt: skip
        except ValueError:
            return None
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
    return None if parsed is None else aware(parsed)
