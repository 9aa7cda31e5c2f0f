"""How the operators' rows become :class:`~cogmem.retrieval.candidates.Candidate` s and
the turns Ground hands to Evidence, and Anchor's fuzzy lexical score (no I/O)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from rapidfuzz import fuzz

from cogmem.models import ENTITY_TYPES
from cogmem.retrieval.candidates import Candidate

_EPOCH_FIELDS = {"time_start_s": "time_start", "time_end_s": "time_end"}
"""Times read as epoch seconds and kept in UTC: a referenced time is a span resolved on the
speaker's calendar, compared, not shown as a clock time."""


_SCORES = ("bm25", "fuzzy", "vector", "score", "path")
_FIELDS = dataclasses.fields(Candidate)
if tuple(f.name for f in _FIELDS[-len(_SCORES) :]) != _SCORES:  # scored relies on it
    raise TypeError(f"Candidate's last fields must be {_SCORES}")
_NODE_FIELDS = tuple(f.name for f in _FIELDS[: -len(_SCORES)])
_NODE_DEFAULTS = tuple(f.default for f in _FIELDS[: -len(_SCORES)])


def when(epoch_s: float | None, offset_s: int | None = None) -> datetime | None:
    """The instant ``epoch_s`` at the UTC offset it was given with (``offset_s``, seconds
    east of UTC, Neo4j's ``offsetSeconds``; None or 0: UTC), so that a turn said at 19:40
    in UTC−7 shows its speaker's day, not the next day in UTC."""
    if epoch_s is None:
        return None
    return datetime.fromtimestamp(epoch_s, _zone(offset_s))


def _zone(offset_s: int | None) -> timezone:
    return timezone(timedelta(seconds=offset_s)) if offset_s else UTC


def candidate_fields(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a candidate takes of a node's fields, scores left out, in :class:`Candidate`'s
    order (a missing or null field takes its default; times arrive as epoch seconds: cheap
    to read). A search asks this of the same nodes again and again, so Anchor keeps it with
    the group's copy (:meth:`GroupVectors.node_as`)."""
    data = {k: v for k, v in row.items() if v is not None}
    for key, field in _EPOCH_FIELDS.items():
        if row.get(key) is not None:
            data[field] = when(row[key])
    if row.get("at_s") is not None:
        data["at"] = when(row["at_s"], row.get("at_off"))
    if data.get("content") is None:
        data["content"] = row.get("name") or ""
    return tuple(
        data[name] if default is dataclasses.MISSING else data.get(name, default)
        for name, default in zip(_NODE_FIELDS, _NODE_DEFAULTS, strict=True)
    )


def turn_row(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A turn as Ground hands it to Evidence (kept per node with the group's copy: it must
    not be changed)."""
    return {
        "id": fields["id"],
        "source_id": fields["source_id"],
        "speaker": fields["speaker"],
        "text": fields["content"],
        "at": when(fields.get("at_s"), fields.get("at_off")),
        "idx": fields["idx"],
        "prev_idx": fields.get("prev_idx"),
        "conversation_id": fields["conversation_id"],
    }


def candidate(row: Mapping[str, Any], step: str) -> Candidate:
    """A candidate from an operator row, with its BM25 (``lexical``) and vector scores."""
    return scored(candidate_fields(row), row.get("lexical"), row.get("vector"), step)


def scored(
    fields: tuple[Any, ...], lexical: float | None, vector: float | None, step: str
) -> Candidate:
    """A candidate from :func:`candidate_fields`: BM25 ``lexical``, ``vector``, no fuzzy or
    fused score yet, reached by ``step``."""
    return Candidate(*(*fields, float(lexical or 0.0), 0.0, float(vector or 0.0), 0.0, [step]))


def fuzzy_score(question: str, terms: list[str], cand: Candidate) -> float:
    """rapidfuzz lexical similarity (0..1) between a question and a candidate's text."""
    best = 0.0
    if cand.name:
        best = fuzz.WRatio(cand.name, question) / 100.0
        if cand.type in ENTITY_TYPES:
            best = max(best, fuzz.partial_ratio(cand.name.lower(), question.lower()) / 100.0)
    if cand.content and terms:
        best = max(best, fuzz.token_set_ratio(" ".join(terms), cand.content.lower()) / 100.0)
    return best
