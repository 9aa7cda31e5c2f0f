"""The words time expressions are made of, and the regex fragments built from them."""

from __future__ import annotations

import re
from typing import Any

from cogmem.models import Granularity

FLAGS = re.IGNORECASE | re.ASCII


# --------------------------------------------------------------------------- vocabulary

MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3,
    "april": 4, "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7,
    "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10,
    "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
# Month names that are also everyday words; without a day or year they must be capitalised.
AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar"})

WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
    "saturday": 5, "sunday": 6,
}  # fmt: skip

# abbreviations count only after "last", "next", "this" or a capitalised "on Fri"
WEEKDAY_ABBREVIATIONS: dict[str, int] = {
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
    "sat": 5, "sun": 6,
}  # fmt: skip

# fixed-date holidays -> (month, day); movable feasts (Easter, Thanksgiving) are not here
HOLIDAYS: dict[str, tuple[int, int]] = {
    "christmas": (12, 25), "christmas day": (12, 25), "christmas eve": (12, 24),
    "new year's eve": (12, 31), "new years eve": (12, 31), "new year's day": (1, 1),
    "new years day": (1, 1), "halloween": (10, 31), "valentine's day": (2, 14),
    "valentines day": (2, 14), "independence day": (7, 4), "the fourth of july": (7, 4),
    "the 4th of july": (7, 4),
}  # fmt: skip

# season -> index (0 = spring starting in March ... 3 = winter starting in December)
SEASONS: dict[str, int] = {"spring": 0, "summer": 1, "autumn": 2, "fall": 2, "winter": 3}

NUMBER_WORDS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "couple": 2, "a couple": 2, "couple of": 2, "a couple of": 2,
}  # fmt: skip
# vague quantities: (fewest, most) units
FUZZY_NUMBERS: dict[str, tuple[int, int]] = {
    "a few": (2, 5), "few": (2, 5), "several": (3, 7),
}  # fmt: skip

UNITS: dict[str, str] = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "wk": "week", "wks": "week",
    "weekend": "weekend", "weekends": "weekend", "month": "month", "months": "month",
    "year": "year", "years": "year", "yr": "year", "yrs": "year",
    "decade": "decade", "decades": "decade",
}  # fmt: skip
UNIT_GRANULARITY: dict[str, Granularity] = {
    "day": "day", "week": "week", "weekend": "weekend", "month": "month", "year": "year",
    "decade": "decade",
}  # fmt: skip

# (start hour, end hour) of the parts of a day; night runs into the next morning
PARTS_OF_DAY: dict[str, tuple[int, int]] = {
    "morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 30),
}  # fmt: skip
# day words -> offset in days from the anchor's date
DAY_WORDS: dict[str, int] = {
    "the day before yesterday": -2, "yesterday": -1, "today": 0, "tomorrow": 1,
    "the day after tomorrow": 2,
}  # fmt: skip
# phrases naming a part of a day -> (offset in days, part)
PART_PHRASES: dict[str, tuple[int, str]] = {
    "tonight": (0, "night"), "last night": (-1, "night"), "this morning": (0, "morning"),
    "this afternoon": (0, "afternoon"), "this evening": (0, "evening"),
}  # fmt: skip
DECADE_WORDS: dict[str, int] = {
    "twenties": 2, "thirties": 3, "forties": 4, "fifties": 5, "sixties": 6,
    "seventies": 7, "eighties": 8, "nineties": 9,
}  # fmt: skip


def alt(words: Any) -> str:
    """A regex alternation of words, longest first, spaces matching any whitespace."""
    ordered = sorted(set(words), key=len, reverse=True)
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ordered) + ")"


MONTH_NAMES_RE = alt(MONTHS)
# a month name; an abbreviation may carry its dot ("Sept.")
_MONTH_ABBREVIATIONS = [k for k in MONTHS if len(k) <= 4 and k not in ("may", "june", "july")]
MONTH_RE = rf"(?:{alt(_MONTH_ABBREVIATIONS)}\.|{MONTH_NAMES_RE})"
WEEKDAY_RE = alt(WEEKDAYS)
SEASON_RE = alt(SEASONS)
NUM_RE = alt(list(NUMBER_WORDS) + list(FUZZY_NUMBERS)) + r"|\d{1,3}"
UNIT_RE = alt(UNITS)
PART_RE = alt(PARTS_OF_DAY)
YEAR_RE = r"(?:1[89]|20)\d{2}"
# vague position inside a unit ("early May", "the end of 2022"): recognised, range unchanged
VAGUE_PART = r"(?:(?:early|late|mid)[\s-]+|the\s+(?:beginning|start|middle|end)\s+of\s+)?"
# what may follow a dangling "the week before" for it to mean "before now"
DANGLING_END = r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:and|but|so|too|then|already|again)\b)"
