"""One consistent view of a group's in-process copy (:class:`Rows`: readers take it whole,
writers replace it whole) and the pure helpers that build and read it: nearest rows, a
node's fields, a turn's neighbourhood, the turn → records map. No I/O; used by
:class:`~cogmem.retrieval.vectors.GroupVectors`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from cogmem.retrieval.adjacency import Times
from cogmem.retrieval.topk import best_rows

TURN = "Turn"


@dataclass(frozen=True)
class Rows:
    """One consistent view: readers take it whole, writers replace it whole."""

    #: ids and types of the rows, like the fields object arrays (see :meth:`GroupVectors.add`)
    ids: np.ndarray = field(default_factory=lambda: np.empty(0, object))
    types: np.ndarray = field(default_factory=lambda: np.empty(0, object))
    #: each row's fields: an object array, which the cyclic GC does not track (see add)
    fields: np.ndarray = field(default_factory=lambda: np.empty(0, object))
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    is_turn: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    #: each row's type as a small integer (``codes`` maps type names to them)
    type_codes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    codes: dict[str, int] = field(default_factory=dict)
    row: dict[str, int] = field(default_factory=dict)
    #: :func:`place_key` (conversation id, position) → turn id; :func:`after_key` (the
    #: position before a gap) → the turn after it
    position: dict[str, str] = field(default_factory=dict)
    #: turn id → the memory records it evidences (persons and concepts left out)
    evidenced: dict[str, dict[str, None]] = field(default_factory=dict)
    #: what :meth:`GroupVectors.node_as` derived from rows of this view, per converter
    derived: dict[Callable[..., Any], dict[int, Any]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @cached_property
    def id_array(self) -> np.ndarray:
        """The ids as a numpy array (built on first need: only many-way ties want it)."""
        return np.array(self.ids.tolist())

    @cached_property
    def turn_rows(self) -> np.ndarray:
        """Positions of the turns (built on first need, once per view)."""
        return np.flatnonzero(self.is_turn)

    @cached_property
    def record_rows(self) -> np.ndarray:
        """Positions of the memory records (built on first need, once per view)."""
        return np.flatnonzero(~self.is_turn)

    @cached_property
    def times(self) -> Times:
        """Each row's referenced start and end and the time it was said, as epoch seconds
        (NaN when absent), for Traverse's window and order (built on first need)."""
        return Times.of(self.fields)


def nearest_rows(view: Rows, rows: np.ndarray, scores: np.ndarray, k: int) -> list[int]:
    """Positions in ``rows`` of the ``k`` best ``scores`` (one per row), equal scores by
    node id (:func:`~cogmem.retrieval.topk.best_rows`)."""
    return best_rows(scores, k, lambda i: view.ids[rows[i]], lambda: view.id_array[rows])


def node_lookup(view: Rows) -> Callable[[str], dict[str, Any] | None]:
    """A node's fields by id in one view (None when the view has no such node)."""
    rows, fields = view.row, view.fields

    def node(node_id: str) -> dict[str, Any] | None:
        at = rows.get(node_id)
        return None if at is None else fields[at]

    return node


def turn_neighbourhood(
    view: Rows, turn_ids: Sequence[str], window: int
) -> list[dict[str, Any]] | None:
    """What ``operators/ground`` returns for turn seeds, from the view: each turn within
    ``window`` of a seed in its conversation once, by order (as the NEXT chain runs: across
    a forgotten turn, not by idx; :func:`turn_step`), reached from the nearest seed (ties
    to the first seed id), with the records it evidences; None when a seed is not a turn
    of the view (the caller asks the database)."""
    best: dict[str, tuple[int, str, str]] = {}  # turn → (|offset|, seed, signed offset)
    offsets: dict[str, int] = {}
    for seed in turn_ids:
        at = view.row.get(seed)
        if at is None or view.types[at] != TURN:
            return None
        data = view.fields[at]
        if data.get("conversation_id") is None or data.get("idx") is None:
            return None
        reached = [(0, seed)]
        for step in (-1, 1):
            turn = seed
            for n in range(1, window + 1):
                nxt = turn_step(view, turn, step)
                if nxt is None:
                    break
                turn = nxt
                reached.append((step * n, turn))
        for offset, found in reached:
            key = (abs(offset), seed, found)
            if found not in best or key[:2] < best[found][:2]:
                best[found] = key
                offsets[found] = offset
    rows = [
        {
            "record_id": seed,
            "turn_id": seed,
            "id": turn,
            "offset": offsets[turn],
            "records": list(view.evidenced.get(turn, {})),
        }
        for turn, (_, seed, _) in best.items()
    ]
    rows.sort(key=lambda r: (r["record_id"], r["turn_id"], r["offset"]))
    return rows


class Evidenced:
    """A view's turn → records map, copied on write: a new view shares every turn's list
    that no added or replaced record touches."""

    def __init__(self, old: dict[str, dict[str, None]]) -> None:
        self._map = dict(old)
        self._own: set[str] = set()

    def _mine(self, turn_id: str) -> dict[str, None]:
        if turn_id not in self._own:
            self._map[turn_id] = dict(self._map.get(turn_id, {}))
            self._own.add(turn_id)
        return self._map[turn_id]

    def drop(self, turn_id: str, record_id: str) -> None:
        if record_id in self._map.get(turn_id, {}):
            del self._mine(turn_id)[record_id]

    def put(self, turn_id: str, record_id: str) -> None:
        self._mine(turn_id)[record_id] = None

    def result(self) -> dict[str, dict[str, None]]:
        return self._map


def grown(old: np.ndarray, new: list[Any], changed: dict[int, Any]) -> np.ndarray:
    """``old`` with the items at ``changed`` replaced and ``new`` appended, as a new object
    array (the old one is a view readers may hold)."""
    out = np.empty(len(old) + len(new), object)
    out[: len(old)] = old
    for at, item in enumerate(new, start=len(old)):
        out[at] = item  # one at a time: numpy would read a list or tuple item as a row
    for at, item in changed.items():
        out[at] = item
    return out


def place_key(conversation_id: str, idx: int) -> str:
    """A turn's place as one string: a dict of strings is one the GC does not track."""
    return f"{idx}@{conversation_id}"


def after_key(conversation_id: str, idx: int) -> str:
    """The key of the turn that follows the turn at ``idx`` across a gap (a forget keeps
    the idx of the turns that stay), in the same map as :func:`place_key`'s."""
    return f"{idx}>@{conversation_id}"


def turn_step(view: Rows, turn_id: str, step: int) -> str | None:
    """The turn before (``step`` -1) or after (+1) a turn of the view in its conversation,
    by order as the NEXT chain runs: ``idx ± 1``, or across a gap its ``prev_idx`` (the
    turn before) or the turn placed :func:`after_key` (the turn after); None at either end
    or for a turn the view does not hold."""
    at = view.row.get(turn_id)
    if at is None:
        return None
    data = view.fields[at]
    conv, idx = data.get("conversation_id"), data.get("idx")
    if conv is None or idx is None:
        return None
    if step < 0:
        prev = data.get("prev_idx")
        return view.position.get(place_key(conv, int(idx) - 1 if prev is None else int(prev)))
    return view.position.get(place_key(conv, int(idx) + 1)) or view.position.get(
        after_key(conv, int(idx))
    )


def place_node(
    data: dict[str, Any],
    position: dict[str, str],
    evidenced: Evidenced,
) -> None:
    """Index a node's row: a turn by its place in its conversation, a record under the
    turns that evidence it."""
    if data.get("type") == TURN:
        conv, idx, prev = data.get("conversation_id"), data.get("idx"), data.get("prev_idx")
        if conv is not None and idx is not None:
            position[place_key(conv, int(idx))] = data["id"]
            if prev is not None and int(prev) != int(idx) - 1:  # it follows a gap
                position[after_key(conv, int(prev))] = data["id"]
        return
    for turn_id in data.get("evidence") or ():
        evidenced.put(turn_id, data["id"])


def unit_rows(block: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(block, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return np.ascontiguousarray(block / norms, dtype=np.float32)
