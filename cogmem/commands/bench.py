"""CLI commands: ``cogmem bench …`` (planted facts, semantic collapse; more to come).

Each benchmark is one command on the module-level ``bench_app``; adding another is one more
``@bench_app.command(...)`` function. Commands share the options defined here (``--uri``,
``--seed``, ``--out``) and :func:`_settings`, which layers them over the global options and
the environment exactly as the other commands do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

bench_app = typer.Typer(
    help="Benchmarks: run them against a Neo4j server; results go to benchmarks/results/ "
    "(markdown table, JSON and PNG chart, with the machine and the command line).",
    no_args_is_help=True,
)

F = TypeVar("F", bound=Callable[..., Any])

UriOpt = Annotated[
    str | None,
    typer.Option("--uri", help="Bolt URI of the Neo4j to use (default: NEO4J_URI / config)."),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the generated data.")]
OutOpt = Annotated[
    Path, typer.Option("--out", help="Folder for the result files.", file_okay=False)
]
DEFAULT_OUT = Path("benchmarks/results")


def register(app: typer.Typer) -> None:
    """Add ``cogmem bench`` to the main app."""
    app.add_typer(bench_app, name="bench")


def _settings(ctx: typer.Context, **more: Any) -> Any:
    """Settings: config file < environment < global flags < this command's flags."""
    from cogmem.config import load_settings

    root = ctx.find_root()
    overrides = dict(root.obj or {}) if isinstance(root.obj, dict) else {}
    overrides.update({k: v for k, v in more.items() if v is not None})
    return load_settings(overrides)


def _friendly(func: F) -> F:
    """Known errors (config, unreachable server, missing embedder) → message, exit 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from rich.console import Console

        from cogmem.config import ConfigError
        from cogmem.embed import EmbedderUnavailable
        from cogmem.store import StoreError

        try:
            return func(*args, **kwargs)
        except (ConfigError, StoreError, EmbedderUnavailable) as exc:
            Console(stderr=True).print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def _report(written: Any, markdown: str) -> None:
    from rich.console import Console

    out, err = Console(), Console(stderr=True)
    out.print(markdown, highlight=False, markup=False)
    files = [written.markdown, written.json] + ([written.chart] if written.chart else [])
    err.print("wrote " + ", ".join(str(f) for f in files), highlight=False)
    if written.chart_note:
        err.print(f"[yellow]{written.chart_note}[/]")


@bench_app.command(
    "planted",
    help="Planted facts (after CogCanvas §4): recall, exact match and multi-hop keyword "
    "coverage of cogmem vs truncation and RAG top-3/top-10 (and summarization when an LLM "
    "is configured), all under the same token budget.",
)
@_friendly
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
    from rich.console import Console

    from cogmem.bench.planted import run_planted

    err = Console(stderr=True)
    settings = _settings(ctx, neo4j_uri=uri)
    if settings.llm != "openai":
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
    _report(result.written, result.markdown)


@bench_app.command(
    "collapse",
    help="Semantic collapse (after CogMem): mean cosine of record/opinion pairs and the "
    "misattribution rate of flat dense top-1 retrieval vs cogmem search(k=1).",
)
@_friendly
def collapse(
    ctx: typer.Context,
    pairs: Annotated[int, typer.Option("--pairs", help="Matched pairs to generate.", min=1)] = 150,
    seed: SeedOpt = 0,
    uri: UriOpt = None,
    out: OutOpt = DEFAULT_OUT,
) -> None:
    from rich.console import Console

    from cogmem.bench.collapse import run_collapse

    err = Console(stderr=True)
    settings = _settings(ctx, neo4j_uri=uri)
    result = run_collapse(
        settings,
        pairs=pairs,
        seed=seed,
        out_dir=out,
        progress=lambda msg: err.print(msg, highlight=False),
    )
    _report(result.written, result.markdown)
