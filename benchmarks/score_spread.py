"""How far apart the cosine part of the base score sets the turns a fixed bonus is weighed
among, for MiniLM's raw cosines and another embedder's pooled ones. No labels are read.

A fixed bonus (late interaction's scaled match, the claim bonus, the time window) is added
to a turn's base score next to its cosine terms; what it can change is the order of the
turns near the top, so its pull is set by how far apart their cosine terms are. For each
question this takes its best ``late_pool`` turns (as many as late interaction weighs) and
the standard deviation of their cosine part,
``turn_vector·c(turn) + record_vector·c(record) + graph·c(graph)`` with ``c`` the cosine
form each embedder ranks with; then its mean over the questions, per conversation. The
ratio of the two is the factor by which a bonus chosen with MiniLM would keep its pull.

    python benchmarks/score_spread.py ../shared/data/locomo-dev.json \\
        --minilm bolt://127.0.0.1:7802 --minilm-prefix tune-weights- \\
        --other bolt://127.0.0.1:7803 --other-prefix mp- --embedder mpnet --embedder-path DIR

Each store must hold the file's conversations ingested with its embedder under
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
from cogmem.bench.locomo import EvidenceStats, load_questions  # noqa: E402
from cogmem.ingest import read_file  # noqa: E402
from cogmem.retrieval.controller import Controller  # noqa: E402
from cogmem.retrieval.scoring import cosine_part, cosine_scale, ranked  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
CATEGORIES = {1, 2, 3, 4}
K = 10


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-layout file")
    parser.add_argument("--minilm", required=True, help="Bolt URI of the MiniLM store")
    parser.add_argument("--minilm-prefix", default="tune-weights-")
    parser.add_argument("--other", required=True, help="Bolt URI of the other embedder's store")
    parser.add_argument("--other-prefix", required=True)
    parser.add_argument("--embedder", required=True, help="the other embedder, e.g. mpnet")
    parser.add_argument("--embedder-path", help="its model folder")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--name", default="score_spread")
    return parser.parse_args(argv)


def cosine_spread(controller: Controller, question: str) -> float:
    """The standard deviation of the cosine part over the question's ``late_pool`` best
    turns."""
    plan, scores = controller.scored(question, K)
    w = controller.weights.for_intent(plan.intent)
    scale = cosine_scale(w, scores.values())
    parts = [cosine_part(w, s, scale) for s in ranked(scores)[: w.late_pool]]
    return statistics.pstdev(parts) if len(parts) > 1 else 0.0


def spreads(memory: Memory, prefix: str, by_conv: dict[str, list[str]]) -> dict[str, float]:
    """Mean spread over each conversation's questions, and over all of them."""
    out: dict[str, float] = {}
    every: list[float] = []
    for conv, questions in by_conv.items():
        controller = memory.for_group(prefix + conv).inspect.controller()
        values = [cosine_spread(controller, q) for q in questions]
        out[conv] = statistics.mean(values)
        every += values
    out["all"] = statistics.mean(every)
    return out


def markdown(data: dict[str, Any]) -> str:
    rows = [
        "# Spread of the cosine part among the turns a bonus is weighed among",
        "",
        f"`{data['command']}`",
        "",
        "Mean over the questions of the standard deviation of the cosine part of the base "
        "score over the question's best `late_pool` turns (no labels read). The ratio "
        "is the factor by which a fixed bonus chosen with MiniLM's raw cosines keeps its "
        "pull among the other embedder's pooled cosines.",
        "",
        f"| conversation | MiniLM (raw) | {data['embedder']} (pooled) | ratio |",
        "|---|---|---|---|",
    ]
    for conv, ratio in data["ratio"].items():
        rows.append(
            f"| {conv} | {data['minilm'][conv]:.3f} | {data['other'][conv]:.3f} | {ratio:.2f} |"
        )
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    conversations = read_file(args.path, "locomo").conversations
    questions = load_questions(args.path, conversations, CATEGORIES, EvidenceStats())
    by_conv = {
        c.id: [q.question for q in questions if q.conversation == c.id] for c in conversations
    }
    minilm = spreads(Memory.connect(args.minilm), args.minilm_prefix, by_conv)
    kwargs = {"embedder": args.embedder}
    if args.embedder_path:
        kwargs["embedder_path"] = args.embedder_path
    other = spreads(Memory.connect(args.other, **kwargs), args.other_prefix, by_conv)
    data = {
        "command": "python benchmarks/score_spread.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "embedder": args.embedder,
        "minilm": minilm,
        "other": other,
        "ratio": {conv: other[conv] / minilm[conv] for conv in minilm},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(data, indent=2) + "\n")
    (args.out / f"{args.name}.md").write_text(markdown(data))
    print(markdown(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
