"""The in-process copy of a group's vectors: exact neighbours, Neo4j's similarity scale,
rows replaced in place, type filters — no server needed."""

from __future__ import annotations

import numpy as np
import pytest

from cogmem.retrieval import adjacency, scan
from cogmem.retrieval.token_rows import TokenRowCache
from cogmem.retrieval.vectors import GroupVectors


def _rows(n: int, seed: int = 0) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    types = ["Turn", "Event", "Claim", "Concept"]
    return [
        {"id": f"n{i}", "type": types[i % 4], "embedding": rng.normal(size=16).tolist()}
        for i in range(n)
    ]


def _unit(v: object) -> np.ndarray:
    a = np.asarray(v, np.float32)
    return a / np.linalg.norm(a)


def test_top_is_the_exact_nearest_of_the_asked_kind_best_first() -> None:
    rows = _rows(200)
    g = GroupVectors()
    g.add(rows)
    q = _unit(np.random.default_rng(9).normal(size=16))
    sims = {r["id"]: (1 + float(_unit(r["embedding"]) @ q)) / 2 for r in rows}
    turns = [r["id"] for r in rows if r["type"] == "Turn"]
    expected = sorted(turns, key=lambda i: -sims[i])[:7]
    got = g.top(q, turns=True, types=None, k=7)
    assert [i for i, _ in got] == expected
    assert [s for _, s in got] == pytest.approx([sims[i] for i in expected], abs=1e-6)
    claims = g.top(q, turns=False, types=["Claim"], k=1000)
    assert {i for i, _ in claims} == {r["id"] for r in rows if r["type"] == "Claim"}
    records = g.top(q, turns=False, types=None, k=1000)
    assert not {i for i, _ in records} & set(turns)


def test_record_sims_are_the_nearest_records_as_an_array_over_the_view() -> None:
    rows = _rows(200)
    g = GroupVectors()
    g.add(rows)
    q = _unit(np.random.default_rng(3).normal(size=16))
    for k in (5, 150, 1000):  # fewer than, exactly near, more than the 150 records
        sims = g.record_sims(q, k)
        assert dict(sims) == dict(g.top(q, turns=False, types=None, k=k))
        assert "n0" not in sims and sims.get("n0") is None  # a turn is never kept
    graph = g._graph()
    sims = g.record_sims(q, 5)
    assert adjacency._dense(graph, sims) is sims.dense  # read as it is, not rebuilt
    g.add([{"id": "new", "type": "Event", "embedding": [1.0] * 16}])
    assert np.array_equal(adjacency._dense(g._graph(), sims)[:200], sims.dense)  # new view


def test_node_as_derives_once_per_node_and_view() -> None:
    g = GroupVectors()
    g.add([{"id": "a", "type": "Event", "content": "old", "embedding": [1.0, 0.0]}])
    calls: list[str] = []

    def shout(fields: dict[str, object]) -> str:
        calls.append(str(fields["id"]))
        return str(fields["content"]).upper()

    assert [g.node_as("a", shout), g.node_as("a", shout)] == ["OLD", "OLD"]
    assert g.node_as("zzz", shout) is None
    assert calls == ["a"]
    g.add([{"id": "a", "type": "Event", "content": "new", "embedding": [1.0, 0.0]}])
    assert g.node_as("a", shout) == "NEW"  # a new view derives afresh
    assert calls == ["a", "a"]


def test_a_grown_view_carries_the_id_array_over() -> None:
    g = GroupVectors()
    g.add(_rows(50))
    assert g._rows.id_array.tolist() == [f"n{i}" for i in range(50)]  # built (ties need it)
    g.add([{"id": "a-much-longer-id-than-before", "type": "Event", "embedding": [1.0] * 16}])
    g.add([{"id": "n3", "type": "Claim", "embedding": [0.5] * 16}])  # replaced in place
    assert "id_array" in g._rows.__dict__  # carried over, not rebuilt on first need
    assert g._rows.id_array.tolist() == list(g._rows.ids)


def test_similarity_of_unknown_ids_is_zero_and_order_is_kept() -> None:
    g = GroupVectors()
    g.add([{"id": "a", "type": "Turn", "embedding": [1.0, 0.0]}])
    g.add([{"id": "b", "type": "Event", "embedding": [0.0, 3.0]}])
    q = np.array([1.0, 0.0], np.float32)
    assert g.similarity(q, ["b", "zzz", "a"]) == pytest.approx([0.5, 0.0, 1.0])
    assert g.top(q, turns=False, types=["Claim"], k=5) == []


def test_feedback_moves_the_question_towards_the_mean_of_the_given_rows() -> None:
    g = GroupVectors()
    g.add([{"id": "a", "type": "Turn", "embedding": [0.0, 2.0, 0.0]}])  # stored unit length
    g.add([{"id": "b", "type": "Turn", "embedding": [0.0, 0.0, 1.0]}])
    q = np.array([1.0, 0.0, 0.0], np.float32)
    moved = g.feedback(q, ["a", "b", "not-in-view"], 0.5)
    assert moved is not None
    assert moved == pytest.approx(_unit([1.0, 0.25, 0.25]), abs=1e-6)
    assert g.feedback(q, ["not-in-view"], 0.5) is None


def test_similarity_of_a_few_rows_equals_the_full_pass_to_the_bit() -> None:
    rows = _rows(400)
    ids = [r["id"] for r in rows]
    q = _unit(np.random.default_rng(5).normal(size=16))
    few = GroupVectors()
    few.add(rows)
    alone = few.similarity(q, ids[:7])  # 7 of 400 rows: only those multiplied
    assert few._memo == ()
    full = GroupVectors()
    full.add(rows)
    full.top(q, turns=True, types=None, k=3)  # a full pass, kept
    assert full.similarity(q, ids[:7]) == alone
    assert full.similarity(q, ids) == [(1 + s) / 2 for s in full._scores(full._rows, q).tolist()]


def test_a_pass_split_between_threads_equals_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "_SPLIT_ROWS", 10)
    monkeypatch.setattr(scan.os, "cpu_count", lambda: 3)  # uneven parts
    rng = np.random.default_rng(2)
    matrix = rng.normal(size=(1001, 24)).astype(np.float32)
    q = rng.normal(size=24).astype(np.float32)
    assert np.array_equal(scan.products(matrix, q), np.einsum("ij,j->i", matrix, q))


def test_a_row_written_again_replaces_its_vector_without_a_duplicate() -> None:
    g = GroupVectors()
    g.add([{"id": "a", "type": "Event", "embedding": [1.0, 0.0]}])
    held = g._rows.matrix  # a reader in flight keeps the view it took
    g.add([{"id": "a", "type": "Fact", "embedding": [0.0, 1.0]}])
    assert g.ids == ["a"] and g.types == ["Fact"]
    assert g.similarity(np.array([0.0, 1.0], np.float32), ["a"]) == pytest.approx([1.0])
    assert held[0] == pytest.approx([1.0, 0.0])


def test_a_row_deleted_while_it_was_read_is_left_out() -> None:
    """A forget running beside the copy's read nulls the properties of nodes the stream has
    yet to return: those rows carry no vector and are skipped, not a ragged matrix."""
    g = GroupVectors()
    g.add(
        [
            {"id": "a", "type": "Event", "embedding": [1.0, 0.0]},
            {"id": "b", "type": None, "embedding": None},
            {"id": "c", "type": "Turn", "embedding": [0.0, 1.0]},
        ]
    )
    assert g.ids == ["a", "c"]
    assert g.similarity(np.array([0.0, 1.0], np.float32), ["c"]) == pytest.approx([1.0])


def test_token_rows_are_kept_until_their_turn_is_written_again() -> None:
    g = GroupVectors()
    g.add(_rows(4))
    base = g.nbytes
    g.tokens.keep({"n0": (b"\x01" * 384, [0.01]), "n1": (b"", [])})  # n1: no rows
    kept, missing = g.tokens.cached(["n0", "n1", "n2"])
    assert kept == {"n0": (b"\x01" * 384, [0.01]), "n1": (b"", [])} and missing == ["n2"]
    assert g.nbytes > base + 384  # counted against the vector cache's budget
    g.add([{"id": "n0", "type": "Turn", "embedding": [1.0] * 16}])  # rewritten: stale
    assert g.tokens.cached(["n0", "n1"]) == ({"n1": (b"", [])}, ["n0"])


def test_token_rows_beyond_the_budget_go_oldest_first() -> None:
    cache = TokenRowCache(budget=1000)
    cache.keep({"a": (b"\x00" * 600, [0.1])})
    cache.keep({"b": (b"\x00" * 600, [0.1])})
    assert cache.cached(["a", "b"]) == ({"b": (b"\x00" * 600, [0.1])}, ["a"])
    assert 0 < cache.nbytes <= 1000


def _turn(i: int, conv: str = "c1") -> dict[str, object]:
    return {
        "id": f"{conv}-t{i}",
        "type": "Turn",
        "embedding": [1.0, float(i)],
        "conversation_id": conv,
        "idx": i,
    }


def test_ground_in_process_takes_each_neighbour_once_from_the_nearest_seed() -> None:
    g = GroupVectors()
    g.add([_turn(i) for i in range(6)] + [_turn(0, "c2")])
    g.add(
        [
            {"id": "e1", "type": "Event", "embedding": [0.0, 1.0], "evidence": ["c1-t2"]},
            {"id": "p1", "type": "Person", "embedding": [0.0, 1.0], "evidence": []},
        ]
    )
    rows = g.neighbourhood(["c1-t3", "c1-t1"], window=1)
    assert rows is not None
    got = {r["id"]: (r["record_id"], r["offset"]) for r in rows}
    # t2 is one away from both seeds: the tie goes to the smaller seed id, as in Cypher
    assert got == {
        "c1-t0": ("c1-t1", -1),
        "c1-t1": ("c1-t1", 0),
        "c1-t2": ("c1-t1", 1),
        "c1-t3": ("c1-t3", 0),
        "c1-t4": ("c1-t3", 1),
    }
    assert next(r for r in rows if r["id"] == "c1-t2")["records"] == ["e1"]
    assert g.neighbourhood(["e1"], window=1) is None  # a record seed: ask the graph


def test_a_record_written_again_moves_to_its_new_evidence() -> None:
    g = GroupVectors()
    g.add([_turn(0), _turn(1)])
    g.add([{"id": "f", "type": "Fact", "embedding": [1.0, 0.0], "evidence": ["c1-t0"]}])
    g.add([{"id": "f", "type": "Fact", "embedding": [1.0, 0.0], "evidence": ["c1-t1"]}])
    rows = {r["id"]: r["records"] for r in g.neighbourhood(["c1-t0"], window=1) or []}
    assert rows == {"c1-t0": [], "c1-t1": ["f"]}


def _state(g: GroupVectors) -> tuple[object, ...]:
    v = g._rows
    times = v.times
    return (
        list(v.ids),
        list(v.types),
        list(v.fields),
        v.matrix.tolist(),
        v.is_turn.tolist(),
        [v.types[i] for i in range(len(v.ids)) if v.type_codes[i] == v.codes.get("Fact")],
        {t: sorted(recs) for t, recs in v.evidenced.items() if recs},
        np.nan_to_num(times.start, nan=-1).tolist(),
        np.nan_to_num(times.at, nan=-1).tolist(),
    )


def test_a_view_grown_by_refreshes_equals_one_read_whole_and_old_views_stay_put() -> None:
    rng = np.random.default_rng(4)
    turns = [{**_turn(i), "at_s": 1000.0 + i} for i in range(8)]

    def record(i: int, kind: str, evidence: str, when: float | None) -> dict[str, object]:
        vec = rng.normal(size=2).tolist()
        return {
            "id": f"r{i}",
            "type": kind,
            "embedding": vec,
            "evidence": [evidence],
            "time_start_s": when,
        }

    first = [record(i, "Event", f"c1-t{i % 8}", 50.0 * i) for i in range(10)]
    grown = GroupVectors()
    grown.add(turns + first)
    _ = grown._rows.times  # built, so refreshes carry it over
    held = grown._rows
    held_state = _state(grown)
    # a refresh: r1 read again unchanged (a restamped end), r2 moved to another turn as a
    # Fact with a new vector and time, r3 lost its time, two new records and a new turn
    r2 = {**record(2, "Fact", "c1-t7", 9.0)}
    r3 = {**first[3], "time_start_s": None}
    later = [
        first[1],
        r2,
        r3,
        record(10, "Fact", "c1-t2", 7.0),
        record(11, "Claim", "c1-t8", None),
        {**_turn(8), "at_s": 2000.0},
    ]
    grown.add(later)
    final = {r["id"]: r for r in turns + first + later}
    whole = GroupVectors()
    whole.add(list(final.values()))
    assert _state(grown) == _state(whole)
    assert grown._rows.matrix is not held.matrix  # r2's vector changed: a copy, not in place
    assert _state_of(held) == held_state  # a reader in flight still sees the old view
    before = grown._rows.matrix
    grown.add([first[4]])  # read again with the same vector: nothing of the matrix copied
    assert grown._rows.matrix is before
    grown.add([record(12, "Event", "c1-t3", None)])  # a live turn's record: appended in place
    assert grown._rows.matrix.base is before.base and len(grown.ids) == before.shape[0] + 1
    assert grown.top(grown._rows.matrix[-1], turns=False, types=["Event"], k=1)[0][0] == "r12"


def _state_of(view: object) -> tuple[object, ...]:
    g = GroupVectors()
    g._rows = view  # type: ignore[assignment]
    return _state(g)


def test_a_catch_up_carries_an_entitys_relationship_arrays_over_as_built_afresh() -> None:
    def entity(i: int, links: list[list[object]]) -> dict[str, object]:
        return {"id": f"p{i}", "type": "Person", "embedding": [1.0, float(i)], "links": links}

    def event(i: int) -> dict[str, object]:
        return {"id": f"e{i}", "type": "Event", "embedding": [float(i), 1.0], "links": []}

    g = GroupVectors()
    first = [event(i) for i in range(6)]
    g.add([*first, entity(0, [["PARTICIPATED_IN", f"e{i}", True] for i in range(6)])])
    view = g._rows
    built = g._links(view, view.row["p0"])  # arrays built, so a catch-up carries them over
    # a catch-up: e2 read again, a new e6, p0 with its links to them (the rest kept)
    read = [["PARTICIPATED_IN", "e2", True], ["PARTICIPATED_IN", "e6", True]]
    g.add([event(2), event(6), entity(0, read)], catch_up=True)
    new = g._rows
    carried = g._links(new, new.row["p0"])
    assert carried is not built
    afresh = adjacency.Links.of(new.fields[new.row["p0"]]["links"], new.row.rows_of)
    for got, want in zip(
        (carried.rel, carried.other, carried.outgoing),
        (afresh.rel, afresh.other, afresh.outgoing),
        strict=True,
    ):
        assert got.tolist() == want.tolist()
    assert sorted(new.ids[at] for at in carried.other.tolist()) == [f"e{i}" for i in range(7)]
    # the old view reads the shared id → row map only up to its own rows
    assert "e6" in new.row and "e6" not in view.row and view.row.get("e6") is None
    assert len(view.row) == 7 and list(view.row) == list(view.ids)


def test_node_as_is_kept_across_views_for_rows_a_refresh_did_not_rewrite() -> None:
    g = GroupVectors()
    g.add([{"id": i, "type": "Event", "content": i, "embedding": [1.0, 0.0]} for i in "ab"])
    calls: list[str] = []

    def shout(fields: dict[str, object]) -> str:
        calls.append(str(fields["id"]))
        return str(fields["content"]).upper()

    assert [g.node_as("a", shout), g.node_as("b", shout)] == ["A", "B"]
    g.add([{"id": "b", "type": "Event", "content": "bb", "embedding": [1.0, 0.0]}])
    g.add([{"id": "c", "type": "Event", "content": "c", "embedding": [0.0, 1.0]}])
    assert [g.node_as(i, shout) for i in "abc"] == ["A", "BB", "C"]
    assert calls == ["a", "b", "b", "c"]  # a: derived once, over three views
