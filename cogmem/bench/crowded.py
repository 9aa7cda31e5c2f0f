"""Crowded store: one LoCoMo conversation alone, then among many look-alike tenants (groups
holding copies of its content): recall and latency of its own questions both times, from the
process's copy and through Neo4j alone (``cogmem bench scale --crowded``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from cogmem.bench.common import percentile, with_search_cache
from cogmem.retrieval.vector_cache import clear_vector_caches

if TYPE_CHECKING:
    from cogmem.api import Memory

SETTLE_SECONDS = 30
"""Pause before each crowded-store measurement (after an ingest or a bulk copy)."""


class CrowdedPoint(BaseModel):
    groups: int
    nodes: int
    r10: float
    mh_allhit10: float
    p50_ms: float
    p95_ms: float
    vectors_load_s: float = 0.0
    """The first search: reading the group's vectors into the process."""
    cold_r10: float = 0.0
    cold_p50_ms: float = 0.0
    cold_p95_ms: float = 0.0
    """The same questions through Neo4j alone (no copy in process: ``search_cache = off``)."""


class CrowdedReport(BaseModel):
    conversation: str
    questions: int
    copies: int
    alone: CrowdedPoint
    crowded: CrowdedPoint


def run_crowded(
    memory: Memory,
    path: Path,
    sample: str | None = None,
    copies: int = 100,
    log: Callable[[str], None] = print,
    group: str | None = None,
) -> CrowdedReport:
    """One LoCoMo conversation alone in the store, then with ``copies`` other groups holding
    copies of its turns and records (made on the server, embeddings included): R@10 and
    latency of its own questions both times. ``memory`` is a :class:`Memory` with the
    embedder the store records; the groups it makes are deleted afterwards. ``group`` names
    a group that already holds the conversation (kept as it is: no ingest, no delete)."""
    from cogmem.bench.locomo import EvidenceStats, load_questions, score
    from cogmem.ingest import read_file

    convs = read_file(path, "locomo").conversations
    conv = next(c for c in convs if sample in (None, c.id))
    questions = load_questions(path, [conv], {1, 2, 3, 4}, EvidenceStats())
    mem = with_search_cache(memory.for_group(group or f"bench-crowded-{conv.id}"), "eager")
    cold = with_search_cache(mem, "off")
    if group is None:
        mem.forget()
        log(f"ingesting {conv.id}: {len(conv.turns)} turns")
        mem.ingest_conversations([conv], fmt="locomo")
    others = [f"bench-crowded-copy-{i}" for i in range(1, copies + 1)]

    def measure(groups: int) -> CrowdedPoint:
        mem.admin.await_indexes(seconds=600)
        # the same pause both times: the server finishes the background work a bulk write
        # leaves (page flushes, index merges) before the timing starts
        time.sleep(SETTLE_SECONDS)
        clear_vector_caches()
        load_started = time.perf_counter()
        mem.search("warm up", k=10)
        load_s = time.perf_counter() - load_started
        for q in questions:  # the same warm-up both times: plan caches, JIT, page cache
            mem.search(q.question, k=10)
        latencies: list[float] = []
        rankings = []
        for q in questions:
            controller = mem.inspect.controller()
            started = time.perf_counter()
            evidence = controller.run(q.question, k=10).evidence
            latencies.append(time.perf_counter() - started)
            rankings.append((q, [e.turn_source_id for e in evidence if e.turn_source_id]))
        s = score(rankings)
        cold_latencies: list[float] = []
        cold_rankings = []
        for q in questions:  # after the warm ones: the server's caches are as warm
            started = time.perf_counter()
            evidence = cold.inspect.controller().run(q.question, k=10).evidence
            cold_latencies.append(time.perf_counter() - started)
            cold_rankings.append((q, [e.turn_source_id for e in evidence if e.turn_source_id]))
        cs = score(cold_rankings)
        return CrowdedPoint(
            cold_r10=round(cs.recall[0][10], 1),
            cold_p50_ms=round(1000 * percentile(cold_latencies, 50), 1),
            cold_p95_ms=round(1000 * percentile(cold_latencies, 95), 1),
            groups=groups,
            nodes=groups * int(mem.inspect.counts()["nodes"]),
            r10=round(s.recall[0][10], 1),
            mh_allhit10=round(s.all_hit.get(1, {}).get(10, 0.0), 1),
            p50_ms=round(1000 * percentile(latencies, 50), 1),
            p95_ms=round(1000 * percentile(latencies, 95), 1),
            vectors_load_s=round(load_s, 2),
        )

    try:
        alone = measure(1)
        log(f"alone: {alone}; copying into {copies} groups")
        for i, other in enumerate(others, 1):
            mem.admin.bench_copy(other)
            if i % 20 == 0:
                log(f"  {i} copies…")
        crowded = measure(1 + copies)
        log(f"crowded: {crowded}")
    finally:
        for other in others:
            memory.for_group(other).forget()
        if group is None:
            mem.forget()
        cold.close()
        mem.close()
    return CrowdedReport(
        conversation=conv.id,
        questions=len(questions),
        copies=copies,
        alone=alone,
        crowded=crowded,
    )


def crowded_markdown(report: CrowdedReport) -> str:
    a, c = report.alone, report.crowded
    rows = [
        f"| {name} | {p.groups} | {p.nodes} | {p.r10:.1f} | {p.mh_allhit10:.1f} | "
        f"{p.p50_ms:.0f} | {p.p95_ms:.0f} | {p.vectors_load_s:.2f} | {p.cold_r10:.1f} | "
        f"{p.cold_p50_ms:.0f} | {p.cold_p95_ms:.0f} |"
        for name, p in (("alone", a), ("crowded", c))
    ]
    return "\n".join(
        [
            f"## Crowded store: {report.conversation} ({report.questions} questions, "
            f"categories 1-4) alone, then among {report.copies} groups holding copies of "
            "its content",
            "",
            "Searches from the process's copy of the group, then the same questions through "
            "Neo4j alone (cold: no copy in process, `search_cache = off`).",
            "",
            "| store | groups | nodes | R@10 | multi-hop AllHit@10 | p50 ms | p95 ms | "
            "copy read s | cold R@10 | cold p50 ms | cold p95 ms |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"Crowded vs alone: R@10 {c.r10 - a.r10:+.1f} points, p95 "
            f"×{c.p95_ms / max(a.p95_ms, 1e-9):.2f}, p50 ×{c.p50_ms / max(a.p50_ms, 1e-9):.2f}; "
            f"cold R@10 {c.cold_r10 - a.cold_r10:+.1f} points, cold p95 "
            f"×{c.cold_p95_ms / max(a.cold_p95_ms, 1e-9):.2f}.",
        ]
    )
