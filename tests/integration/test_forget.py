"""Forgetting precisely (issue 50), against the real Neo4j and the offline embedder.

* **The property** (hypothesis): for a chat of our own (``tests/data/forget/ines_tariq.jsonl``)
  and a LoCoMo-format slice this test builds itself, a random set of turns or a random span
  forgotten after ingest and consolidation leaves the group equal to one into which the chat
  without those turns was ingested and consolidated: the same node ids, labels, properties
  and vectors, the same relationships with their properties, the same claim statuses; and
  search returns the same top 10. Compared apart: the times a write stamps (``created_at``)
  and the search cache's sequence numbers (``vseq``); turn positions (``idx``, a session's
  index) are compared by their order, since a forget keeps their values (cogmem.forget).
* **Nothing survives**: the export (every node and relationship of the group, and the
  audit entries) and every log line of the forget hold none of the forgotten texts; the
  audit entry is there, with counts and the actor.
* **The same top 10**, for every example and question, compared two ways:

  - from the process's copy of the group (``search_cache = eager``, how a process searches
    a group it has read): the *identical* list, in order, each hit the same turn, record
    type, content and status. The copy ranks by its own BM25 over the group's texts, so
    nothing but the group's contents enters the ranking, and a forget leaves the same
    contents; this holds because search finds a turn's neighbours (the share of the turn
    before and after, Ground's window) by order along the NEXT chain (``prev_idx``), not at
    idx ± 1, which a forget leaves as a gap (before that, 34 of 43 lists differed).
  - through Neo4j alone (``search_cache = off``): the same record statuses, and the same
    turns up to swaps of neighbours (a turn moves one place at most; one in a single list
    is its last). Not identical: the lexical half is Lucene's BM25, whose statistics count
    a forgotten turn's deleted document until its segment merges (a fully deleted segment
    goes at once), so the scores move: "Where does Ines go bouldering?" after forgetting
    f12 scores f03 1.341 and f01 0.828, against 1.282 and 0.767 in a group that never held
    f12 (a ratio of 0.617 against 0.598), and near ties break the other way (6 examples of
    each test: 4 lists of 86 had one pair swapped, e.g. f05 and f11).
* **Refusals**: a turn or conversation that does not exist, an empty span: one line,
  nothing changed. The CLI's forms, dry runs and refusals.
"""

from __future__ import annotations

import json
import logging
import math
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cogmem.api import ForgetError, Memory
from cogmem.cli import app
from cogmem.config import Settings
from cogmem.store import Store

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parent.parent / "data" / "forget"
CHAT = DATA / "ines_tariq.jsonl"
LINES = [json.loads(line) for line in CHAT.read_text().splitlines() if line.strip()]
QUESTIONS = [
    "What does Tariq think of Bruno?",
    "Where does Ines go bouldering?",
    "Did Ines run the Porto half marathon?",
    "What is Tariq learning?",
    "What did Ines plan for June?",
]
UNSTAMPED = {"created_at", "vseq"}

LOCOMO_SESSIONS = [
    (
        "1:14 pm on 25 May, 2023",
        [
            ("Nadia", "Hey Leon! I went kayaking on Lake Bled with my cousin Aylin last weekend."),
            ("Leon", "Nadia, my neighbour Gustav is rude, he yelled at the mail carrier."),
            ("Nadia", "I'm going to visit the Hallstatt salt mine in July."),
        ],
    ),
    (
        "10:37 am on 2 June, 2023",
        [
            ("Leon", "I bought a used road bike from a shop in Graz."),
            ("Nadia", "Leon, I went kayaking on Lake Bled again on Tuesday, it was calm."),
            ("Leon", "Gustav is kind actually, he watered my tomato plants."),
        ],
    ),
    (
        "8:05 pm on 9 June, 2023",
        [
            ("Nadia", "I visited the Hallstatt salt mine with Aylin on Saturday."),
            ("Leon", "Nadia, I went kayaking on Lake Bled too, on Thursday morning."),
            ("Nadia", "I went kayaking on Lake Bled once more on Sunday."),
        ],
    ),
]


def locomo_doc(skip: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    """A LoCoMo sample (speakers, sessions with dates, dia_ids D<s>:<n>) without ``skip``."""
    conv: dict[str, Any] = {"speaker_a": "Nadia", "speaker_b": "Leon"}
    for s, (when, turns) in enumerate(LOCOMO_SESSIONS, start=1):
        conv[f"session_{s}_date_time"] = when
        conv[f"session_{s}"] = [
            {"speaker": who, "dia_id": f"D{s}:{n}", "text": text}
            for n, (who, text) in enumerate(turns, start=1)
            if f"D{s}:{n}" not in skip
        ]
    return {"sample_id": "forget-slice", "conversation": conv}


LOCOMO_IDS = [
    f"D{s}:{n}" for s, (_, turns) in enumerate(LOCOMO_SESSIONS, 1) for n in range(1, len(turns) + 1)
]
LOCOMO_TEXTS = {
    f"D{s}:{n}": text
    for s, (_, turns) in enumerate(LOCOMO_SESSIONS, 1)
    for n, (_, text) in enumerate(turns, 1)
}
LOCOMO_QUESTIONS = [
    "Where did Nadia go kayaking?",
    "What does Leon think of Gustav?",
    "Did Nadia visit the salt mine?",
]


@pytest.fixture(scope="module")
def base(neo4j_settings: Settings) -> Iterator[Memory]:
    """One Memory whose clients (store, embedder) every example shares, group by group;
    its searches read the group into the process first (the copy)."""
    mem = Memory(
        neo4j_settings.model_copy(
            update={"group": "test-forget-base", "llm": "none", "search_cache": "eager"}
        )
    )
    yield mem
    mem.close()


@pytest.fixture(scope="module")
def cold(neo4j_settings: Settings, base: Memory) -> Iterator[Memory]:
    """The same embedder, searching through Neo4j alone (no copy in process)."""
    mem = Memory(
        neo4j_settings.model_copy(
            update={"group": "test-forget-base", "llm": "none", "search_cache": "off"}
        ),
        embedder=base.embedder,
    )
    yield mem
    mem.close()


def _wipe(mem: Memory) -> None:
    mem.forget()


def _normalise(mem: Memory) -> dict[str, Any]:
    """The group as comparable data: nodes by id (labels, properties without the write
    stamps, positions as order), vectors, relationships as (src, type, dst, properties)."""
    data = mem.export(embeddings=True)
    nodes: dict[str, Any] = {}
    vectors: dict[str, list[float]] = {}
    idx_of: dict[str, list[tuple[int, str]]] = {}
    sessions_of: dict[str, list[tuple[int, str]]] = {}
    for n in data.nodes:
        props = {k: v for k, v in n.properties.items() if k not in UNSTAMPED}
        nodes[n.id] = {"labels": sorted(n.labels), "props": props}
        if n.embedding is not None:
            vectors[n.id] = n.embedding
        if "Turn" in n.labels:
            idx_of.setdefault(props["conversation_id"], []).append((props["idx"], n.id))
        if "Session" in n.labels:
            sessions_of.setdefault(props["conversation_id"], []).append((props["index"], n.id))
    for turns in idx_of.values():  # idx: the order of the turns that stay
        for rank, (_, tid) in enumerate(sorted(turns)):
            nodes[tid]["props"]["idx"] = rank
    for sessions in sessions_of.values():  # a session's index: the order of those left
        order = {old: rank for rank, old in enumerate(sorted({i for i, _ in sessions}))}
        for _, sid in sessions:
            nodes[sid]["props"]["index"] = order[nodes[sid]["props"]["index"]]
    for node in nodes.values():
        if "session_index" in node["props"] and "Turn" in node["labels"]:
            conv = node["props"]["conversation_id"]
            order = sorted({i for i, _ in sessions_of.get(conv, [])})
            node["props"]["session_index"] = order.index(node["props"]["session_index"])
    rels = sorted(
        (r.src, r.type, r.dst, json.dumps(r.properties, sort_keys=True)) for r in data.relationships
    )
    return {"nodes": nodes, "vectors": vectors, "rels": rels}


def _same_graph(got: dict[str, Any], want: dict[str, Any], what: str) -> None:
    assert sorted(got["nodes"]) == sorted(want["nodes"]), (
        what,
        sorted(set(got["nodes"]) ^ set(want["nodes"]))[:5],
        [
            got["nodes"].get(i) or want["nodes"].get(i)
            for i in sorted(set(got["nodes"]) ^ set(want["nodes"]))[:3]
        ],
    )
    for nid, node in want["nodes"].items():
        assert got["nodes"][nid] == node, (what, nid, got["nodes"][nid], node)
    assert sorted(got["vectors"]) == sorted(want["vectors"]), what
    for nid, vec in want["vectors"].items():
        other = got["vectors"][nid]
        assert all(math.isclose(a, b, abs_tol=1e-5) for a, b in zip(vec, other, strict=True)), (
            what,
            nid,
        )
    missing = sorted(set(want["rels"]) - set(got["rels"]))
    extra = sorted(set(got["rels"]) - set(want["rels"]))
    assert not missing and not extra, (what, missing[:5], extra[:5])


Top = list[list[tuple[Any, ...]]]


def _top10(mem: Memory, cold: Memory, questions: list[str]) -> tuple[Top, Top]:
    """Each question's top 10 (turn, record type, content, status) from the process's copy
    and through Neo4j alone."""

    def top(m: Memory) -> Top:
        return [
            [(e.turn_source_id, e.type, e.content, e.status) for e in m.search(q, k=10)]
            for q in questions
        ]

    return top(mem), top(cold.for_group(mem.group))


def _swapped_neighbours(mine: list[Any], theirs: list[Any]) -> bool:
    """Whether two rankings of equal length differ only by swaps of neighbours: every item
    of both lists one place apart at most, an item of one list only at its end."""
    if len(mine) != len(theirs):
        return False
    where = {item: at for at, item in enumerate(theirs)}
    last = len(mine) - 1
    for at, item in enumerate(mine):
        other = where.get(item)
        if (other is None and at != last) or (other is not None and abs(other - at) > 1):
            return False
    return all(item in mine or at == last for at, item in enumerate(theirs))


def _texts_absent(mem: Memory, texts: list[str], logged: list[str]) -> None:
    """No forgotten text in the group's export (nodes, relationships, audit) or a log line."""
    dump = mem.export(embeddings=False).model_dump_json()
    for text in texts:
        assert text not in dump
        assert all(text not in line for line in logged)


def _check(
    mem: Memory,
    reference: Memory,
    cold: Memory,
    ingest: Any,
    ingest_without: Any,
    forget: Any,
    texts: list[str],
    questions: list[str],
    caplog: pytest.LogCaptureFixture,
    kind: str,
) -> None:
    try:
        ingest(mem)
        mem.consolidate()
        before = mem.inspect.stats()["turns"]
        with caplog.at_level(logging.DEBUG):
            summary = forget(mem)
        logged = [r.getMessage() for r in caplog.records]
        assert summary.audit_id and not summary.dry_run
        # the chats are written so that no turn is read in the light of another: then, and
        # only then, a forget equals never ingesting (cogmem.forget extracts nothing again)
        assert summary.stale == []
        assert mem.inspect.stats()["turns"] == before - len(summary.turns)
        (entry,) = mem.inspect.forget_log()
        assert entry["kind"] == kind and entry["turns"] == len(summary.turns)
        assert entry["records"] == summary.record_count and entry["actor"] == "tester"
        _texts_absent(mem, texts, logged)
        got = _normalise(mem)
        got_top, got_cold = _top10(mem, cold, questions)
    finally:
        _wipe(mem)
    try:
        ingest_without(reference)
        reference.consolidate()
        want = _normalise(reference)
        want_top, want_cold = _top10(reference, cold, questions)
    finally:
        _wipe(reference)
    _same_graph(got, want, kind)
    # from the copy: the identical top 10, in order (the module's docstring)
    for q, mine, theirs in zip(questions, got_top, want_top, strict=True):
        assert mine == theirs, (kind, q, mine, theirs)
    # through Neo4j alone: the same statuses, the same turns but for swaps of neighbours
    # where Lucene's statistics moved the scores (the module's docstring)
    for q, mine, theirs in zip(questions, got_cold, want_cold, strict=True):
        status = {(t, ty, c): st for t, ty, c, st in theirs}
        assert all(status.get((t, ty, c), st) == st for t, ty, c, st in mine), (q, mine, theirs)
        ids, ref = [m[0] for m in mine], [t[0] for t in theirs]
        assert _swapped_neighbours(ids, ref), (kind, q, ids, ref)


def _jsonl_without(tmp: Path, skip: set[str]) -> Path:
    path = tmp / f"chat-{uuid.uuid4().hex[:6]}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES if line["id"] not in skip))
    return path


def _groups(base: Memory) -> tuple[Memory, Memory]:
    """The group forgotten in, and the reference: the same group (node ids hash the group),
    emptied and ingested again without the turns."""
    mem = base.for_group(f"test-forget-{uuid.uuid4().hex[:8]}")
    return mem, mem


TURN_SETS = st.lists(
    st.sampled_from([line["id"] for line in LINES]), min_size=1, max_size=4, unique=True
)
SPANS = st.tuples(st.integers(0, len(LINES) - 1), st.integers(0, 4))
HYPO = settings(
    max_examples=int(os.environ.get("COGMEM_FORGET_EXAMPLES", "2")),  # more: a longer search
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: each example takes seconds
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@HYPO
@given(ids=TURN_SETS)
def test_forgetting_turns_equals_never_ingesting_them(
    base: Memory, cold: Memory, tmp_path: Path, caplog: pytest.LogCaptureFixture, ids: list[str]
) -> None:
    mem, ref = _groups(base)
    skip = set(ids)
    _check(
        mem,
        ref,
        cold,
        lambda m: m.ingest(CHAT),
        lambda m: m.ingest(_jsonl_without(tmp_path, skip)) if len(skip) < len(LINES) else None,
        lambda m: m.forget_turns(ids, "ines-and-tariq", actor="tester"),
        [line["text"] for line in LINES if line["id"] in skip],
        QUESTIONS,
        caplog,
        "turns",
    )


@HYPO
@given(span=SPANS)
def test_forgetting_a_span_equals_never_ingesting_it(
    base: Memory,
    cold: Memory,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    span: tuple[int, int],
) -> None:
    first, length = span
    chosen = LINES[first : first + length + 1]
    start, end = chosen[0]["timestamp"], chosen[-1]["timestamp"]
    skip = {line["id"] for line in LINES if start <= line["timestamp"] <= end}
    mem, ref = _groups(base)
    _check(
        mem,
        ref,
        cold,
        lambda m: m.ingest(CHAT),
        lambda m: m.ingest(_jsonl_without(tmp_path, skip)),
        lambda m: m.forget_span(start, end, actor="tester"),
        [line["text"] for line in LINES if line["id"] in skip],
        QUESTIONS,
        caplog,
        "span",
    )


@HYPO
@given(ids=st.lists(st.sampled_from(LOCOMO_IDS), min_size=1, max_size=3, unique=True))
def test_forgetting_locomo_turns_equals_never_ingesting_them(
    base: Memory, cold: Memory, tmp_path: Path, caplog: pytest.LogCaptureFixture, ids: list[str]
) -> None:
    mem, ref = _groups(base)
    full, part = (
        tmp_path / f"full-{uuid.uuid4().hex[:6]}.json",
        tmp_path / f"part-{uuid.uuid4().hex[:6]}.json",
    )
    full.write_text(json.dumps(locomo_doc()))
    part.write_text(json.dumps(locomo_doc(set(ids))))
    _check(
        mem,
        ref,
        cold,
        lambda m: m.ingest(full),
        lambda m: m.ingest(part),
        lambda m: m.forget_turns(ids, "forget-slice", actor="tester"),
        [LOCOMO_TEXTS[i] for i in ids],
        LOCOMO_QUESTIONS,
        caplog,
        "turns",
    )


# -- what a forget does, example by example ---------------------------------------------
@pytest.fixture
def chat(base: Memory) -> Iterator[Memory]:
    mem = base.for_group(f"test-forget-{uuid.uuid4().hex[:8]}")
    mem.ingest(CHAT)
    mem.consolidate()
    yield mem
    _wipe(mem)


def _claims(mem: Memory) -> dict[str, str]:
    return {r["content"]: r["status"] for r in mem.inspect.records() if r.get("type") == "Claim"}


def test_a_superseded_claim_is_current_again(chat: Memory) -> None:
    before = {r["id"]: r for r in chat.inspect.records() if r.get("type") == "Claim"}
    superseded = [r for r in before.values() if r.get("status") == "SUPERSEDED"]
    assert superseded, "the chat changes Tariq's view of Bruno"
    chat.forget_turns(["f06", "f10"], "ines-and-tariq")
    after = {r["id"]: r for r in chat.inspect.records() if r.get("type") == "Claim"}
    assert all(after[r["id"]]["status"] == "CURRENT" for r in superseded if r["id"] in after)


def test_facts_fall_below_their_rule(chat: Memory) -> None:
    facts = chat.inspect.facts()
    assert facts and all(len(f["event_ids"]) == 4 for f in facts), "four bouldering evenings"
    summary = chat.forget_turns(["f05"], "ines-and-tariq")
    assert summary.facts_removed == len(facts) == summary.facts_made
    assert summary.stale == []  # no turn of this chat was read in the light of f05
    after = chat.inspect.facts()
    assert {f["id"] for f in after} == {f["id"] for f in facts}  # the same clusters
    assert all(len(f["event_ids"]) == 3 and "3 times" in f["content"] for f in after)
    chat.forget_turns(["f09"], "ines-and-tariq")
    assert chat.inspect.facts() == []  # two occasions left: below min_events


def test_turns_by_node_id_and_across_conversations(chat: Memory, tmp_path: Path) -> None:
    slice_path = tmp_path / "slice.json"
    slice_path.write_text(json.dumps(locomo_doc()))
    chat.ingest(slice_path)
    turns = {t["source_id"]: t["id"] for t in chat.inspect.turns()}
    summary = chat.forget_turns([turns["f03"], "D2:1"])  # a node id; a source id held once
    assert sorted(t.source_id for t in summary.turns) == ["D2:1", "f03"]
    assert {t.conversation for t in summary.turns} == {"ines-and-tariq", "forget-slice"}
    left = {t["source_id"] for t in chat.inspect.turns()}
    assert "f03" not in left and "D2:1" not in left and len(left) == len(turns) - 2


def test_a_turn_read_in_the_light_of_a_forgotten_one_is_named(base: Memory, tmp_path: Path) -> None:
    """ "a teacher named Odile" (f08) is a person only because f12 names Odile too: a forget
    of f12 does not extract f08 again, but says that a fresh extraction would differ."""
    lines = [
        {**line, "text": "I started learning the cello with a teacher named Odile."}
        if line["id"] == "f08"
        else line
        for line in LINES
    ]
    path = tmp_path / "odile.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    mem = base.for_group(f"test-forget-{uuid.uuid4().hex[:8]}")
    try:
        mem.ingest(path)
        dry = mem.forget_turns(["f12"], "ines-and-tariq", dry_run=True)
        assert [t.source_id for t in dry.stale] == ["f08"]
        done = mem.forget_turns(["f12"], "ines-and-tariq")
        assert [t.source_id for t in done.stale] == ["f08"]
        # it stays so until it is said again (forgotten and added anew)
        later = mem.forget_turns(["f01"], "ines-and-tariq", dry_run=True)
        assert [t.source_id for t in later.stale] == ["f08"]
    finally:
        _wipe(mem)


def test_a_dry_run_changes_nothing(chat: Memory) -> None:
    before = _normalise(chat)
    summary = chat.forget_conversation("ines-and-tariq", dry_run=True)
    assert summary.dry_run and len(summary.turns) == len(LINES) and summary.record_count > 0
    assert summary.audit_id is None and chat.inspect.forget_log() == []
    assert _normalise(chat) == before


def test_a_whole_conversation_goes(chat: Memory) -> None:
    summary = chat.forget_conversation("ines-and-tariq", actor="tester")
    assert summary.conversations_removed == 1 and len(summary.turns) == len(LINES)
    stats = chat.inspect.stats()
    assert stats["nodes"] == 0 and stats["turns"] == 0
    assert [e["kind"] for e in stats["forgets"]] == ["conversation"]


def test_refusals_change_nothing(chat: Memory) -> None:
    before = _normalise(chat)
    with pytest.raises(ForgetError, match="no turn 'f99' in conversation"):
        chat.forget_turns(["f01", "f99"], "ines-and-tariq")
    with pytest.raises(ForgetError, match="no turn 'nope'"):
        chat.forget_turns(["nope"])
    with pytest.raises(ForgetError, match="no conversation"):
        chat.forget_conversation("not-a-chat")
    with pytest.raises(ForgetError, match="no turn said between"):
        chat.forget_span("2020-01-01", "2020-01-02")
    with pytest.raises(ForgetError, match=r"ends .* before it starts"):
        chat.forget_span("2024-03-10", "2024-03-01")
    assert _normalise(chat) == before and chat.inspect.forget_log() == []


def test_a_correction_is_a_forget_and_a_new_turn(chat: Memory) -> None:
    chat.forget_turns(["f07"], "ines-and-tariq")
    chat.add_turn(
        "Ines", "I need to renew my passport before the trip to Seville in June.",
        conversation="ines-and-tariq", source_id="f07b",
    )  # fmt: skip
    texts = [t["text"] for t in chat.inspect.turns()]
    assert not any("Lisbon in June" in t for t in texts)
    hits = chat.search("Where is Ines travelling in June?", k=5)
    assert any("Seville" in (h.turn_text or "") for h in hits)
    assert not any("Lisbon in June" in (h.turn_text or "") for h in hits)


def test_export_and_import_carry_the_audit(chat: Memory, base: Memory) -> None:
    chat.forget_turns(["f04"], "ines-and-tariq", actor="tester")
    data = chat.export(embeddings=False)
    assert [(f.kind, f.turns, f.actor) for f in data.forgets] == [("turns", 1, "tester")]
    other = base.for_group(f"test-forget-{uuid.uuid4().hex[:8]}")
    try:
        other.import_(data)
        assert [e["kind"] for e in other.inspect.forget_log()] == ["turns"]
    finally:
        _wipe(other)


# -- the CLI ----------------------------------------------------------------------------
@pytest.fixture
def cli(neo4j_settings: Settings, store: Store, group: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NEO4J_URI", neo4j_settings.neo4j_uri)
    if neo4j_settings.neo4j_password:
        monkeypatch.setenv("NEO4J_PASSWORD", neo4j_settings.neo4j_password)
    monkeypatch.setenv("COGMEM_LLM", "none")
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(app, list(args), catch_exceptions=False)

    assert run("ingest", str(CHAT), "--group", group, "--json").exit_code == 0
    return run


def test_cli_forget_forms(cli: Any, group: str) -> None:
    def turns() -> int:
        return int(json.loads(cli("stats", "--group", group, "--json").stdout)["turns"])

    dry = cli(
        "forget", "-g", group, "--turn", "f02", "--conversation", "ines-and-tariq", "--dry-run"
    )
    assert dry.exit_code == 0 and "Would forget 1 turn" in dry.stdout and "f02" in dry.stdout
    assert turns() == len(LINES)
    one = cli("forget", "-g", group, "--turn", "f02", "--yes", "--json")
    assert one.exit_code == 0, one.output
    assert [t["source_id"] for t in json.loads(one.stdout)["turns"]] == ["f02"]
    span = cli(
        "forget", "-g", group, "--from", "2024-03-13", "--to", "2024-03-13", "--speaker", "Tariq",
        "--yes",
    )  # fmt: skip
    assert span.exit_code == 0 and "Forgot 2 turn(s)" in span.stdout, span.output
    assert turns() == len(LINES) - 3
    whole = cli("forget", "-g", group, "--conversation", "ines-and-tariq", "--yes", "--json")
    assert whole.exit_code == 0 and turns() == 0
    stats = json.loads(cli("stats", "--group", group, "--json").stdout)
    assert [e["kind"] for e in stats["forgets"]] == ["turns", "span", "conversation"]
    table = cli("stats", "--group", group)
    assert "forgets (audit entries)" in table.stdout


def test_cli_forget_refusals(cli: Any, group: str) -> None:
    cases = [
        (("--turn", "f99", "--conversation", "ines-and-tariq"), "no turn 'f99'"),
        (("--turn", "zz"), "no turn 'zz'"),
        (("--conversation", "nope"), "no conversation 'nope'"),
        (("--from", "2024-03-01"), "--from and --to go together"),
        (("--from", "2024-03-01", "--to", "2024-03-02", "--turn", "f01"), "not several"),
        (("--speaker", "Ines", "--turn", "f01"), "--speaker goes with"),
        (("--from", "yesterday-ish", "--to", "2024-03-02"), "is not an ISO date"),
    ]
    for args, message in cases:
        result = cli("forget", "-g", group, *args, "--yes")
        assert result.exit_code == 1, (args, result.output)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and message in lines[0], (args, lines)
    stats = json.loads(cli("stats", "--group", group, "--json").stdout)
    assert stats["turns"] == len(LINES) and stats["forgets"] == []
