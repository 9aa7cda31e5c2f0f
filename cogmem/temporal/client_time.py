"""The one check for every time a client sends: a search's ``as_of`` (read by
:func:`cogmem.temporal.as_of.parse_as_of`) and a turn's ``time``.

The HTTP API and the MCP tools (:mod:`cogmem.service.policy`), the CLI (``--as-of``) and
the Python API (:meth:`~cogmem.api.Memory.search` and the others read ``as_of`` with
``parse_as_of``; a :class:`~cogmem.models.Turn` checks its time) all come here, so a time
is accepted or refused alike everywhere, in one line that says why:

* A time must lie between :data:`EARLIEST` and :data:`LATEST` (both in :mod:`cogmem.models`)
  once converted to UTC: the calendar's first and last day are left out, so that no
  offset (at most 24 h) and no "end of that day" reaches past what Python and Neo4j can
  hold. ``9999-12-31`` or ``0001-01-01T00:30+14:00`` is refused, never an
  ``OverflowError`` or the driver's "Ticks out of range".
* Its UTC offset, when it has one, is at most 18 hours either way (Neo4j's, as Java's:
  ``-23:00`` is valid in Python and refused by the database).
* A turn's time is ISO-8601 text or a datetime. A number is refused: whether ``1700000000``
  counts seconds or milliseconds would be a guess (the same for a text of digits alone).
"""

from __future__ import annotations

import re
from datetime import datetime

# the range and its check sit in cogmem.models (a Turn checks its time there, and models
# import nothing of cogmem); this module is where the rest of cogmem reads them
from cogmem.models import EARLIEST, LATEST, MAX_OFFSET, RANGE, ClientTimeError, check_time

__all__ = [
    "EARLIEST",
    "LATEST",
    "MAX_OFFSET",
    "RANGE",
    "ClientTimeError",
    "check_time",
    "turn_time",
]

_DIGITS = re.compile(r"[+-]?\d+(?:\.\d*)?")


def turn_time(value: object) -> object:
    """A turn's time as a client sent it, before it is read as a datetime: None and a
    datetime pass (the datetime checked), ISO-8601 text passes on to be read; a number, or
    a text of digits alone, is :class:`ClientTimeError` (its unit would be a guess)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return check_time(value)
    if isinstance(value, bool | int | float) or (
        isinstance(value, str) and _DIGITS.fullmatch(value.strip())
    ):
        raise ClientTimeError(
            "a number is not a time (seconds or milliseconds would be a guess): give "
            "ISO-8601 text, e.g. 2024-03-01T14:00:00Z"
        )
    return value
