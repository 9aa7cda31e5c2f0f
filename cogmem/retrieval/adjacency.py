"""Traverse and Intersect over a group's records held in process (:mod:`cogmem.retrieval.
vectors` keeps each record's relationships to the group's other records with its fields).

They return the rows that ``operators/traverse_hop.cypher`` and ``operators/intersect.cypher``
return, in the same order, ties included: those statements define what the operators do
(and run the same question in Neo4j Browser); a test checks both ways agree on a graph.
Keeping them here spares a round trip and, in a large group, Neo4j expanding a person with
thousands of events to rank them one property lookup at a time.

Times compare as epoch seconds (what the in-process copy holds), as Cypher orders
datetimes: ``null`` sorts as larger than any value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import repeat
from typing import Any

import numpy as np

from cogmem.models import RelType

Node = Mapping[str, Any]
Lookup = Callable[[str], Node | None]

CONCEPT = "Concept"
TO_CONCEPT = frozenset({"INVOLVES", "ABOUT", "TARGETS"})
"""What Intersect follows from a record to the concepts it is about."""

_ROW_FIELDS = (
    "type",
    "name",
    "content",
    "quote",
    "speaker",
    "subject",
    "source",
    "target",
    "status",
    "turn_id",
    "time_start_s",
    "time_end_s",
    "time_text",
    "at_s",
    "at_off",
)


def _seconds(at: datetime | None) -> float | None:
    return None if at is None else at.timestamp()


_STRUCTURE = (RelType.HAS_SESSION, RelType.HAS_TURN, RelType.NEXT, RelType.EVIDENCED_BY)
REL_CODES: dict[str, int] = {
    rel.value: n for n, rel in enumerate(r for r in RelType if r not in _STRUCTURE)
}
"""The relationship types between records that the in-process copy keeps."""
_RELS = tuple(REL_CODES)


@dataclass(frozen=True)
class Links:
    """One node's relationships to the view's records: type code, the other end's row,
    and whether it leaves this node."""

    rel: np.ndarray
    other: np.ndarray
    outgoing: np.ndarray

    @classmethod
    def of(
        cls, links: Iterable[Sequence[Any]], rows_of: Callable[[Sequence[str]], np.ndarray]
    ) -> Links:
        """The relationships ``links`` ([type, other id, outgoing] each) whose type the copy
        keeps and whose other end is a row (``rows_of``: each id's row, -1 for none)."""
        listed = links if isinstance(links, list) else list(links)
        if not listed:
            return cls.none()
        rels, others, outs = zip(*listed, strict=True)
        n = len(rels)
        rel = np.fromiter(map(REL_CODES.get, rels, repeat(-1)), np.int64, count=n)
        other = np.asarray(rows_of(others), np.int64)
        out = np.fromiter(map(bool, outs), bool, count=n)
        keep = (rel >= 0) & (other >= 0)
        return cls(rel[keep].astype(np.int8), other[keep], out[keep])

    @classmethod
    def none(cls) -> Links:
        return cls(np.zeros(0, np.int8), np.zeros(0, np.int64), np.zeros(0, bool))

    def without(self, rows: np.ndarray) -> Links:
        """These relationships but those to ``rows``."""
        if not rows.size or not self.other.size:
            return self
        keep = ~np.isin(self.other, rows)
        return Links(self.rel[keep], self.other[keep], self.outgoing[keep])

    def plus(self, more: Links) -> Links:
        """These relationships, then ``more``."""
        if not more.rel.size:
            return self
        return Links(
            np.concatenate([self.rel, more.rel]),
            np.concatenate([self.other, more.other]),
            np.concatenate([self.outgoing, more.outgoing]),
        )


@dataclass(frozen=True)
class Times:
    """Per row, as epoch seconds with NaN for absent: ``time_start``, ``time_end``, ``at``."""

    start: np.ndarray
    end: np.ndarray
    at: np.ndarray

    @classmethod
    def of(cls, fields: Sequence[Mapping[str, Any]] | np.ndarray) -> Times:
        def column(key: str) -> np.ndarray:
            return np.array([f.get(key) for f in fields], dtype=np.float64)  # None -> NaN

        return cls(column("time_start_s"), column("time_end_s"), column("at_s"))

    def updated(
        self, fields: Sequence[Mapping[str, Any]] | np.ndarray, rows: Sequence[int]
    ) -> Times:
        """These times for ``fields``, a later view of the same rows with rows appended:
        only ``rows`` (the replaced and the appended) are read again."""

        def column(old: np.ndarray, key: str) -> np.ndarray:
            out = np.full(len(fields), np.nan)
            out[: len(old)] = old
            for at in rows:
                value = fields[at].get(key)
                out[at] = np.nan if value is None else value
            return out

        return Times(
            column(self.start, "time_start_s"),
            column(self.end, "time_end_s"),
            column(self.at, "at_s"),
        )


@dataclass(frozen=True)
class GraphView:
    """What Traverse and Intersect read of one consistent view of a group."""

    node: Lookup
    row: Mapping[str, int]
    ids: Sequence[str] | np.ndarray  # the row ids (an object array in a view)
    is_turn: np.ndarray
    type_codes: np.ndarray
    codes: Mapping[str, int]
    times_of: Callable[[], Times]  # built on first need
    links: Callable[[int], Links]


def traverse_rows(
    view: GraphView,
    steps: Sequence[Mapping[str, Any]],
    per_node: int,
    sims: Mapping[str, float],
) -> list[dict[str, Any]]:
    """The rows of ``operators/traverse_hop`` for ``steps`` ({ids, rel_types, types,
    start, end}): for each start record and step, its ``per_node`` neighbours closest to
    the question (``sims``; 0 for a record left out), then the most recent, then by id."""
    times = view.times_of()
    dense = _dense(view, sims)
    out: list[dict[str, Any]] = []
    for si, step in enumerate(steps):
        wanted_rels = _rel_mask(step["rel_types"])
        types = step.get("types")
        codes = [view.codes[t] for t in types if t in view.codes] if types is not None else None
        start, end = _seconds(step.get("start")), _seconds(step.get("end"))
        for a_id in dict.fromkeys(step["ids"]):
            at = view.row.get(a_id)
            if at is None or view.is_turn[at]:
                continue
            links = view.links(at)
            keep = wanted_rels[links.rel] & ~view.is_turn[links.other]
            if codes is not None:
                keep &= np.isin(view.type_codes[links.other], codes)
            rows = links.other[keep]
            if start is not None:
                until = np.where(np.isnan(times.end[rows]), times.at[rows], times.end[rows])
                since = np.where(np.isnan(times.start[rows]), times.at[rows], times.start[rows])
                inside = (until > start) & (since < end) if end is not None else until < -np.inf
                keep[keep] = inside  # NaN compares false: a missing time is outside
                rows = links.other[keep]
            if rows.size == 0:
                continue
            rels = links.rel[keep]
            outs = links.outgoing[keep]
            sim = dense[rows]
            when = np.where(np.isnan(times.start[rows]), times.at[rows], times.start[rows])
            # ORDER BY sim DESC, when DESC (null first), id: numbers first, ids for ties
            late = np.where(np.isnan(when), -np.inf, -when)
            chosen = _best(sim, late, rows, view.ids, per_node)
            for i in chosen:
                b_id = view.ids[int(rows[i])]
                b = view.node(b_id) or {}
                row = {k: b.get(k) for k in _ROW_FIELDS}
                row.update(
                    step=si,
                    from_id=a_id,
                    rel=_RELS[rels[i]],
                    outgoing=bool(outs[i]),
                    id=b_id,
                    vector=float(sim[i]),
                )
                out.append(row)
    out.sort(key=lambda r: (r["step"], r["from_id"], -r["vector"], r["id"], r["rel"]))
    return out


def _best(
    sim: np.ndarray, late: np.ndarray, rows: np.ndarray, ids: Sequence[str] | np.ndarray, k: int
) -> list[int]:
    """Indices of the ``k`` best by (sim DESC, late ASC, id ASC); numpy orders by the two
    numbers, and only rows tied with the k-th on both are ordered by id."""
    order = np.lexsort((late, -sim))
    if order.size <= k:
        return sorted(order.tolist(), key=lambda i: (-sim[i], late[i], ids[int(rows[i])]))
    kth = order[k - 1]
    better = (sim > sim[kth]) | ((sim == sim[kth]) & (late < late[kth]))
    tied = np.flatnonzero((sim == sim[kth]) & (late == late[kth]))
    room = k - int(better.sum())
    picked = (
        np.flatnonzero(better).tolist()
        + sorted(tied.tolist(), key=lambda i: ids[int(rows[i])])[:room]
    )
    return picked


FORWARD_LIMIT = 2000
"""Intersect walks forward from an entity with at most this many relationships (its records,
then what each is about); from a larger one it walks back from the concepts, best first,
until it has enough (a person with thousands of events)."""


def intersect_rows(
    view: GraphView,
    ids: Sequence[str],
    rel_types: Sequence[str],
    per_entity: int,
    sims: Mapping[str, float],
    min_shared: int,
) -> list[dict[str, Any]]:
    """The rows of ``operators/intersect``: concepts that at least ``min_shared`` of the
    entities ``ids`` reach (directly over ``rel_types``, or through a record they reach
    that is about the concept), each entity's ``per_entity`` closest to the question
    counted, with the records (``via``) that link each entity to it."""
    concept = view.codes.get(CONCEPT)
    if concept is None:
        return []
    wanted = _rel_mask(rel_types)
    dense = _dense(view, sims)
    shared: dict[str, list[dict[str, Any]]] = {}
    best: dict[str, float] = {}
    ordered: list[int] | None = None  # the group's concepts by (sim DESC, id), on first need
    for e_id in ids:
        at = view.row.get(e_id)
        if at is None or view.is_turn[at]:
            continue
        links = view.links(at)
        sel = links.outgoing & wanted[links.rel] & ~view.is_turn[links.other]
        xs = links.other[sel]
        if xs.size <= FORWARD_LIMIT:
            reached = _forward(view, xs, concept)
            ranked = sorted(reached, key=lambda c: (-dense[c], view.ids[c]))[:per_entity]
            found = [(c, reached[c]) for c in ranked]
        else:
            if ordered is None:
                rows = np.flatnonzero(view.type_codes == concept).tolist()
                ordered = sorted(rows, key=lambda c: (-dense[c], view.ids[c]))
            found = _backward(view, xs, concept, ordered, per_entity)
        for c, via in found:
            c_id = view.ids[c]
            sim = float(dense[c])
            entry = {"entity": e_id, "via": sorted(view.ids[x] for x in via)}
            shared.setdefault(c_id, []).append(entry)
            best[c_id] = max(best.get(c_id, sim), sim)
    kept = sorted(
        (c_id for c_id, links in shared.items() if len(links) >= min_shared),
        key=lambda c: (-len(shared[c]), -best[c], c),
    )
    return [
        {"id": c, "name": (view.node(c) or {}).get("name"), "sim": best[c], "links": shared[c]}
        for c in kept
    ]


def _forward(view: GraphView, xs: np.ndarray, concept: int) -> dict[int, list[int]]:
    """Concept row → the non-concept records among ``xs`` that lead to it (a concept in
    ``xs`` is reached itself)."""
    is_concept = view.type_codes[xs] == concept
    reached: dict[int, list[int]] = {c: [] for c in xs[is_concept].tolist()}
    records = xs[~is_concept]
    if not records.size:
        return reached
    # every record's relationships at once: one pass of numpy instead of one per record
    # (a person's ~1,000 events took ~12 ms a search one by one)
    parts = [view.links(x) for x in records.tolist()]
    sizes = np.fromiter((p.rel.size for p in parts), np.int64, count=len(parts))
    rel = np.concatenate([p.rel for p in parts])
    other = np.concatenate([p.other for p in parts])
    outgoing = np.concatenate([p.outgoing for p in parts])
    source = np.repeat(records, sizes)
    hit = outgoing & _TO_CONCEPT[rel]
    hit[hit] = (view.type_codes[other[hit]] == concept) & ~view.is_turn[other[hit]]
    for c, x in dict.fromkeys(zip(other[hit].tolist(), source[hit].tolist(), strict=True)):
        reached.setdefault(c, []).append(x)
    return reached


def _backward(
    view: GraphView, xs: np.ndarray, concept: int, ordered: list[int], k: int
) -> list[tuple[int, list[int]]]:
    """The first ``k`` concepts of ``ordered`` that ``xs`` reach, each with its via rows."""
    reach = np.zeros(len(view.ids), bool)
    reach[xs] = True
    source = reach & (view.type_codes != concept)  # records that lead on to a concept
    found: list[tuple[int, list[int]]] = []
    for c in ordered:
        links = view.links(c)
        back = links.other[~links.outgoing & _TO_CONCEPT[links.rel]]
        via = np.unique(back[source[back]]).tolist()
        if reach[c] or via:
            found.append((c, via))
            if len(found) == k:
                break
    return found


def _rel_mask(rel_types: Iterable[str]) -> np.ndarray:
    mask = np.zeros(len(REL_CODES), bool)
    for rel in rel_types:
        if rel in REL_CODES:
            mask[REL_CODES[rel]] = True
    return mask


class RowSims(Mapping[str, float]):
    """Similarities to the question of some rows of one view, held as an array over all
    its rows (0 for a row left out) with a mask of the rows kept: what Traverse and
    Intersect rank by, without a dict of thousands of ids to build and read back into an
    array each search. As a mapping it is what ``operators/traverse_hop`` takes."""

    def __init__(
        self,
        row: Mapping[str, int],
        ids: Sequence[str] | np.ndarray,
        dense: np.ndarray,
        kept: np.ndarray,
    ) -> None:
        self.row, self.ids, self.dense, self.kept = row, ids, dense, kept

    def __getitem__(self, key: str) -> float:
        at = self.row.get(key)
        if at is None or not self.kept[at]:
            raise KeyError(key)
        return float(self.dense[at])

    def __iter__(self) -> Iterator[str]:
        return (self.ids[at] for at in np.flatnonzero(self.kept).tolist())

    def __len__(self) -> int:
        return int(np.count_nonzero(self.kept))


def _dense(view: GraphView, sims: Mapping[str, float]) -> np.ndarray:
    """Each row's similarity to the question (``sims``), 0 for a row left out."""
    if isinstance(sims, RowSims) and sims.row is view.row:  # the same view: as it is
        return sims.dense
    dense = np.zeros(len(view.ids), np.float64)
    known = [(view.row[i], float(v)) for i, v in sims.items() if i in view.row]
    if known:
        at_rows, values = zip(*known, strict=True)
        dense[list(at_rows)] = values
    return dense


_TO_CONCEPT = _rel_mask(TO_CONCEPT)
