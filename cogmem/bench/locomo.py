"""LoCoMo retrieval benchmark: evidence recall@k and AllHit@k per question category, for
cogmem and for flat baselines over turns, measured in the same run.

Each conversation is ingested into its own group. For cogmem the ranking is the source-turn
ids of ``Memory.search(q, k)``'s Evidence, in rank order, deduplicated. Malformed evidence
ids ("D8:6; D9:17", "D:11:26", "D30:05") are normalised; ids that point at no turn are
dropped; both are counted.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from cogmem.bench.baselines import FlatBaselines
from cogmem.bench.common import percentile
from cogmem.ingest import read_file
from cogmem.ingest.rows import short_date
from cogmem.models import Conversation
from cogmem.retrieval.vector_cache import wait_for_warm_caches

KS = (5, 10, 25)
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


class Question(BaseModel):
    conversation: str
    question: str
    category: int
    evidence: list[str]


class EvidenceStats(BaseModel):
    normalised: int = 0
    dropped: int = 0
    questions_without_evidence: int = 0


def normalise_evidence(raw: list[Any], turn_ids: set[str], stats: EvidenceStats) -> list[str]:
    """Evidence ids as turn ids that exist, in order, without duplicates."""
    out: list[str] = []
    for item in raw:
        for part in re.split(r"[;,\s]+", str(item)):
            if not part:
                continue
            m = _EVIDENCE.fullmatch(part.strip())
            if m is None:
                stats.dropped += 1
                continue
            fixed = f"D{int(m.group(1))}:{int(m.group(2))}"
            if fixed != part:
                stats.normalised += 1
            if fixed not in turn_ids:
                stats.dropped += 1
                continue
            if fixed not in out:
                out.append(fixed)
    return out


def load_questions(
    path: Path, conversations: list[Conversation], categories: set[int], stats: EvidenceStats
) -> list[Question]:
    data = json.loads(path.read_text(encoding="utf-8"))
    samples = data if isinstance(data, list) else [data]
    turn_ids = {c.id: {t.source_id for t in c.turns} for c in conversations}
    questions = []
    for sample in samples:
        cid = str(sample.get("sample_id"))
        for qa in sample.get("qa", []):
            category = int(qa.get("category", 0))
            if category not in categories or cid not in turn_ids:
                continue
            evidence = normalise_evidence(qa.get("evidence") or [], turn_ids[cid], stats)
            if not evidence:
                stats.questions_without_evidence += 1
                continue
            questions.append(
                Question(
                    conversation=cid,
                    question=str(qa["question"]),
                    category=category,
                    evidence=evidence,
                )
            )
    return questions


class Scores(BaseModel):
    """Recall@k and AllHit@k for one system, overall (category 0) and per category."""

    recall: dict[int, dict[int, float]] = Field(default_factory=dict)
    all_hit: dict[int, dict[int, float]] = Field(default_factory=dict)
    questions: dict[int, int] = Field(default_factory=dict)


def score(rankings: list[tuple[Question, list[str]]]) -> Scores:
    recall: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    hits: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q, ranked in rankings:
        seen = list(dict.fromkeys(ranked))
        for k in KS:
            top = set(seen[:k])
            found = sum(e in top for e in q.evidence)
            for cat in (0, q.category):
                recall[cat][k].append(found / len(q.evidence))
                hits[cat][k].append(float(found == len(q.evidence)))
    mean = statistics.fmean
    return Scores(
        recall={c: {k: 100 * mean(v) for k, v in ks.items()} for c, ks in recall.items()},
        all_hit={c: {k: 100 * mean(v) for k, v in ks.items()} for c, ks in hits.items()},
        questions={c: len(ks[KS[0]]) for c, ks in recall.items()},
    )


class LocomoReport(BaseModel):
    path: str
    conversations: int
    turns: int
    questions: int
    categories: list[int]
    evidence: EvidenceStats
    ingest_seconds: float
    ingest_turns_per_s: float
    search_p50_ms: float
    search_p95_ms: float
    search_k10_p50_ms: float = 0.0
    search_k10_p95_ms: float = 0.0
    first_search_ms: float = 0.0
    """The first search of a group in the process (through Neo4j, or reading the group's
    copy first with ``search_cache = eager``)."""
    baseline_p50_ms: float
    search_mean_ms: float = 0.0
    breakdown_ms: dict[str, float] = Field(default_factory=dict)
    """Mean milliseconds per search: the query embedding, each operator (its database round
    trips with the Python that reads their rows), the routing and ranking in Python, total."""
    systems: dict[str, Scores]
    embedder: str
    extractor: str
    search_cache: str = "auto"
    """How searches read each group (``Settings.search_cache``)."""


def run_locomo(
    memory: Any,
    path: Path,
    samples: set[str] | None = None,
    categories: set[int] | None = None,
    group_prefix: str = "bench-locomo",
    reuse: bool = False,
    keep: bool = False,
    log: Callable[[str], None] = print,
) -> LocomoReport:
    """Ingest, search and score. ``memory`` is a connected :class:`cogmem.api.Memory`."""
    categories = categories or {1, 2, 3, 4}
    result = read_file(path, "locomo")
    conversations = [c for c in result.conversations if not samples or c.id in samples]
    stats = EvidenceStats()
    questions = load_questions(path, conversations, categories, stats)
    by_conv: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_conv[q.conversation].append(q)

    systems: dict[str, list[tuple[Question, list[str]]]] = defaultdict(list)
    ingest_seconds = 0.0
    turns = 0
    latencies: list[float] = []
    latencies_k10: list[float] = []
    first_searches: list[float] = []
    parts: dict[str, float] = defaultdict(float)
    base_latencies: list[float] = []
    embedder = memory.embedder
    for conv in conversations:
        mem = memory.for_group(f"{group_prefix}-{conv.id}")
        turns += len(conv.turns)
        if not reuse:
            mem.forget()
            log(f"ingesting {conv.id}: {len(conv.turns)} turns")
            summary = mem.ingest_conversations([conv], fmt="locomo")
            ingest_seconds += summary.seconds
        mem.admin.await_indexes(seconds=600)
        # the first search of a group in a process: timed apart. Through Neo4j alone
        # (search_cache auto), after which the process reads its copy of the group in the
        # background; the timed searches start once it holds the copy (search_cache off:
        # every search stays on Neo4j)
        started = time.perf_counter()
        mem.retrieve("warm up", k=max(KS))
        first_searches.append(time.perf_counter() - started)
        wait_for_warm_caches()
        texts = [f"{t.speaker}: {t.full_text}" for t in conv.turns]
        dated = [f"{short_date(t.at)} {text}" for t, text in zip(conv.turns, texts, strict=True)]
        ids = [t.source_id for t in conv.turns]
        flat = FlatBaselines(texts, dated, embedder.embed)
        log(f"searching {len(by_conv[conv.id])} questions of {conv.id}")
        for q in by_conv[conv.id]:
            started = time.perf_counter()
            retrieval = mem.retrieve(q.question, k=max(KS))
            latencies.append(time.perf_counter() - started)
            evidence = retrieval.evidence
            for part, seconds in retrieval.seconds.items():
                parts[part] += seconds
            systems["cogmem"].append((q, [e.turn_source_id for e in evidence if e.turn_source_id]))
            started = time.perf_counter()
            qvec = embedder.embed_query(q.question)
            for name, order in flat.rankings(q.question, qvec).items():
                systems[name].append((q, [ids[i] for i in order[: max(KS)]]))
            base_latencies.append(time.perf_counter() - started)
        # a second pass at the default k, as an application asks, once the server has
        # seen these statements (the first pass above is its warm-up)
        for q in by_conv[conv.id]:
            started = time.perf_counter()
            mem.retrieve(q.question, k=10)
            latencies_k10.append(time.perf_counter() - started)
        if not keep and not reuse:
            mem.forget()
    return LocomoReport(
        path=str(path),
        conversations=len(conversations),
        turns=turns,
        questions=len(questions),
        categories=sorted(categories),
        evidence=stats,
        ingest_seconds=round(ingest_seconds, 2),
        ingest_turns_per_s=round(turns / ingest_seconds, 1) if ingest_seconds else 0.0,
        search_p50_ms=round(1000 * percentile(latencies, 50), 1),
        search_p95_ms=round(1000 * percentile(latencies, 95), 1),
        search_k10_p50_ms=round(1000 * percentile(latencies_k10, 50), 1),
        search_k10_p95_ms=round(1000 * percentile(latencies_k10, 95), 1),
        first_search_ms=round(1000 * statistics.fmean(first_searches or [0.0]), 1),
        baseline_p50_ms=round(1000 * percentile(base_latencies, 50), 1),
        search_mean_ms=round(1000 * statistics.fmean(latencies), 1) if latencies else 0.0,
        breakdown_ms={
            part: round(1000 * total / max(len(latencies), 1), 1) for part, total in parts.items()
        },
        systems={name: score(r) for name, r in systems.items()},
        embedder=embedder.name,
        extractor=memory.extractor.name,
        search_cache=memory.settings.search_cache,
    )


def markdown(report: LocomoReport) -> str:
    cats = report.categories
    best_flat = max(
        (n for n in report.systems if n != "cogmem"), key=lambda n: report.systems[n].recall[0][10]
    )
    head = (
        "| system | R@5 | R@10 | R@25 | AllHit@10 | "
        + " | ".join(f"R@10 cat {c} ({CATEGORY_NAMES.get(c, c)})" for c in cats)
        + " | multi-hop AllHit@10 |"
    )
    lines = [head, "|" + "---|" * (6 + len(cats))]
    order = ["cogmem", *sorted(n for n in report.systems if n != "cogmem")]
    for name in order:
        s = report.systems[name]
        cells = [f"{s.recall[0][k]:.1f}" for k in KS] + [f"{s.all_hit[0][10]:.1f}"]
        cells += [f"{s.recall.get(c, {}).get(10, 0.0):.1f}" for c in cats]
        cells.append(f"{s.all_hit.get(1, {}).get(10, 0.0):.1f}" if 1 in cats else "—")
        label = f"**{name}**" if name == "cogmem" else name
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    cog = report.systems["cogmem"].recall[0][10]
    flat = report.systems[best_flat].recall[0][10]
    lines += [
        "",
        f"cogmem R@10 {cog:.1f} vs best flat baseline in this run ({best_flat}) {flat:.1f}: "
        f"{cog - flat:+.1f} points ({cog / flat:.2f}×).",
        f"Questions: {report.questions} (categories {cats}; per category "
        + ", ".join(f"{c}: {report.systems['cogmem'].questions.get(c, 0)}" for c in cats)
        + f"). Evidence ids normalised: {report.evidence.normalised}, dropped: "
        f"{report.evidence.dropped}, questions left without evidence: "
        f"{report.evidence.questions_without_evidence}.",
        f"Ingest: {report.turns} turns in {report.ingest_seconds:.1f}s "
        f"({report.ingest_turns_per_s:.1f} turns/s, extractor {report.extractor}, embedder "
        f"{report.embedder}). Search latency at k = 10 (the default; a second pass over the "
        f"questions) p50 {report.search_k10_p50_ms:.0f} ms, p95 "
        f"{report.search_k10_p95_ms:.0f} ms; at k = 25 (the first pass, scored above, right "
        f"after the ingest) p50 {report.search_p50_ms:.0f} ms, p95 "
        f"{report.search_p95_ms:.0f} ms (all flat baselines together: p50 "
        f"{report.baseline_p50_ms:.0f} ms). Searches ran "
        + (
            "through Neo4j alone (search_cache off: no copy in process)"
            if report.search_cache == "off"
            else "from the process's copy of each group"
        )
        + f"; the first search of each group took {report.first_search_ms:.0f} ms "
        + (
            "(reading the copy first; not in the figures)."
            if report.search_cache == "eager"
            else "(through Neo4j, the copy read behind it; not in the figures)."
        ),
    ]
    if report.breakdown_ms:
        order = [
            "embed",
            "entities",
            "anchor",
            "traverse",
            "intersect",
            "ground",
            "late",
            "evidence",
        ]
        names = [n for n in order if n in report.breakdown_ms] + ["python", "total"]
        lines += [
            "",
            f"Where a search's time goes (mean ms per search; search mean "
            f"{report.search_mean_ms:.0f} ms). Operators are their database round trips with "
            "the Python that reads their rows; python is routing and ranking:",
            "",
            "| " + " | ".join(names) + " |",
            "|" + "---|" * len(names),
            "| " + " | ".join(f"{report.breakdown_ms.get(n, 0.0):.1f}" for n in names) + " |",
        ]
    return "\n".join(lines)
