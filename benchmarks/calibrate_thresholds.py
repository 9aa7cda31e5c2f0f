"""Consolidation's cosine thresholds for another embedder, measured on conversations.

Claim grouping (``claim_similarity``), REFERENCES (``reference_threshold``) and CAUSES
(``causal_threshold``) compare two records' cosine with a fixed number. Those numbers were
chosen on all-MiniLM-L6-v2's cosine scale; another model spreads the same pairs over another
range (all-mpnet-base-v2 gives fewer high cosines), so the same number means a stricter or
looser rule. This script measures, for each threshold, the share of a conversation's record
pairs (the pairs the links job compares: one conversation, at most ``link_window_turns``
apart) that MiniLM puts at or above it, and the cosine at which the other embedder keeps the
same share: the threshold that makes the other embedder take as many decisions. It also says
how far the two models agree on *which* pairs (Jaccard of the pair sets), with the MiniLM
number and with the matched one, and repeats the measurement on each conversation alone, so
the spread between conversations shows how stable the matched value is.

Each conversation of the file is ingested into its own group (``PREFIX + sample_id``) with the
configured (MiniLM) embedder; the records' contents are then embedded by the other one:

    python benchmarks/calibrate_thresholds.py ../shared/data/locomo-dev.json \\
        --uri bolt://127.0.0.1:7802 --embedder mpnet --embedder-path /tmp/mpnet

Results go to ``benchmarks/results/thresholds_<embedder>.md`` and ``.json``; the values that
cogmem uses are in :data:`cogmem.consolidate.thresholds.BY_EMBEDDER`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from cogmem.api import Memory
from cogmem.bench import common
from cogmem.consolidate import ConsolidationSettings
from cogmem.consolidate.base import LINK_TYPES_DEFAULT
from cogmem.embed import make_embedder
from cogmem.ingest import read_file

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
TYPES = [*LINK_TYPES_DEFAULT, "Claim", "Event"]
"""The records compared: those the links job links, and the claims and events the claim
and fact jobs read (one scale for every cosine rule)."""
THRESHOLDS = ("claim_similarity", "reference_threshold", "causal_threshold")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-style JSON file")
    parser.add_argument("--uri", required=True, help="Bolt URI of the Neo4j to ingest into")
    parser.add_argument("--embedder", required=True, help="the embedder to calibrate (mpnet)")
    parser.add_argument("--embedder-path", default=None, help="its model folder")
    parser.add_argument("--prefix", default="calibrate-", help="group name prefix")
    parser.add_argument("--keep", action="store_true", help="keep the groups afterwards")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the results")
    return parser.parse_args(argv)


def pair_cosines(
    reference: np.ndarray, other: np.ndarray, conversation: list[str], turn: list[int], window: int
) -> tuple[np.ndarray, np.ndarray]:
    """Both embedders' cosines of every pair of records in one conversation at most
    ``window`` turns apart (the upper triangle, in the same order)."""
    conv = np.array(conversation)
    idx = np.array(turn)
    upper = np.triu_indices(len(conv), 1)
    near = (conv[:, None] == conv[None, :]) & (np.abs(idx[:, None] - idx[None, :]) <= window)
    keep = near[upper]
    return (reference @ reference.T)[upper][keep], (other @ other.T)[upper][keep]


def matched(reference: np.ndarray, other: np.ndarray, threshold: float) -> dict[str, float]:
    """The other embedder's cosine that keeps the share of pairs MiniLM keeps at
    ``threshold``, and how far the two agree on which pairs."""
    share = float((reference >= threshold).mean())
    value = float(np.quantile(other, 1.0 - share)) if share > 0 else float(other.max())
    mine = reference >= threshold

    def jaccard(theirs: np.ndarray) -> float:
        return float((mine & theirs).sum() / max(int((mine | theirs).sum()), 1))

    return {
        "reference": threshold,
        "share": share,
        "pairs": int(mine.sum()),
        "matched": round(value, 3),
        "pairs_at_reference": int((other >= threshold).sum()),
        "jaccard_at_reference": round(jaccard(other >= threshold), 3),
        "jaccard_matched": round(jaccard(other >= value), 3),
    }


def markdown(data: dict[str, Any]) -> str:
    lines = [
        f"# Consolidation thresholds for `{data['embedder']}`, matched to MiniLM's",
        "",
        common.machine_line(data["machine"]),
        "",
        f"`{data['command']}`",
        "",
        f"{data['records']} records ({', '.join(TYPES)}) of {len(data['conversations'])} "
        f"conversations, {data['pairs']} pairs (one conversation, at most "
        f"{data['window']} turns apart). For each threshold: the share of those pairs MiniLM "
        f"puts at or above it, the `{data['embedder']}` cosine that keeps the same share, "
        "and how far the two agree on which pairs (Jaccard of the two pair sets) with "
        "MiniLM's number and with the matched one. Then the matched value on each "
        "conversation alone.",
        "",
        "| threshold | MiniLM | share of pairs | matched | pairs at MiniLM's number (MiniLM: "
        "pairs) | Jaccard at MiniLM's number | Jaccard matched | "
        + " | ".join(f"matched on {c} alone" for c in data["conversations"])
        + " |",
        "|---|---|---|---|---|---|---|" + "---|" * len(data["conversations"]),
    ]
    for name in THRESHOLDS:
        row = data["all"][name]
        alone = [str(data["by_conversation"][c][name]["matched"]) for c in data["conversations"]]
        lines.append(
            f"| {name} | {row['reference']} | {row['share']:.2%} | **{row['matched']}** | "
            f"{row['pairs_at_reference']} ({row['pairs']}) | {row['jaccard_at_reference']} | "
            f"{row['jaccard_matched']} | " + " | ".join(alone) + " |"
        )
    lines += [
        "",
        f"Embedding the records with `{data['embedder']}` took {data['embed_seconds']} s.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    conversations = read_file(args.path, "locomo").conversations
    if not conversations:
        raise SystemExit(f"{args.path}: no conversation")
    memory = Memory.connect(args.uri)
    reference = ConsolidationSettings()  # MiniLM's numbers
    other = make_embedder(
        memory.settings.model_copy(
            update={"embedder": args.embedder, "embedder_path": args.embedder_path}
        )
    )
    rows: list[dict[str, Any]] = []
    try:
        for conv in conversations:
            mem = memory.for_group(f"{args.prefix}{conv.id}")
            mem.forget()
            log(f"ingesting {conv.id}: {len(conv.turns)} turns")
            mem.ingest_conversations([conv], fmt="locomo")
            read = mem.inspect.link_candidates(TYPES)
            rows += [{**r, "conversation_id": conv.id} for r in read]
        name, uri = memory.embedder.name, memory.settings.neo4j_uri
        info = common.machine_info(memory, embedder=name, uri=uri)
    finally:
        common.finish_groups(memory, [f"{args.prefix}{c.id}" for c in conversations], args.keep)
    rows = [r for r in rows if r["embedding"] is not None and r["turn_idx"] is not None]
    log(f"embedding {len(rows)} records with {other.name}")
    started = time.perf_counter()
    theirs = other.embed([str(r["content"] or "") for r in rows])
    embed_seconds = round(time.perf_counter() - started, 1)
    ours = np.array([r["embedding"] for r in rows], dtype=np.float32)
    conv_ids = [str(r["conversation_id"]) for r in rows]
    turns = [int(r["turn_idx"]) for r in rows]
    window = reference.link_window_turns

    def measured(keep: list[int]) -> tuple[dict[str, Any], int]:
        """Each threshold matched over the pairs of the records ``keep``, and their count."""
        a, b = pair_cosines(
            ours[keep], theirs[keep], [conv_ids[i] for i in keep], [turns[i] for i in keep], window
        )
        return {name: matched(a, b, getattr(reference, name)) for name in THRESHOLDS}, a.size

    everything = list(range(len(rows)))
    overall, pairs = measured(everything)
    names = list(dict.fromkeys(conv_ids))
    data: dict[str, Any] = {
        "date": common.now_iso(),
        "command": common.command_line(),
        "machine": info,
        "embedder": other.name,
        "records": len(rows),
        "pairs": pairs,
        "window": window,
        "embed_seconds": embed_seconds,
        "conversations": names,
        "all": overall,
        "by_conversation": {
            c: measured([i for i in everything if conv_ids[i] == c])[0] for c in names
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"thresholds_{other.name}"
    stem.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n")
    stem.with_suffix(".md").write_text(markdown(data))
    print(markdown(data))
    return 0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
