"""`cogmem mcp` through the official MCP SDK's client: over stdio with the server's group,
and over streamable HTTP with a bearer token that decides the group. Real Neo4j, the real
offline embedder; the server runs as a subprocess, as an MCP client would start it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from cogmem.config import Settings
from cogmem.service.tokens import TokenStore
from cogmem.store import Store

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TURNS = [
    ("Alice", "I adopted a grey cat named Miso last week.", "2024-03-02T10:00:00Z"),
    ("Bob", "Nice! I started learning the cello in January.", "2024-03-02T10:01:00Z"),
    ("Alice", "Miso sleeps on my keyboard every morning.", "2024-03-02T10:02:00Z"),
]
COGMEM = [sys.executable, "-m", "cogmem"]
READ_TOOLS = {"remember", "search", "context", "ask", "list_groups"}


def run(scenario: Callable[[], Awaitable[None]], seconds: float = 240) -> None:
    async def bounded() -> None:
        with anyio.fail_after(seconds):
            await scenario()

    anyio.run(bounded)


def server_env(settings: Settings) -> dict[str, str]:
    env = {
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_USER": settings.neo4j_user,
        "COGMEM_CONFIG": os.environ.get("COGMEM_CONFIG", ""),
        "PYTHONUNBUFFERED": "1",
    }
    if settings.neo4j_password:
        env["NEO4J_PASSWORD"] = settings.neo4j_password
    return env


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))


async def remember_and_recall(session: ClientSession, group: str) -> None:
    """The scenario both transports run: remember three turns, find them again."""
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) >= READ_TOOLS
    for tool in tools.values():  # the group is never something the model can write
        assert tool.description
        assert "group" not in tool.input_schema.get("properties", {})
    assert tools["remember"].input_schema["required"] == ["speaker", "text"]

    assert structured(await session.call_tool("list_groups", {})) == {"groups": [group]}
    for n, (speaker, text, at) in enumerate(TURNS):
        wait = n < len(TURNS) - 1  # the last is queued: the search below waits for it
        args = {"speaker": speaker, "text": text, "time": at, "wait": wait}
        done = structured(await session.call_tool("remember", args))
        assert done["group"] == group and done["turns"] == 1 and done["queued"] is not wait

    found = structured(await session.call_tool("search", {"query": "What is Alice's cat called?"}))
    assert found["group"] == group
    top = found["evidence"][0]
    assert top["speaker"] == "Alice" and "Miso" in top["quote"]
    assert top["turn_id"] in {"@0", "@2"} and top["time"].startswith("2024-03-02")

    # as of a time before anything was said, memory holds nothing; the schema says so
    assert "as it stood then" in tools["search"].input_schema["properties"]["as_of"]["description"]
    before = structured(
        await session.call_tool("search", {"query": "Alice's cat", "as_of": "2000-01-01"})
    )
    assert before["evidence"] == []
    refused = await session.call_tool("search", {"query": "Alice's cat", "as_of": "whenever"})
    assert refused.is_error and "cannot read" in refused.content[0].text

    answer = structured(await session.call_tool("ask", {"question": "What is the cat's name?"}))
    assert "Miso" in answer["answer"]
    assert any("Miso" in (e["quote"] or "") for e in answer["evidence"])

    block = structured(
        await session.call_tool("context", {"query": "Bob's instrument", "budget_tokens": 200})
    )
    assert "cello" in block["text"] and block["tokens"] <= 200


def test_stdio_server_remembers_and_recalls(
    neo4j_settings: Settings, group: str, tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*COGMEM[1:], "mcp", "--group", group],
        env=server_env(neo4j_settings),
    )

    async def scenario() -> None:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert "forget_group" not in names  # off without --allow-forget
                await remember_and_recall(session, group)

    run(scenario)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"nothing listens on {port} after {seconds} s")


@pytest.fixture
def token(store: Store, group: str) -> Iterator[str]:
    tokens = TokenStore(store)
    created = tokens.create(group, name="test-mcp")
    yield created.secret
    tokens.revoke(created.grant.token_id or "")


def test_streamable_http_server_with_a_token(
    neo4j_settings: Settings, group: str, token: str, store: Store, tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [*COGMEM, "mcp", "--http", "--allow-forget", "--port", str(port)],
            env={**os.environ, **server_env(neo4j_settings)},
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, proc)
            url = f"http://127.0.0.1:{port}/mcp"
            unauthorised = httpx2.post(url, json={}, timeout=30)
            assert unauthorised.status_code == 401
            wrong = httpx2.post(
                url, json={}, headers={"Authorization": "Bearer cgm_nope"}, timeout=30
            )
            assert wrong.status_code == 401

            async def scenario() -> None:
                headers = {"Authorization": f"Bearer {token}"}
                async with (
                    httpx2.AsyncClient(headers=headers, timeout=120) as client,
                    streamable_http_client(url, http_client=client) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    await remember_and_recall(session, group)
                    gone = structured(await session.call_tool("forget_group", {"confirm": True}))
                    assert gone["group"] == group and gone["deleted"] > 0

            run(scenario)
            assert store.read("admin/count_group", group=group)[0]["nodes"] == 0
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    output = log.read_text(encoding="utf-8", errors="replace")
    assert "POST /mcp" in output  # the access log was captured …
    assert token not in output and token[4:] not in output  # … and never shows the token
