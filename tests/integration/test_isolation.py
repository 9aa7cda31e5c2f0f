"""Isolation and deletion: a group never sees another's nodes; forget removes exactly one
group; export / import round-trips a group into another without collisions."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cogmem.api import Memory, QuestionError
from cogmem.cli import app
from cogmem.config import Settings
from cogmem.consolidate import consolidate
from cogmem.ingest.ids import group_key
from cogmem.retrieval.operators import Operators
from cogmem.store import Store
from cogmem.transfer import export_group, import_group
from tests.internals import store_of, transfer_view

pytestmark = pytest.mark.integration

SYNTAX = [
    '*:* AND OR NOT ~ ^ " \\ / { } [ ]',
    "') MATCH (n) DETACH DELETE n //",
    "group_key:* OR group_id:*",
    'Alice OR Bob~2 AND "hiking"^10',
    "$group",
    "",
]
# Both groups: the same speakers, the same words. Group B's turns alone say "zephyr".
DAYS = ["2023-06-03", "2023-06-10", "2023-06-17", "2023-06-24"]
TEXTS = [
    ("Alice", "I went hiking in the Alps yesterday with my dog."),
    ("Bob", "Nice! I played chess with Carol last night."),
    ("Alice", "I think Bob is a wonderful chess player."),
    ("Bob", "We decided to move the book club to Thursdays."),
]
B_MARK = "zephyr"


def chat(path: Path, marker: str = "") -> Path:
    lines = []
    for n, day in enumerate(DAYS, 1):
        for minute, (speaker, text) in enumerate(TEXTS):
            lines.append(
                {
                    "conversation": "c1",
                    "session": str(n),
                    "speaker": speaker,
                    "text": f"{text} {marker}".strip(),
                    "timestamp": f"{day}T10:{minute:02d}:00Z",
                }
            )
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    return path


def forget_all(store: Store, *groups: str) -> None:
    for g in groups:
        while store.write("admin/forget_group", group=g, batch=5000)[0]["deleted"]:
            pass


def group_ids(store: Store, group: str) -> set[str]:
    """The ids of every node of ``group`` (and the group_id of every node with that id)."""
    data = export_group(
        transfer_view(Memory(store.settings.model_copy(update={"group": group}), store=store))
    )
    return {n.id for n in data.nodes}


@pytest.fixture(scope="module")
def two_groups(
    neo4j_settings: Settings, store: Store, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    tag = uuid.uuid4().hex[:8]
    a, b = f"test-iso-a-{tag}", f"test-iso-b-{tag}"
    tmp = tmp_path_factory.mktemp("iso")
    mem_a = Memory(neo4j_settings.model_copy(update={"group": a}), store=store)
    mem_b = mem_a.for_group(b)
    mem_a.ingest(chat(tmp / "a.jsonl"))
    mem_b.ingest(chat(tmp / "b.jsonl", B_MARK))
    for mem in (mem_a, mem_b):
        consolidate(store, mem.group, mem.embedder)
    try:
        yield {
            "a": mem_a,
            "b": mem_b,
            "a_ids": group_ids(store, a),
            "b_ids": group_ids(store, b),
            "a_persons": [p["id"] for p in store.read("operators/entities", group=a)],
            "b_persons": [p["id"] for p in store.read("operators/entities", group=b)],
        }
    finally:
        forget_all(store, a, b)


def test_the_two_groups_look_alike(two_groups: dict[str, Any]) -> None:
    a, b = two_groups["a"], two_groups["b"]
    assert a.inspect.counts()["labels"] == b.inspect.counts()["labels"]
    assert a.inspect.counts()["labels"]["Fact"] >= 1  # consolidated facts too
    names = {p["name"] for p in store_of(a).read("operators/entities", group=b.group)}
    assert names == {p["name"] for p in store_of(a).read("operators/entities", group=a.group)}
    assert not two_groups["a_ids"] & two_groups["b_ids"]


questions = st.one_of(
    st.sampled_from(SYNTAX),
    st.text(max_size=60),
    st.builds(
        lambda who, what, noise: f"{who} {what} {noise}",
        st.sampled_from(["What did Alice", "Who does Bob think", "When did", "Do Alice and Bob"]),
        st.sampled_from(["go hiking", "play chess", "decide", "both like", B_MARK]),
        st.sampled_from(SYNTAX),
    ),
)


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(question=questions)
def test_nothing_of_group_b_ever_reaches_group_a(two_groups: dict[str, Any], question: str) -> None:
    mem: Memory = two_groups["a"]
    a_ids: set[str] = two_groups["a_ids"]
    b_ids: set[str] = two_groups["b_ids"]
    vec = mem.embedder.embed_query(question)
    # both paths: the process's copy of the group, and Neo4j's indexes alone
    for mode in ("eager", "off"):
        ops = Operators(store_of(mem).with_settings(search_cache=mode), mem.group)
        anchor = ops.anchor(question, vec)
        for cand in [*anchor.entries, *anchor.records, *anchor.turns]:
            assert cand.id in a_ids and (cand.turn_id is None or cand.turn_id in a_ids)
        # Start points from both groups: only group A's may lead anywhere.
        starts = two_groups["a_persons"] + two_groups["b_persons"] + sorted(b_ids)[:30]
        for cand in ops.traverse(starts, vec, depth=2):
            assert cand.id in a_ids
        for shared in ops.intersect(starts[:8], vec):
            assert shared.id in a_ids
            assert all(k in a_ids and set(v) <= a_ids for k, v in shared.links.items())
        for turn in ops.ground(sorted(a_ids | b_ids), window=1, vector=vec):
            assert {turn.id, turn.turn_id, turn.record_id} <= a_ids
            assert {r.id for r in turn.records} <= a_ids

    if not question.strip():  # nothing to ask: refused whole, before any read
        with pytest.raises(QuestionError):
            mem.search(question, k=10)
        return
    cold = Memory(mem.settings, store=store_of(mem).with_settings(search_cache="off"))
    evidence = mem.search(question, k=10) + cold.search(question, k=10)
    block = mem.context_block(question, budget_tokens=4000)
    answer = mem.ask(question)
    for ev in [*evidence, *block.included, *answer.evidence]:
        assert ev.record_id in a_ids and ev.turn_id in a_ids
        assert B_MARK not in (ev.turn_text or "") + ev.content
    assert B_MARK not in block.text and B_MARK not in answer.text


# -- forget ----------------------------------------------------------------------------


@pytest.fixture
def cli(neo4j_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NEO4J_URI", neo4j_settings.neo4j_uri)
    if neo4j_settings.neo4j_password:
        monkeypatch.setenv("NEO4J_PASSWORD", neo4j_settings.neo4j_password)
    for name in ("COGMEM_GROUP", "COGMEM_LLM"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()

    def run(*args: str, input: str | None = None) -> Any:
        return runner.invoke(app, list(args), input=input)

    return run


@pytest.fixture
def pair(neo4j_settings: Settings, store: Store, tmp_path: Path) -> Iterator[tuple[Memory, Memory]]:
    tag = uuid.uuid4().hex[:8]
    mem = Memory(neo4j_settings.model_copy(update={"group": f"test-fg-{tag}"}), store=store)
    other = mem.for_group(f"test-keep-{tag}")
    mem.ingest(chat(tmp_path / "a.jsonl"))
    other.ingest(chat(tmp_path / "b.jsonl", B_MARK))
    consolidate(store, mem.group, mem.embedder)
    try:
        yield mem, other
    finally:
        forget_all(store, mem.group, other.group)


def _anything_left(store: Store, group: str) -> dict[str, int]:
    return store.read("admin/count_group_any_label", group=group)[0]


def test_cli_forget_asks_then_removes_one_group_and_nothing_else(
    pair: tuple[Memory, Memory], store: Store, cli: Any
) -> None:
    mem, other = pair
    before = mem.inspect.counts()
    assert before["labels"]["Fact"] and before["relationships"]["SUPPORTED_BY"]  # consolidated
    kept = other.inspect.counts()
    total = store.read("admin/count_database")[0]

    refused = cli("forget", "--group", mem.group, input="n\n")
    assert refused.exit_code == 1
    assert mem.inspect.counts() == before

    done = cli("forget", "--group", mem.group, input="y\n")
    assert done.exit_code == 0, done.output
    assert f"{before['nodes']} nodes" in done.stdout
    assert mem.inspect.counts()["nodes"] == 0
    assert _anything_left(store, mem.group) == {"nodes": 0, "relationships": 0}
    assert other.inspect.counts() == kept
    after = store.read("admin/count_database")[0]
    assert after["nodes"] == total["nodes"] - before["nodes"]
    assert after["relationships"] == total["relationships"] - sum(before["relationships"].values())
    again = cli("forget", "--group", mem.group, "--yes")
    assert again.exit_code == 0 and "nothing to forget" in again.stdout


def test_memory_forget_returns_the_count_and_spares_other_groups(
    pair: tuple[Memory, Memory], store: Store
) -> None:
    mem, other = pair
    nodes = mem.inspect.counts()["nodes"]
    kept = other.inspect.counts()
    assert mem.forget(batch=7) == nodes  # several batches
    assert _anything_left(store, mem.group) == {"nodes": 0, "relationships": 0}
    assert other.inspect.counts() == kept


# -- export / import -------------------------------------------------------------------


def _turns(store: Store, group: str) -> list[tuple[Any, ...]]:
    rows = store.read("inspect/turns", group=group)
    return sorted((t["source_id"], t["speaker"], t["text"], t["at"], t["idx"]) for t in rows)


def _vectors(mem: Memory) -> dict[tuple[Any, ...], np.ndarray]:
    out = {}
    for n in export_group(transfer_view(mem)).nodes:
        if n.embedding is not None:
            p = n.properties
            key = (n.labels[0], p.get("type"), p.get("source_id"), p.get("content"), p.get("quote"))
            out[key] = np.array(n.embedding)
    return out


def test_export_import_round_trip_into_a_new_group(
    pair: tuple[Memory, Memory], store: Store, cli: Any, tmp_path: Path
) -> None:
    mem, _ = pair
    source = mem.inspect.counts()
    out = tmp_path / "export.json"
    exported = cli("export", "--group", mem.group, "--out", str(out))
    assert exported.exit_code == 0, exported.output
    assert (out.stat().st_mode & 0o777) == 0o600
    doc = json.loads(out.read_text())
    assert doc["format"] == "cogmem-export" and doc["version"] == 1
    assert doc["embedder"]["dimension"] == 384
    turn = next(n for n in doc["nodes"] if "Turn" in n["labels"])
    assert turn["temporal"]["at"] == "datetime" and turn["properties"]["at"].startswith("2023-06")

    new = mem.for_group(mem.group + "-copy")
    try:
        imported = cli("import", str(out), "--group", new.group, "--json")
        assert imported.exit_code == 0, imported.output
        copy = new.inspect.counts()
        assert copy == source
        assert _turns(store, new.group) == _turns(store, mem.group)
        new_ids = group_ids(store, new.group)
        assert len(new_ids) == source["nodes"] and not new_ids & group_ids(store, mem.group)
        assert _anything_left(store, new.group)["nodes"] == source["nodes"]
        keys = store.read("inspect/records_with_turns", group=new.group)
        assert keys and all(r["turn_texts"] for r in keys)
        hits = new.search("What did Alice do in the Alps?", k=3)
        assert hits and "hiking" in (hits[0].turn_text or "")
        assert {h.turn_id for h in hits} <= new_ids
        assert json.loads(imported.stdout)["derived_ids"] > 0

        # idempotent: again changes nothing; the source group was never touched
        assert cli("import", str(out), "--group", new.group).exit_code == 0
        assert new.inspect.counts() == copy and mem.inspect.counts() == source
        # ids are those an ingest into the new group makes: ingesting the source again
        # lands on the imported nodes
        new.ingest(chat(tmp_path / "again.jsonl"))
        assert new.inspect.counts() == copy
    finally:
        forget_all(store, new.group)


def test_export_without_vectors_recomputes_them_on_import(
    pair: tuple[Memory, Memory], store: Store, cli: Any, tmp_path: Path
) -> None:
    mem, _ = pair
    out = tmp_path / "bare.json"
    assert cli("export", "-g", mem.group, "--no-embeddings", "-o", str(out)).exit_code == 0
    doc = json.loads(out.read_text())
    assert doc["embeddings"] is False and all(n["embedding"] is None for n in doc["nodes"])
    new = mem.for_group(mem.group + "-bare")
    try:
        result = cli("import", str(out), "-g", new.group, "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["vectors"] == "recomputed"
        assert new.inspect.counts() == mem.inspect.counts()
        original, recomputed = _vectors(mem), _vectors(new)
        assert original.keys() == recomputed.keys() and len(original) > 20
        for key, vec in original.items():
            assert np.allclose(vec, recomputed[key], atol=1e-5), key
    finally:
        forget_all(store, new.group)


def test_import_refuses_vectors_of_another_dimension_before_writing(
    pair: tuple[Memory, Memory], store: Store, cli: Any, tmp_path: Path
) -> None:
    mem, _ = pair
    doc = export_group(transfer_view(mem)).model_dump(mode="json")
    doc["embedder"] = {"name": "bge-m3", "dimension": 1024}
    for node in doc["nodes"]:
        if node["embedding"] is not None:
            node["embedding"] = node["embedding"] * 2 + node["embedding"][:256]
    path = tmp_path / "bge.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    new = mem.for_group(mem.group + "-bge")
    try:
        refused = cli("import", str(path), "-g", new.group)
        assert refused.exit_code == 1
        message = " ".join(refused.stderr.split())
        assert str(path) in message and "1024" in message and "384" in message
        assert "--reembed" in message and "Traceback" not in refused.output
        assert _anything_left(store, new.group)["nodes"] == 0
        accepted = cli("import", str(path), "-g", new.group, "--reembed")
        assert accepted.exit_code == 0, accepted.output
        assert new.inspect.counts() == mem.inspect.counts()
    finally:
        forget_all(store, new.group)


def test_import_never_writes_over_another_groups_nodes(
    pair: tuple[Memory, Memory], store: Store, cli: Any, tmp_path: Path
) -> None:
    """A forged file: group A's name, but the ids of group B's nodes."""
    mem, other = pair
    victim = export_group(transfer_view(other)).model_dump(mode="json")
    forged = dict(victim, group=mem.group)
    for node in forged["nodes"]:
        node["properties"]["group_id"] = mem.group
        node["properties"]["group_key"] = group_key(mem.group)
        if "text" in node["properties"]:
            node["properties"]["text"] = "overwritten"
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    kept, mine = other.inspect.counts(), mem.inspect.counts()
    result = cli("import", str(path))  # into the file's group, ids kept as they are
    assert result.exit_code == 1
    assert "belong to another group" in result.stderr
    assert other.inspect.counts() == kept and mem.inspect.counts() == mine
    assert all(t[2] != "overwritten" for t in _turns(store, other.group))


def test_interrupted_import_is_completed_by_a_rerun(
    pair: tuple[Memory, Memory], store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, _ = pair
    data = export_group(transfer_view(mem))
    new = mem.for_group(mem.group + "-resumed")
    original = store.write
    calls = {"n": 0}

    def crash_on_the_fourth_batch(name: str, /, **params: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 4:
            raise RuntimeError("simulated crash")
        return original(name, **params)

    try:
        monkeypatch.setattr(store, "write", crash_on_the_fourth_batch)
        with pytest.raises(RuntimeError, match="simulated crash"):
            import_group(transfer_view(new), data, batch=5)
        monkeypatch.setattr(store, "write", original)
        partial = new.inspect.counts()
        assert 0 < partial["nodes"] < len(data.nodes)
        conversations = store.read("inspect/conversations", group=new.group)
        assert [c["complete"] for c in conversations] == [False]  # the interruption shows
        import_group(transfer_view(new), data, batch=5)
        assert new.inspect.counts() == mem.inspect.counts()
        conversations = store.read("inspect/conversations", group=new.group)
        assert [c["complete"] for c in conversations] == [True]
    finally:
        forget_all(store, new.group)
