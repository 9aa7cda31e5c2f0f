"""Which turns a forget names (:mod:`cogmem.forget`): turn ids (node ids, or source ids of a
conversation), a whole conversation, or a span of time (optionally one speaker's), each
resolved against the group or refused in one line (:class:`ForgetError`) before anything
is planned or written.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime

from pydantic import BaseModel

from cogmem.ingest.ids import turn_id
from cogmem.store import Row, Store
from cogmem.temporal.as_of import AsOfError, parse_as_of


class ForgetError(ValueError):
    """A forget that cannot be done as asked (one line; nothing was changed)."""


class NothingToForget(ForgetError):
    """The turn, conversation or span named holds nothing of the group (HTTP 404)."""


class ForgottenTurn(BaseModel):
    """A turn a forget removes: its node id, its source id and its conversation's."""

    id: str
    source_id: str
    conversation: str


def _turn_rows(rows: Sequence[Row]) -> list[ForgottenTurn]:
    return [
        ForgottenTurn(
            id=r["id"], source_id=str(r["source_id"]), conversation=str(r["conversation"])
        )
        for r in rows
    ]


def resolve_turns(
    store: Store, group: str, ids: Sequence[str], conversation: str | None = None
) -> list[ForgottenTurn]:
    """The turns ``ids`` name: source ids (LoCoMo ``D1:3``) of ``conversation`` (its source
    id) when one is given; otherwise node ids, or source ids that one conversation of the
    group holds. Raises :class:`ForgetError` for an id that names no turn, or a source id
    that several conversations hold."""
    wanted = list(dict.fromkeys(str(i).strip() for i in ids))
    if not wanted or any(not i for i in wanted):
        raise ForgetError("no turn id given: name the turns to forget (e.g. --turn D1:3)")
    if conversation is not None:
        nodes = {turn_id(group, conversation, sid): sid for sid in wanted}
        found = store.read("forget/turns_by_id", group=group, ids=sorted(nodes))
        have = {nodes[r["id"]] for r in found}
        missing = [sid for sid in wanted if sid not in have]
        if missing:
            raise NothingToForget(
                f"no turn {missing[0]!r} in conversation {conversation!r} of group {group!r}: "
                "nothing was forgotten"
            )
        return _turn_rows(found)
    by_id = store.read("forget/turns_by_id", group=group, ids=wanted)
    rest = [i for i in wanted if i not in {r["id"] for r in by_id}]
    by_source = store.read("forget/turns_by_source", group=group, ids=rest) if rest else []
    for sid in rest:
        places = sorted({r["conversation"] for r in by_source if r["source_id"] == sid})
        if not places:
            raise NothingToForget(f"no turn {sid!r} in group {group!r}: nothing was forgotten")
        if len(places) > 1:
            raise ForgetError(
                f"turn id {sid!r} is in {len(places)} conversations of group {group!r} "
                f"({', '.join(map(repr, places[:3]))}): name one with --conversation"
            )
    return _turn_rows([*by_id, *by_source])


def conversation_turns(
    store: Store, group: str, conversation: str
) -> tuple[str, list[ForgottenTurn]]:
    """The node id and the turns of ``conversation`` (source id or node id)."""
    rows = store.read("forget/conversation_turns", group=group, id=conversation)
    if not rows:
        raise NothingToForget(
            f"no conversation {conversation!r} in group {group!r}: nothing was forgotten"
        )
    if len(rows) > 1:
        raise ForgetError(f"{conversation!r} names {len(rows)} conversations: give its node id")
    (row,) = rows
    turns = [
        ForgottenTurn(id=t["id"], source_id=str(t["source_id"]), conversation=row["conversation"])
        for t in row["turns"]
    ]
    return str(row["conversation_id"]), turns


def span_bound(value: datetime | date | str, end: bool) -> datetime:
    """A span's start (a day: its first instant) or end (a day: its last instant), UTC."""
    if isinstance(value, datetime):
        return parse_as_of(value) or value
    if isinstance(value, date):
        day = value
    else:
        text = str(value).strip()
        try:
            if len(text) == 10:
                day = date.fromisoformat(text)
            else:
                when = parse_as_of(text)
                assert when is not None
                return when
        except (ValueError, AsOfError) as exc:
            raise ForgetError(
                f"{'--to' if end else '--from'} {text!r} is not an ISO date or time "
                "(2024-03-01 or 2024-03-01T18:30:00+01:00)"
            ) from exc
    if end:
        when = parse_as_of(day)
        assert when is not None
        return when
    return datetime.combine(day, dtime.min, tzinfo=UTC)


def span_turns(
    store: Store,
    group: str,
    start: datetime | date | str,
    end: datetime | date | str,
    speaker: str | None = None,
) -> list[ForgottenTurn]:
    """The turns said from ``start`` to ``end`` (both included), by ``speaker`` if given."""
    lo, hi = span_bound(start, end=False), span_bound(end, end=True)
    if hi < lo:
        raise ForgetError(
            f"the span ends ({hi:%Y-%m-%d %H:%M}) before it starts ({lo:%Y-%m-%d %H:%M})"
        )
    who = speaker.strip() if speaker and speaker.strip() else None
    rows = store.read(
        "forget/span_turns",
        group=group,
        lo=lo - timedelta(seconds=1),
        hi=hi + timedelta(seconds=1),
        start_ms=math.floor(lo.timestamp() * 1000),
        end_ms=math.floor(hi.timestamp() * 1000),
        speaker=who,
    )
    if not rows:
        by = f" by {who!r}" if who else ""
        raise NothingToForget(
            f"no turn{by} said between {lo.isoformat()} and {hi.isoformat()} in group "
            f"{group!r}: nothing was forgotten"
        )
    return _turn_rows(rows)
