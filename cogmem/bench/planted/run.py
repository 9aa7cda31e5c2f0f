"""The run: ingest every conversation into a throwaway group, build each system's context
for every question under the same budget, score them, and write the result files."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogmem.answer import estimate_tokens
from cogmem.bench.common import (
    Stopwatch,
    Written,
    bench_group,
    command_line,
    grouped_bars,
    machine_info,
    machine_line,
    markdown_table,
    mean,
    now_iso,
    pct,
    ratio_text,
    write_results,
)
from cogmem.bench.planted.baselines import (
    BUDGET_TOKENS,
    CHUNK_CHARS,
    CHUNK_OVERLAP,
    RECENT_TURNS,
    RagIndex,
    summarization_context,
    truncation_context,
)
from cogmem.bench.planted.generator import (
    COMPRESSION_TURN,
    TURNS,
    MultiHopQuestion,
    PlantedConversation,
    PlantedFact,
    generate,
)
from cogmem.bench.planted.scoring import PASS_COVERAGE, SystemScores, summarise_scores
from cogmem.bench.planted.templates import FACT_TYPES
from cogmem.config import Settings
from cogmem.llm import LLMClient

if TYPE_CHECKING:
    from cogmem.api import Memory
    from cogmem.embed import Embedder
    from cogmem.ingest import IngestSummary


@dataclass
class PlantedResult:
    data: dict[str, Any]
    markdown: str
    written: Written | None = None


Progress = Callable[[str], None]


def _ingest(mem: Memory, conv: PlantedConversation) -> IngestSummary:
    return mem.ingest_conversations([conv.to_conversation()])


def _rag_index(conv: PlantedConversation, embedder: Embedder) -> RagIndex:
    return RagIndex(conv.transcript(), embedder)


def _summarizer(llm: LLMClient | None) -> tuple[Callable[[str, str], str] | None, str | None]:
    """The summarization baseline's LLM call and, without an LLM, why it is skipped."""
    if llm is None:
        return (
            None,
            "skipped: no LLM is configured (settings llm is 'none'); set COGMEM_LLM=openai "
            "and an endpoint to include the summarization baseline",
        )
    return (lambda system, user: llm.complete_text(system, user)), None


def run_planted(
    settings: Settings,
    conversations: int = 50,
    seed: int = 0,
    budget_tokens: int = BUDGET_TOKENS,
    out_dir: Path | None = None,
    store: Any | None = None,
    progress: Progress | None = None,
    argv: Sequence[str] | None = None,
    keep_contexts: bool = False,
) -> PlantedResult:
    """Generate, ingest (one throwaway group per conversation), score every system, write
    the result files to ``out_dir`` (unless None)."""
    from cogmem.api import Memory

    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    convs = generate(conversations, seed)
    facts = [f for c in convs for f in c.facts]
    questions = [q for c in convs for q in c.multihop]
    base = Memory(settings, store=store)
    embedder = base.embedder
    summarize, summary_note = _summarizer(base.llm)  # owned by the Memory
    systems = ["cogmem", "truncation", "rag-top3", "rag-top10"]
    if summarize is not None:
        systems.append("summarization")
    scores = {name: SystemScores(name) for name in systems}
    watch = Stopwatch()
    run_group = bench_group("planted")
    groups: list[str] = []
    ingest_records: dict[str, int] = {}
    samples: list[dict[str, Any]] = []
    conv_tokens: list[int] = []
    for i, conv in enumerate(convs, 1):
        conv_tokens.append(estimate_tokens(conv.transcript()))
        mem = base.for_group(f"{run_group}-{conv.index:03d}")
        groups.append(mem.group)
        try:
            summary = watch.time("cogmem ingest", partial(_ingest, mem, conv))
            for rtype, count in summary.records.items():
                ingest_records[rtype] = ingest_records.get(rtype, 0) + count
            rag = watch.time("rag index", partial(_rag_index, conv, embedder))
            truncated = truncation_context(conv)
            summary_ctx = None
            if summarize is not None:
                summary_ctx = watch.time(
                    "summarize", partial(summarization_context, conv, summarize, budget_tokens)
                )
            items: list[tuple[str, PlantedFact | MultiHopQuestion]] = [
                *[(f.question, f) for f in conv.facts],
                *[(q.question, q) for q in conv.multihop],
            ]
            for question, item in items:
                contexts = {
                    "cogmem": watch.time(
                        "cogmem context",
                        partial(mem.context, question, budget_tokens=budget_tokens),
                    ),
                    "truncation": truncated,
                    "rag-top3": watch.time(
                        "rag query", partial(rag.context, question, 3, budget_tokens)
                    ),
                    "rag-top10": watch.time(
                        "rag query", partial(rag.context, question, 10, budget_tokens)
                    ),
                }
                if summary_ctx is not None:
                    contexts["summarization"] = summary_ctx
                for name, ctx in contexts.items():
                    if isinstance(item, PlantedFact):
                        scores[name].score_fact(item, ctx)
                    else:
                        scores[name].score_question(item, ctx)
                if keep_contexts or (len(samples) < 3 and isinstance(item, PlantedFact)):
                    samples.append({"item": item.id, "question": question, "contexts": contexts})
        finally:
            mem.forget()
        say(
            f"[{i}/{len(convs)}] {conv.id} ({conv.domain}): recall so far "
            + ", ".join(
                f"{n} {pct(mean(1.0 if v else 0.0 for v in s.recall.values()))}"
                for n, s in scores.items()
            )
        )

    results = {name: summarise_scores(s, facts, questions) for name, s in scores.items()}
    baselines = [n for n in systems if n != "cogmem"]

    def best_baseline(metric: str) -> str:
        return max(baselines, key=lambda n: results[n][metric])

    best = {
        metric: best_baseline(metric)
        for metric in ("recall", "exact", "multihop_coverage", "multihop_pass")
    }
    misses = [
        {
            "fact": f.id,
            "type": f.type,
            "wording": f.wording,
            "question": f.question,
            "fuzzy": round(scores["cogmem"].fuzzy[f.id], 1),
        }
        for f in facts
        if not scores["cogmem"].recall[f.id]
    ]
    info = machine_info(base, embedder.name, settings.neo4j_uri)
    data: dict[str, Any] = {
        "benchmark": "planted",
        "when": now_iso(),
        "command": command_line(argv),
        "machine": info,
        "machine_line": machine_line(info),
        "parameters": {
            "conversations": conversations,
            "seed": seed,
            "turns": TURNS,
            "compression_turn": COMPRESSION_TURN,
            "budget_tokens": budget_tokens,
            "truncation_turns": RECENT_TURNS,
            "rag_chunk_chars": CHUNK_CHARS,
            "rag_chunk_overlap": CHUNK_OVERLAP,
            "pass_coverage": PASS_COVERAGE,
            "fuzzy_threshold": 80,
            "extractor": base.extractor.name,
            "llm": settings.llm,
            "embed_threads": settings.embed_threads,
        },
        "dataset": {
            "facts": len(facts),
            "facts_by_type": {k: sum(1 for f in facts if f.type == k) for k in FACT_TYPES},
            "multihop_questions": len(questions),
            "mean_conversation_tokens": round(mean(conv_tokens), 1),
            "domains": sorted({c.domain for c in convs}),
        },
        "systems": systems,
        "summarization": summary_note or "included",
        "results": results,
        "best_baseline": best,
        "cogmem_ingest_records": ingest_records,
        "timing": {**watch.summary(), "total_s": round(time.perf_counter() - started, 1)},
        "groups": groups,
        "cogmem_misses": misses[:200],
        "sample_contexts": samples,
    }
    markdown = render_markdown(data)
    written = None
    if out_dir is not None:
        written = write_results(
            out_dir, "planted", markdown, data, chart=lambda plt, p: _chart(plt, p, data)
        )
    if store is None:
        base.close()
    return PlantedResult(data=data, markdown=markdown, written=written)


def render_markdown(data: dict[str, Any]) -> str:
    res = data["results"]
    systems = data["systems"]
    best = data["best_baseline"]
    p = data["parameters"]
    ds = data["dataset"]
    by_type = ", ".join(f"{k} {v}" for k, v in ds["facts_by_type"].items())
    lines = [
        "# Planted-facts benchmark (controlled retention, after CogCanvas §4)",
        "",
        f"- command: `{data['command']}`",
        f"- machine: {data['machine_line']}",
        f"- when: {data['when']}; total {data['timing']['total_s']} s",
        f"- {p['conversations']} conversations × {p['turns']} turns (seed {p['seed']}), "
        f"{ds['facts']} planted facts ({by_type}), "
        f"{ds['multihop_questions']} multi-hop questions; compression at turn "
        f"{p['compression_turn']}; mean conversation ≈ {ds['mean_conversation_tokens']:.0f} tokens",
        f"- every system gets the same context budget: {p['budget_tokens']} estimated tokens "
        f"(`cogmem.answer.estimate_tokens`); cogmem extractor `{p['extractor']}`, LLM "
        f"`{p['llm']}`",
        f"- summarization baseline: {data['summarization']}",
        "",
        "## Results",
        "",
    ]
    headers = [
        "system",
        "recall",
        "exact match",
        "multi-hop KW coverage",
        "multi-hop pass",
        "mean context tokens",
    ]
    rows = [
        [
            n,
            pct(res[n]["recall"]),
            pct(res[n]["exact"]),
            pct(res[n]["multihop_coverage"]),
            pct(res[n]["multihop_pass"]),
            f"{res[n]['mean_context_tokens']:.0f}",
        ]
        for n in systems
    ]
    rows.append(
        [
            "cogmem vs best baseline",
            *[
                f"{ratio_text(res['cogmem'][m], res[best[m]][m])} vs {best[m]}"
                for m in ("recall", "exact", "multihop_coverage", "multihop_pass")
            ],
            "",
        ]
    )
    lines.append(markdown_table(headers, rows))
    lines += ["", "## By fact type (recall / exact match)", ""]
    headers = ["system", *[f"{k} ({ds['facts_by_type'][k]})" for k in FACT_TYPES]]
    rows = [
        [
            n,
            *[
                f"{pct(res[n]['by_type'][k]['recall'])} / {pct(res[n]['by_type'][k]['exact'])}"
                for k in FACT_TYPES
            ],
        ]
        for n in systems
    ]
    lines.append(markdown_table(headers, rows))
    lines += ["", "## Multi-hop by question kind (keyword coverage / pass rate)", ""]
    headers = ["system", "causal (why …?)", "impact (what did … affect?)"]
    rows = [
        [
            n,
            *[
                f"{pct(res[n]['by_kind'][k]['coverage'])} / {pct(res[n]['by_kind'][k]['pass'])}"
                for k in ("causal", "impact")
            ],
        ]
        for n in systems
    ]
    lines.append(markdown_table(headers, rows))
    timing = data["timing"]
    lines += ["", "## Timing", ""]
    rows = [
        [phase, v["calls"], v["total_s"], v["mean_ms"], v["p50_ms"], v["p95_ms"]]
        for phase, v in timing.items()
        if isinstance(v, dict)
    ]
    lines.append(markdown_table(["phase", "calls", "total s", "mean ms", "p50 ms", "p95 ms"], rows))
    lines += [
        "",
        "## How it is scored",
        "",
        "- recall: rapidfuzz `partial_ratio(wording, context) >= 80` (case-insensitive); "
        "exact: the wording verbatim in the context.",
        "- multi-hop: keyword coverage = fraction of the chain's ground-truth keywords found in "
        "the context; pass = coverage >= 80 %. Contexts are scored directly (no LLM answer).",
        "- cogmem's context is `Memory.context(question, budget)` with the API's default "
        "k = 15 evidence blocks, so it usually fills less than the budget (see mean context "
        "tokens).",
        "- truncation keeps the last 5 turns; RAG embeds 1000-character chunks (200 overlap) "
        "with the same embedder and packs the top-k whole chunks in rank order under the "
        "budget (so top-10 is cut to what fits).",
        f"- cogmem misses (first ones) are listed in `planted.json` → `cogmem_misses` "
        f"({len(data['cogmem_misses'])} recorded).",
    ]
    return "\n".join(lines)


def _chart(plt: Any, path: Path, data: dict[str, Any]) -> None:
    res = data["results"]
    systems = data["systems"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    metrics = [
        ("recall", "recall"),
        ("exact", "exact"),
        ("multihop_coverage", "multi-hop KW"),
        ("multihop_pass", "multi-hop pass"),
    ]
    grouped_bars(
        ax1,
        [label for _, label in metrics],
        {n: [res[n][m] for m, _ in metrics] for n in systems},
        ylabel="%",
        title="Planted facts: retention and multi-hop",
    )
    grouped_bars(
        ax2,
        list(FACT_TYPES),
        {n: [res[n]["by_type"][k]["recall"] for k in FACT_TYPES] for n in systems},
        ylabel="recall %",
        title="Recall by fact type",
    )
    fig.suptitle(data["machine_line"], fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
