"""Ingest benchmark: throughput (turns/s) and peak memory on a LoCoMo file, plus the checks
that the graph is what it should be (one Turn per turn, both speakers as Persons, every
record type present, an EVIDENCED_BY edge on every record, every quote a substring of its
turn, and a second ingest that changes no count).

Measured in the same run, for ratios that hold on a busy machine: the raw embedding
throughput of the same turn texts with the same model and batches (the physical limit of
an ingest that embeds each turn), ``Memory.add_turn`` latency per live turn (warm), and
the first ``cogmem ask`` of a fresh process (cold start) against a warm one."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from cogmem.bench.common import percentile
from cogmem.ingest import read_file
from cogmem.ingest.rows import turn_embed_text
from cogmem.models import Conversation, RecordType

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


class AddTurnReport(BaseModel):
    turns: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    # Memory.queue_turn, the same turns one every pace_ms: the call, and until written
    pace_ms: float = 0.0
    queued_p50_ms: float = 0.0
    queued_p95_ms: float = 0.0
    queued_max_ms: float = 0.0
    written_p50_ms: float = 0.0
    written_p95_ms: float = 0.0


class ColdStartReport(BaseModel):
    first_ask_s: float  # a fresh `cogmem ask` process, import and model load included
    warm_ask_ms: float  # the same question in this (warm) process


class CliRssReport(BaseModel):
    """Peak RSS of ``cogmem ingest FILE`` run alone in a child process."""

    peak_rss_mib: float
    #: the same with pandas and pyarrow unimportable, as in an install without the bge
    #: extra: the neo4j driver imports both at start when they are installed
    without_pandas_mib: float | None = None


class IngestReport(BaseModel):
    path: str
    turns: int
    seconds: float
    turns_per_s: float
    raw_embed_seconds: float
    raw_embed_turns_per_s: float
    fraction_of_raw: float
    embed_seconds: float
    write_wait_seconds: float
    add_turn: AddTurnReport | None = None
    cold_start: ColdStartReport | None = None
    cli_rss: CliRssReport | None = None
    reingest_seconds: float
    python_peak_mib: float
    process_peak_rss_mib: float
    extracted: dict[str, int]
    dropped: int
    checks: list[IngestCheck]
    extractor: str
    embedder: str


BATCH = 64  # turns per ingest batch, and per raw-embedding call


def raw_embed_seconds(embedder: Any, conversations: list[Conversation]) -> float:
    """Seconds to embed every turn text alone, ``BATCH`` turns a call: the physical limit."""
    started = time.perf_counter()
    for conv in conversations:
        for start in range(0, len(conv.turns), BATCH):
            batch = conv.turns[start : start + BATCH]
            embedder.embed([turn_embed_text(t) for t in batch])
    elapsed = time.perf_counter() - started
    tokenizer = getattr(embedder, "tokenizer", None)
    if tokenizer is not None and hasattr(tokenizer, "clear_cache"):
        tokenizer.clear_cache()  # the ingest tokenises from scratch, as it would alone
    return elapsed


def run_add_turn(memory: Any, conv: Conversation, turns: int, group: str) -> AddTurnReport:
    """``Memory.add_turn`` one turn at a time into a fresh group; latency per call, warm:
    the model is loaded, and the same turns went into a scratch group first, so the server
    has compiled every plan they need (~100 ms per statement and list-size bucket, claims'
    reconciliation included; a long-running server has them)."""
    scratch = memory.for_group(group + "-warmup")
    scratch.forget()
    for turn in conv.turns[:turns]:
        scratch.add_turn(turn.speaker, turn.full_text, at=turn.at, conversation=conv.id)
    scratch.forget()
    mem = memory.for_group(group)
    mem.forget()
    latencies: list[float] = []
    for turn in conv.turns[:turns]:
        started = time.perf_counter()
        mem.add_turn(turn.speaker, turn.full_text, at=turn.at, conversation=conv.id)
        latencies.append(time.perf_counter() - started)
    mem.forget()
    queued, written = run_queue_turn(mem, conv, turns, QUEUE_PACE_S)
    ms = lambda values, q: round(1000 * percentile(values, q), 1)  # noqa: E731
    return AddTurnReport(
        turns=len(latencies),
        p50_ms=ms(latencies, 50),
        p95_ms=ms(latencies, 95),
        max_ms=round(1000 * max(latencies), 1),
        pace_ms=1000 * QUEUE_PACE_S,
        queued_p50_ms=ms(queued, 50),
        queued_p95_ms=ms(queued, 95),
        queued_max_ms=round(1000 * max(queued), 1),
        written_p50_ms=ms(written, 50),
        written_p95_ms=ms(written, 95),
    )


QUEUE_PACE_S = 0.25
"""A fast chat: a turn every quarter second, well above a live turn's write time."""


def run_queue_turn(
    mem: Any, conv: Conversation, turns: int, pace_s: float
) -> tuple[list[float], list[float]]:
    """``Memory.queue_turn`` of the same turns into the (empty) group, one every
    ``pace_s``: seconds each call took, and seconds from each call until its turn was
    written. The group is emptied afterwards."""
    calls: list[float] = []
    written: list[float] = []
    start = time.perf_counter()
    for n, turn in enumerate(conv.turns[:turns]):
        time.sleep(max(0.0, start + n * pace_s - time.perf_counter()))
        began = time.perf_counter()
        future = mem.queue_turn(turn.speaker, turn.full_text, at=turn.at, conversation=conv.id)
        calls.append(time.perf_counter() - began)
        future.add_done_callback(lambda _f, b=began: written.append(time.perf_counter() - b))
    mem.live.flush()
    mem.forget()
    return calls, written


def run_cold_start(memory: Any, group: str, question: str) -> ColdStartReport:
    """A fresh process's first ``cogmem ask`` (imports, model load, query) against the same
    question asked in this warm process."""
    env = dict(os.environ, NEO4J_URI=memory.settings.neo4j_uri)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "cogmem.cli", "ask", question, "--group", group],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    cold = time.perf_counter() - started
    mem = memory.for_group(group)
    mem.ask(question)
    started = time.perf_counter()
    mem.ask(question)
    warm = time.perf_counter() - started
    return ColdStartReport(first_ask_s=round(cold, 2), warm_ask_ms=round(1000 * warm, 1))


#: Runs the CLI and reports its own peak RSS (KiB) on stderr's last line; argv[1] says
#: whether pandas and pyarrow are hidden, the rest is the command line. The peak is the
#: kernel's VmHWM, which starts afresh at exec (ru_maxrss would carry the parent's peak
#: over the fork).
_RSS_CHILD = """
import sys
if sys.argv[1] == "hide":
    sys.modules.update(pandas=None, pyarrow=None)
sys.argv = ["cogmem", *sys.argv[2:]]
from cogmem.cli import app
try:
    app()
finally:
    try:
        with open("/proc/self/status") as status:
            hwm = [line.split()[1] for line in status if line.startswith("VmHWM:")][0]
    except OSError:  # no /proc: the rusage peak (KiB on Linux)
        import resource
        hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(hwm, file=sys.stderr)
"""


def _has_pandas() -> bool:
    import importlib.util

    return any(importlib.util.find_spec(m) is not None for m in ("pandas", "pyarrow"))


def run_cli_rss(memory: Any, path: Path, group: str) -> CliRssReport:
    """Peak RSS of ``cogmem ingest`` of ``path`` alone, in a fresh process (then forgotten);
    again with pandas/pyarrow hidden when they are installed."""
    env = dict(os.environ, NEO4J_URI=memory.settings.neo4j_uri)
    peaks: dict[str, float] = {}
    for mode in ("keep", "hide") if _has_pandas() else ("keep",):
        done = subprocess.run(
            [sys.executable, "-c", _RSS_CHILD, mode, "ingest", str(path), "--group", group],
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        peaks[mode] = round(int(done.stderr.strip().splitlines()[-1]) / 1024, 1)
        memory.for_group(group).forget()
    return CliRssReport(peak_rss_mib=peaks["keep"], without_pandas_mib=peaks.get("hide"))


def run_ingest(
    memory: Any,
    path: Path,
    group_prefix: str = "bench-ingest",
    keep: bool = False,
    add_turns: int = 100,
    cli_rss_check: bool = True,
) -> IngestReport:
    conversations = read_file(path).conversations
    checks: list[IngestCheck] = []
    extracted: Counter[str] = Counter()
    seconds = reingest = embed = wait = 0.0
    dropped = 0
    memory.embedder.embed(["warm up"])  # load the model outside the timing
    raw = raw_embed_seconds(memory.embedder, conversations)
    peak = 0
    cold: ColdStartReport | None = None
    added = None
    if add_turns and conversations:  # first: the bulk writes below leave the server busy
        added = run_add_turn(memory, conversations[0], add_turns, f"{group_prefix}-live")
    for conv in conversations:
        mem = memory.for_group(f"{group_prefix}-{conv.id}")
        mem.forget()
        started = time.perf_counter()
        summary = mem.ingest_conversations([conv], batch_size=BATCH)
        seconds += time.perf_counter() - started
        embed += summary.embed_seconds
        wait += summary.write_wait_seconds
        extracted.update(summary.records)
        dropped += summary.dropped
        first = mem.inspect.counts()
        # tracemalloc slows allocation down severalfold, so the heap is traced during the
        # re-ingest (the same work) and the first ingest's throughput stays unbiased
        tracemalloc.start()
        started = time.perf_counter()
        mem.ingest_conversations([conv], batch_size=BATCH)
        reingest += time.perf_counter() - started
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        second = mem.inspect.counts()
        checks.append(_check(mem, conv.id, len(conv.turns), conv.speakers, first, second))
        if cold is None and conv.turns:
            cold = run_cold_start(memory, f"{group_prefix}-{conv.id}", "What did they talk about?")
        if not keep:
            mem.forget()
    cli_rss = run_cli_rss(memory, path, f"{group_prefix}-cli") if cli_rss_check else None
    turns = sum(len(c.turns) for c in conversations)
    turns_per_s = turns / seconds if seconds else 0.0
    raw_per_s = turns / raw if raw else 0.0
    return IngestReport(
        path=str(path),
        turns=turns,
        seconds=round(seconds, 2),
        turns_per_s=round(turns_per_s, 1),
        raw_embed_seconds=round(raw, 2),
        raw_embed_turns_per_s=round(raw_per_s, 1),
        fraction_of_raw=round(turns_per_s / raw_per_s, 3) if raw_per_s else 0.0,
        embed_seconds=round(embed, 2),
        write_wait_seconds=round(wait, 2),
        add_turn=added,
        cold_start=cold,
        cli_rss=cli_rss,
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
    rows = mem.inspect.records()
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
        f"Raw embedding of the same {report.turns} turn texts, same model, {BATCH} a call, "
        f"in the same run: {report.raw_embed_seconds:.1f}s = "
        f"{report.raw_embed_turns_per_s:.1f} turns/s; ingest runs at "
        f"**{report.fraction_of_raw:.2f} × raw**. Of the ingest, {report.embed_seconds:.1f}s "
        f"computed vectors (turns and records) and {report.write_wait_seconds:.1f}s waited "
        "for the writer thread (the rest of each write overlapped the next batch).",
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
    if report.add_turn is not None:
        a = report.add_turn
        lines += [
            "",
            f"`Memory.add_turn`, {a.turns} live turns one at a time into a fresh group (warm: "
            "model loaded, the same turns into a scratch group first): "
            f"p50 **{a.p50_ms:.0f} ms**, p95 **{a.p95_ms:.0f} ms**, max {a.max_ms:.0f} ms.",
        ]
        if a.pace_ms:
            lines += [
                "",
                f"`Memory.queue_turn`, the same turns one every {a.pace_ms:.0f} ms (a fast "
                "chat; written behind the caller, in order, read by the next search): the "
                f"call p50 **{a.queued_p50_ms:.1f} ms**, p95 **{a.queued_p95_ms:.1f} ms**, "
                f"max {a.queued_max_ms:.1f} ms; written {a.written_p50_ms:.0f} ms (p50) / "
                f"{a.written_p95_ms:.0f} ms (p95) after the call.",
            ]
    if report.cold_start is not None:
        cs = report.cold_start
        lines += [
            "",
            f"Cold start: the first `cogmem ask` in a fresh process took {cs.first_ask_s:.1f}s "
            f"(imports, model load, query); the same question warm: {cs.warm_ask_ms:.0f} ms.",
        ]
    if report.cli_rss is not None:
        r = report.cli_rss
        hidden = (
            f"; {r.without_pandas_mib:.0f} MiB with pandas and pyarrow hidden, as in an install "
            "without the bge extra (the neo4j driver imports both at start when installed)"
            if r.without_pandas_mib is not None
            else ""
        )
        lines += [
            "",
            f"Peak RSS of `cogmem ingest {report.path}` alone, in a process of its own: "
            f"**{r.peak_rss_mib:.0f} MiB**{hidden}.",
        ]
    return "\n".join(lines)
