"""Ingest benchmark: throughput (turns/s) and peak memory on a LoCoMo file, plus the checks
that the graph is what it should be (one Turn per turn, both speakers as Persons, every
record type present, an EVIDENCED_BY edge on every record, every quote a substring of its
turn, and a second ingest that changes no count)."""

from __future__ import annotations

import resource
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from cogmem.ingest import read_file
from cogmem.models import RecordType

RECORD_TYPES = tuple(t.value for t in RecordType)


class IngestCheck(BaseModel):
    conversation: str
    turns_in_file: int
    turn_nodes: int
    speakers: list[str]
    speakers_as_persons: bool
    records_by_type: dict[str, int]
    missing_types: list[str]
    records_without_evidence: int
    quotes_not_in_turn: int
    reingest_changed_counts: bool


class IngestReport(BaseModel):
    path: str
    turns: int
    seconds: float
    turns_per_s: float
    reingest_seconds: float
    python_peak_mib: float
    process_peak_rss_mib: float
    extracted: dict[str, int]
    dropped: int
    checks: list[IngestCheck]
    extractor: str
    embedder: str


def run_ingest(
    memory: Any, path: Path, group_prefix: str = "bench-ingest", keep: bool = False
) -> IngestReport:
    conversations = read_file(path).conversations
    checks: list[IngestCheck] = []
    extracted: Counter[str] = Counter()
    seconds = reingest = 0.0
    dropped = 0
    memory.embedder.embed(["warm up"])  # load the model outside the timing
    peak = 0
    for conv in conversations:
        mem = memory.for_group(f"{group_prefix}-{conv.id}")
        mem.forget()
        started = time.perf_counter()
        summary = mem.ingest_conversations([conv], batch_size=64)
        seconds += time.perf_counter() - started
        extracted.update(summary.records)
        dropped += summary.dropped
        first = mem.counts()
        # tracemalloc slows allocation down severalfold, so the heap is traced during the
        # re-ingest (the same work) and the first ingest's throughput stays unbiased
        tracemalloc.start()
        started = time.perf_counter()
        mem.ingest_conversations([conv], batch_size=64)
        reingest += time.perf_counter() - started
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        second = mem.counts()
        checks.append(_check(mem, conv.id, len(conv.turns), conv.speakers, first, second))
        if not keep:
            mem.forget()
    turns = sum(len(c.turns) for c in conversations)
    return IngestReport(
        path=str(path),
        turns=turns,
        seconds=round(seconds, 2),
        turns_per_s=round(turns / seconds, 1) if seconds else 0.0,
        reingest_seconds=round(reingest, 2),
        python_peak_mib=round(peak / 2**20, 1),
        process_peak_rss_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        extracted=dict(extracted),
        dropped=dropped,
        checks=checks,
        extractor=memory.extractor.name,
        embedder=memory.embedder.name,
    )


def _check(
    mem: Any,
    conv_id: str,
    turns: int,
    speakers: list[str],
    first: dict[str, Any],
    second: dict[str, Any],
) -> IngestCheck:
    rows = mem.records()
    by_type = Counter(r["type"] for r in rows)
    persons = {r["name"] for r in rows if r["type"] == "Person"}
    no_evidence = sum(1 for r in rows if not r["turn_texts"])
    bad_quotes = sum(
        1
        for r in rows
        if r["type"] not in ("Person", "Concept")
        and r["quote"]
        and not any(r["quote"] in t for t in r["turn_texts"])
    )
    return IngestCheck(
        conversation=conv_id,
        turns_in_file=turns,
        turn_nodes=first["labels"].get("Turn", 0),
        speakers=speakers,
        speakers_as_persons=set(speakers) <= persons,
        records_by_type=dict(by_type),
        missing_types=[t for t in RECORD_TYPES if by_type.get(t, 0) == 0],
        records_without_evidence=no_evidence,
        quotes_not_in_turn=bad_quotes,
        reingest_changed_counts=first != second,
    )


def markdown(report: IngestReport) -> str:
    lines = [
        f"Ingest of {report.path}: {report.turns} turns in {report.seconds:.1f}s = "
        f"**{report.turns_per_s:.1f} turns/s** (extractor {report.extractor}, embedder "
        f"{report.embedder}, batches of 64 turns). A second ingest of the same file took "
        f"{report.reingest_seconds:.1f}s under tracemalloc, which measured the peak Python "
        f"heap: {report.python_peak_mib:.0f} MiB; "
        f"peak process RSS {report.process_peak_rss_mib:.0f} MiB (model included).",
        "",
        "| conversation | turns in file | Turn nodes | speakers as Persons | records without "
        "EVIDENCED_BY | quotes not in their turn | re-ingest changed counts | missing types |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in report.checks:
        lines.append(
            f"| {c.conversation} | {c.turns_in_file} | {c.turn_nodes} | "
            f"{'yes' if c.speakers_as_persons else 'NO'} | {c.records_without_evidence} | "
            f"{c.quotes_not_in_turn} | {'YES' if c.reingest_changed_counts else 'no'} | "
            f"{', '.join(c.missing_types) or 'none'} |"
        )
    lines += [
        "",
        "Records (nodes) by type, per conversation:",
        "",
        "| conversation | " + " | ".join(RECORD_TYPES) + " |",
        "|---|" + "---|" * len(RECORD_TYPES),
    ]
    for c in report.checks:
        lines.append(
            f"| {c.conversation} | "
            + " | ".join(str(c.records_by_type.get(t, 0)) for t in RECORD_TYPES)
            + " |"
        )
    lines += [
        "",
        "Extracted records (mentions, before merging entities): "
        + ", ".join(f"{k} {v}" for k, v in sorted(report.extracted.items()))
        + f"; dropped for a quote not in the turn: {report.dropped}.",
    ]
    return "\n".join(lines)
