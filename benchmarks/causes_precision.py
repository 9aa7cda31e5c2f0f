"""Precision of CAUSES links on a LoCoMo dev conversation, for hand labelling.

Ingests one conversation (optionally its first --turns turns) into a fresh group on the
server you name, runs the links job, samples up to --sample CAUSES edges and prints each
with both records and their turns, so a person can judge "did the first lead to the
second?". Labels live in benchmarks/results/causes_labels.json; --labels scores a run
against them (edges are keyed by the two quotes, so they survive a re-ingest).

Run it once per code version, e.g. before the causal-cue rule (a worktree of 57eed70):

    PYTHONPATH=/work/baseline-u1 .venv/bin/python benchmarks/causes_precision.py \\
        --uri bolt://127.0.0.1:7757 --label before
    .venv/bin/python benchmarks/causes_precision.py --uri bolt://127.0.0.1:7757 --label after
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import cogmem
from cogmem import Memory
from cogmem.ingest import read_file

DATA = Path("/work/shared/data/locomo-dev.json")
LABELS = Path(__file__).parent / "results" / "causes_labels.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uri", required=True)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument(
        "--conversation", type=int, action="append", help="index in the file (repeat; default all)"
    )
    ap.add_argument("--turns", type=int, default=0, help="only the first N turns (0: all)")
    ap.add_argument("--sample", type=int, default=0, help="label at most N edges (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--label", required=True, help="name of this run (before / after)")
    ap.add_argument("--out", type=Path, default=None, help="write the sampled edges as JSON")
    args = ap.parse_args()

    every = read_file(args.data, "locomo").conversations
    convs = [every[i] for i in (args.conversation or range(len(every)))]
    if args.turns:
        convs = [c.model_copy(update={"turns": c.turns[: args.turns]}) for c in convs]
    mem = Memory.connect(args.uri, group=f"causes-{args.label}")
    try:
        mem.admin.ensure_schema()
        mem.forget()
        mem.ingest_conversations(convs)
        report = mem.consolidate(jobs=["links"])
        records = {
            r["id"]: r for r in mem.inspect.link_candidates(["KeyFact", "Reminder", "Decision"])
        }
        edges = [e for e in mem.inspect.job_edges("link") if e["type"] == "CAUSES"]
    finally:
        mem.close()
    random.Random(args.seed).shuffle(edges)
    sample = edges[: args.sample] if args.sample else edges
    rows: list[dict[str, Any]] = []
    for e in sample:
        a, b = records[e["src"]], records[e["dst"]]
        row = {
            "key": f"{a['quote']} => {b['quote']}",
            "rule": e["rule"],
            "conversation": a["conversation_id"],
            "cause": {k: a[k] for k in ("type", "quote", "turn_idx", "turn_text")},
            "effect": {k: b[k] for k in ("type", "quote", "turn_idx", "turn_text")},
        }
        rows.append(row)
        print(f"[{len(rows)}] {e['rule']} {a['conversation_id']}")
        for side, r in (("CAUSE ", a), ("EFFECT", b)):
            print(
                f"  {side} {r['type']} @{r['turn_idx']}: {r['quote']}\n    turn: {r['turn_text']}"
            )
        print()
    labels = json.loads(LABELS.read_text()) if LABELS.exists() else {}
    judged = [labels[r["key"]]["causal"] for r in rows if r["key"] in labels]
    for r in rows:
        r["label"] = labels.get(r["key"])
    summary = {
        "label": args.label,
        "code": str(Path(cogmem.__file__).parent.parent),
        "conversations": [c.id for c in convs],
        "turns": sum(len(c.turns) for c in convs),
        "causes_edges": len(edges),
        "sampled": len(rows),
        "labelled": len(judged),
        "precision": round(sum(judged) / len(judged), 3) if judged else None,
        "causes_created": report.causes_created,
    }
    print(json.dumps(summary))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "edges": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
