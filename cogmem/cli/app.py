"""The ``cogmem`` command line (typer). Readable tables by default, ``--json`` for scripts.

This module holds the app and its global options; each command group lives in its own
module (admin, data, consolidate, neo4j, bench) and is registered here, in the order
``cogmem --help`` lists them. Every command works through :class:`cogmem.api.Memory`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cogmem.cli import admin, bench, consolidate, data, neo4j

app = typer.Typer(
    name="cogmem",
    help=(
        "Long-term, provenance-aware memory for LLM conversations, on Neo4j.\n\n"
        "Settings come from flags, then the environment (NEO4J_URI, NEO4J_USER, "
        "NEO4J_PASSWORD, NEO4J_DATABASE, COGMEM_*), then the config file "
        "(~/.config/cogmem/config.toml or $COGMEM_CONFIG)."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def main(
    ctx: typer.Context,
    uri: Annotated[str | None, typer.Option("--uri", help="Bolt URI (NEO4J_URI).")] = None,
    user: Annotated[str | None, typer.Option("--user", help="Neo4j user (NEO4J_USER).")] = None,
    password: Annotated[
        str | None, typer.Option("--password", help="Neo4j password (NEO4J_PASSWORD).")
    ] = None,
    database: Annotated[
        str | None, typer.Option("--database", help="Neo4j database (NEO4J_DATABASE).")
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option("--embedder", help="minilm (offline default) | bge-m3 | openai."),
    ] = None,
    embedder_path: Annotated[
        str | None, typer.Option("--embedder-path", help="Local model folder (bge-m3).")
    ] = None,
) -> None:
    ctx.obj = {
        "neo4j_uri": uri,
        "neo4j_user": user,
        "neo4j_password": password,
        "neo4j_database": database,
        "embedder": embedder,
        "embedder_path": embedder_path,
    }


# Commands, in the order `cogmem --help` shows them; the groups (neo4j, bench) come after.
app.command("init")(admin.init)
app.command("reindex")(admin.reindex)
app.command("config")(admin.show_config)
app.command("ingest")(data.ingest)
app.command("search")(data.search)
app.command("context")(data.context)
app.command("ask")(data.ask)
app.command("consolidate")(consolidate.consolidate)
app.command("forget")(data.forget)
app.command("export")(data.export)
app.command("import")(data.import_)
app.command("browser")(neo4j.browser)
app.add_typer(neo4j.neo4j_app, name="neo4j")
app.add_typer(bench.bench_app, name="bench")
