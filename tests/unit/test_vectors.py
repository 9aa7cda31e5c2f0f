"""The in-process copy of a group's vectors: exact neighbours, Neo4j's similarity scale,
rows replaced in place, type filters — no server needed."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_similarity_of_unknown_ids_is_zero_and_order_is_kept() -> None:
    g = GroupVectors()
    g.add([{"id": "a", "type": "Turn", "embedding": [1.0, 0.0]}])
    g.add([{"id": "b", "type": "Event", "embedding": [0.0, 3.0]}])
    q = np.array([1.0, 0.0], np.float32)
    assert g.similarity(q, ["b", "zzz", "a"]) == pytest.approx([0.5, 0.0, 1.0])
    assert g.top(q, turns=False, types=["Claim"], k=5) == []


def test_a_row_written_again_replaces_its_vector_without_a_duplicate() -> None:
    g = GroupVectors()
    g.add([{"id": "a", "type": "Event", "embedding": [1.0, 0.0]}])
    held = g._rows.matrix  # a reader in flight keeps the view it took
    g.add([{"id": "a", "type": "Fact", "embedding": [0.0, 1.0]}])
    assert g.ids == ["a"] and g.types == ["Fact"]
    assert g.similarity(np.array([0.0, 1.0], np.float32), ["a"]) == pytest.approx([1.0])
    assert held[0] == pytest.approx([1.0, 0.0])


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
