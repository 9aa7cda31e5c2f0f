"""CLI commands: ``init``, ``reindex`` and ``config``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import typer
from rich.table import Table

from cogmem.cli.common import err, friendly, open_memory, out, print_json, settings_from
from cogmem.cli.options import EmbedderPathOpt


@friendly
def init(
    ctx: typer.Context,
    vector_indexes: Annotated[
        bool | None,
        typer.Option(
            "--vector-indexes/--no-vector-indexes",
            help="Create (or drop) Neo4j's HNSW vector indexes over Memory and Turn "
            "embeddings. Search asks them for a group too large to scan exactly; each "
            "costs every write a little. Default: create them when the vector_indexes "
            "setting is on (it is by default), else leave them as they are.",
        ),
    ] = None,
) -> None:
    """Create constraints and indexes (idempotent) and record the embedder in the graph."""
    with open_memory(ctx) as mem:
        report = mem.admin.init(vector_indexes=vector_indexes)
    table = Table(title=f"Indexes (embedder {report.embedder}, {report.dimension} dimensions)")
    for col in ("name", "type", "on", "state"):
        table.add_column(col)
    for idx in report.indexes:
        table.add_row(str(idx["name"]), str(idx["type"]), index_target(idx), str(idx["state"]))
    out.print(table)
    out.print(f"Applied {len(report.applied)} schema statements on {mem.settings.neo4j_uri}")


def index_target(index: Mapping[str, Any]) -> str:
    """What an index covers, as Cypher writes it: ``:Turn(group_id, vseq)``,
    ``[:CAUSES](at)``; a lookup index covers every node label or relationship type."""
    labels = index.get("labelsOrTypes") or []
    props = ", ".join(str(p) for p in index.get("properties") or [])
    relationship = index.get("entityType") == "RELATIONSHIP"
    if not labels:
        return "every relationship type" if relationship else "every node label"
    names = "|".join(str(label) for label in labels)
    return f"[:{names}]({props})" if relationship else f":{names}({props})"


@friendly
def reindex(
    ctx: typer.Context,
    embedder: Annotated[
        str | None,
        typer.Option(
            "--embedder",
            help=(
                "The embedder to switch to (minilm, mpnet, bge-m3, openai); default: the"
                " configured one."
            ),
        ),
    ] = None,
    embedder_path: EmbedderPathOpt = None,
) -> None:
    """Re-embed every turn and record with another embedder (vector indexes, if any, rebuilt)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress

    from cogmem.api import Memory

    settings = settings_from(ctx, embedder=embedder, embedder_path=embedder_path)
    with Memory(settings) as mem:
        model = mem.embedder  # loaded before the progress bar shows
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            console=err,
        ) as bar:
            task = bar.add_task(f"re-embedding with {model.name}", total=None)
            report = mem.admin.reindex(progress=lambda n: bar.advance(task, n))
    out.print(
        f"Re-embedded {report.turns} turns and {report.records} records with "
        f"{report.embedder} ({report.dimension} dimensions)"
        + ("; vector indexes rebuilt." if report.vector_indexes else ".")
    )


@friendly
def show_config(ctx: typer.Context) -> None:
    """Show the effective settings (secrets masked) and where the config file is."""
    from cogmem.config import config_path

    settings = settings_from(ctx)
    out.print(f"config file: {config_path()}")
    print_json(settings.redacted())
