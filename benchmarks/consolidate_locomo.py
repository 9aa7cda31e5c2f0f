"""Consolidation on LoCoMo: what the three jobs create on real conversations, and how long
they take.

Each conversation of the file is ingested into its own group (``PREFIX + sample_id``; an
already complete ingest is reused), then the jobs run three times: a dry run (what they would
do), the real run (what they did), and a second run (which must change nothing). Results go to
``benchmarks/results/consolidation.md`` and ``.json`` with the machine and the command line.

    python benchmarks/consolidate_locomo.py ../shared/data/locomo-dev.json \\
        --uri bolt://127.0.0.1:17687 --prefix cons-

The groups are deleted afterwards unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cogmem.api import Memory
from cogmem.config import load_settings
from cogmem.consolidate import ConsolidationReport, ConsolidationSettings
from cogmem.ingest import read_file

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
COUNTED: tuple[str, ...] = ("Turn", "Event", "Concept", "Person", "Claim", "Fact")
COUNTED += ("Decision", "Todo", "Reminder", "Insight")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo JSON file (list of samples)")
    parser.add_argument("--uri", help="Neo4j Bolt URI (default: NEO4J_URI / cogmem config)")
    parser.add_argument("--user", help="Neo4j user")
    parser.add_argument("--password", help="Neo4j password")
    parser.add_argument("--prefix", default="cons-", help="group name prefix (default cons-)")
    parser.add_argument("--keep", action="store_true", help="keep the groups afterwards")
    parser.add_argument(
        "--fresh", action="store_true", help="delete the groups first (no reuse of an ingest)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument("--name", default="consolidation", help="results file name (no suffix)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    return parser.parse_args(argv)


def machine(mem: Memory) -> dict[str, Any]:
    try:
        row = mem.admin.server_version()
        neo4j = f"{row['name']} {row['version']} {row['edition']}"
    except Exception:  # the description line must not fail the benchmark
        neo4j = "unknown"
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "neo4j": neo4j,
        "neo4j_uri": mem.settings.neo4j_uri,
        "embedder": mem.settings.embedder,
        "llm": mem.settings.llm,
    }


def graph_totals(mem: Memory) -> dict[str, Any]:
    counts = mem.inspect.counts()
    facts = mem.inspect.facts()
    labels = counts["labels"]
    rels = counts["relationships"]
    return {
        "records": {k: labels.get(k, 0) for k in COUNTED},
        "consolidated_facts": sum(f["status"] != "SUPERSEDED" for f in facts),
        "supported_by": rels.get("SUPPORTED_BY", 0),
        "supersedes": rels.get("SUPERSEDES", 0),
        "conflicts_with": rels.get("CONFLICTS_WITH", 0),
        "references": rels.get("REFERENCES", 0),
        "causes": rels.get("CAUSES", 0),
        "relationships": sum(rels.values()),
    }


def run_one(mem: Memory, conversation: Any, fresh: bool) -> dict[str, Any]:
    if fresh:
        mem.forget()
    done = mem.inspect.conversations()
    reused = any(c["complete"] and c["source_id"] == conversation.id for c in done)
    ingest_s = 0.0
    if not reused:
        summary = mem.ingest_conversations([conversation], fmt="locomo")
        ingest_s = summary.seconds
    dry = mem.consolidate(dry_run=True)
    before = graph_totals(mem)
    first = mem.consolidate()
    after = graph_totals(mem)
    second = mem.consolidate()
    samples = mem.inspect.fact_samples(limit=5)
    return {
        "conversation": conversation.id,
        "group": mem.group,
        "turns": len(conversation.turns),
        "ingest_reused": reused,
        "ingest_seconds": round(ingest_s, 2),
        "graph_before": before,
        "graph_after": after,
        "dry_run": dry.model_dump(mode="json"),
        "first_run": first.model_dump(mode="json"),
        "second_run": second.model_dump(mode="json"),
        "second_run_changes": second.changes,
        "dry_run_matches_first": _same_plan(dry, first),
        "fact_samples": [
            {**s, "time_start": str(s["time_start"]), "time_end": str(s["time_end"])}
            for s in samples
        ],
    }


def _same_plan(dry: ConsolidationReport, real: ConsolidationReport) -> bool:
    keys = set(ConsolidationReport.model_fields) - {
        "dry_run",
        "seconds",
        "job_seconds",
        "llm_fallbacks",
    }
    a, b = dry.model_dump(), real.model_dump()
    return all(a[k] == b[k] for k in keys)


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    lines = [
        "# Consolidation on LoCoMo",
        "",
        f"Machine: {m['cpus']} CPUs, Python {m['python']}, {m['neo4j']} ({m['neo4j_uri']}), "
        f"{m['platform']}; embedder {m['embedder']}, LLM {m['llm']} (Facts worded by the "
        "template when none).",
        "",
        f"Command: `{result['command']}`",
        "",
        f"Run at {result['when']}. Settings: `{json.dumps(result['settings'])}`",
        "",
        "## What the jobs created (first run)",
        "",
        "| conversation | turns | Events | Claims | artifacts¹ | Facts created | SUPPORTED_BY "
        "| claims CURRENT / SUPERSEDED / CONFLICTING | SUPERSEDES | CONFLICTS_WITH "
        "| REFERENCES | CAUSES | facts s | claims s | links s | total s |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    total: Counter[str] = Counter()
    for r in result["conversations"]:
        first, g = r["first_run"], r["graph_before"]["records"]
        by = first["claims_by_status"]
        arts = sum(g[k] for k in ("Decision", "Todo", "Reminder", "Insight", "Fact"))
        js = first["job_seconds"]
        lines.append(
            f"| {r['conversation']} | {r['turns']} | {g['Event']} | {g['Claim']} | {arts} "
            f"| {first['facts_created']} | {first['supported_by_created']} "
            f"| {by.get('CURRENT', 0)} / {by.get('SUPERSEDED', 0)} / {by.get('CONFLICTING', 0)} "
            f"| {first['supersedes_created']} | {first['conflicts_with_created']} "
            f"| {first['references_created']} | {first['causes_created']} "
            f"| {js.get('facts', 0):.2f} | {js.get('claims', 0):.2f} | {js.get('links', 0):.2f} "
            f"| {first['seconds']:.2f} |"
        )
        for key in (
            "facts_created",
            "supported_by_created",
            "supersedes_created",
            "conflicts_with_created",
            "references_created",
            "causes_created",
        ):
            total[key] += first[key]
        total["seconds"] += first["seconds"]
    lines += [
        "",
        "¹ link candidates: Decision, Todo, Reminder, Insight and Fact records (KeyFacts are "
        "Facts), before consolidation.",
        "",
        f"Totals: {total['facts_created']} Facts, {total['supported_by_created']} SUPPORTED_BY, "
        f"{total['supersedes_created']} SUPERSEDES, {total['conflicts_with_created']} "
        f"CONFLICTS_WITH, {total['references_created']} REFERENCES, "
        f"{total['causes_created']} CAUSES in {total['seconds']:.2f} s of consolidation.",
        "",
        "## Idempotency and dry run",
        "",
        "| conversation | dry run = first run | changes in the second run | second run s |",
        "|---|---|---:|---:|",
    ]
    for r in result["conversations"]:
        lines.append(
            f"| {r['conversation']} | {'yes' if r['dry_run_matches_first'] else 'NO'} "
            f"| {r['second_run_changes']} | {r['second_run']['seconds']:.2f} |"
        )
    lines += ["", "## Largest consolidated Facts", ""]
    for r in result["conversations"]:
        for s in r["fact_samples"]:
            lines.append(f"- {r['conversation']}: {s['content']} ({s['events']} events)")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.path.is_file():
        print(f"no such file: {args.path}", file=sys.stderr)
        return 2
    settings = load_settings(
        {"neo4j_uri": args.uri, "neo4j_user": args.user, "neo4j_password": args.password}
    )
    data = read_file(args.path, "locomo")
    conversations = data.conversations[: args.limit or None]
    base = Memory(settings)
    result: dict[str, Any] = {
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(base),
        "settings": ConsolidationSettings().model_dump(mode="json"),
        "conversations": [],
    }
    started = time.perf_counter()
    groups = []
    try:
        base.admin.ensure_schema()
        for conv in conversations:
            mem = base.for_group(args.prefix + conv.id)
            groups.append(mem)
            print(f"{conv.id}: {len(conv.turns)} turns → group {mem.group}", file=sys.stderr)
            row = run_one(mem, conv, args.fresh)
            first = row["first_run"]
            print(
                f"  facts {first['facts_created']}, supported_by "
                f"{first['supported_by_created']}, claims {first['claims_by_status']}, "
                f"references {first['references_created']}, causes {first['causes_created']}, "
                f"{first['seconds']:.2f}s; second run changes {row['second_run_changes']}",
                file=sys.stderr,
            )
            result["conversations"].append(row)
    finally:
        if not args.keep:
            for mem in groups:
                mem.forget()
        base.close()
    result["seconds"] = round(time.perf_counter() - started, 2)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    (args.out / f"{args.name}.md").write_text(markdown(result))
    print(f"wrote {args.out / args.name}.md and .json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
