"""The one door from tests to a Memory's internals (tests/unit/test_layering.py allows no
other ``.store`` outside the core): the :class:`~cogmem.store.Store` its clients hold, for
tests that read or write the graph directly or drive a layer below the API with the same
driver and settings (search_cache, bookmarks) as the Memory. A test that needs the database
alone takes the session's ``store`` fixture (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.embed import Embedder
from cogmem.store import Store


def store_of(mem: Memory) -> Store:
    """The Store of ``mem``'s clients (shared by ``mem.for_group(...)``)."""
    return mem.clients.store


@dataclass(frozen=True)
class TransferView:
    """A Memory as :func:`cogmem.transfer.export_group` and
    :func:`cogmem.transfer.import_group` take it (their ExportSource / ImportTarget), for
    tests that call them with options ``Memory.export`` / ``import_`` do not offer."""

    group: str
    settings: Settings
    store: Store
    embedder: Embedder
    ensure_schema: Callable[[], None]


def transfer_view(mem: Memory) -> TransferView:
    return TransferView(
        mem.group, mem.settings, store_of(mem), mem.embedder, mem.admin.ensure_schema
    )
