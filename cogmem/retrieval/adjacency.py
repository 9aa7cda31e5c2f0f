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

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

Node = Mapping[str, Any]
Lookup = Callable[[str], Node | None]

TURN = "Turn"
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
)


def _record(node: Lookup, node_id: str) -> Node | None:
    """A memory record of the group (the statements match ``:Memory`` only)."""
    found = node(node_id)
    return None if found is None or found.get("type") == TURN else found


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _seconds(at: datetime | None) -> float | None:
    return None if at is None else at.timestamp()


def _in_window(b: Node, start: float | None, end: float | None) -> bool:
    """``coalesce(b.time_end, b.at) > start AND coalesce(b.time_start, b.at) < end``; a
    missing time fails the test, as null does in a WHERE."""
    if start is None:
        return True
    until = _first(b.get("time_end_s"), b.get("at_s"))
    since = _first(b.get("time_start_s"), b.get("at_s"))
    if until is None or since is None or end is None:
        return False
    return bool(until > start and since < end)


def _desc_nulls_first(value: float | None) -> tuple[int, float]:
    """Sort key for ``ORDER BY value DESC``: nulls first (Cypher's null is the largest)."""
    return (0, 0.0) if value is None else (1, -value)


def traverse_rows(
    node: Lookup,
    steps: Sequence[Mapping[str, Any]],
    per_node: int,
    sims: Mapping[str, float],
) -> list[dict[str, Any]]:
    """The rows of ``operators/traverse_hop`` for ``steps`` ({ids, rel_types, types,
    start, end}): for each start record and step, its ``per_node`` neighbours closest to
    the question (``sims``; 0 for a record left out), then the most recent, then by id."""
    out: list[dict[str, Any]] = []
    for si, step in enumerate(steps):
        rels = set(step["rel_types"])
        types = set(step["types"]) if step.get("types") is not None else None
        start, end = _seconds(step.get("start")), _seconds(step.get("end"))
        for a_id in dict.fromkeys(step["ids"]):
            a = _record(node, a_id)
            if a is None:
                continue
            found: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
            for rel, b_id, outgoing in a.get("links") or ():
                if rel not in rels:
                    continue
                b = _record(node, b_id)
                if b is None or (types is not None and b.get("type") not in types):
                    continue
                if not _in_window(b, start, end):
                    continue
                sim = float(sims.get(b_id, 0.0))
                when = _first(b.get("time_start_s"), b.get("at_s"))
                key = (-sim, _desc_nulls_first(when), b_id)
                row = {k: b.get(k) for k in _ROW_FIELDS}
                row.update(step=si, from_id=a_id, rel=rel, outgoing=bool(outgoing), id=b_id)
                row["vector"] = sim
                found.append((key, row))
            found.sort(key=lambda kr: kr[0])
            out.extend(row for _, row in found[:per_node])
    out.sort(key=lambda r: (r["step"], r["from_id"], -r["vector"], r["id"], r["rel"]))
    return out


def intersect_rows(
    node: Lookup,
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
    rels = set(rel_types)
    shared: dict[str, list[dict[str, Any]]] = {}
    best: dict[str, float] = {}
    names: dict[str, Any] = {}
    for e_id in ids:
        e = _record(node, e_id)
        if e is None:
            continue
        via: dict[str, dict[str, None]] = {}  # concept id -> the records leading to it
        for rel, x_id, outgoing in e.get("links") or ():
            if not outgoing or rel not in rels:
                continue
            x = _record(node, x_id)
            if x is None:
                continue
            if x.get("type") == CONCEPT:
                via.setdefault(x_id, {})
                names[x_id] = x.get("name")
                continue
            for rel2, c_id, out2 in x.get("links") or ():
                if not out2 or rel2 not in TO_CONCEPT:
                    continue
                c = _record(node, c_id)
                if c is None or c.get("type") != CONCEPT:
                    continue
                via.setdefault(c_id, {})[x_id] = None
                names[c_id] = c.get("name")
        ranked = sorted(via, key=lambda c: (-float(sims.get(c, 0.0)), c))[:per_entity]
        for c_id in ranked:
            sim = float(sims.get(c_id, 0.0))
            shared.setdefault(c_id, []).append({"entity": e_id, "via": sorted(via[c_id])})
            best[c_id] = max(best.get(c_id, sim), sim)
    kept = sorted(
        (c_id for c_id, links in shared.items() if len(links) >= min_shared),
        key=lambda c: (-len(shared[c]), -best[c], c),
    )
    return [{"id": c, "name": names.get(c), "sim": best[c], "links": shared[c]} for c in kept]
