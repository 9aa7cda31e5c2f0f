"""The guards around every route: a no-auth server serves its one group, the Host and
Origin allow-list, and no credential in the URL. Real Neo4j, the app in-process."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.service.core import Limits, Service
from cogmem.service.http_api import create_app
from cogmem.service.tokens import TokenStore
from cogmem.store import Store
from tests.live_server import serve

pytestmark = pytest.mark.integration
LOCAL = "http://127.0.0.1"  # the Host the guards allow by default


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
    with TestClient(app, base_url=LOCAL) as client:
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


EVIL = "evil.example"


def test_a_foreign_host_or_origin_is_refused_on_every_route(two: dict[str, Any]) -> None:
    """DNS rebinding and cross-site pages: on main every REST route answered 200 to any
    Host and any Origin (only the MCP transport checked the Host)."""
    a, store = two["a"], two["store"]
    before = nodes(store, a)
    app = create_app(two["service"], auth=False, default_group=a)
    turn = {"speaker": "Mal", "text": "Rebound and written."}
    routes = [
        ("GET", "/healthz", None),
        ("GET", "/docs", None),
        ("GET", "/openapi.json", None),
        ("GET", "/v1/groups", None),
        ("POST", f"/v1/groups/{a}/turns", turn),
        ("POST", f"/v1/groups/{a}/search", {"query": "x"}),
        ("DELETE", f"/v1/groups/{a}", None),
    ]
    with TestClient(app, base_url=LOCAL) as client:
        for method, path, body in routes:
            r = client.request(method, path, json=body, headers={"Host": f"{EVIL}:8000"})
            assert r.status_code == 421, (path, r.status_code)
            assert "--allowed-host" in r.json()["detail"]
            for origin in (f"http://{EVIL}", "null", "http://127.0.0.1.evil.example:8000"):
                r = client.request(method, path, json=body, headers={"Origin": origin})
                assert r.status_code == 403, (path, origin, r.status_code)
                assert "access-control-allow-origin" not in r.headers
        # the server's own pages (same origin as the request) still work
        r = client.post(
            f"/v1/groups/{a}/search",
            json={"query": "x"},
            headers={"Origin": "http://127.0.0.1:8000", "Host": "127.0.0.1:8000"},
        )
        assert r.status_code == 200, r.text
        assert "access-control-allow-origin" not in r.headers  # CORS off by default
    assert nodes(store, a) == before


def test_allowed_hosts_and_cors_origins_are_opt_in(two: dict[str, Any]) -> None:
    from cogmem.service.guards import allowed_hosts

    a = two["a"]
    app = create_app(
        two["service"],
        auth=False,
        default_group=a,
        hosts=allowed_hosts("127.0.0.1", ["memory.internal"]),
        cors_origins=["https://app.example"],
    )
    with TestClient(app, base_url=LOCAL) as client:
        ok = client.get("/v1/groups", headers={"Host": "memory.internal:8000"})
        assert ok.status_code == 200
        assert client.get("/v1/groups", headers={"Host": EVIL}).status_code == 421
        pre = client.options(
            f"/v1/groups/{a}/search",
            headers={
                "Origin": "https://app.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert pre.status_code == 200
        assert pre.headers["access-control-allow-origin"] == "https://app.example"
        r = client.get("/v1/groups", headers={"Origin": "https://app.example"})
        assert r.status_code == 200
        assert r.headers["access-control-allow-origin"] == "https://app.example"


def test_the_mcp_transport_has_the_same_host_and_origin_rule(two: dict[str, Any]) -> None:
    from cogmem.service.mcp_server import http_app

    app = http_app(two["service"], auth=False, group=two["a"], host="127.0.0.1")
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    with TestClient(app, base_url=LOCAL) as client:
        r = client.post("/mcp", json=init, headers={**accept, "Host": EVIL})
        assert r.status_code == 421
        r = client.post("/mcp", json=init, headers={**accept, "Origin": f"http://{EVIL}"})
        assert r.status_code == 403
        r = client.post("/mcp", json=init, headers=accept)
        assert r.status_code == 200, r.text


def test_no_token_reaches_any_log_line_whichever_way_it_is_sent(
    neo4j_settings: Settings, store: Store, tmp_path: Path
) -> None:
    """A live server, tokens sent every way a client might (valid, revoked, unknown; in the
    header, the query, the path, other headers). On main `?token=` was refused but the
    access log wrote it out in full."""
    group = f"test-guard-log-{uuid.uuid4().hex[:8]}"
    tokens = TokenStore(store)
    live_token, revoked = tokens.create(group), tokens.create(group)
    tokens.revoke(revoked.grant.token_id or "")
    unknown = "cgm_" + "U" * 43
    secrets = [live_token.secret, revoked.secret, unknown]
    log = tmp_path / "serve.log"
    try:
        with serve(neo4j_settings, log) as live:
            search = f"{live.base}/v1/groups/{group}/search"
            body = {"query": "x"}
            for secret in secrets:
                for key in ("token", "access_token", "api_key", "Authorization"):
                    for value in (secret, secret[4:]):
                        r = httpx.post(search, params={key: value}, json=body, timeout=60)
                        assert r.status_code == 400, (key, r.status_code)
                        assert "Authorization: Bearer" in r.json()["detail"]
                r = httpx.post(f"{search}?x=1&{secret}", json=body, timeout=60)
                assert r.status_code == 400
                r = httpx.post(f"{live.base}/v1/groups/{secret}/search", json=body, timeout=60)
                assert r.status_code == 400
                r = httpx.post(search, json=body, headers={"Authorization": f"Bearer {secret}"})
                assert r.status_code == (200 if secret == live_token.secret else 401)
                for header in ("X-Api-Key", "Cookie", "Authorization"):
                    r = httpx.post(search, json=body, headers={header: secret}, timeout=60)
                    assert r.status_code == 401
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "/search" in text and "400" in text and "[redacted]" in text
        for secret in secrets:
            for line in text.splitlines():
                assert secret not in line and secret[4:] not in line, line
                assert secret[4:24] not in line, line
    finally:
        tokens.revoke(live_token.grant.token_id or "")
