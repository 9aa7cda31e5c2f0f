"""The security suite: hostile requests against live servers (`cogmem serve` and
`cogmem mcp --http`, both with tokens), table-driven by class, plus hypothesis-generated
bodies, headers and tool arguments. For every request: no 5xx (Neo4j is up: every refusal
is the client's), a one-line reason; a refused request leaves the graph as it was; nothing
reaches the other tenant's group. At the end: no traceback and no token material in any
log line of either server. docs/security.md maps each promise to these tests."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.service.tokens import TokenStore
from cogmem.store import Store
from tests.live_server import free_port, serve, server_environ, wait_ready

pytestmark = [pytest.mark.integration, pytest.mark.security]

B_SECRET = "zebra-locker-4417"


@dataclass
class Env:
    base: str
    mcp: str
    a: str
    b: str
    tokens: dict[str, str]
    store: Store
    logs: list[Path] = field(default_factory=list)

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def nodes(self, group: str) -> int:
        return int(self.store.read("admin/count_group", group=group)[0]["nodes"])


@pytest.fixture(scope="module")
def env(
    neo4j_settings: Settings, store: Store, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Env]:
    a, b = (f"test-hostile-{k}-{uuid.uuid4().hex[:8]}" for k in "ab")
    with Memory(neo4j_settings.model_copy(update={"group": b})) as mem:
        mem.add_turn("Bea", f"My locker code is {B_SECRET}.", conversation="c")
    with Memory(neo4j_settings.model_copy(update={"group": a})) as mem:
        mem.add_turn("Ann", "I play chess on Sundays.", conversation="c")
    ts = TokenStore(store)
    made = {
        "a": ts.create(a),
        "a_ro": ts.create(a, read_only=True),
        "b": ts.create(b),
        "revoked": ts.create(a),
    }
    ts.revoke(made["revoked"].grant.token_id or "")
    tmp = tmp_path_factory.mktemp("hostile")
    logs = [tmp / "serve.log", tmp / "mcp.log"]
    port = free_port()
    with logs[1].open("ab") as sink:
        mcp = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cogmem",
                "mcp",
                "--http",
                "--allow-forget",
                "--port",
                str(port),
            ],
            env=server_environ(neo4j_settings),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        with serve(neo4j_settings, logs[0], "--allow-forget", "--max-body", "65536") as live:
            wait_ready(port, mcp)
            yield Env(
                live.base,
                f"http://127.0.0.1:{port}/mcp",
                a,
                b,
                {k: v.secret for k, v in made.items()},
                store,
                logs,
            )
    finally:
        mcp.terminate()
        mcp.wait(timeout=30)
        for t in made.values():
            ts.revoke(t.grant.token_id or "")
        for g in (a, b):
            while store.write("admin/forget_group", group=g, batch=5000)[0]["deleted"]:
                pass
    for log in logs:  # the whole run, both servers, every line
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in text, text[-3000:]
        for secret in (v.secret for v in made.values()):
            for line in text.splitlines():
                assert secret[4:24] not in line, line


def check(r: httpx.Response, env: Env, expect: set[int] | None = None) -> None:
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if expect is not None:
        assert r.status_code in expect, (r.status_code, r.text[:300])
    assert B_SECRET not in r.text
    if r.status_code >= 400 and "json" in r.headers.get("content-type", ""):
        detail = r.json().get("detail")
        assert isinstance(detail, str) and detail and "\n" not in detail, r.text[:300]


# (name, method, path (A/B stand for the groups), headers, json body or raw bytes, expected)
CASES: list[tuple[str, str, str, dict[str, str] | str, Any, set[int]]] = [
    ("no token", "POST", "/v1/groups/A/search", {}, {"query": "x"}, {401}),
    (
        "basic auth",
        "POST",
        "/v1/groups/A/search",
        {"Authorization": "Basic YTpi"},
        {"query": "x"},
        {401},
    ),
    (
        "unknown token",
        "POST",
        "/v1/groups/A/search",
        {"Authorization": "Bearer cgm_" + "x" * 43},
        {"query": "x"},
        {401},
    ),
    ("revoked token", "POST", "/v1/groups/A/search", "revoked", {"query": "x"}, {401}),
    (
        "token too long",
        "POST",
        "/v1/groups/A/search",
        {"Authorization": "Bearer cgm_" + "x" * 5000},
        {"query": "x"},
        {401},
    ),
    ("other group search", "POST", "/v1/groups/B/search", "a", {"query": "locker code"}, {403}),
    ("other group context", "POST", "/v1/groups/B/context", "a", {"query": "locker code"}, {403}),
    ("other group ask", "POST", "/v1/groups/B/ask", "a", {"question": "What is the code?"}, {403}),
    ("other group write", "POST", "/v1/groups/B/turns", "a", {"speaker": "M", "text": "x"}, {403}),
    ("other group forget", "DELETE", "/v1/groups/B", "a", None, {403}),
    ("new group write", "POST", "/v1/groups/C/turns", "a", {"speaker": "M", "text": "x"}, {403}),
    ("read-only write", "POST", "/v1/groups/A/turns", "a_ro", {"speaker": "M", "text": "x"}, {403}),
    ("read-only forget", "DELETE", "/v1/groups/A", "a_ro", None, {403}),
    ("path traversal", "POST", "/v1/groups/A/../B/search", "a", {"query": "x"}, {403, 404}),
    ("encoded traversal", "POST", "/v1/groups/A%2F..%2FB/search", "a", {"query": "x"}, {403, 404}),
    (
        "foreign host",
        "POST",
        "/v1/groups/A/search",
        {"Host": "evil.example"},
        {"query": "x"},
        {421},
    ),
    ("rebinding host", "GET", "/healthz", {"Host": "127.0.0.1.nip.io:8000"}, None, {421}),
    (
        "foreign origin",
        "POST",
        "/v1/groups/A/search",
        {"Origin": "https://evil.example"},
        {"query": "x"},
        {403},
    ),
    (
        "null origin",
        "POST",
        "/v1/groups/A/turns",
        {"Origin": "null"},
        {"speaker": "M", "text": "x"},
        {403},
    ),
    ("token in query", "POST", "/v1/groups/A/search?token=a", {}, {"query": "x"}, {400}),
    ("access_token in query", "GET", "/v1/groups?access_token=a", {}, None, {400}),
    ("blank speaker", "POST", "/v1/groups/A/turns", "a", {"speaker": "  ", "text": "hi"}, {422}),
    ("blank text", "POST", "/v1/groups/A/turns", "a", {"speaker": "M", "text": " \n "}, {422}),
    (
        "text not a string",
        "POST",
        "/v1/groups/A/turns",
        "a",
        {"speaker": "M", "text": ["x"]},
        {422},
    ),
    (
        "time overflow",
        "POST",
        "/v1/groups/A/turns",
        "a",
        {"speaker": "M", "text": "x", "time": "9999-12-31T23:59:59-23:59"},
        {400, 422},
    ),
    (
        "time nonsense",
        "POST",
        "/v1/groups/A/turns",
        "a",
        {"speaker": "M", "text": "x", "time": "yesterday-ish"},
        {422},
    ),
    (
        "bad turn id",
        "POST",
        "/v1/groups/A/turns",
        "a",
        {"speaker": "M", "text": "x", "id": "a b"},
        {422},
    ),
    ("huge speaker", "POST", "/v1/groups/A/turns", "a", {"speaker": "M" * 300, "text": "x"}, {422}),
    ("k zero", "POST", "/v1/groups/A/search", "a", {"query": "x", "k": 0}, {422}),
    ("k huge", "POST", "/v1/groups/A/search", "a", {"query": "x", "k": 10**12}, {422}),
    (
        "budget negative",
        "POST",
        "/v1/groups/A/context",
        "a",
        {"query": "x", "budget_tokens": -5},
        {422},
    ),
    ("empty query", "POST", "/v1/groups/A/search", "a", {"query": ""}, {400}),
    ("blank question", "POST", "/v1/groups/A/ask", "a", {"question": "   "}, {400}),
    ("malformed json", "POST", "/v1/groups/A/search", "a", b'{"query": ', {422}),
    ("json not an object", "POST", "/v1/groups/A/search", "a", b"[1, 2, 3]", {422}),
    ("body too large", "POST", "/v1/groups/A/search", "a", {"query": "x" * 70_000}, {413}),
    (
        "cypher in query",
        "POST",
        "/v1/groups/A/search",
        "a",
        {"query": "') MATCH (n) DETACH DELETE n //"},
        {200},
    ),
    (
        "lucene in query",
        "POST",
        "/v1/groups/A/search",
        "a",
        {"query": "*:* AND group_key:*"},
        {200},
    ),
    ("ingest not a file", "POST", "/v1/groups/A/ingest", "a", {"file": "x"}, {422}),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hostile_http_requests_are_refused_in_one_line_and_change_nothing(
    env: Env, case: tuple[str, str, str, Any, Any, set[int]]
) -> None:
    name, method, path, headers, body, expect = case
    path = path.replace("/A", f"/{env.a}").replace("/B", f"/{env.b}").replace("/C", "/c-new")
    if isinstance(headers, str):
        headers = env.auth(headers)
    if name == "token in query":
        path = path.replace("token=a", f"token={env.tokens['a']}")
    before = (env.nodes(env.a), env.nodes(env.b))
    kwargs: dict[str, Any] = {"headers": headers, "timeout": 60}
    if isinstance(body, bytes):
        kwargs["content"] = body
        kwargs["headers"] = {**headers, "Content-Type": "application/json"}
    elif body is not None:
        kwargs["json"] = body
    r = httpx.request(method, env.base + path, **kwargs)
    check(r, env, expect)
    assert (env.nodes(env.a), env.nodes(env.b)) == before


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "speaker": JSON | st.text(max_size=20),
        "text": JSON | st.text(max_size=50),
        "query": JSON | st.text(max_size=50),
        "question": JSON | st.text(max_size=50),
        "k": JSON,
        "budget_tokens": JSON,
        "time": JSON | st.text(max_size=30),
        "wait": JSON,
        "id": JSON | st.text(max_size=30),
        "group": st.just("B"),
    },
)
SLOW = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SLOW
@given(route=st.sampled_from(["turns", "search", "context", "ask"]), body=JSON | FIELDS)
def test_generated_bodies_never_reach_a_5xx_or_the_other_group(
    env: Env, route: str, body: Any
) -> None:
    if isinstance(body, dict) and body.get("group") == "B":
        body = {**body, "group": env.b}
    before_a, before_b = env.nodes(env.a), env.nodes(env.b)
    r = httpx.post(f"{env.base}/v1/groups/{env.a}/{route}", json=body, headers=env.auth("a"))
    check(r, env)
    if r.status_code >= 400:
        assert env.nodes(env.a) == before_a
    assert env.nodes(env.b) == before_b


ASCII = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60)


@SLOW
@given(
    headers=st.fixed_dictionaries(
        {},
        optional={
            "Host": ASCII,
            "Origin": ASCII | st.sampled_from(["null", "http://127.0.0.1", "https://evil.example"]),
            "Authorization": ASCII.map(lambda s: "Bearer " + s) | ASCII,
            "Content-Type": ASCII,
            "Idempotency-Key": ASCII,
            "X-Forwarded-Host": ASCII,
        },
    ),
    route=st.sampled_from(["turns", "search", "groups"]),
)
def test_generated_headers_never_reach_a_5xx_or_a_write_without_a_token(
    env: Env, headers: dict[str, str], route: str
) -> None:
    headers = {k: v.strip() for k, v in headers.items()}  # what HTTP can carry
    before = (env.nodes(env.a), env.nodes(env.b))
    path = "/v1/groups" if route == "groups" else f"/v1/groups/{env.a}/{route}"
    body = {"speaker": "Gen", "text": "generated", "query": "x"}
    r = httpx.post(env.base + path, json=body, headers=headers, timeout=60)
    check(r, env)
    assert r.status_code != 201  # no valid token is ever generated: nothing is written
    assert (env.nodes(env.a), env.nodes(env.b)) == before


def _mcp(env: Env, who: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def go() -> list[Any]:
        with anyio.fail_after(180):
            async with (
                httpx2.AsyncClient(headers=env.auth(who), timeout=120) as client,
                streamable_http_client(env.mcp, http_client=client) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return [await session.call_tool(n, a) for n, a in calls]

    return anyio.run(go)


MCP_CASES: list[tuple[str, dict[str, Any]]] = [
    ("remember", {"speaker": " ", "text": "hi"}),
    ("remember", {"speaker": "M", "text": "  "}),
    ("remember", {"speaker": "M", "text": "x", "time": "9999-12-31T23:59:59-23:59"}),
    ("remember", {"speaker": "M", "text": "x", "id": "has space"}),
    ("remember", {"speaker": ["M"], "text": "x"}),
    ("search", {"query": ""}),
    ("search", {"query": "x", "k": 0}),
    ("search", {"query": "x", "k": 101}),
    ("search", {"query": "locker code", "group": "B"}),
    ("context", {"query": "x", "budget_tokens": 0}),
    ("ask", {"question": "  "}),
    ("forget_group", {"confirm": False}),
    ("no_such_tool", {}),
]


def test_hostile_mcp_calls_are_one_line_errors_and_change_nothing(env: Env) -> None:
    before = (env.nodes(env.a), env.nodes(env.b))
    calls = [(n, {k: (env.b if v == "B" else v) for k, v in a.items()}) for n, a in MCP_CASES]
    results = _mcp(env, "a", calls)
    for (name, args), result in zip(calls, results, strict=True):
        text = json.dumps([c.model_dump() for c in result.content])
        assert B_SECRET not in text
        if name == "search" and "group" in args:
            continue  # an unknown argument is ignored: the search is of A, the token's
        assert result.is_error, (name, args)
        message = result.content[0].text
        assert "\n" not in message and message.strip() != f"Error executing tool {name}"
        reason = message.replace(f"Error executing tool {name}", "").strip(": ")
        assert len(reason) > 5, message  # a reason, not only the tool's name
    ro = _mcp(env, "a_ro", [("remember", {"speaker": "M", "text": "x"})])[0]
    assert ro.is_error and "read-only" in ro.content[0].text
    assert (env.nodes(env.a), env.nodes(env.b)) == before
    for headers, status in (
        ({}, 401),
        ({"Authorization": f"Bearer {env.tokens['revoked']}"}, 401),
        ({**env.auth("a"), "Host": "evil.example"}, 421),
        ({**env.auth("a"), "Origin": "https://evil.example"}, 403),
    ):
        r = httpx.post(env.mcp, json={}, headers=headers, timeout=30)
        check(r, env, {status})


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    calls=st.lists(
        st.tuples(
            st.sampled_from(["remember", "search", "context", "ask", "list_groups"]),
            st.dictionaries(
                st.sampled_from(["speaker", "text", "query", "question", "k", "time", "id"]),
                JSON,
                max_size=4,
            ),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_generated_mcp_arguments_never_crash_a_tool(
    env: Env, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    before_b = env.nodes(env.b)
    for (name, _), result in zip(calls, _mcp(env, "a_ro", calls), strict=True):
        if result.is_error:
            message = result.content[0].text
            assert "\n" not in message and "internal error" not in message, (name, message)
    assert env.nodes(env.b) == before_b


# -- issue 51: attacks that got through on main ------------------------------------------


def test_a_page_on_another_port_cannot_post_a_form_to_a_no_auth_server(
    neo4j_settings: Settings, store: Store, tmp_path: Path
) -> None:
    """On main the Origin was compared by host only: a page on http://127.0.0.1:3000
    wrote into a `--no-auth` server on another port with a multipart form (a request a
    browser sends without a preflight)."""
    group = f"test-hostile-port-{uuid.uuid4().hex[:8]}"
    upload = b'{"conversation":"c","speaker":"Mal","text":"A page wrote this."}\n'
    try:
        with serve(neo4j_settings, tmp_path / "serve.log", "--no-auth", "--group", group) as live:
            ingest = f"{live.base}/v1/groups/{group}/ingest"
            for origin in (
                "http://127.0.0.1:3000",
                "http://localhost:3000",
                f"https://127.0.0.1:{live.port}",  # same host and port, another scheme
                "http://127.0.0.1",  # port 80
            ):
                r = httpx.post(
                    ingest,
                    files={"file": ("x.jsonl", upload, "application/json")},
                    headers={"Origin": origin},
                    timeout=60,
                )
                assert r.status_code == 403, (origin, r.status_code, r.text[:200])
                r = httpx.post(
                    f"{live.base}/v1/groups/{group}/turns",
                    content=b'{"speaker": "Mal", "text": "plain text post"}',
                    headers={"Origin": origin, "Content-Type": "text/plain"},
                    timeout=60,
                )
                assert r.status_code == 403, (origin, r.status_code)
            own = httpx.post(  # the server's own page (same scheme, host and port) works
                f"{live.base}/v1/groups/{group}/search",
                json={"query": "x"},
                headers={"Origin": live.base},
                timeout=60,
            )
            assert own.status_code == 200, own.text
            nodes = int(store.read("admin/count_group", group=group)[0]["nodes"])
            assert nodes == 0
    finally:
        while store.write("admin/forget_group", group=group, batch=5000)[0]["deleted"]:
            pass


def test_the_mcp_transport_refuses_a_page_on_another_port(env: Env) -> None:
    port = env.mcp.split(":")[2].split("/")[0]
    for origin in ("http://127.0.0.1:3000", f"https://127.0.0.1:{port}"):
        r = httpx.post(env.mcp, json={}, headers={**env.auth("a"), "Origin": origin}, timeout=30)
        check(r, env, {403})


def _hold(port: int, payload: bytes) -> Any:
    """A connection that sends ``payload`` and then nothing (the test closes it)."""
    import socket

    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(30)
    if payload:
        s.sendall(payload)
    return s


def _port(url: str) -> int:
    return int(url.split(":")[2].split("/")[0])


def test_63_slow_unauthenticated_connections_leave_a_token_holder_served(env: Env) -> None:
    """On main 63 connections that sent their request slowly (headers a byte at a time, or
    a body never finished: it was read before the token was checked) took every slot: the
    64th, a token holder's, was 503 until they let go."""
    import time

    port = _port(env.base)
    path = f"/v1/groups/{env.a}/search"
    slow = [
        b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0",  # headers never finished
        b"",  # nothing at all
    ]

    def searches(n: int) -> list[float]:
        took = []
        for _ in range(n):
            started = time.monotonic()
            r = httpx.post(
                env.base + path, json={"query": "chess"}, headers=env.auth("a"), timeout=30
            )
            took.append(time.monotonic() - started)
            assert r.status_code == 200, (r.status_code, r.text[:200])
        return took

    alone = searches(3)  # (the first one warms the server up)
    held = [_hold(port, slow[i % 2]) for i in range(63)]
    try:
        time.sleep(1.0)
        beside = searches(5)
        print(
            "token holder's search alone / beside 63 slow clients (ms): "
            + " ".join(f"{t * 1000:.0f}" for t in alone[1:])
            + " / "
            + " ".join(f"{t * 1000:.0f}" for t in beside)
        )
    finally:
        for s in held:
            s.close()
    # a body is never waited for before its token is checked: 401 at once, then closed
    started = time.monotonic()
    with _hold(
        port,
        b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"query"',
    ) as s:
        got = s.recv(4096)
        assert got.startswith(b"HTTP/1.1 401"), got[:100]
        assert time.monotonic() - started < 2


def test_63_mcp_event_streams_of_one_token_leave_others_served(env: Env) -> None:
    """On main `GET /mcp` opened an event stream that the stateless server never writes
    to; 63 of them with a read-only token took every slot."""
    port = _port(env.mcp)
    get = (
        f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
        f"Authorization: Bearer {env.tokens['a_ro']}\r\n\r\n"
    ).encode()
    held = []
    try:
        for _ in range(63):
            held.append(_hold(port, get))
            answer = held[-1].recv(4096)  # on main: 200 and an event stream, held open
            assert answer.startswith(b"HTTP/1.1 405"), answer[:200]
        results = _mcp(env, "a", [("search", {"query": "chess"})])
        assert not results[0].is_error, results[0]
    finally:
        for s in held:
            s.close()


def test_percent_encoded_tokens_are_refused_and_never_logged(env: Env) -> None:
    """On main only a literal `cgm_` was found: `?q=%63gm_…`, `cgm%5F…` or an encoded
    token in the path was let through to the handler and written out by the access log."""
    secret = env.tokens["a"]
    rest = secret[4:]
    urls = [
        f"/v1/groups/{env.a}/search?q=%63gm_{rest}",
        f"/v1/groups/{env.a}/search?q=cgm%5F{rest}",
        f"/v1/groups/{env.a}/search?q=cgm%5f{rest}",
        f"/v1/groups/{env.a}/search?q=%2563gm%255F{rest}",  # encoded twice
        f"/v1/groups/{env.a}/search?%74oken={rest}",  # the key encoded
        f"/v1/groups/{env.a}/search?%2574oken={rest}",
        f"/v1/groups/%63gm_{rest}/search",
        f"/v1/groups/cgm%255F{rest}/search",
        f"/v1/groups/{env.a}/search?q=%25%32%35%36%33gm_{rest}",  # %2563 itself encoded
    ]
    for url in urls:
        r = httpx.post(env.base + url, json={"query": "x"}, timeout=30)
        check(r, env, {400})
        assert "Authorization: Bearer" in r.json()["detail"]
    for query in (f"?q=%63gm_{rest}", f"?q=cgm%255F{rest}"):
        r = httpx.post(env.mcp + query, json={}, timeout=30)
        check(r, env, {400})
    for log in env.logs:
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            assert rest[:20] not in line, line


EDGES = ["9999-12-31", "0001-01-01T00:30+14:00", "9999", "0001-01-01T00:00-00:01"]


def test_times_at_the_calendars_edge_are_a_422_naming_the_field(
    env: Env, neo4j_settings: Settings
) -> None:
    """On main `as_of: 9999-12-31` was an OverflowError (500 and a traceback over HTTP, a
    bare error over MCP, `error: OverflowError` in the CLI), a turn's time past the
    calendar the driver's 'Ticks out of range', a number a time in seconds or
    milliseconds by its size, and `k: true` was k=1."""
    from typer.testing import CliRunner

    from cogmem.cli import app as cli_app
    from cogmem.temporal.as_of import AsOfError

    before = (env.nodes(env.a), env.nodes(env.b))
    for edge in EDGES:
        for route, body in (
            ("search", {"query": "chess", "as_of": edge}),
            ("context", {"query": "chess", "as_of": edge}),
            ("ask", {"question": "what does Ann play?", "as_of": edge}),
        ):
            r = httpx.post(
                f"{env.base}/v1/groups/{env.a}/{route}", json=body, headers=env.auth("a")
            )
            check(r, env, {422})
            assert r.json()["detail"].startswith("as_of: "), r.text
        turn = {"speaker": "M", "text": "x", "time": edge}
        r = httpx.post(f"{env.base}/v1/groups/{env.a}/turns", json=turn, headers=env.auth("a"))
        check(r, env, {422})
        assert r.json()["detail"].startswith("time: "), r.text
    for bad, name in (
        ({"speaker": "M", "text": "x", "time": 1700000000}, "time"),
        ({"speaker": "M", "text": "x", "time": 1700000000000}, "time"),
        ({"speaker": "M", "text": "x", "time": "1700000000"}, "time"),
        ({"speaker": "M", "text": "x", "time": "9999-12-31T23:59:59-23:59"}, "time"),
        ({"speaker": "M", "text": "x", "time": "2024-03-01T12:00:00-23:00"}, "time"),
    ):
        r = httpx.post(f"{env.base}/v1/groups/{env.a}/turns", json=bad, headers=env.auth("a"))
        check(r, env, {422})
        assert r.json()["detail"].startswith(f"{name}: "), r.text
    for route, body in (
        ("search", {"query": "x", "k": True}),
        ("ask", {"question": "x", "k": False}),
        ("context", {"query": "x", "budget_tokens": True}),
    ):
        r = httpx.post(f"{env.base}/v1/groups/{env.a}/{route}", json=body, headers=env.auth("a"))
        check(r, env, {422})
    assert (env.nodes(env.a), env.nodes(env.b)) == before
    calls = [(tool, {"query": "chess", "as_of": e}) for e in EDGES for tool in ("search",)]
    calls += [("ask", {"question": "chess?", "as_of": "9999-12-31"})]
    calls += [("remember", {"speaker": "M", "text": "x", "time": 1700000000})]
    calls += [("remember", {"speaker": "M", "text": "x", "time": "0001-01-01T00:30+14:00"})]
    calls += [("search", {"query": "x", "k": True})]
    for (tool, args), result in zip(calls, _mcp(env, "a", calls), strict=True):
        assert result.is_error, (tool, args)
        message = result.content[0].text
        assert "\n" not in message and "internal error" not in message, message
        name = "time" if "time" in args else "as_of" if "as_of" in args else "k"
        assert f"{name}: " in message, message
    assert (env.nodes(env.a), env.nodes(env.b)) == before
    for edge in EDGES[:2]:
        cli = CliRunner().invoke(cli_app, ["search", "chess", "--as-of", edge])
        assert cli.exit_code == 1, cli.output
        lines = [line for line in cli.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: --as-of:"), cli.output
        assert "Overflow" not in cli.output
        with (
            Memory(neo4j_settings.model_copy(update={"group": env.a})) as mem,
            pytest.raises(AsOfError, match="outside the times"),
        ):
            mem.search("chess", as_of=edge)
    for log in env.logs:
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in text and "OverflowError" not in text, text[-2000:]


def test_the_last_and_first_days_kept_are_stored_and_searched(env: Env) -> None:
    """The edge of the range kept is usable end to end (the driver stores it)."""
    kept = ("9999-12-30T00:00:00-18:00", "0001-01-02T18:00:00+18:00", "0001-01-02T00:00:00Z")
    for n, when in enumerate(kept):
        r = httpx.post(
            f"{env.base}/v1/groups/{env.a}/turns",
            json={"speaker": "Ann", "text": f"Edge note number {n}.", "time": when},
            headers=env.auth("a"),
            timeout=60,
        )
        assert r.status_code == 201, r.text
    r = httpx.post(
        f"{env.base}/v1/groups/{env.a}/search",
        json={"query": "note", "as_of": "9999-12-30"},
        headers=env.auth("a"),
        timeout=60,
    )
    assert r.status_code == 200, r.text
