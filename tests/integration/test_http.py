"""`cogmem serve`: the HTTP API against a real Neo4j. Tokens and scopes (401 / 403),
request size limits (413), a Neo4j that is down (503), group isolation under any sequence
of requests (property-based), and tokens never in logs."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.service.core import Limits, Service
from cogmem.service.http_api import create_app
from cogmem.service.limits import BindRefused, check_bind
from cogmem.service.tokens import TokenStore
from cogmem.store import Store
from tests.integration.test_isolation import B_MARK, SYNTAX, chat, forget_all

pytestmark = pytest.mark.integration
LOCAL = "http://127.0.0.1"  # the Host the guards allow by default

LIMITS = Limits(max_body_bytes=16 * 1024, max_upload_bytes=128 * 1024, timeout_s=60)
QUESTIONS = [
    "What did Alice do in the Alps?",
    "Who plays chess?",
    "When is the book club?",
    f"Tell me about {B_MARK}",
    *SYNTAX,
]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def env(
    neo4j_settings: Settings, store: Store, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """One service, two groups ingested by upload, tokens for each (and a read-only one)."""
    a, b = f"test-http-a-{uuid.uuid4().hex[:8]}", f"test-http-b-{uuid.uuid4().hex[:8]}"
    tokens = TokenStore(store)
    made = {
        "a": tokens.create(a, name="test-http"),
        "a_ro": tokens.create(a, read_only=True, name="test-http"),
        "b": tokens.create(b, name="test-http"),
    }
    mem = Memory(neo4j_settings)
    service = Service(mem, LIMITS, allow_forget=True)
    tmp = tmp_path_factory.mktemp("http")
    with TestClient(create_app(service), base_url=LOCAL) as client:
        for key, group, marker in (("a", a, ""), ("b", b, B_MARK)):
            path = chat(tmp / f"{key}.jsonl", marker)
            with path.open("rb") as fh:
                r = client.post(
                    f"/v1/groups/{group}/ingest",
                    files={"file": ("chat.jsonl", fh, "application/x-ndjson")},
                    headers=bearer(made[key].secret),
                )
            assert r.status_code == 201, r.text
            assert r.json()["turns"] == 16
        yield {
            "client": client,
            "a": a,
            "b": b,
            "tokens": {k: v.secret for k, v in made.items()},
            "store": store,
        }
    for created in made.values():
        tokens.revoke(created.grant.token_id or "")
    mem.close()
    forget_all(store, a, b)


def test_no_token_or_a_bad_one_is_401_but_health_and_docs_are_open(env: dict[str, Any]) -> None:
    client, a = env["client"], env["a"]
    body = {"query": "chess"}
    for headers in (
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Basic dXNlcjpwdw=="},
        bearer("cgm_" + "x" * 43),
        bearer(env["tokens"]["a"] + "x"),
    ):
        r = client.post(f"/v1/groups/{a}/search", json=body, headers=headers)
        assert r.status_code == 401, headers
        assert r.json()["detail"] and r.headers["www-authenticate"] == "Bearer"
    assert client.get("/v1/groups").status_code == 401
    assert client.get("/healthz").json()["status"] == "ok"
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/groups/{group}/search", "/v1/groups/{group}/ingest"} <= set(paths)


def test_another_group_is_403_and_a_read_only_token_cannot_write(env: dict[str, Any]) -> None:
    client, a, b, t = env["client"], env["a"], env["b"], env["tokens"]
    assert client.get("/v1/groups", headers=bearer(t["a"])).json() == {"groups": [a]}
    turn = {"speaker": "Mallory", "text": "I was never here."}
    assert (
        client.post(f"/v1/groups/{b}/turns", json=turn, headers=bearer(t["a"])).status_code == 403
    )
    r = client.post(f"/v1/groups/{b}/search", json={"query": "chess"}, headers=bearer(t["a"]))
    assert r.status_code == 403 and "may not use group" in r.json()["detail"]
    ro = bearer(t["a_ro"])
    r = client.post(f"/v1/groups/{a}/turns", json=turn, headers=ro)
    assert r.status_code == 403 and "read-only" in r.json()["detail"]
    files = {"file": ("x.jsonl", b'{"conversation":"c","speaker":"M","text":"hi"}\n')}
    assert client.post(f"/v1/groups/{a}/ingest", files=files, headers=ro).status_code == 403
    assert client.delete(f"/v1/groups/{a}", headers=ro).status_code == 403
    found = client.post(f"/v1/groups/{a}/search", json={"query": "chess"}, headers=ro).json()
    assert found["evidence"] and all(e["speaker"] != "Mallory" for e in found["evidence"])
    # as of a time: nothing said later; an unreadable time is a 422 in one line
    early = {"query": "chess", "as_of": "2000-01-01"}
    assert client.post(f"/v1/groups/{a}/search", json=early, headers=ro).json()["evidence"] == []
    bad = client.post(
        f"/v1/groups/{a}/ask", json={"question": "chess", "as_of": "soon"}, headers=ro
    )
    assert bad.status_code == 422 and "as_of: cannot read" in bad.json()["detail"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]["SearchIn"]
    assert "as it stood then" in schema["properties"]["as_of"]["description"]


def test_a_turn_posted_without_waiting_is_202_and_the_next_search_reads_it(
    env: dict[str, Any],
) -> None:
    client, store = env["client"], env["store"]
    group = f"test-http-q-{uuid.uuid4().hex[:8]}"
    tokens = TokenStore(store)
    made = tokens.create(group, name="test-http")
    try:
        turn = {"speaker": "Odile", "text": "My kayak is called Petrel.", "wait": False}
        r = client.post(f"/v1/groups/{group}/turns", json=turn, headers=bearer(made.secret))
        assert r.status_code == 202, r.text
        assert r.json() == {
            "group": group,
            "conversation": "live",
            "turns": 1,
            "records": {},
            "queued": True,
            "turn_id": None,
        }
        query = {"query": "What is the kayak called?", "k": 3}
        found = client.post(f"/v1/groups/{group}/search", json=query, headers=bearer(made.secret))
        assert any("Petrel" in (e["quote"] or e["content"]) for e in found.json()["evidence"])
        waited = client.post(
            f"/v1/groups/{group}/turns",
            json={"speaker": "Odile", "text": "Petrel is red."},
            headers=bearer(made.secret),
        )
        assert waited.status_code == 201 and waited.json()["queued"] is False
    finally:
        tokens.revoke(made.grant.token_id or "")
        forget_all(store, group)


def test_bodies_over_the_limit_are_413(env: dict[str, Any]) -> None:
    client, a, t = env["client"], env["a"], env["tokens"]
    big = {"query": "x" * (LIMITS.max_body_bytes + 1)}
    r = client.post(f"/v1/groups/{a}/search", json=big, headers=bearer(t["a"]))
    assert r.status_code == 413 and r.json()["limit"] == LIMITS.max_body_bytes

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        yield b'{"query": "'
        for _ in range(40):
            yield b"y" * 1024
        yield b'"}'

    r = client.post(
        f"/v1/groups/{a}/search",
        content=chunks(),
        headers={**bearer(t["a"]), "content-type": "application/json"},
    )
    assert r.status_code == 413
    upload = {"file": ("big.jsonl", b"x" * (LIMITS.max_upload_bytes + 1))}
    r = client.post(f"/v1/groups/{a}/ingest", files=upload, headers=bearer(t["a"]))
    assert r.status_code == 413
    # an upload over the JSON limit but under the upload limit is fine (and bad input is 400)
    upload = {"file": ("bad.jsonl", b"{not json}\n" * 2000)}
    r = client.post(f"/v1/groups/{a}/ingest", files=upload, headers=bearer(t["a"]))
    assert r.status_code == 400 and "line 1" in r.json()["detail"]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the with block ends


def test_neo4j_down_is_503_with_the_reason(neo4j_settings: Settings) -> None:
    down = neo4j_settings.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{closed_port()}"})
    with (
        Memory(down) as mem,
        TestClient(create_app(Service(mem, Limits(timeout_s=20))), base_url=LOCAL) as client,
    ):
        r = client.get("/healthz")
        assert r.status_code == 503
        assert "not reachable" in r.json()["detail"] and down.neo4j_uri in r.json()["detail"]
        r = client.post(
            "/v1/groups/g/search", json={"query": "x"}, headers=bearer("cgm_" + "z" * 43)
        )
        assert r.status_code == 503 and "not reachable" in r.json()["detail"]
    no_auth = create_app(Service(Memory(down), Limits(timeout_s=20)), auth=False, default_group="g")
    with TestClient(no_auth, base_url=LOCAL) as client:
        r = client.post("/v1/groups/g/search", json={"query": "x"})
        assert r.status_code == 503 and "not reachable" in r.json()["detail"]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["search", "context", "ask", "delete", "turns"]),
            st.sampled_from(["a", "b"]),
            st.sampled_from(QUESTIONS),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_a_token_of_group_a_never_reads_or_deletes_group_b(
    env: dict[str, Any], steps: list[tuple[str, str, str]]
) -> None:
    client, store, t = env["client"], env["store"], env["tokens"]
    b_nodes = store.read("admin/count_group", group=env["b"])[0]["nodes"]
    for op, target, question in steps:
        group = env[target]
        headers = bearer(t["a_ro"])  # a read-only token of A: writes to A are refused too
        if op == "delete":
            r = client.delete(f"/v1/groups/{group}", headers=headers)
        elif op == "turns":
            turn = {"speaker": "Mallory", "text": f"{question} {B_MARK}"}
            r = client.post(f"/v1/groups/{group}/turns", json=turn, headers=headers)
        else:
            key = "question" if op == "ask" else "query"
            r = client.post(f"/v1/groups/{group}/{op}", json={key: question}, headers=headers)
        if target == "b" or op in ("delete", "turns"):
            assert r.status_code == 403, (op, target, r.text)
            continue
        assert r.status_code == (200 if question.strip() else 400), r.text
        assert B_MARK not in r.text  # nothing of B, whatever A asks
    assert store.read("admin/count_group", group=env["b"])[0]["nodes"] == b_nodes


def test_forget_through_the_api_deletes_one_group_only(
    neo4j_settings: Settings, store: Store
) -> None:
    gone, kept = f"test-http-f-{uuid.uuid4().hex[:8]}", f"test-http-k-{uuid.uuid4().hex[:8]}"
    tokens = TokenStore(store)
    tg, tk = tokens.create(gone), tokens.create(kept)
    try:
        with Memory(neo4j_settings) as mem:
            for allow, status in ((False, 403), (True, 200)):
                with TestClient(
                    create_app(Service(mem, LIMITS, allow_forget=allow)), base_url=LOCAL
                ) as client:
                    for group, tok in ((gone, tg), (kept, tk)):
                        turn = {"speaker": "Ann", "text": "I bake bread on Sundays."}
                        r = client.post(
                            f"/v1/groups/{group}/turns", json=turn, headers=bearer(tok.secret)
                        )
                        assert r.status_code == 201
                    r = client.delete(f"/v1/groups/{kept}", headers=bearer(tg.secret))
                    assert r.status_code == 403
                    r = client.delete(f"/v1/groups/{gone}", headers=bearer(tg.secret))
                    assert r.status_code == status
            assert r.json()["deleted"] > 0
        assert store.read("admin/count_group", group=gone)[0]["nodes"] == 0
        assert store.read("admin/count_group", group=kept)[0]["nodes"] > 0
    finally:
        tokens.revoke(tg.grant.token_id or "")
        tokens.revoke(tk.grant.token_id or "")
        forget_all(store, gone, kept)


def test_tokens_never_reach_the_logs(env: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    client, a, b, t = env["client"], env["a"], env["b"], env["tokens"]
    caplog.set_level(logging.DEBUG)
    wrong = "cgm_" + "w" * 43
    for token, group in ((t["a"], a), (t["a"], b), (wrong, a), (t["a_ro"], a)):
        client.post(f"/v1/groups/{group}/search", json={"query": "chess"}, headers=bearer(token))
        client.post(f"/v1/groups/{group}/turns", json={"speaker": "x"}, headers=bearer(token))
    assert caplog.records  # the driver and the app did log at DEBUG
    for secret in (*t.values(), wrong):
        assert secret not in caplog.text and secret[4:] not in caplog.text


def test_the_server_process_logs_no_token_and_refuses_open_binds_without_auth(
    neo4j_settings: Settings, env: dict[str, Any], tmp_path: Path
) -> None:
    with pytest.raises(BindRefused):
        check_bind("0.0.0.0", auth=False)
    check_bind("0.0.0.0", auth=True)
    check_bind("::1", auth=False)
    environ = {**os.environ, "NEO4J_URI": neo4j_settings.neo4j_uri}
    if neo4j_settings.neo4j_password:
        environ["NEO4J_PASSWORD"] = neo4j_settings.neo4j_password
    refused = subprocess.run(
        [sys.executable, "-m", "cogmem", "serve", "--host", "0.0.0.0", "--no-auth"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1 and "without authentication" in refused.stderr

    from tests.integration.test_mcp import free_port, wait_for_port

    port, log = free_port(), tmp_path / "serve.log"
    token = env["tokens"]["a"]
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cogmem", "serve", "--port", str(port)],
            env=environ,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, proc)
            import httpx

            base = f"http://127.0.0.1:{port}"
            r = httpx.post(
                f"{base}/v1/groups/{env['a']}/search",
                json={"query": "chess"},
                headers=bearer(token),
                timeout=120,
            )
            assert r.status_code == 200 and r.json()["evidence"]
            r = httpx.post(
                f"{base}/v1/groups/{env['b']}/search", json={"query": "x"}, headers=bearer(token)
            )
            assert r.status_code == 403
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    output = log.read_text(encoding="utf-8", errors="replace")
    assert "/search" in output and token not in output and token[4:] not in output
