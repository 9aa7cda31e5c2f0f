"""One request policy for HTTP and MCP: the same bounds, every refusal one line the client
reads (the model, over MCP), no traceback for a client's error, and a bug logged once with
a request id the client gets. Real Neo4j, the real offline embedder; MCP in-process."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.service.core import Limits, Service
from cogmem.service.http_api import create_app
from cogmem.service.mcp_server import build_server
from cogmem.service.tokens import Grant, TokenStore
from cogmem.store import Store

pytestmark = pytest.mark.integration
LOCAL = "http://127.0.0.1"  # the Host the guards allow by default

LIMITS = Limits(max_body_bytes=16 * 1024, timeout_s=60)
BOUNDS = ("minimum", "maximum", "minLength", "maxLength", "pattern")


@pytest.fixture(scope="module")
def env(neo4j_settings: Settings, store: Store) -> Iterator[dict[str, Any]]:
    group = f"test-policy-{uuid.uuid4().hex[:8]}"
    tokens = TokenStore(store)
    made = {"rw": tokens.create(group), "ro": tokens.create(group, read_only=True)}
    mem = Memory(neo4j_settings)
    service = Service(mem, LIMITS, allow_forget=True)
    with TestClient(create_app(service), base_url=LOCAL) as client:
        yield {"client": client, "service": service, "group": group, "tokens": made}
    for t in made.values():
        tokens.revoke(t.grant.token_id or "")
    mem.close()
    while store.write("admin/forget_group", group=group, batch=5000)[0]["deleted"]:
        pass


def mcp_calls(service: Service, grant: Grant, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """Run tool calls in-process; the results in order, and the tools as listed."""
    out: dict[str, Any] = {}

    async def go() -> None:
        async with Client(build_server(service, grant)) as client:
            out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
            out["results"] = [await client.call_tool(n, a) for n, a in calls]

    anyio.run(go)
    return out


def _bounds(schema: dict[str, Any]) -> dict[str, Any]:
    options = schema.get("anyOf", [schema])
    found: dict[str, Any] = {}
    for option in options:
        found.update({b: option[b] for b in BOUNDS if b in option})
    return found


def test_mcp_tools_and_http_bodies_have_the_same_bounds(env: dict[str, Any]) -> None:
    """k, budget, text and name bounds are defined once (on main: k <= 50 over MCP and
    <= 100 over HTTP, budget >= 50 vs >= 1)."""
    client = env["client"]
    components = client.get("/openapi.json").json()["components"]["schemas"]
    tools = mcp_calls(env["service"], Grant(group=env["group"]), [])["tools"]
    pairs = {"remember": "TurnIn", "search": "SearchIn", "context": "ContextIn", "ask": "AskIn"}
    for tool, model in pairs.items():
        props = tools[tool].input_schema["properties"]
        body = components[model]["properties"]
        for name, schema in props.items():
            assert name in body, (tool, name)
            assert _bounds(schema) == _bounds(body[name]), (tool, name)
    assert _bounds(tools["search"].input_schema["properties"]["k"]) == {
        "minimum": 1,
        "maximum": 100,
    }


def test_mcp_tools_carry_annotations(env: dict[str, Any]) -> None:
    tools = mcp_calls(env["service"], Grant(group=env["group"]), [])["tools"]
    for name in ("search", "context", "ask", "list_groups"):
        ann = tools[name].annotations
        assert ann is not None and ann.read_only_hint is True, name
        assert ann.idempotent_hint is True, name
    assert tools["remember"].annotations.read_only_hint is False
    forget = tools["forget_group"].annotations
    assert forget.destructive_hint is True and forget.read_only_hint is False


MCP_REFUSALS: list[tuple[str, dict[str, Any], str, bool]] = [
    ("remember", {"speaker": "   ", "text": "hi"}, "speaker", False),
    ("remember", {"speaker": "ann", "text": "  \n "}, "text", False),
    ("remember", {"speaker": "ann", "text": "hi", "conversation": " "}, "conversation", False),
    ("remember", {"speaker": "ann", "text": "hi", "time": "9999-12-31T23:59:59-23:59"}, "", False),
    ("remember", {"speaker": "ann", "text": "hi"}, "read-only", True),
    ("search", {"query": ""}, "empty", False),
    ("search", {"query": "x", "k": 0}, "k", False),
    ("search", {"query": "x", "k": 101}, "k", False),
    ("context", {"query": "x", "budget_tokens": 0}, "budget_tokens", False),
    ("ask", {"question": "   "}, "empty", False),
    ("forget_group", {"confirm": False}, "confirm=true", False),
]


@pytest.mark.parametrize("case", range(len(MCP_REFUSALS)))
def test_every_mcp_refusal_is_one_line_the_model_reads_without_a_traceback(
    env: dict[str, Any], caplog: pytest.LogCaptureFixture, case: int
) -> None:
    """On main each of these reached the model as a bare 'Error executing tool X' with a
    traceback in the log (or, for bounds, a multi-line pydantic dump)."""
    tool, args, word, read_only = MCP_REFUSALS[case]
    caplog.set_level(logging.DEBUG)
    grant = Grant(group=env["group"], read_only=read_only)
    (result,) = mcp_calls(env["service"], grant, [(tool, args)])["results"]
    assert result.is_error
    text = result.content[0].text
    assert "\n" not in text and word in text, text
    reason = text.split(f"Error executing tool {tool}", 1)[-1].strip(": ")
    assert len(reason) > len(tool) + 3, text  # a reason, not only the tool's name
    assert not [r for r in caplog.records if r.exc_info], "a client error logged a traceback"


def test_http_refusals_are_one_line_and_a_blank_text_is_refused(env: dict[str, Any]) -> None:
    client, group, t = env["client"], env["group"], env["tokens"]
    auth = {"Authorization": f"Bearer {t['rw'].secret}"}
    for path, body, status in (
        ("turns", {"speaker": "ann", "text": "   "}, 422),  # stored with 201 on main
        ("turns", {"speaker": "  ", "text": "hi"}, 422),
        ("search", {"query": "x", "k": 101}, 422),
        ("search", {"query": ""}, 400),
    ):
        r = client.post(f"/v1/groups/{group}/{path}", json=body, headers=auth)
        assert r.status_code == status, (body, r.text)
        detail = r.json()["detail"]
        assert isinstance(detail, str) and "\n" not in detail and detail != "invalid request"


def test_a_server_bug_logs_one_traceback_with_the_request_id_the_client_gets(
    env: dict[str, Any], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, group = env["service"], env["group"]

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("secret internals 42")

    monkeypatch.setattr(service, "search", broken)
    caplog.set_level(logging.INFO)
    auth = {"Authorization": f"Bearer {env['tokens']['rw'].secret}"}
    r = env["client"].post(f"/v1/groups/{group}/search", json={"query": "x"}, headers=auth)
    assert r.status_code == 500
    rid = r.json()["request_id"]
    assert "secret internals" not in r.text and rid in r.json()["detail"]
    logged = [rec for rec in caplog.records if rec.exc_info]
    assert len(logged) == 1 and rid in logged[0].getMessage()

    caplog.clear()
    (result,) = mcp_calls(service, Grant(group=group), [("search", {"query": "x"})])["results"]
    text = result.content[0].text
    assert result.is_error and "request id" in text and "secret internals" not in text
    mcp_rid = text.split("request id ", 1)[1].split(")", 1)[0]
    traced = [rec for rec in caplog.records if rec.exc_info]
    assert len(traced) == 1 and mcp_rid in traced[0].getMessage()
