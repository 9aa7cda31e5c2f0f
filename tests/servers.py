"""Throwaway Neo4j servers that a test module or session starts for itself."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cogmem.config import load_settings
from cogmem.server import local as localserver


@contextmanager
def throwaway_server(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    *,
    auth: bool = False,
    heap: str = "512m",
    pagecache: str = "128m",
) -> Iterator[tuple[Path, localserver.InstanceState, str | None]]:
    """Install (cached) and start a local server on free ports in a temporary folder;
    yield (instance folder, state, generated password or None); stop it afterwards."""
    home = load_settings().home
    localserver.install(home)
    inst = tmp_path_factory.mktemp(name)
    state, password = localserver.start(
        inst,
        home,
        bolt_port=localserver.free_port(),
        http_port=localserver.free_port(),
        auth=auth,
        heap=heap,
        pagecache=pagecache,
    )
    try:
        yield inst, state, password
    finally:
        localserver.stop(inst)
