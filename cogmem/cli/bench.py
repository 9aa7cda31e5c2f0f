"""CLI commands: ``cogmem bench …`` (LoCoMo retrieval, ingest, planted facts, semantic
collapse, scale).

Each benchmark is one command on the module-level ``bench_app``; adding another is one more
``@bench_app.command(...)`` function. Commands share the options in :mod:`cogmem.cli.options`
(``--uri``, ``--seed``, ``--out``) and :func:`~cogmem.cli.common.settings_from`, which layers
them over the global options and the environment exactly as the other commands do.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cogmem.cli.common import err, friendly, out, settings_from
from cogmem.cli.options import DEFAULT_OUT, OutOpt, SeedOpt, UriOpt

if TYPE_CHECKING:
    from cogmem.api import Memory
    from cogmem.bench.common import Written
    from cogmem.config import Settings

bench_app = typer.Typer(
    help="Benchmarks: run them against a Neo4j server; results go to benchmarks/results/ "
    "(markdown table, JSON and PNG chart, with the machine and the command line).",
    no_args_is_help=True,
)


def report(written: Written | None, markdown: str) -> None:
    """Print the markdown table, then (on stderr) the files written."""
    out.print(markdown, highlight=False, markup=False)
    if written is None:  # the runs here always write (they get an --out folder)
        return
    files = [written.markdown, written.json] + ([written.chart] if written.chart else [])
    err.print("wrote " + ", ".join(str(f) for f in files), highlight=False)
    if written.chart_note:
        err.print(f"[yellow]{written.chart_note}[/]")


def bench_memory(settings: Settings) -> Memory:
    """The Memory a benchmark runs on (it makes its own groups with ``for_group``)."""
    from cogmem.api import Memory

    return Memory(settings)


@bench_app.command(
    "planted",
    help="Planted facts (after CogCanvas §4): recall, exact match and multi-hop keyword "
    "coverage of cogmem vs truncation and RAG top-3/top-10 (and summarization when an LLM "
    "is configured), all under the same token budget.",
)
@friendly
def planted(
    ctx: typer.Context,
    conversations: Annotated[
        int, typer.Option("--conversations", "-n", help="Conversations to generate.", min=1)
    ] = 50,
    seed: SeedOpt = 0,
    budget: Annotated[
        int, typer.Option("--budget", help="Context budget per system (estimated tokens).", min=50)
    ] = 2000,
    uri: UriOpt = None,
    out: OutOpt = DEFAULT_OUT,
) -> None:
    from cogmem.bench.planted import run_planted

    settings = settings_from(ctx, neo4j_uri=uri)
    if settings.llm == "none":  # planted then runs without the summarization baseline
        err.print(
            "[yellow]summarization baseline skipped:[/] no LLM configured (llm = 'none'); "
            "the results file says so"
        )
    result = run_planted(
        settings,
        conversations=conversations,
        seed=seed,
        budget_tokens=budget,
        out_dir=out,
        progress=lambda msg: err.print(msg, highlight=False),
    )
    report(result.written, result.markdown)


@bench_app.command(
    "collapse",
    help="Semantic collapse (after CogMem): mean cosine of record/opinion pairs and the "
    "misattribution rate of flat dense top-1 retrieval vs cogmem search(k=1).",
)
@friendly
def collapse(
    ctx: typer.Context,
    pairs: Annotated[int, typer.Option("--pairs", help="Matched pairs to generate.", min=1)] = 150,
    seed: SeedOpt = 0,
    uri: UriOpt = None,
    out: OutOpt = DEFAULT_OUT,
) -> None:
    from cogmem.bench.collapse import run_collapse

    settings = settings_from(ctx, neo4j_uri=uri)
    result = run_collapse(
        settings,
        pairs=pairs,
        seed=seed,
        out_dir=out,
        progress=lambda msg: err.print(msg, highlight=False),
    )
    report(result.written, result.markdown)


@bench_app.command(
    "locomo",
    help="LoCoMo retrieval: evidence recall@k and AllHit@k (k = 5, 10, 25) per category for "
    "cogmem and, in the same run, flat baselines over turns (BM25 plain and stemmed, dense, "
    "RRF hybrid, each also date-prefixed); ingest time and search latency p50/p95.",
)
@friendly
def locomo(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="locomo10.json or a file in its layout.")],
    samples: Annotated[
        str | None, typer.Option("--samples", help="Comma-separated sample ids (default: all).")
    ] = None,
    categories: Annotated[
        str, typer.Option("--categories", help="Comma-separated QA categories.")
    ] = "1,2,3,4",
    reuse: Annotated[
        bool, typer.Option("--reuse", help="Search groups ingested by an earlier run.")
    ] = False,
    keep: Annotated[bool, typer.Option("--keep", help="Keep the groups afterwards.")] = False,
    uri: UriOpt = None,
    out: OutOpt = DEFAULT_OUT,
    name: Annotated[str, typer.Option("--name", help="Result file name.")] = "locomo",
) -> None:
    from cogmem.bench.common import command_line, machine_info, machine_line, write_results
    from cogmem.bench.locomo import CATEGORY_NAMES, KS, markdown, run_locomo

    settings = settings_from(ctx, neo4j_uri=uri)
    with bench_memory(settings) as mem:
        mem.admin.ensure_schema()
        result = run_locomo(
            mem,
            path,
            samples={s.strip() for s in samples.split(",")} if samples else None,
            categories={int(c) for c in categories.split(",") if c.strip()},
            reuse=reuse,
            keep=keep,
            log=lambda m: err.print(m, highlight=False),
        )
        info = machine_info(mem, mem.embedder.name, settings.neo4j_uri)
    text = f"# LoCoMo retrieval\n\n{machine_line(info)}\n\n`{command_line()}`\n\n" + markdown(
        result
    )

    def chart(plt: Any, png: Path) -> None:
        systems = ["cogmem", "bm25-stemmed+date", "hybrid-rrf+date", "dense"]
        systems = [s for s in systems if s in result.systems]
        cats = result.categories
        fig, ax = plt.subplots(figsize=(9, 4.5))
        width = 0.8 / len(systems)
        for i, system in enumerate(systems):
            values = [result.systems[system].recall.get(c, {}).get(10, 0.0) for c in cats]
            xs = [c + (i - (len(systems) - 1) / 2) * width for c in range(len(cats))]
            ax.bar(xs, values, width, label=system)
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels([f"{c} {CATEGORY_NAMES.get(c, '')}" for c in cats])
        ax.set_ylabel("evidence recall@10 (%)")
        ax.set_ylim(0, 100)
        ax.set_title(f"LoCoMo evidence recall@10 by category (k = {KS})")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(png, dpi=120)

    data = {"machine": info, "command": command_line(), **result.model_dump(mode="json")}
    report(write_results(out, name, text, data, chart), text)


@bench_app.command(
    "ingest",
    help="Ingest throughput (turns/s) against the raw embedding of the same turns, peak memory, "
    "live turns (add_turn per call; queue_turn per call and until written), cold start, on a "
    "LoCoMo file, with the graph checks (a Turn per turn, speakers as Persons, every record "
    "type, EVIDENCED_BY everywhere, quotes verbatim, a second ingest changes nothing).",
)
@friendly
def ingest(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="locomo10.json or a file in its layout.")],
    uri: UriOpt = None,
    out: OutOpt = DEFAULT_OUT,
) -> None:
    from cogmem.bench.common import command_line, machine_info, machine_line, write_results
    from cogmem.bench.ingest import markdown, run_ingest

    settings = settings_from(ctx, neo4j_uri=uri)
    with bench_memory(settings) as mem:
        mem.admin.ensure_schema()
        result = run_ingest(mem, path)
        info = machine_info(mem, mem.embedder.name, settings.neo4j_uri)
    text = f"# Ingest\n\n{machine_line(info)}\n\n`{command_line()}`\n\n" + markdown(result)
    data = {"machine": info, "command": command_line(), **result.model_dump(mode="json")}
    report(write_results(out, "ingest", text, data), text)


@bench_app.command(
    "scale",
    help="Synthetic memories of 10k and 100k records (1M with --million): ingest throughput, "
    "p50/p95 latency of each operator and of search, store size on disk, peak memory, query "
    "plans, and a log-log plot. Starts its own Neo4j unless --uri is given.",
)
@friendly
def scale(
    ctx: typer.Context,
    million: Annotated[bool, typer.Option("--million", help="Also grow to 1M records.")] = False,
    sizes: Annotated[
        str | None, typer.Option("--sizes", help="Comma-separated sizes (overrides the default).")
    ] = None,
    queries: Annotated[int, typer.Option("--queries", help="Queries per size.", min=1)] = 40,
    uri: UriOpt = None,
    out: OutOpt = DEFAULT_OUT,
    seed: SeedOpt = 7,
    crowded: Annotated[
        Path | None,
        typer.Option("--crowded", help="LoCoMo file: one conversation alone, then crowded."),
    ] = None,
    copies: Annotated[int, typer.Option("--copies", help="Crowding groups.", min=1)] = 100,
    cold_rounds: Annotated[
        int,
        typer.Option(
            "--cold-rounds",
            help="Times the cold questions are asked over (p95 over every round).",
            min=1,
        ),
    ] = 3,
) -> None:
    import tempfile

    from cogmem.bench.common import command_line, machine_info, machine_line, write_results
    from cogmem.bench.scale import run_scale, scale_memory
    from cogmem.bench.scale_report import markdown
    from cogmem.server import local as localserver

    if crowded is not None:  # issue 12: the crowded-store case, on the server at --uri
        from cogmem.api import Memory
        from cogmem.bench.crowded import crowded_markdown, run_crowded

        with Memory(settings_from(ctx, neo4j_uri=uri)) as memory:
            memory.admin.ensure_schema()
            crowd = run_crowded(memory, crowded, copies=copies, log=err.print)
            text = f"`{command_line()}`\n\n" + crowded_markdown(crowd)
            written = write_results(out, "scale_crowded", text, crowd.model_dump())
        print(text)
        err.print(f"wrote {written.markdown}")
        return

    wanted = (
        [int(x) for x in sizes.split(",")]
        if sizes
        else [10_000, 100_000, *([1_000_000] if million else [])]
    )
    settings = settings_from(ctx, neo4j_uri=uri)
    inst: Path | None = None
    if uri is None:
        localserver.install(settings.home, log=lambda m: err.print(m))
        inst = Path(tempfile.mkdtemp(prefix="cogmem-scale-"))
        state, _ = localserver.start(
            inst,
            settings.home,
            bolt_port=localserver.free_port(),
            http_port=localserver.free_port(),
            auth=False,
            heap="2g",
            pagecache="2g",
        )
        settings = settings.model_copy(update={"neo4j_uri": state.bolt_uri, "neo4j_password": None})
        err.print(f"started a throwaway Neo4j at {state.bolt_uri} in {inst}")
    try:
        with scale_memory(settings) as mem:
            # a throwaway server records the hashing embedder; a named one keeps its own
            recorded = mem.admin.recorded_embedder() if uri is not None else None
            mem.admin.init(*(recorded or mem.admin.embedder_identity()))
            result = run_scale(
                mem,
                wanted,
                data_dir=inst / "data" if inst else None,
                queries=queries,
                seed=seed,
                log=lambda m: err.print(m),
                cold_rounds=cold_rounds,
            )
            info = machine_info(mem, result.embedder, settings.neo4j_uri)
    finally:
        if inst is not None:
            localserver.stop(inst)
    text = f"# Scale\n\n{machine_line(info)}\n\n`{command_line()}`\n\n" + markdown(result)

    def chart(plt: Any, png: Path) -> None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        xs = [p.records for p in result.sizes]
        for op in ("anchor", "traverse", "intersect", "ground", "search"):
            ax.plot(xs, [p.latency[op].p50_ms for p in result.sizes], marker="o", label=op)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("memory records")
        ax.set_ylabel("p50 latency (ms)")
        ax.set_title("Operator and search latency against store size")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(png, dpi=120)

    data = {"machine": info, "command": command_line(), **result.model_dump(mode="json")}
    report(write_results(out, "scale", text, data, chart), text)
