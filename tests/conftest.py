"""Shared fixtures. Integration tests talk to a real Neo4j, found in this order:

1. ``NEO4J_URI`` (with NEO4J_USER / NEO4J_PASSWORD) if set — CI starts one with
   ``cogmem neo4j start`` and exports it;
2. a ``neo4j:5.26-community`` container through testcontainers, when a Docker engine answers;
3. the local install (``cogmem neo4j install``) started on free ports with a temporary data
   folder, and stopped afterwards.

Tests isolate themselves by ``group_id`` (a fresh group per test, deleted afterwards).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from cogmem.config import Settings, load_settings
from tests.servers import throwaway_server

pytest_plugins = ["tests.llm_server"]

# A search reads the group into the process before it answers (``search_cache = eager``), so
# that which path answered never depends on a background read's timing. The other modes,
# Neo4j alone (``off``) and the default (``auto``: Neo4j first, the copy read behind), are
# tested on purpose in tests/integration/test_cold_search.py. The whole suite also passes
# under the default (``COGMEM_SEARCH_CACHE=auto scripts/test``; a test of one source's
# property asks for that source by its own settings).
os.environ.setdefault("COGMEM_SEARCH_CACHE", "eager")


@pytest.fixture(scope="session", autouse=True)
def _private_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Never read or write the developer's own cogmem config file during tests."""
    path = tmp_path_factory.mktemp("config") / "config.toml"
    old = os.environ.get("COGMEM_CONFIG")
    os.environ["COGMEM_CONFIG"] = str(path)
    yield
    if old is None:
        os.environ.pop("COGMEM_CONFIG", None)
    else:
        os.environ["COGMEM_CONFIG"] = old


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        proc = subprocess.run(["docker", "info"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    if os.environ.get("NEO4J_URI"):
        yield load_settings()
        return
    if _docker_answers():
        try:
            from testcontainers.neo4j import Neo4jContainer
        except ImportError:
            Neo4jContainer = None
        if Neo4jContainer is not None:
            with Neo4jContainer("neo4j:5.26-community", password="cogmem-test-pw") as container:
                yield load_settings(
                    {
                        "neo4j_uri": container.get_connection_url(),
                        "neo4j_user": "neo4j",
                        "neo4j_password": "cogmem-test-pw",
                    }
                )
            return
    with throwaway_server(tmp_path_factory, "neo4j-instance", heap="768m", pagecache="256m") as (
        _,
        state,
        _,
    ):
        yield load_settings({"neo4j_uri": state.bolt_uri, "neo4j_password": None})


@pytest.fixture(scope="session")
def store(neo4j_settings: Settings) -> Iterator[object]:
    from cogmem.embed import embedder_identity
    from cogmem.server.schema import init_schema
    from cogmem.store import Store

    st = Store(neo4j_settings)
    name, dimension = embedder_identity(neo4j_settings)
    init_schema(st, name, dimension, vector_indexes=True)  # what `cogmem init` makes
    yield st
    st.close()


@pytest.fixture
def group(store: object) -> Iterator[str]:
    """A fresh group id for one test; everything in it is deleted afterwards."""
    from cogmem.store import Store

    assert isinstance(store, Store)
    gid = f"test-{uuid.uuid4().hex[:12]}"
    yield gid
    while store.write("admin/forget_group", group=gid, batch=5000)[0]["deleted"]:
        pass


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent
