"""One consistent view of a group's in-process copy (:class:`Rows`: readers take it whole,
writers replace it whole) and the pure helpers that build and read it: nearest rows, a
node's fields, a turn's neighbourhood, the turn → records map. No I/O; used by
:class:`~cogmem.retrieval.vectors.GroupVectors`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import Any, TypeVar

import numpy as np

from cogmem.retrieval.adjacency import Times
from cogmem.retrieval.topk import best_rows

TURN = "Turn"
V = TypeVar("V")
_MISSING: Any = object()
_SPARE = 8
"""Shared column buffers keep 1/_SPARE of their rows free for the rows refreshes append."""
ID_SLACK = 16
"""Characters an id array's buffer allows beyond its longest id (a longer one copies it)."""
_DELTA_MIN = 4096
"""A view's changes over its shared base (:class:`Layered`, :class:`Column`) are folded
into a new base beyond this many entries (or 1/16 of the base, when larger)."""


class RowIndex(Mapping[str, int]):
    """Node id → row in one view. The dict is shared by every view of a copy (rows are only
    appended and an id keeps its row within an epoch), so a refresh adds its new ids to it
    instead of copying it; a view reads it up to its own length, so an older view never
    sees a row added after it."""

    __slots__ = ("_ids", "_map", "_n")

    def __init__(self, shared: dict[str, int], n: int, ids: np.ndarray) -> None:
        self._map, self._n, self._ids = shared, n, ids

    def get(self, key: str, default: Any = None) -> Any:
        at = self._map.get(key)
        return at if at is not None and at < self._n else default

    def __getitem__(self, key: str) -> int:
        at = self._map.get(key)
        if at is None or at >= self._n:
            raise KeyError(key)
        return at

    def __contains__(self, key: object) -> bool:
        at = self._map.get(key)  # type: ignore[call-overload]
        return at is not None and at < self._n

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids[: self._n].tolist())

    def rows_of(self, keys: Sequence[str]) -> np.ndarray:
        """Each key's row, -1 for one this view does not hold (looked up at C speed)."""
        found = np.fromiter(map(self._map.get, keys, repeat(-1)), np.int64, count=len(keys))
        found[found >= self._n] = -1
        return found


class Layered(Mapping[str, V]):
    """A view's map: a base dict shared with other views (never changed once shared) and
    this view's own changes over it, so a refresh copies only the changes."""

    __slots__ = ("_base", "_delta")

    def __init__(self, base: dict[str, V] | None = None, delta: dict[str, V] | None = None):
        self._base: dict[str, V] = {} if base is None else base
        self._delta: dict[str, V] = {} if delta is None else delta

    def get(self, key: str, default: Any = None) -> Any:
        value = self._delta.get(key, _MISSING)
        return self._base.get(key, default) if value is _MISSING else value

    def __getitem__(self, key: str) -> V:
        value = self._delta.get(key, _MISSING)
        return self._base[key] if value is _MISSING else value

    def __contains__(self, key: object) -> bool:
        return key in self._delta or key in self._base

    def __iter__(self) -> Iterator[str]:
        yield from self._delta
        for key in self._base:
            if key not in self._delta:
                yield key

    def __len__(self) -> int:
        return len(self._base) + sum(1 for key in self._delta if key not in self._base)

    def writer(self) -> LayeredWriter[V]:
        """The next view's map, starting as this one (this one is left as it is)."""
        return LayeredWriter(self._base, dict(self._delta))


class LayeredWriter(Layered[V]):
    """A :class:`Layered` being built for the next view: writes go to its own changes."""

    __slots__ = ()

    def __setitem__(self, key: str, value: V) -> None:
        self._delta[key] = value

    def result(self) -> Layered[V]:
        """The finished map; its changes folded into a new base when they grew large."""
        if len(self._delta) <= max(_DELTA_MIN, len(self._base) >> 4):
            return Layered(self._base, self._delta)
        return Layered({**self._base, **self._delta})


class Column(Sequence[Any]):
    """One view's column of Python objects (types, fields): the first ``n`` items of a
    buffer shared with other views (items past an older view's length are appended in
    place; an item is never changed there once a view shows it) and this view's replaced
    items, by row."""

    __slots__ = ("_items", "_patch")

    def __init__(self, items: np.ndarray, patch: dict[int, Any] | None = None) -> None:
        self._items, self._patch = items, {} if patch is None else patch

    def __getitem__(self, at: Any) -> Any:  # an int (a slice is not asked for)
        value = self._patch.get(at, _MISSING)
        return self._items[at] if value is _MISSING else value

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        if not self._patch:
            return iter(self._items.tolist())
        return iter(self.materialised().tolist())

    def materialised(self) -> np.ndarray:
        """The items as one object array (a copy when some were replaced)."""
        if not self._patch:
            return self._items
        out = self._items.copy()
        for at, item in self._patch.items():
            out[at] = item
        return out

    def tolist(self) -> list[Any]:
        return list(self)


class ColumnStore:
    """The buffers a copy's views share: ids, types and fields, appended in place while
    the newest view is the buffer's filled prefix."""

    def __init__(self, capacity: int) -> None:
        self.ids = np.empty(capacity, object)
        self.types = np.empty(capacity, object)
        self.fields = np.empty(capacity, object)
        self.filled = 0


def grown_columns(
    store: ColumnStore | None,
    old_ids: np.ndarray,
    old_types: Column,
    old_fields: Column,
    new: tuple[list[str], list[str], list[dict[str, Any]]],
    changed: tuple[dict[int, str], dict[int, dict[str, Any]]],
) -> tuple[ColumnStore, np.ndarray, Column, Column]:
    """The next view's ids, types and fields: the old view's with ``new`` rows appended and
    ``changed`` rows (by row: type, fields) replaced. New rows go into the spare capacity
    of the buffers the old view is a prefix of; replaced rows into the view's own patch.
    Buffers are copied only when full, when another view has written past the old one, or
    when the patch outgrows :data:`_DELTA_MIN` (then the copy takes the patch in)."""
    new_ids, new_types, new_fields = new
    retyped, refielded = changed
    n_old, n_new = len(old_ids), len(old_ids) + len(new_ids)
    types_patch = {**old_types._patch, **retyped}
    fields_patch = {**old_fields._patch, **refielded}
    limit = max(_DELTA_MIN, n_old >> 4)
    fold = len(fields_patch) > limit or len(types_patch) > limit
    if store is None or store.filled != n_old or len(store.ids) < n_new or fold:
        store = ColumnStore(n_new + n_new // _SPARE)
        store.ids[:n_old] = old_ids
        store.types[:n_old] = old_types._items
        store.fields[:n_old] = old_fields._items
        for patch, buffer in ((types_patch, store.types), (fields_patch, store.fields)):
            for at, item in patch.items():
                buffer[at] = item
        types_patch, fields_patch = {}, {}
    for at, (i, t, f) in enumerate(zip(new_ids, new_types, new_fields, strict=True), n_old):
        store.ids[at] = i  # one at a time: numpy would read a list or tuple item as a row
        store.types[at] = t
        store.fields[at] = f
    store.filled = n_new
    return (
        store,
        store.ids[:n_new],
        Column(store.types[:n_new], types_patch),
        Column(store.fields[:n_new], fields_patch),
    )


@dataclass(frozen=True)
class Rows:
    """One consistent view: readers take it whole, writers replace it whole."""

    #: the rows' ids: an object array, which the cyclic GC does not track (see
    #: :meth:`GroupVectors.add`), the first rows of a buffer shared with later views
    ids: np.ndarray = field(default_factory=lambda: np.empty(0, object))
    #: each row's type and fields (dicts of plain values), over buffers shared likewise
    types: Column = field(default_factory=lambda: Column(np.empty(0, object)))
    fields: Column = field(default_factory=lambda: Column(np.empty(0, object)))
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    is_turn: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    #: each row's type as a small integer (``codes`` maps type names to them)
    type_codes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    codes: dict[str, int] = field(default_factory=dict)
    row: RowIndex = field(default_factory=lambda: RowIndex({}, 0, np.empty(0, object)))
    #: :func:`place_key` (conversation id, position) → turn id; :func:`after_key` (the
    #: position before a gap) → the turn after it
    position: Layered[str] = field(default_factory=Layered)
    #: turn id → the memory records it evidences (persons and concepts left out)
    evidenced: Layered[dict[str, None]] = field(default_factory=Layered)

    @cached_property
    def id_array(self) -> np.ndarray:
        """The ids as a numpy array (built on first need: only many-way ties want it), the
        first rows of a buffer with room for the ids refreshes append (and longer ones)."""
        built = np.array(self.ids.tolist() or [""])[: len(self.ids)]
        n = len(built)
        width = built.dtype.itemsize // 4 + ID_SLACK
        buf = np.empty(n + n // _SPARE + 1, f"<U{width}")
        buf[:n] = built
        return buf[:n]

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
    that no added or replaced record touches, and the map itself (:class:`Layered`)."""

    def __init__(self, old: Layered[dict[str, None]]) -> None:
        self._map = old.writer()
        self._own: set[str] = set()

    def _mine(self, turn_id: str) -> dict[str, None]:
        if turn_id not in self._own:
            self._map[turn_id] = dict(self._map.get(turn_id, {}))
            self._own.add(turn_id)
        mine: dict[str, None] = self._map[turn_id]
        return mine

    def drop(self, turn_id: str, record_id: str) -> None:
        if record_id in self._map.get(turn_id, {}):
            del self._mine(turn_id)[record_id]

    def put(self, turn_id: str, record_id: str) -> None:
        self._mine(turn_id)[record_id] = None

    def result(self) -> Layered[dict[str, None]]:
        return self._map.result()


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
    position: LayeredWriter[str],
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
