"""Forgetting precisely (issue 50) through its doors, against the real Neo4j: the HTTP routes
(``DELETE /v1/groups/{g}/turns/{id}``, ``DELETE /v1/groups/{g}/conversations/{c}``,
``POST /v1/groups/{g}/forget``) of a served ``cogmem serve --allow-forget`` with tokens, the
MCP ``forget`` tool, and the live append lock that a forget takes.

* **Nothing of the forgotten text survives**: after a chat uploaded with a token and two of
  its turns forgotten over HTTP, no node or relationship of the group (any label, every
  property, :ForgetAudit and every :CogmemMeta node included), no line of the export file
  and no line of the server's log holds the forgotten texts or their distinctive words, and
  no vector is the forgotten turns'; the audit entries are there with counts and the actor
  (the token's id and name, never its secret). The same grep finds them before the forget.
* **Refusals change nothing**: a read-only token, another group's token, a server without
  ``--allow-forget``, a turn or conversation that does not exist (404), a span with nothing
  in it (404), an unreadable or reversed time (422 naming the field): one line each, the
  group's export and audit log as they were.
* **The append lock**: a live turn appended while a forget is being planned makes the forget
  plan again; one appended while the forget writes waits for it, then follows the new tail:
  one NEXT chain either way.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from cogmem import forget as forgetting
from cogmem.api import Memory
from cogmem.config import Settings
from cogmem.service.core import Limits, Service
from cogmem.service.http_api import create_app
from cogmem.service.mcp_server import build_server
from cogmem.service.tokens import Grant, TokenStore
from cogmem.store import Store, TxStatements
from cogmem.transfer.file import write_export
from tests.live_server import serve

pytestmark = pytest.mark.integration

CHAT = Path(__file__).resolve().parent.parent / "data" / "forget" / "ines_tariq.jsonl"
LINES = {r["id"]: r for r in map(json.loads, CHAT.read_text().splitlines()) if r}
CONV = "ines-and-tariq"
# f04 and f07 are the only turns that say these words
FORGOTTEN = {"f04": ["Pixel", "kitten", "shelter"], "f07": ["passport", "Lisbon"]}
LOCAL = "http://127.0.0.1"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def dump(store: Store, group: str) -> str:
    """Every node of the group (any label) and every :CogmemMeta node, all properties, and
    every relationship touching the group, as one text."""
    (row,) = store.read("inspect/group_dump", group=group)
    return json.dumps(row, default=str, sort_keys=True)


def snapshot(mem: Memory) -> tuple[str, list[Any]]:
    data = mem.export(embeddings=False)
    nodes = sorted(
        json.dumps([n.id, n.labels, n.properties], default=str, sort_keys=True) for n in data.nodes
    )
    rels = sorted(
        json.dumps([r.src, r.type, r.dst, r.properties], default=str, sort_keys=True)
        for r in data.relationships
    )
    return json.dumps([nodes, rels]), mem.inspect.forget_log()


def upload(base: str, group: str, token: str) -> None:
    with CHAT.open("rb") as fh:
        r = httpx.post(
            f"{base}/v1/groups/{group}/ingest",
            files={"file": ("chat.jsonl", fh, "application/x-ndjson")},
            headers=bearer(token),
            timeout=120,
        )
    assert r.status_code == 201, r.text
    assert r.json()["turns"] == len(LINES)


@pytest.fixture(scope="module")
def served(
    neo4j_settings: Settings, store: Store, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """``cogmem serve --allow-forget`` with tokens: groups a (the grep) and r (refusals),
    each with the chat uploaded; a write token, a read-only one and another group's."""
    a, r, other = (f"test-fdoor-{k}-{uuid.uuid4().hex[:8]}" for k in ("a", "r", "o"))
    tokens = TokenStore(store)
    made = {
        "a": tokens.create(a, name="forget-doors"),
        "r": tokens.create(r, name="forget-doors"),
        "r_ro": tokens.create(r, read_only=True, name="forget-doors-ro"),
        "other": tokens.create(other, name="forget-doors-other"),
    }
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    mem = Memory(neo4j_settings.model_copy(update={"llm": "none"}))
    try:
        with serve(neo4j_settings, log, "--allow-forget", COGMEM_LLM="none") as live:
            upload(live.base, a, made["a"].secret)
            upload(live.base, r, made["r"].secret)
            yield {
                "base": live.base,
                "live": live,
                "a": mem.for_group(a),
                "r": mem.for_group(r),
                "tokens": {k: v.secret for k, v in made.items()},
                "grants": {k: v.grant for k, v in made.items()},
                "store": store,
                "tmp": log.parent,
            }
    finally:
        for t in made.values():
            tokens.revoke(t.grant.token_id or "")
        for g in (a, r, other):
            mem.for_group(g).forget()
        mem.close()


def test_forgotten_text_survives_nowhere(
    served: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    mem: Memory = served["a"]
    base, group, store, token = served["base"], mem.group, served["store"], served["tokens"]["a"]
    mem.consolidate()  # facts, claims: more that rests on the turns
    texts = [LINES[t]["text"] for t in FORGOTTEN] + [w for ws in FORGOTTEN.values() for w in ws]
    before = dump(store, group).lower()
    assert all(t.lower() in before for t in texts), "the grep would find nothing anyway"
    vectors = {
        t["id"]: t["embedding"]
        for t in json.loads(dump(store, group))["nodes"]
        if "Turn" in t["labels"] and t.get("source_id") in FORGOTTEN
    }
    assert len(vectors) == 2

    one = httpx.delete(
        f"{base}/v1/groups/{group}/turns/f04",
        params={"conversation": CONV},
        headers=bearer(token),
        timeout=120,
    )
    assert one.status_code == 200, one.text
    assert [t["source_id"] for t in one.json()["turns"]] == ["f04"]
    assert one.json()["audit_id"] and sum(one.json()["records"].values()) >= 1
    at = LINES["f07"]["timestamp"]
    span = httpx.post(
        f"{base}/v1/groups/{group}/forget",
        json={"from": at, "to": at, "speaker": "ines"},
        headers=bearer(token),
        timeout=120,
    )
    assert span.status_code == 200, span.text
    assert [t["source_id"] for t in span.json()["turns"]] == ["f07"]

    # the graph: every node of the group and every :CogmemMeta node, every relationship
    after = dump(store, group)
    for text in texts:
        assert text.lower() not in after.lower(), text
    # no vector of a forgotten turn
    for node in json.loads(after)["nodes"]:
        emb = node.get("embedding")
        for vec in vectors.values():
            assert not (
                emb
                and len(emb) == len(vec)
                and all(math.isclose(x, y, abs_tol=1e-6) for x, y in zip(emb, vec, strict=True))
            ), node.get("id")
    # the export file
    path = write_export(mem.export(embeddings=True), served["tmp"] / "export.json")
    exported = path.read_text(encoding="utf-8").lower()
    assert "ines" in exported and "blockhaus" in exported  # what stays is there
    for text in texts:
        assert text.lower() not in exported, text
    # every line the server logged (upload, forgets), and every record of this process
    logged = served["live"].text().lower().splitlines() + [
        r.getMessage().lower() for r in caplog.records
    ]
    for text in texts:
        assert not [line for line in logged if text.lower() in line], text
    # the audit entries: counts and the token (its id and name), never its secret
    audit = mem.inspect.forget_log()
    assert [(e["kind"], e["turns"]) for e in audit] == [("turns", 1), ("span", 1)]
    grant = served["grants"]["a"]
    for e in audit:
        assert e["records"] >= 1
        assert e["actor"] == f"token {grant.token_id} (forget-doors)"
    assert token not in after and token[4:] not in after
    assert token not in served["live"].text()
    assert {f.kind for f in mem.export(embeddings=False).forgets} == {"turns", "span"}


def test_http_refusals_change_nothing(served: dict[str, Any]) -> None:
    mem: Memory = served["r"]
    base, group, t = served["base"], mem.group, served["tokens"]
    before = snapshot(mem)
    turn = f"{base}/v1/groups/{group}/turns/f04"
    conv = f"{base}/v1/groups/{group}/conversations/{CONV}"
    body = {"turns": ["f04"], "conversation": CONV}

    def call(method: str, url: str, token: str, **kw: Any) -> httpx.Response:
        return httpx.request(method, url, headers=bearer(token), timeout=120, **kw)

    refusals: list[tuple[httpx.Response, int, str]] = [
        # a read-only token: never, on any route
        (call("DELETE", turn, t["r_ro"], params={"conversation": CONV}), 403, "read-only"),
        (call("DELETE", conv, t["r_ro"]), 403, "read-only"),
        (call("POST", f"{base}/v1/groups/{group}/forget", t["r_ro"], json=body), 403, "read-only"),
        (
            call("DELETE", turn, t["r_ro"], params={"conversation": CONV, "dry_run": "true"}),
            403,
            "read-only",
        ),
        # another group's token
        (call("DELETE", turn, t["other"], params={"conversation": CONV}), 403, "may not use"),
        (call("DELETE", conv, t["other"]), 403, "may not use"),
        (
            call("POST", f"{base}/v1/groups/{group}/forget", t["other"], json=body),
            403,
            "may not use",
        ),
        # what does not exist: 404, one line, nothing forgotten
        (
            call(
                "DELETE",
                f"{base}/v1/groups/{group}/turns/f99",
                t["r"],
                params={"conversation": CONV},
            ),
            404,
            "no turn 'f99' in conversation",
        ),
        (call("DELETE", f"{base}/v1/groups/{group}/turns/nope", t["r"]), 404, "no turn 'nope'"),
        (
            call(
                "POST",
                f"{base}/v1/groups/{group}/forget",
                t["r"],
                json={"turns": ["f01", "f99"], "conversation": CONV},
            ),
            404,
            "no turn 'f99'",
        ),
        (
            call("DELETE", f"{base}/v1/groups/{group}/conversations/not-a-chat", t["r"]),
            404,
            "no conversation 'not-a-chat'",
        ),
        (
            call(
                "POST",
                f"{base}/v1/groups/{group}/forget",
                t["r"],
                json={"from": "2020-01-01", "to": "2020-01-02"},
            ),
            404,
            "no turn said between",
        ),
        # times: 422 naming the field
        (
            call(
                "POST",
                f"{base}/v1/groups/{group}/forget",
                t["r"],
                json={"from": "soon", "to": "2024-03-02"},
            ),
            422,
            "from: not an ISO date or time",
        ),
        (
            call(
                "POST",
                f"{base}/v1/groups/{group}/forget",
                t["r"],
                json={"from": "2024-03-01", "to": 1709251200},
            ),
            422,
            "to: a number is not a time",
        ),
        (
            call(
                "POST",
                f"{base}/v1/groups/{group}/forget",
                t["r"],
                json={"from": "2024-03-10", "to": "2024-03-01"},
            ),
            422,
            "to: the span ends before it starts",
        ),
        (
            call(
                "POST",
                f"{base}/v1/groups/{group}/forget",
                t["r"],
                json={"from": "9999-12-31", "to": "9999-12-31"},
            ),
            422,
            "from:",
        ),
        (
            call("POST", f"{base}/v1/groups/{group}/forget", t["r"], json={}),
            422,
            "name what to forget",
        ),
    ]
    for response, status, words in refusals:
        detail = response.json()["detail"]
        assert response.status_code == status, (status, words, response.text)
        assert words in detail and "\n" not in detail, (words, detail)
        assert "Traceback" not in detail
    # a dry run says what would go and changes nothing either
    dry = call("DELETE", turn, t["r"], params={"conversation": CONV, "dry_run": "true"})
    assert dry.status_code == 200 and dry.json()["dry_run"] is True, dry.text
    assert [x["source_id"] for x in dry.json()["turns"]] == ["f04"]
    assert dry.json()["audit_id"] is None
    assert snapshot(mem) == before  # the graph and the audit log as they were
    assert before[1] == []
    # … and then the write token forgets a whole conversation: the group is empty of it
    gone = call("DELETE", conv, t["r"])
    assert gone.status_code == 200, gone.text
    assert len(gone.json()["turns"]) == len(LINES) and gone.json()["conversations_removed"] == 1
    assert mem.inspect.turns() == []
    again = call("DELETE", conv, t["r"])
    assert again.status_code == 404 and "no conversation" in again.json()["detail"]
    assert [e["kind"] for e in mem.inspect.forget_log()] == ["conversation"]


def test_forgetting_is_off_unless_the_server_allows_it(
    neo4j_settings: Settings, store: Store, group: str
) -> None:
    tokens = TokenStore(store)
    made = tokens.create(group, name="forget-off")
    mem = Memory(neo4j_settings.model_copy(update={"llm": "none"}))
    try:
        g = mem.for_group(group)
        g.ingest(CHAT)
        before = snapshot(g)
        service = Service(mem, Limits(timeout_s=60), allow_forget=False)
        with TestClient(create_app(service), base_url=LOCAL) as client:
            h = bearer(made.secret)
            answers = [
                client.delete(f"/v1/groups/{group}/turns/f04?conversation={CONV}", headers=h),
                client.delete(f"/v1/groups/{group}/conversations/{CONV}", headers=h),
                client.post(f"/v1/groups/{group}/forget", json={"conversation": CONV}, headers=h),
            ]
        for r in answers:
            assert r.status_code == 403, r.text
            assert "--allow-forget" in r.json()["detail"]
        tools = _mcp(service, Grant(group=group), [])["tools"]
        assert "forget" not in tools and "forget_group" not in tools
        assert snapshot(g) == before
    finally:
        tokens.revoke(made.grant.token_id or "")
        mem.close()


def _mcp(service: Service, grant: Grant, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    out: dict[str, Any] = {}

    async def go() -> None:
        async with Client(build_server(service, grant)) as client:
            out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
            out["results"] = [await client.call_tool(n, a) for n, a in calls]

    anyio.run(go)
    return out


def test_mcp_forget_tool(neo4j_settings: Settings, group: str) -> None:
    mem = Memory(neo4j_settings.model_copy(update={"llm": "none"}))
    try:
        g = mem.for_group(group)
        g.ingest(CHAT)
        service = Service(mem, Limits(timeout_s=60), allow_forget=True)
        # a read-only grant is never offered it
        ro = _mcp(service, Grant(group=group, read_only=True), [])["tools"]
        assert "forget" not in ro
        before = snapshot(g)
        grant = Grant(group=group, token_id="abc123def456", name="mcp-test")
        out = _mcp(
            service,
            grant,
            [
                ("forget", {"turns": ["f99"], "conversation": CONV}),
                ("forget", {"start": "2024-03-10", "end": "2024-03-01"}),
                ("forget", {"start": "yesterday-ish", "end": "2024-03-01"}),
                ("forget", {}),
                ("forget", {"turns": ["f04"], "conversation": CONV, "dry_run": True}),
            ],
        )
        tool = out["tools"]["forget"]
        assert tool.annotations.destructive_hint is True
        assert tool.annotations.read_only_hint is False
        errors = [r.content[0].text for r in out["results"][:4]]
        assert all(r.is_error for r in out["results"][:4])
        assert "no turn 'f99'" in errors[0]
        assert "to: the span ends before it starts" in errors[1]
        assert "from: not an ISO date or time" in errors[2]
        assert "name what to forget" in errors[3]
        assert all("forget: " in e and "\n" not in e for e in errors), errors
        dry = out["results"][4]
        assert not dry.is_error and dry.structured_content["dry_run"] is True
        assert snapshot(g) == before  # refusals and the dry run changed nothing
        done = _mcp(service, grant, [("forget", {"turns": ["f04"], "conversation": CONV})])
        result = done["results"][0]
        assert not result.is_error, result.content
        assert [t["source_id"] for t in result.structured_content["turns"]] == ["f04"]
        assert "f04" not in {t["source_id"] for t in g.inspect.turns()}
        (entry,) = g.inspect.forget_log()
        assert entry["actor"] == "token abc123def456 (mcp-test)" and entry["turns"] == 1
    finally:
        mem.close()


# -- the live append lock ------------------------------------------------------------------
def _chain(mem: Memory, conversation: str) -> list[str]:
    """The conversation's turns (source ids) along NEXT from its first; asserts there is one
    chain that holds every turn."""
    data = mem.export(embeddings=False)
    turns = {
        n.id: n.properties
        for n in data.nodes
        if "Turn" in n.labels and n.properties.get("conversation_id")
    }
    turns = {k: v for k, v in turns.items() if str(v["source_id"]).startswith(f"{conversation}:")}
    nxt = {r.src: r.dst for r in data.relationships if r.type == "NEXT" and r.src in turns}
    assert len(nxt) == len(turns) - 1, "more or fewer NEXT links than one chain has"
    (first,) = set(turns) - set(nxt.values())
    order = [first]
    while order[-1] in nxt:
        order.append(nxt[order[-1]])
    assert len(order) == len(turns)
    idx = [turns[t]["idx"] for t in order]
    assert idx == sorted(idx) and len(set(idx)) == len(idx)
    return [str(turns[t]["source_id"]) for t in order]


def _live(mem: Memory, conversation: str, n: int) -> None:
    for i in range(n):
        mem.add_turn(
            "Ines" if i % 2 == 0 else "Tariq",
            f"Live line {i} about the garden.",
            conversation=conversation,
            source_id=f"{conversation}:{i}",
        )


def test_forgetting_the_tail_then_appending_keeps_one_chain(
    neo4j_settings: Settings, group: str
) -> None:
    mem = Memory(neo4j_settings.model_copy(update={"group": group, "llm": "none"}))
    try:
        _live(mem, "live", 3)
        mem.forget_turns(["live:2"], "live")
        mem.add_turn("Ines", "After the forget.", conversation="live", source_id="live:3")
        assert _chain(mem, "live") == ["live:0", "live:1", "live:3"]
    finally:
        mem.close()


def test_an_append_during_the_plan_makes_the_forget_plan_again(
    neo4j_settings: Settings, group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memory(neo4j_settings.model_copy(update={"group": group, "llm": "none"}))
    try:
        _live(mem, "live", 3)
        plans: list[int] = []
        planned = forgetting.plan

        def plan_then_append(store: Any, group_id: str, turns: Any) -> Any:
            work = planned(store, group_id, turns)
            plans.append(len(plans))
            if len(plans) == 1:  # lands after the plan, before the forget's write
                mem.add_turn("Tariq", "Sneaked in.", conversation="live", source_id="live:3")
            return work

        monkeypatch.setattr(forgetting, "plan", plan_then_append)
        summary = mem.forget_turns(["live:2"], "live")
        assert len(plans) == 2, "the forget did not plan again"
        assert summary.next_links == 1  # live:1 -> live:3 bridges the gap
        assert _chain(mem, "live") == ["live:0", "live:1", "live:3"]
    finally:
        mem.close()


def test_an_append_waits_for_a_forget_that_holds_the_lock(
    neo4j_settings: Settings, group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memory(neo4j_settings.model_copy(update={"group": group, "llm": "none"}))
    try:
        _live(mem, "live", 3)
        states = forgetting._states
        seen: dict[str, Any] = {}

        def append(text: str) -> None:
            try:
                mem.add_turn("Ines", text, conversation="live", source_id="live:3")
                seen["appended"] = True
            except Exception as exc:  # reported below
                seen["error"] = exc

        def states_then_append(store: Any, group_id: str, conversations: Any) -> Any:
            rows = states(store, group_id, conversations)
            if isinstance(store, TxStatements) and "thread" not in seen:
                # inside the forget's transaction, its locks held: an append must wait
                seen["thread"] = threading.Thread(target=append, args=("Waited.",))
                seen["thread"].start()
                seen["thread"].join(3.0)
                seen["blocked"] = seen["thread"].is_alive()
            return rows

        monkeypatch.setattr(forgetting, "_states", states_then_append)
        mem.forget_turns(["live:2"], "live")
        seen["thread"].join(120)
        assert seen["blocked"], "the append did not wait for the forget's lock"
        assert "error" not in seen and seen.get("appended"), seen.get("error")
        assert _chain(mem, "live") == ["live:0", "live:1", "live:3"]
    finally:
        mem.close()
