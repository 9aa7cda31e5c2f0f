"""The service's smaller promises: revocation within 1 s, a group's blanks stripped from
a token, an ingest reply that counts stored nodes, one-line port errors, and /docs with
no asset from elsewhere. Real Neo4j, real servers."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cogmem.api import Memory
from cogmem.cli import app as cli_app
from cogmem.config import Settings
from cogmem.service.core import Limits, Service
from cogmem.service.http_api import create_app
from cogmem.service.tokens import TokenStore
from cogmem.store import Store
from tests.integration.test_isolation import chat, forget_all
from tests.live_server import free_port, server_environ

pytestmark = pytest.mark.integration
LOCAL = "http://127.0.0.1"


def test_a_revoked_token_stops_working_within_one_second(
    neo4j_settings: Settings, store: Store
) -> None:
    """On main a token revoked by `cogmem token revoke` kept working ~3-5 s."""
    group = f"test-small-{uuid.uuid4().hex[:8]}"
    made = TokenStore(store).create(group)
    auth = {"Authorization": f"Bearer {made.secret}"}
    with Memory(neo4j_settings) as mem, TestClient(create_app(Service(mem)), base_url=LOCAL) as c:
        assert c.get("/v1/groups", headers=auth).status_code == 200
        assert TokenStore(store).revoke(made.grant.token_id or "")  # as the CLI does
        time.sleep(1.05)
        r = c.get("/v1/groups", headers=auth)
        assert r.status_code == 401 and "revoked" in r.json()["detail"]


def test_token_create_strips_the_group(neo4j_settings: Settings, store: Store) -> None:
    """On main `token create --group "  alice  "` made a token for group "  alice  "."""
    name = f"test-small-{uuid.uuid4().hex[:8]}"
    env = server_environ(neo4j_settings)
    result = CliRunner().invoke(
        cli_app, ["token", "create", "--group", f"  {name}  ", "--json"], env=env
    )
    assert result.exit_code == 0, result.output
    created = json.loads(result.stdout)
    try:
        assert created["group"] == name
        assert TokenStore(store).verify(created["token"]).group == name  # type: ignore[union-attr]
    finally:
        TokenStore(store).revoke(created["token_id"])


def test_the_ingest_reply_counts_the_nodes_stored(
    neo4j_settings: Settings, store: Store, tmp_path: Path
) -> None:
    """On main the reply counted extractions (`"Person": 400` for 5 Person nodes)."""
    group = f"test-small-ingest-{uuid.uuid4().hex[:8]}"
    try:
        with (
            Memory(neo4j_settings) as mem,
            TestClient(
                create_app(Service(mem, Limits()), auth=False, default_group=group), base_url=LOCAL
            ) as client,
        ):
            path = chat(tmp_path / "chat.jsonl")
            with path.open("rb") as fh:
                r = client.post(f"/v1/groups/{group}/ingest", files={"file": ("c.jsonl", fh)})
            assert r.status_code == 201, r.text
            body = r.json()
        (counts,) = store.read("admin/count_group", group=group)
        labels = _count(counts["labels"])
        for kind, n in body["records"].items():
            assert labels.get(kind) == n, (kind, n, labels)
        assert body["extracted"]["Person"] > body["records"]["Person"]
    finally:
        forget_all(store, group)


def _count(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out


def _serve(neo4j_settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cogmem", "serve", *args],
        env=server_environ(neo4j_settings),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_bad_or_busy_port_is_one_line_and_exit_1(neo4j_settings: Settings) -> None:
    """On main --port 70000 printed tracebacks and a busy port exited 3."""
    bad = _serve(neo4j_settings, "--port", "70000")
    assert bad.returncode == 1 and "70000" in bad.stderr, bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen(1)
        busy = _serve(neo4j_settings, "--port", str(port))
    assert busy.returncode == 1 and str(port) in busy.stderr, busy.stderr
    assert "Traceback" not in busy.stderr and len(busy.stderr.strip().splitlines()) == 1


def test_docs_are_served_with_no_asset_from_elsewhere(neo4j_settings: Settings) -> None:
    """On main /docs loaded Swagger UI from a CDN: blank offline."""
    with Memory(neo4j_settings) as mem, TestClient(create_app(Service(mem)), base_url=LOCAL) as c:
        page = c.get("/docs")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert "/v1/groups/{group}/search" in page.text and "maximum=100" in page.text
        assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page.text), "external"
        assert c.get("/redoc").status_code in (401, 404)  # no Swagger/ReDoc pages


def test_mcp_http_checks_its_port_before_it_prints_a_banner(neo4j_settings: Settings) -> None:
    """On main `cogmem mcp --http --port 70000` printed 'cogmem MCP (streamable HTTP) on
    …' and then its port error."""
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen(1)
        for bad in ("70000", str(port)):
            done = subprocess.run(
                [sys.executable, "-m", "cogmem", "mcp", "--http", "--port", bad],
                env=server_environ(neo4j_settings),
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 1, done.stderr
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and bad in lines[0], done.stderr
            assert "cogmem MCP" not in done.stderr and "Traceback" not in done.stderr


def test_an_empty_neo4j_uri_is_one_line_naming_it(neo4j_settings: Settings) -> None:
    """On main `NEO4J_URI=""` reached the default server without a word."""
    environ = {**server_environ(neo4j_settings), "NEO4J_URI": ""}
    done = subprocess.run(
        [sys.executable, "-m", "cogmem", "search", "x"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "NEO4J_URI" in lines[0] and "empty" in lines[0], done.stderr
