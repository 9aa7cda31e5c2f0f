"""Operators, controller and answers against the real server on small hand-built graphs."""

from __future__ import annotations

import gc
import itertools
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j import GraphDatabase

from cogmem.api import Memory
from cogmem.bench.scale import plan_text
from cogmem.config import Settings
from cogmem.models import TimeRange
from cogmem.retrieval import adjacency
from cogmem.retrieval import vector_cache as vector_cache_module
from cogmem.retrieval.candidates import AnchorResult
from cogmem.retrieval.operators import MAX_PER_HOP
from cogmem.retrieval.vector_cache import clear_vector_caches
from cogmem.store import Store
from tests.internals import store_of

pytestmark = pytest.mark.integration


def chat(tmp_path: Path, sessions: list[tuple[str, list[tuple[str, str]]]]) -> Path:
    """A JSONL chat: sessions of (ISO time, [(speaker, text), …])."""
    lines = []
    for n, (when, turns) in enumerate(sessions, 1):
        for speaker, text in turns:
            lines.append(
                json.dumps(
                    {
                        "conversation": "c1",
                        "session": str(n),
                        "speaker": speaker,
                        "text": text,
                        "timestamp": when,
                    }
                )
            )
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def mem(neo4j_settings: Settings, store: Store, group: str) -> Memory:
    return Memory(neo4j_settings.model_copy(update={"group": group}), store=store)


@pytest.fixture
def hikers(mem: Memory, tmp_path: Path) -> Memory:
    mem.ingest(
        chat(
            tmp_path,
            [
                (
                    "2023-06-05T10:00:00Z",
                    [
                        ("Alice", "I ran a marathon in Boston last week. It took me four hours."),
                        (
                            "Bob",
                            "Honestly Alice is reckless, running marathons with a bad knee "
                            "is dangerous.",
                        ),
                        ("Alice", "I love hiking in the Alps, it clears my head."),
                        ("Bob", "I love hiking too, especially in the Alps in autumn."),
                    ],
                ),
                (
                    "2023-07-20T18:00:00Z",
                    [
                        ("Alice", "We decided to move the book club to Thursdays."),
                        ("Bob", "I adopted a dog called Pixel yesterday."),
                        ("Alice", "I think Bob is a wonderful dad to that dog."),
                        (
                            "Bob",
                            "I started learning the cello in spring and I practise every morning.",
                        ),
                    ],
                ),
            ],
        )
    )
    return mem


def _types(evidence: list) -> list[str]:
    return [e.type for e in evidence]


def test_anchor_fuses_lexical_and_vector_and_caps_at_15(hikers: Memory) -> None:
    ops = hikers.inspect.operators()
    q = "Who adopted a dog?"
    result = ops.anchor(q, hikers.embedder.embed_query(q))
    assert 0 < len(result.entries) <= 15
    for cand in result.entries:
        assert cand.score == pytest.approx(0.3 * cand.fuzzy + 0.7 * cand.vector)
    assert result.entries == sorted(result.entries, key=lambda c: c.score, reverse=True)
    top = result.entries[0]
    assert "dog" in (top.content or top.name or "").lower()
    assert any("Pixel" in (t.content or "") for t in result.turns)


def test_anchor_neighbours_are_exact_and_scored_as_neo4j_scores_them(hikers: Memory) -> None:
    ops = hikers.inspect.operators()
    q = "Who adopted a dog?"
    vec = hikers.embedder.embed_query(q)
    everything = ops.anchor(q, vec, pool=500)  # more than the group holds: every turn
    size = hikers.inspect.size()
    assert len(everything.turns) == size["turns"]
    # the similarities are those Neo4j's own function gives (the ranking was tuned on them)
    settings = hikers.settings
    auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        reference = {
            row["id"]: row["sim"]
            for row in driver.execute_query(
                "MATCH (t:Turn {group_id: $g}) "
                "RETURN t.id AS id, vector.similarity.cosine(t.embedding, $v) AS sim",
                g=hikers.group,
                v=[float(x) for x in vec],
            ).records
        }
    for turn in everything.turns:
        assert turn.vector == pytest.approx(reference[turn.id], abs=1e-5)
    best = max(reference, key=reference.__getitem__)
    small = ops.anchor(q, vec, pool=1)
    assert [t.id for t in small.turns if "anchor:turn-vector" in t.path] == [best]


@pytest.mark.parametrize("cache", ["eager", "off"])
def test_anchor_again_with_another_vector_equals_a_fresh_anchor(
    hikers: Memory, neo4j_settings: Settings, cache: str
) -> None:
    """The feedback pass re-scores the first pass's candidates: nothing of the first
    vector may survive in what it returns. Each source on its own (under ``auto`` the two
    anchors compared could come from different sources, whose BM25 statistics differ)."""
    hikers = Memory(
        neo4j_settings.model_copy(update={"group": hikers.group, "search_cache": cache})
    )
    try:
        _anchor_again(hikers)
    finally:
        hikers.close()


def _anchor_again(hikers: Memory) -> None:
    q = "Who adopted a dog?"
    first, second = (hikers.embedder.embed_query(t) for t in (q, "hiking in the mountains"))

    def seen(result: AnchorResult) -> list[tuple[Any, ...]]:
        return [
            (c.id, c.vector, c.bm25, c.fuzzy, c.score, list(c.path))
            for c in (*result.entries, *result.records, *result.turns)
        ]

    ops = hikers.inspect.operators()
    before = seen(ops.anchor(q, first, pool=3))
    again = seen(ops.anchor(q, second, pool=3))
    assert again == seen(hikers.inspect.operators().anchor(q, second, pool=3))
    assert again != before
    assert seen(ops.anchor(q, first, pool=3)) == before  # and back


def test_search_sees_turns_added_after_its_vectors_were_read(hikers: Memory) -> None:
    before = hikers.inspect.operators().vectors
    seq, count = before.seq, len(before.ids)
    hikers.add_turn("Bob", "I had coffee with my friend Ilse, she opened a bakery called Crumb.")
    after = hikers.inspect.operators().vectors
    assert after.seq > seq
    assert len(after.ids) > count
    q = "Which bakery did Ilse open?"
    found = hikers.inspect.operators().anchor(q, hikers.embedder.embed_query(q))
    assert "Crumb" in found.turns[0].content
    assert any(p["name"] == "Ilse" for p in hikers.inspect.operators().persons())


def test_a_refresh_reads_the_new_nodes_through_the_vseq_index(hikers: Memory) -> None:
    seen = hikers.inspect.operators().vectors
    hikers.add_turn("Bob", "Pixel learned to fetch the newspaper.")
    rows, profile = hikers.admin.profile(
        "operators/vectors_since", group=hikers.group, seq=seen.seq
    )
    contents = [r["content"] for r in rows]
    assert "Pixel learned to fetch the newspaper." in contents
    assert 0 < len(rows) < len(seen.ids)  # the new turn, its records and their restamped ends
    plan = plan_text(profile)
    for label in ("Turn", "Memory"):  # an index seek on the sequence, not a group scan
        seek = f"RANGE INDEX n:{label}(group_id, vseq) WHERE group_id = $group AND vseq > $seq"
        assert seek in plan, plan


def _as_written_before_vector_sequences(mem: Memory, *, unmark_store: bool = False) -> None:
    """Make ``mem``'s group look as the release before vseq wrote it (and, with
    ``unmark_store``, the store as never stamped), with no vector copy in this process."""
    settings = mem.settings
    auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        driver.execute_query(
            "MATCH (n) WHERE (n:Turn OR n:Memory) AND n.group_id = $g REMOVE n.vseq",
            g=mem.group,
        )
        if unmark_store:
            driver.execute_query("MATCH (m:CogmemMeta {key: 'embedder'}) REMOVE m.sequenced")
    clear_vector_caches()


def test_init_stamps_nodes_written_before_vector_sequences(hikers: Memory) -> None:
    count = len(hikers.inspect.operators().vectors.ids)
    _as_written_before_vector_sequences(hikers)
    assert hikers.inspect.operators().vectors.ids == []  # what an old store gave
    hikers.admin.init()
    assert len(hikers.inspect.operators().vectors.ids) == count


def test_opening_a_store_written_before_vector_sequences_stamps_it_once(
    hikers: Memory, store: Store
) -> None:
    question = "Who ran a marathon in Boston?"
    _as_written_before_vector_sequences(hikers, unmark_store=True)
    # what the previous release did with such a store: the refresh found nothing
    assert hikers.inspect.operators().vectors.ids == []
    # a process opening it (no `cogmem init`) stamps it before its first search
    opened = Memory(hikers.settings, store=store)
    found = opened.search(question)
    assert any("Boston" in (e.turn_text or e.content) for e in found)
    assert store.read("meta/get_embedder")[0]["sequenced"] is True


def test_a_large_group_read_whole_is_frozen_out_of_the_cyclic_gc(
    hikers: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    gc.unfreeze()
    try:
        clear_vector_caches()
        assert hikers.inspect.operators().vectors.ids  # small: left alone
        assert gc.get_freeze_count() == 0
        monkeypatch.setattr(vector_cache_module, "FREEZE_ROWS", 1)
        clear_vector_caches()
        copy = hikers.inspect.operators().vectors
        assert gc.get_freeze_count() > 0
        hikers.add_turn("Bob", "Pixel chased the mail van today.")  # a refresh: no freeze
        frozen = gc.get_freeze_count()
        assert hikers.inspect.operators().vectors is copy
        # no second freeze (the count even falls: the old view's frozen objects are freed)
        assert gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


def test_a_forgotten_group_leaves_no_vectors_behind(hikers: Memory) -> None:
    assert hikers.inspect.operators().vectors.ids
    hikers.forget()
    assert hikers.inspect.operators().vectors.ids == []
    hikers.add_turn("Carla", "I moved to Porto last spring.")
    again = hikers.inspect.operators().vectors
    assert len([t for t in again.types if t == "Turn"]) == 1


def test_other_groups_with_the_same_content_change_nothing(
    hikers: Memory, neo4j_settings: Settings, store: Store, tmp_path: Path
) -> None:
    """From the process's copy, other groups holding the same texts move nothing: its BM25
    statistics are the group's own. (Through Neo4j alone they are Lucene's, the whole
    index's, and do move: docs/benchmarks.md, "Crowded store".) The copy is asked for
    (``eager``) whatever the suite's setting, since under ``auto`` either path may answer."""
    hikers = Memory(  # its own store: the search cache setting is the store's
        neo4j_settings.model_copy(update={"group": hikers.group, "search_cache": "eager"})
    )
    q = "Who adopted a dog?"
    vec = hikers.embedder.embed_query(q)
    alone = hikers.inspect.operators().anchor(q, vec)
    twins = []
    for n in range(3):
        twin = Memory(
            neo4j_settings.model_copy(update={"group": f"{hikers.group}-twin{n}"}), store=store
        )
        for turn in hikers.inspect.turns():
            twin.add_turn(turn["speaker"], turn["text"], conversation="c1")
        twins.append(twin)
    try:
        crowded = hikers.inspect.operators().anchor(q, vec)
        # the same nodes with the same scores, lexical (BM25 statistics of the group's own
        # texts) and vector (the group's own nearest neighbours) alike
        assert [(c.id, c.vector, c.bm25) for c in crowded.turns] == [
            (c.id, c.vector, c.bm25) for c in alone.turns
        ]
        assert [(c.id, c.score) for c in crowded.entries] == [
            (c.id, c.score) for c in alone.entries
        ]
    finally:
        for twin in twins:
            twin.forget()
        hikers.close()


def test_ground_returns_each_turn_once(hikers: Memory) -> None:
    ops = hikers.inspect.operators()
    turns = [row["id"] for row in ops.turns([t["id"] for t in hikers.inspect.turns()])]
    grounded = ops.ground(turns[:4], window=1)
    ids = [g.id for g in grounded]
    assert len(ids) == len(set(ids)) and set(turns[:4]) <= set(ids)
    assert all(g.offset == 0 for g in grounded if g.id in turns[:4])


def test_anchor_widens_the_types_when_a_typed_search_finds_nothing(hikers: Memory) -> None:
    ops = hikers.inspect.operators()
    q = "cello practice"
    typed = ops.anchor(q, hikers.embedder.embed_query(q), types=["Todo"])
    assert typed.widened and typed.types is None
    assert any(c.type in ("Event", "Fact") for c in typed.entries)
    found = ops.anchor(q, hikers.embedder.embed_query(q), types=["Event", "Fact"])
    assert not found.widened


def test_traverse_filters_by_time_window_and_limits_hops(hikers: Memory) -> None:
    ops = hikers.inspect.operators()
    persons = {p["name"]: p["id"] for p in ops.persons()}
    vec = hikers.embedder.embed_query("what did Bob do")
    july = TimeRange(
        start=datetime(2023, 7, 1, tzinfo=UTC),
        end=datetime(2023, 8, 1, tzinfo=UTC),
        granularity="month",
        text="in July 2023",
    )
    in_july = ops.traverse([persons["Bob"]], vec, ("PARTICIPATED_IN", "HAS_FACT"), window=july)
    assert in_july, "Bob did things in July"
    for cand in in_july:
        when = cand.time_start or cand.at
        assert when is not None and july.start <= when < july.end
    everything = ops.traverse([persons["Bob"]], vec, ("PARTICIPATED_IN", "HAS_FACT"))
    assert len(everything) > len(in_july)
    deep = ops.traverse([persons["Bob"]], vec, depth=5, per_node=100)
    assert all(len(c.path) <= 2 for c in deep)  # depth is capped at 2
    per_first_hop = [c for c in deep if len(c.path) == 1]
    assert len(per_first_hop) <= MAX_PER_HOP


def test_intersect_finds_what_two_people_share(hikers: Memory) -> None:
    ops = hikers.inspect.operators()
    persons = {p["name"]: p["id"] for p in ops.persons()}
    shared = ops.intersect(
        [persons["Alice"], persons["Bob"]],
        hikers.embedder.embed_query("What do Alice and Bob both like?"),
    )
    names = [s.name for s in shared]
    assert any("hiking" in n or "alps" in n.lower() for n in names), names
    item = next(s for s in shared if "hiking" in s.name or "alps" in s.name.lower())
    assert set(item.links) == {persons["Alice"], persons["Bob"]}


def test_ground_returns_the_verbatim_turn_and_neighbours(hikers: Memory) -> None:
    ops = hikers.inspect.operators()
    rows = store_of(hikers).read("inspect/records_with_turns", group=hikers.group)
    decision = next(r for r in rows if r["type"] == "Decision")
    grounded = ops.ground([decision["id"]], window=1)
    own = [g for g in grounded if g.offset == 0]
    assert [g.text for g in own] == ["We decided to move the book club to Thursdays."]
    assert {g.offset for g in grounded} <= {-1, 0, 1} and len(grounded) >= 2


def test_opinions_are_not_records(hikers: Memory) -> None:
    # What Alice did: her own Event, never Bob's opinion about her.
    did = hikers.search("What did Alice do last week?", k=5)
    assert did[0].speaker == "Alice" and "marathon" in (did[0].turn_text or "")
    assert all(not (e.type == "Claim" and e.speaker == "Bob") for e in did)
    # What Bob thinks of Alice: Bob's claim about her comes first.
    thinks = hikers.retrieve("What does Bob think of Alice?", k=5)
    assert thinks.plan.intent == "opinion"
    first = thinks.evidence[0]
    assert first.type == "Claim" and first.speaker == "Bob" and "reckless" in (first.quote or "")


def test_search_trace_and_time_window(hikers: Memory) -> None:
    result = hikers.retrieve("When did Bob adopt a dog?", k=5)
    assert result.plan.intent == "temporal"
    operators = [s.operator for s in result.trace]
    assert operators[:3] == ["entities", "route", "anchor"]
    assert (
        len(
            [
                s
                for s in result.trace
                if s.operator not in ("entities", "route", "anchor", "sufficiency")
            ]
        )
        <= 5
    )
    top = result.evidence[0]
    assert "Pixel" in (top.turn_text or "")
    assert top.time_start == datetime(2023, 7, 19, tzinfo=UTC)  # "yesterday", resolved


def test_a_turn_said_inside_the_question_window_ranks_first(mem: Memory, tmp_path: Path) -> None:
    same = [("Dana", "We watched the fireworks by the river with my cousins.")]
    other = [("Eli", "Sounds lovely.")]
    mem.ingest(
        chat(
            tmp_path,
            [
                ("2023-06-10T20:00:00Z", same + other),
                ("2023-09-16T20:00:00Z", same + other),
                ("2023-12-02T20:00:00Z", same + other),
            ],
        )
    )
    result = mem.retrieve("What did Dana watch in September 2023?", k=3)
    assert result.plan.window is not None
    top = result.evidence[0]
    assert top.turn_at is not None and top.turn_at.month == 9
    assert "fireworks" in (top.turn_text or "")


def test_context_packs_under_the_budget_and_ask_answers_offline(hikers: Memory) -> None:
    from cogmem.answer import estimate_tokens

    small = hikers.context_block("What does Alice love?", budget_tokens=60)
    assert small.tokens <= 60 and estimate_tokens(small.text) <= 60
    big = hikers.context_block("What does Alice love?", budget_tokens=4000)
    assert len(big.included) >= len(small.included)
    assert "quote:" in big.text and "turn" in big.text
    answer = hikers.ask("When did Bob adopt a dog?")
    assert "19 July 2023" in answer.text
    assert answer.evidence and answer.trace


def test_retrieval_uses_consolidation(mem: Memory, tmp_path: Path) -> None:
    mem.ingest(
        chat(
            tmp_path,
            [
                (
                    "2023-05-10T09:00:00Z",
                    [
                        ("Ann", "I think Marco is lazy, he skipped every shift."),
                        ("Ben", "Really? I had no idea."),
                    ],
                ),
                (
                    "2023-06-20T09:00:00Z",
                    [
                        ("Ann", "I have to admit Marco is hardworking now."),
                        ("Ben", "Good to hear!"),
                    ],
                ),
                (
                    "2023-07-01T09:00:00Z",
                    [("Ann", "I went hiking in the hills yesterday."), ("Ben", "Nice.")],
                ),
                (
                    "2023-07-08T09:00:00Z",
                    [("Ann", "I went hiking again yesterday, the lake trail."), ("Ben", "Cool.")],
                ),
                (
                    "2023-07-15T09:00:00Z",
                    [
                        ("Ann", "Another hiking day yesterday, I went up the ridge."),
                        ("Ben", "Wow."),
                    ],
                ),
            ],
        )
    )
    report = mem.consolidate()
    assert report.facts_created >= 1
    now = mem.retrieve("What does Ann think of Marco now?", k=5)
    first = now.evidence[0]
    assert first.type == "Claim" and "hardworking" in (first.quote or "")
    assert first.status == "CURRENT"
    assert any("lazy" in older for older in first.supersedes)  # shows what it replaced
    answer = mem.ask("What does Ann think of Marco now?")
    # the answer is the view that holds now; the one it replaced stays in the evidence
    # (above) and in the history answer
    assert "hardworking" in answer.text and "lazy" not in answer.text
    history = mem.ask("How has Ann's opinion of Marco changed?")
    assert history.text.index("lazy") < history.text.index("hardworking")
    broad = mem.retrieve("How often does Ann go hiking?", k=5)
    assert any(s.operator == "traverse" and "SUPPORTED_BY" in s.detail for s in broad.trace)
    hikes = {e.turn_source_id for e in broad.evidence}
    assert {"3:5", "4:7", "5:9"} <= hikes  # JSONL ids: session:position


ALL_RELS = list(adjacency.REL_CODES)  # every type between records


INTERSECT = ["LIKES", "DISLIKES", "USES", "PARTICIPATED_IN", "HAS_FACT", "CLAIMS"]


SIM_TOLERANCE = 1e-6
"""Neo4j's cosine (doubles) and the copy's (float32 rows) agree to about 1e-7."""


def _same_rows(cypher: list[dict], in_process: list[dict]) -> None:
    """The same rows in the same order; similarities equal to :data:`SIM_TOLERANCE`."""
    assert len(cypher) == len(in_process)
    for want, got in zip(cypher, in_process, strict=True):
        for key in ("vector", "sim"):
            if key in got:
                assert want[key] == pytest.approx(got[key], abs=SIM_TOLERANCE)
        assert {k: want[k] for k in got if k not in ("vector", "sim")} == {
            k: v for k, v in got.items() if k not in ("vector", "sim")
        }


def test_in_process_traverse_and_intersect_give_the_rows_of_their_statements(
    hikers: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = hikers.inspect.operators()
    before.vectors  # noqa: B018 - this process reads the group before consolidation adds to it
    hikers.consolidate()  # the linking job adds REFERENCES between records read already
    ops = hikers.inspect.operators()  # refreshed by what the writes stamped
    vectors = ops.vectors
    assert vectors is before.vectors
    records = [i for i, t in zip(vectors.ids, vectors.types, strict=True) if t != "Turn"]
    linked = {i for i in records if (vectors.node(i) or {}).get("links")}
    assert hikers.inspect.counts()["relationships"]["REFERENCES"] >= 1
    assert {"REFERENCES", "HAS_FACT", "CLAIMS", "LIKES"} <= {
        link[0] for i in linked for link in (vectors.node(i) or {})["links"]
    }
    vec = hikers.embedder.embed_query("What does Bob do in the mornings?")
    qvec = [float(x) for x in vec]
    july = (datetime(2023, 7, 1, tzinfo=UTC), datetime(2023, 8, 1, tzinfo=UTC))
    for window in ((None, None), july):
        for types in (None, ["Event", "Fact"]):
            steps = [
                {"ids": records, "rel_types": ALL_RELS, "types": types},
                {"ids": records[:5], "rel_types": ["CLAIMS", "TARGETS"], "types": None},
            ]
            for step in steps:
                step["start"], step["end"] = window
            for per_node in (1, 3, 15):
                cypher = store_of(hikers).read(
                    "operators/traverse_hop",
                    steps=steps,
                    group=hikers.group,
                    per_node=per_node,
                    vector=qvec,
                )
                _same_rows(cypher, vectors.traverse(steps, per_node, vec))
    persons = [p["id"] for p in ops.persons()]
    for forward_limit in (adjacency.FORWARD_LIMIT, 0):  # 0: back from the concepts
        monkeypatch.setattr(adjacency, "FORWARD_LIMIT", forward_limit)
        for per_entity, ids in itertools.product((1, 10), (persons, [*persons, *records[:8]])):
            cypher = store_of(hikers).read(
                "operators/intersect",
                ids=ids,
                group=hikers.group,
                rel_types=INTERSECT,
                per_entity=per_entity,
                vector=qvec,
                min_shared=2,
            )
            for row in cypher:  # the statement collects via in expansion order
                for link in row["links"]:
                    link["via"] = sorted(link["via"])
            _same_rows(cypher, vectors.intersect(ids, INTERSECT, per_entity, vec, 2))
    assert any(ops.intersect(persons, vec)), "the two hikers share something"
