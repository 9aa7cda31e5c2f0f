"""Search latency on one conversation of a LoCoMo-layout file (issue 52: the largest REALTALK
dev chat, realtalk-5, 1,548 turns), warm and cold, with its ingest rate:

    python benchmarks/chat_latency.py ../shared/data/realtalk-dev.json realtalk-5 \\
        --uri bolt://127.0.0.1:7687 [--reuse] [--cold-runs 10]

* **ingest**: turns/s of ``Memory.ingest_conversations`` for the conversation (skipped with
  ``--reuse`` when the group holds a complete ingest);
* **warm**: every question of the conversation through ``Memory.retrieve(k=10)`` (what
  ``Memory.search`` runs) in a process that has read the group (``search_cache = eager``),
  after one untimed pass, with where each search's time goes (embedding, each operator,
  the Python between them);
* **cold**: the first ``Memory.search`` of a fresh process (``search_cache = auto``, the
  default: Neo4j's indexes answer while the copy is read behind), with the embedding model
  already loaded, one process per run, each a different question; also every question
  through Neo4j's indexes alone (``search_cache = off``) in one process, the path a cold
  process takes.

Results go to ``benchmarks/results/<name>.md`` and ``.json``. Absolute times on a 2-core
machine are noisy: the load average at the start and end is written beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from cogmem.api import Memory
from cogmem.bench.common import machine_info
from cogmem.ingest.readers import read_file

COLD_PROBE = """
import json, sys, time
from cogmem.api import Memory
uri, group, question = sys.argv[1:4]
mem = Memory.connect(uri, group=group, search_cache="auto")
mem.embedder.embed_query("warm the model")  # the model is loaded: what is timed is the search
started = time.perf_counter()
mem.search(question, k=10)
print(json.dumps({"ms": 1000 * (time.perf_counter() - started)}))
mem.close()
"""


def percentiles(ms: list[float]) -> dict[str, float]:
    return {
        "n": len(ms),
        "p50_ms": round(float(np.percentile(ms, 50)), 1),
        "p95_ms": round(float(np.percentile(ms, 95)), 1),
    }


def timed_searches(
    mem: Memory, questions: list[str], parts: dict[str, list[float]] | None = None
) -> list[float]:
    """Each question's search time (ms); with ``parts``, each part's time of each search
    (ms: embedding, each operator's round trips and row reading, and the Python between)."""
    out = []
    for q in questions:
        started = time.perf_counter()
        retrieval = mem.retrieve(q, k=10)
        out.append(1000 * (time.perf_counter() - started))
        if parts is not None:
            for part, seconds in retrieval.seconds.items():
                parts.setdefault(part, []).append(1000 * seconds)
    return out


def breakdown(parts: dict[str, list[float]], searches: int) -> dict[str, dict[str, float]]:
    """Per part: its mean over all searches (0 where a search skipped it) and its p95."""
    return {
        part: {
            "mean_ms": round(sum(ms) / searches, 2),
            "p95_ms": round(float(np.percentile(ms + [0.0] * (searches - len(ms)), 95)), 1),
        }
        for part, ms in parts.items()
    }


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("sample")
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"))
    ap.add_argument("--group", default=None, help="group name (default: latency-<sample>)")
    ap.add_argument("--reuse", action="store_true", help="keep a complete earlier ingest")
    ap.add_argument("--cold-runs", type=int, default=10)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    ap.add_argument("--name", default="chat_latency")
    args = ap.parse_args(argv)
    if not args.path.is_file():
        raise SystemExit(f"{args.path}: no such file")
    convs = [c for c in read_file(args.path, "locomo").conversations if c.id == args.sample]
    if not convs:
        raise SystemExit(f"{args.path}: no conversation {args.sample!r}")
    conv = convs[0]
    raw = json.loads(args.path.read_text())
    questions = [q["question"] for s in raw if s["sample_id"] == args.sample for q in s["qa"]]
    group = args.group or f"latency-{args.sample}"
    started_load = load()
    data: dict[str, Any] = {"sample": args.sample, "turns": len(conv.turns), "group": group}
    with Memory.connect(args.uri, group=group, search_cache="eager") as mem:
        data["machine"] = machine_info(mem, embedder=mem.embedder.name, uri=args.uri)
        if args.reuse and any(c["complete"] for c in mem.inspect.conversations()):
            data["ingest"] = None
        else:
            mem.forget()
            started = time.perf_counter()
            mem.ingest_conversations([conv], fmt="locomo")
            seconds = time.perf_counter() - started
            data["ingest"] = {
                "seconds": round(seconds, 1),
                "turns_per_s": round(len(conv.turns) / seconds, 1),
            }
        mem.admin.await_indexes(seconds=600)
        timed_searches(mem, questions)  # reads the group, warms Neo4j and the caches
        parts: dict[str, list[float]] = {}
        data["warm"] = percentiles(timed_searches(mem, questions, parts))
        data["warm_parts"] = breakdown(parts, len(questions))
    with Memory.connect(args.uri, group=group, search_cache="off") as mem:
        timed_searches(mem, questions[:3])
        parts = {}
        data["neo4j_only"] = percentiles(timed_searches(mem, questions, parts))
        data["neo4j_only_parts"] = breakdown(parts, len(questions))
    cold = []
    for i in range(args.cold_runs):
        question = questions[i % len(questions)]
        out = subprocess.run(
            [sys.executable, "-c", COLD_PROBE, args.uri, group, question],
            check=True,
            capture_output=True,
            text=True,
        )
        cold.append(json.loads(out.stdout.strip().splitlines()[-1])["ms"])
    data["cold_first_search"] = percentiles(cold)
    data["load_average"] = {"start": started_load, "end": load()}
    data["command"] = " ".join(["chat_latency.py", *(argv or sys.argv[1:])])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(data, indent=2) + "\n")
    (args.out / f"{args.name}.md").write_text(markdown(data))
    print(markdown(data))
    return 0


def markdown(d: dict[str, Any]) -> str:
    m = d["machine"]
    ingest = d["ingest"]
    rows = [
        ("warm: Memory.search, the process's copy (eager)", d["warm"]),
        ("Neo4j's indexes alone (off): the path of a cold process", d["neo4j_only"]),
        ("cold: a fresh process's first search (auto), model loaded", d["cold_first_search"]),
    ]
    lines = [
        f"# Search latency on {d['sample']} ({d['turns']} turns)",
        "",
        f"{m.get('cores')} cores ({m.get('cpu')}), Neo4j {m.get('neo4j')}, embedder "
        f"{m.get('embedder')}; load average at start / end: {d['load_average']['start']} / "
        f"{d['load_average']['end']}",
        "",
        f"`{d['command']}`",
        "",
        "Ingest: "
        + (
            f"{ingest['turns_per_s']} turns/s ({ingest['seconds']} s)"
            if ingest
            else "kept from an earlier run (--reuse)"
        ),
        "",
        "| search | searches | p50 ms | p95 ms |",
        "|---|---|---|---|",
        *[f"| {label} | {r['n']} | {r['p50_ms']} | {r['p95_ms']} |" for label, r in rows],
        "",
    ]
    warm, off = d.get("warm_parts"), d.get("neo4j_only_parts")
    if warm and off:
        names = sorted(set(warm) | set(off), key=lambda n: -warm.get(n, off.get(n, {}))["mean_ms"])
        zero = {"mean_ms": 0.0, "p95_ms": 0.0}
        lines += [
            "Where a search's time goes, per part (ms: mean over all searches, 0 where one "
            "skipped the part, and p95). embed: the question's vector; an operator: its reads "
            "(of the copy, or Neo4j's round trips) and the Python that reads their rows; "
            "python: routing and ranking between them.",
            "",
            "| part | warm mean | warm p95 | Neo4j alone mean | Neo4j alone p95 |",
            "|---|---|---|---|---|",
            *[
                f"| {n} | {warm.get(n, zero)['mean_ms']} | {warm.get(n, zero)['p95_ms']} | "
                f"{off.get(n, zero)['mean_ms']} | {off.get(n, zero)['p95_ms']} |"
                for n in names
            ],
            "",
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
