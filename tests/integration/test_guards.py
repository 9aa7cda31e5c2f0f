"""The guards around every route: a no-auth server serves its one group, the Host and
Origin allow-list, and no credential in the URL. Real Neo4j, the app in-process."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.service.core import Limits, Service
from cogmem.service.http_api import create_app
from cogmem.store import Store

pytestmark = pytest.mark.integration


def forget(store: Store, *groups: str) -> None:
    for g in groups:
        while store.write("admin/forget_group", group=g, batch=5000)[0]["deleted"]:
            pass


@pytest.fixture(scope="module")
def two(neo4j_settings: Settings, store: Store) -> Iterator[dict[str, Any]]:
    """Groups a (the no-auth server's) and b (another tenant's, with one turn)."""
    a, b = f"test-guard-a-{uuid.uuid4().hex[:8]}", f"test-guard-b-{uuid.uuid4().hex[:8]}"
    with Memory(neo4j_settings.model_copy(update={"group": b})) as mem:
        mem.add_turn("Bea", "My locker code is 4417.", conversation="c")
        mem.add_turn("Bea", "I keep the spare key under the mat.", conversation="c")
    mem = Memory(neo4j_settings)
    service = Service(mem, Limits(timeout_s=60), allow_forget=True)
    yield {"a": a, "b": b, "service": service, "store": store}
    mem.close()
    forget(store, a, b)


def nodes(store: Store, group: str) -> int:
    return int(store.read("admin/count_group", group=group)[0]["nodes"])


def test_a_no_auth_server_serves_exactly_its_group(two: dict[str, Any]) -> None:
    """On main `serve --no-auth --group a` read, wrote and deleted any other group."""
    a, b, store = two["a"], two["b"], two["store"]
    before = nodes(store, b)
    app = create_app(two["service"], auth=False, default_group=a)
    with TestClient(app) as client:
        assert client.get("/v1/groups").json() == {"groups": [a]}
        turn = {"speaker": "Mal", "text": "I was never here."}
        assert client.post(f"/v1/groups/{a}/turns", json=turn).status_code == 201
        for method, path, body in (
            ("post", f"/v1/groups/{b}/turns", turn),
            ("post", f"/v1/groups/{b}/search", {"query": "locker code"}),
            ("post", f"/v1/groups/{b}/context", {"query": "locker code"}),
            ("post", f"/v1/groups/{b}/ask", {"question": "What is the locker code?"}),
            ("post", f"/v1/groups/brand-new-{uuid.uuid4().hex[:6]}/turns", turn),
            ("delete", f"/v1/groups/{b}", None),
        ):
            r = client.request(method.upper(), path, json=body)
            assert r.status_code == 403, (path, r.text)
            assert "4417" not in r.text
        files = {"file": ("x.jsonl", b'{"conversation":"c","speaker":"M","text":"hi"}\n')}
        assert client.post(f"/v1/groups/{b}/ingest", files=files).status_code == 403
    assert nodes(store, b) == before
