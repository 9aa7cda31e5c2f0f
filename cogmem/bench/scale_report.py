"""The markdown report of ``cogmem bench scale`` (:func:`cogmem.bench.scale.run_scale`'s
figures): the latency table, each round of the cold questions, where a cold search's time
goes, the dense traversal and the query plans."""

from __future__ import annotations

from cogmem.bench.scale import LIVE_TURNS, WARM_UP, ScaleReport


def markdown(report: ScaleReport) -> str:
    ops: tuple[str, ...] = ("anchor", "traverse", "intersect", "ground", "search")
    live = ("add_turn", "search_after_write", "cold_search", "cold_search_as_of")
    ops += tuple(op for op in live if all(op in p.latency for p in report.sizes))
    head = (
        "| records | turns | ingest turns/s | ingest records/s | "
        + " | ".join(f"{op} p50 / p95 ms" for op in ops)
        + " | store on disk MiB | peak RSS MiB | vectors read s |"
    )
    lines = [
        f"Synthetic two-person conversations through the real ingest path (heuristic "
        f"extractor, batched merge writes); vectors from a {report.embedder} hashing "
        f"embedder so the database is what is measured. {report.queries_per_size} queries "
        f"per size, after {WARM_UP} untimed searches; then {LIVE_TURNS} live turns "
        "(`add_turn`), each followed by a search "
        "(search_after_write: it first reads what the turn wrote). cold_search: the same "
        "questions asked of Neo4j alone, as by a process that holds no copy of the group "
        "(its first search; `search_cache = off`), after the same warm-up and one "
        "untimed question of each kind, now and as of a time (midway and early in the "
        "group's span: the server compiles each statement's plan once, for every process); "
        "cold_search_as_of: each of them again right after, as of a moment drawn over the "
        "group's time span (`as_of`: always through Neo4j); the cold questions are asked "
        f"{report.cold_rounds} time(s) over and their p50 / p95 are over every round; the "
        "other columns search the process's copy.",
        "",
        head,
        "|" + "---|" * (7 + len(ops)),
    ]
    for p in report.sizes:
        cells = [
            str(p.records),
            str(p.turns),
            f"{p.ingest_turns_per_s:.0f}",
            f"{p.ingest_records_per_s:.0f}",
        ]
        cells += [f"{p.latency[op].p50_ms:.0f} / {p.latency[op].p95_ms:.0f}" for op in ops]
        cells += [
            f"{p.store_mib:.0f}" if p.store_mib is not None else "n/a",
            f"{p.peak_rss_mib:.0f}",
            f"{p.vectors_load_s:.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    rounds = [p for p in report.sizes if p.cold_rounds]
    if rounds:
        lines += [
            "",
            "Each round of the cold questions (p95 ms: cold_search / cold_search_as_of, and "
            "as of ÷ now):",
            "",
            "| records | " + " | ".join(f"round {n + 1}" for n in range(report.cold_rounds)) + " |",
            "|" + "---|" * (report.cold_rounds + 1),
        ]
        for p in rounds:
            cells = [
                f"{r['search_p95_ms']:.0f} / {r['search_as_of_p95_ms']:.0f} "
                f"(×{r['search_as_of_p95_ms'] / max(r['search_p95_ms'], 1e-9):.2f})"
                for r in p.cold_rounds
            ]
            lines.append(f"| {p.records} | " + " | ".join(cells) + " |")
    parts = [k for k in report.sizes[-1].cold_ms if k not in ("total",)]
    if parts:
        lines += [
            "",
            "Where a cold search's time goes (mean ms; operators are their statements' round "
            "trips with the Python that reads their rows):",
            "",
            "| records | " + " | ".join(parts) + " | total |",
            "|" + "---|" * (len(parts) + 2),
        ]
        for p in report.sizes:
            cells = [f"{p.cold_ms.get(k, 0.0):.1f}" for k in [*parts, "total"]]
            lines.append(f"| {p.records} | " + " | ".join(cells) + " |")
    dense = [p for p in report.sizes if p.dense_traverse]
    if dense:
        lines += [
            "",
            "Traverse through Neo4j alone (two hops from a person; mean ms): a node of more "
            "than 2,000 relationships reached through the vector index (`traverse_hop_indexed`)"
            " against every neighbour scored (`traverse_hop`), and the share of the exact "
            "candidates the shortcut returns too:",
            "",
            "| records | shortcut ms | every neighbour ms | candidates shared |",
            "|---|---|---|---|",
        ]
        for p in dense:
            d = p.dense_traverse
            lines.append(
                f"| {p.records} | {d['shortcut_ms']:.0f} | {d['exact_ms']:.0f} | "
                f"{100 * d['overlap']:.1f} % |"
            )
    if len(report.sizes) >= 2:
        first, last = report.sizes[0], report.sizes[-1]
        growth = last.records / first.records

        def ratio(op: str) -> float:
            return last.latency[op].p50_ms / max(first.latency[op].p50_ms, 1e-9)

        lines += [
            "",
            f"From {first.records} to {last.records} records (×{growth:.0f}): search p50 "
            f"×{ratio('search'):.2f}, anchor p50 ×{ratio('anchor'):.2f}, traverse p50 "
            f"×{ratio('traverse'):.2f}.",
        ]
    lines += ["", "## Query plans (PROFILE, at the largest size)", ""]
    for name, plan in report.plans.items():
        lines += [f"`{name}`", "", "```", plan, "```", ""]
    return "\n".join(lines)
