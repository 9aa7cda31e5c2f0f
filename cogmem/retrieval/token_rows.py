"""Turns' token rows (late interaction) kept in process, per group, as read from the store:
a search reads the rows of its best turns once (``operators/turn_tokens``), later searches
of the group find them here. A turn written again is dropped (its rows may have changed);
beyond the budget the oldest go first."""

from __future__ import annotations

import threading
from collections.abc import Sequence

TOKEN_CACHE_BYTES = 64 * 1024 * 1024
"""Per group: ~12 KB a turn, so ~5,000 turns."""
TokenRows = tuple[bytes, list[float]]
"""A turn's stored token rows and their scales (:mod:`cogmem.embed.tokens`); empty for a
turn that has none."""


def _size(rows: TokenRows) -> int:
    return len(rows[0]) + 8 * len(rows[1]) + 100


class TokenRowCache:
    """Turn id → its token rows, at most ``budget`` bytes; safe from several threads."""

    def __init__(self, budget: int = TOKEN_CACHE_BYTES) -> None:
        self.budget = budget
        self.nbytes = 0
        self._rows: dict[str, TokenRows] = {}
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self._rows)

    def cached(self, turn_ids: Sequence[str]) -> tuple[dict[str, TokenRows], list[str]]:
        """The rows kept of those turns, and the ids of the turns not kept."""
        with self._lock:
            kept = {t: self._rows[t] for t in turn_ids if t in self._rows}
        return kept, [t for t in turn_ids if t not in kept]

    def keep(self, rows: dict[str, TokenRows]) -> None:
        """Keep rows read from the store (an empty entry: the turn has none)."""
        with self._lock:
            for turn_id, value in rows.items():
                self._drop(turn_id)
                self._rows[turn_id] = value
                self.nbytes += _size(value)
            while self.nbytes > self.budget and self._rows:
                self._drop(next(iter(self._rows)))

    def drop(self, turn_id: str) -> None:
        """Forget a turn's rows (it was written again)."""
        with self._lock:
            self._drop(turn_id)

    def _drop(self, turn_id: str) -> None:
        old = self._rows.pop(turn_id, None)
        if old is not None:
            self.nbytes -= _size(old)
