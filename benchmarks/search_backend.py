"""Search latency of one stored group per embed backend (``embed_backend``: numpy, auto,
onnx), each search's operators broken down, and whether the backends rank the same.

Every question is asked once per backend, the backends taking turns question by question
(a busy moment of a shared machine falls on both), after one warm-up pass per backend that
is not counted (it loads the model and, for ``auto``, builds or reads the ONNX one).

    python benchmarks/search_backend.py ../shared/data/locomo-dev.json --uri bolt://… \\
        --prefix mp- --embedder mpnet --embedder-path DIR --backends numpy,auto

The store must hold the file's conversations ingested with that embedder under
``prefix + conversation id`` (``benchmarks/tune_weights.py --keep`` leaves them so).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cogmem.api import Memory  # noqa: E402
from cogmem.bench.common import percentile  # noqa: E402
from cogmem.bench.locomo import EvidenceStats, load_questions  # noqa: E402
from cogmem.ingest import read_file  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
K = 10


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-layout file")
    parser.add_argument("--uri", required=True, help="Bolt URI of the store")
    parser.add_argument("--prefix", default="tune-weights-")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--embedder-path", help="the model folder (mpnet)")
    parser.add_argument("--backends", default="numpy,auto")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--name", default="search_backend")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    conversations = read_file(args.path, "locomo").conversations
    questions = load_questions(args.path, conversations, {1, 2, 3, 4}, EvidenceStats())
    settings: dict[str, Any] = {"embedder": args.embedder}
    if args.embedder_path:
        settings["embedder_path"] = args.embedder_path
    memories = {b: Memory.connect(args.uri, embed_backend=b, **settings) for b in backends}
    seconds: dict[str, list[dict[str, float]]] = {b: [] for b in backends}
    rankings: dict[str, list[list[str]]] = {b: [] for b in backends}
    for conv in conversations:
        groups = {b: memories[b].for_group(args.prefix + conv.id) for b in backends}
        asked = [q.question for q in questions if q.conversation == conv.id]
        for b in backends:  # warm-up: model, ONNX session, the group's copy
            groups[b].retrieve(asked[0], k=K)
        for question in asked:
            for b in backends:
                result = groups[b].retrieve(question, k=K)
                seconds[b].append(dict(result.seconds))
                rankings[b].append([e.turn_source_id or "" for e in result.evidence])
    rows = []
    for b in backends:
        totals = [s["total"] * 1000 for s in seconds[b]]
        operators = sorted({op for s in seconds[b] for op in s if op != "total"})
        rows.append(
            {
                "backend": b,
                "searches": len(totals),
                "p50_ms": statistics.median(totals),
                "p95_ms": percentile(totals, 95),
                "mean_ms": {
                    op: statistics.mean(s.get(op, 0.0) * 1000 for s in seconds[b])
                    for op in operators
                },
                "same_ranking_as_first": sum(
                    a == c for a, c in zip(rankings[b], rankings[backends[0]], strict=True)
                )
                / len(rankings[b]),
            }
        )
    data = {
        "command": "python benchmarks/search_backend.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "embedder": args.embedder,
        "rows": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(data, indent=2) + "\n")
    operators = sorted({op for r in rows for op in r["mean_ms"]})
    lines = [
        f"# Search latency per embed backend ({args.embedder})",
        "",
        f"`{data['command']}`",
        "",
        f"k = {K}; the backends took turns question by question; means per operator in ms.",
        "",
        "| backend | searches | p50 ms | p95 ms | "
        + " | ".join(operators)
        + f" | same top {K} as {backends[0]} |",
        "|---|---|---|---|" + "---|" * len(operators) + "---|",
    ]
    for r in rows:
        cells = " | ".join(f"{r['mean_ms'][op]:.1f}" for op in operators)
        lines.append(
            f"| {r['backend']} | {r['searches']} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | "
            f"{cells} | {100 * r['same_ranking_as_first']:.1f} % |"
        )
    (args.out / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
