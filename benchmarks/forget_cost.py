"""What forgetting costs (issue 50): forgetting one turn and one whole conversation in a large
group, p95 over a few runs, on the offline embedder and the heuristic extractor.

The group is grown by ingesting the forget test chat (tests/data/forget/ines_tariq.jsonl, 14
turns in 4 sessions) again and again as new conversations (ids ``c00000``, ``c00001``, …):
real turns, records, evidence, NEXT chains and entities shared across conversations (the same
two persons and their concepts: the worst case for a forget, whose entities are evidenced by
every conversation), until the group holds ``--target`` nodes (turns and records) or
``--budget-s`` seconds of ingest have passed, whichever comes first; the size reached is
written down as it is. Each run forgets one turn of another conversation (``f04``) and one
whole other conversation; every forget is timed end to end (``Memory.forget_turns`` /
``forget_conversation``: plan, facts, write, stale check).

    .venv/bin/python benchmarks/forget_cost.py [--target 100000] [--budget-s 300] [--runs 7]

Neo4j: ``NEO4J_URI`` when set, else a throwaway local server (``cogmem neo4j install``'s)
started on free ports and stopped afterwards. Writes benchmarks/results/forget_cost.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cogmem.api import Memory  # noqa: E402
from cogmem.config import Settings, load_settings  # noqa: E402
from cogmem.server import local as localserver  # noqa: E402

CHAT = ROOT / "tests" / "data" / "forget" / "ines_tariq.jsonl"
RESULTS = ROOT / "benchmarks" / "results"
LINES = [json.loads(line) for line in CHAT.read_text().splitlines() if line.strip()]


@contextmanager
def neo4j() -> Iterator[Settings]:
    if os.environ.get("NEO4J_URI"):
        yield load_settings()
        return
    home = load_settings().home
    localserver.install(home)
    with tempfile.TemporaryDirectory(prefix="forget-cost-") as tmp:
        inst = Path(tmp)
        state, _ = localserver.start(
            inst,
            home,
            bolt_port=localserver.free_port(),
            http_port=localserver.free_port(),
            auth=False,
            heap="1g",
            pagecache="512m",
        )
        try:
            yield load_settings({"neo4j_uri": state.bolt_uri, "neo4j_password": None})
        finally:
            localserver.stop(inst)


def batch(path: Path, first: int, count: int) -> Path:
    """``count`` copies of the chat as conversations ``c{first}`` … (JSONL)."""
    with path.open("w", encoding="utf-8") as fh:
        for n in range(first, first + count):
            for line in LINES:
                fh.write(json.dumps({**line, "conversation": f"c{n:05d}"}) + "\n")
    return path


def size(mem: Memory) -> dict[str, int]:
    counts = mem.inspect.counts()
    labels = counts["labels"]
    return {
        "nodes": int(counts["nodes"]),
        "records": int(labels.get("Memory", 0)),
        "turns": int(labels.get("Turn", 0)),
        "relationships": sum(counts["relationships"].values()),
    }


def p95(xs: list[float]) -> float:
    ordered = sorted(xs)
    return ordered[max(0, round(0.95 * len(ordered) + 0.5) - 1)] if ordered else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=int, default=100_000, help="nodes (turns + records)")
    ap.add_argument("--budget-s", type=float, default=300.0, help="seconds of growing, at most")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--per-batch", type=int, default=50, help="conversations per ingest")
    args = ap.parse_args()
    with neo4j() as settings:
        base = Memory(settings.model_copy(update={"llm": "none"}))
        mem = base.for_group(f"bench-forget-{uuid.uuid4().hex[:8]}")
        mem.admin.ensure_schema()
        started, made, nodes = time.perf_counter(), 0, 0
        with tempfile.TemporaryDirectory() as tmp:
            while nodes < args.target and time.perf_counter() - started < args.budget_s:
                mem.ingest(batch(Path(tmp) / "batch.jsonl", made, args.per_batch))
                made += args.per_batch
                counted = size(mem)
                nodes = counted["records"] + counted["turns"]
                print(f"{made} conversations, {counted}", flush=True)
        grow_s = time.perf_counter() - started
        mem.consolidate()
        counted = size(mem)
        one_turn: list[float] = []
        one_conv: list[float] = []
        for run in range(args.runs):
            t0 = time.perf_counter()
            s = mem.forget_turns(["f04"], f"c{2 * run:05d}", actor="bench")
            one_turn.append(time.perf_counter() - t0)
            assert s.turn_count == 1
            t0 = time.perf_counter()
            s = mem.forget_conversation(f"c{2 * run + 1:05d}", actor="bench")
            one_conv.append(time.perf_counter() - t0)
            assert s.turn_count == len(LINES)
            print(f"run {run}: turn {one_turn[-1]:.3f} s, conversation {one_conv[-1]:.3f} s")
        mem.forget()
        base.close()
    out = {
        "group": {"conversations": made, "counts": counted, "grow_s": round(grow_s, 1)},
        "target_nodes": args.target,
        "reached_target": nodes >= args.target,
        "runs": args.runs,
        "forget_one_turn_s": {
            "p50": round(statistics.median(one_turn), 4),
            "p95": round(p95(one_turn), 4),
            "all": [round(x, 4) for x in one_turn],
        },
        "forget_one_conversation_s": {
            "p50": round(statistics.median(one_conv), 4),
            "p95": round(p95(one_conv), 4),
            "all": [round(x, 4) for x in one_conv],
        },
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared), "
        f"Python {platform.python_version()}",
        "command": "python benchmarks/forget_cost.py " + " ".join(sys.argv[1:]),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "forget_cost.json").write_text(json.dumps(out, indent=2) + "\n")
    reached = "reached" if out["reached_target"] else "NOT reached (time budget)"
    md = [
        "# Forgetting cost (issue 50)",
        "",
        f"`{out['command']}` on {out['machine']}; offline embedder, heuristic extractor.",
        "",
        f"Group: {made} conversations of the forget test chat, {counted} "
        f"(target {args.target} nodes: {reached}; grown in {grow_s:.0f} s), consolidated.",
        "",
        "| operation | runs | p50 s | p95 s |",
        "|---|---|---|---|",
        f"| forget one turn | {args.runs} | {out['forget_one_turn_s']['p50']} | "
        f"{out['forget_one_turn_s']['p95']} |",
        f"| forget one conversation (14 turns) | {args.runs} | "
        f"{out['forget_one_conversation_s']['p50']} | {out['forget_one_conversation_s']['p95']} |",
        "",
        "Every conversation evidences the same two persons and their concepts, so each forget "
        "re-dates and re-aliases entities with evidence in every conversation (the worst "
        "case for the entity refresh); the p95 of a few runs is their maximum.",
        "",
    ]
    (RESULTS / "forget_cost.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
