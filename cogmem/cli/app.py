"""The ``cogmem`` command line (typer). Readable tables by default, ``--json`` for scripts.

This module holds the app and its global options; each command group lives in its own
module (admin, data, inspect, consolidate, neo4j, bench, service, llm) and is registered
here, in the order ``cogmem --help`` lists them. Every command works through
:class:`cogmem.api.Memory`.

The global options (``--uri``, ``--user``, ``--password``, ``--database``, ``--embedder``,
``--embedder-path``, ``--group``, ``--debug``) are accepted after the command too
(``cogmem ask "x" --uri …``) unless that command has an option of the same name itself.
Every failure is one line on stderr and a non-zero exit code; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer
from typer._click import core as click  # typer ships its own click (its classes, not click's)
from typer._click.exceptions import ClickException
from typer.core import TyperGroup, TyperOption

from cogmem.cli import admin, bench, consolidate, data, inspect, llm, neo4j, service
from cogmem.cli.common import State, err, report

GLOBAL_VALUE_OPTIONS = frozenset(
    {"--uri", "--user", "--password", "--database", "--embedder", "--embedder-path", "--group"}
)
GLOBAL_FLAGS = frozenset({"--debug"})


def _takes_value(command: click.Command, name: str) -> bool:
    for param in command.params:
        if isinstance(param, TyperOption) and name in (*param.opts, *param.secondary_opts):
            return not param.is_flag and not param.count and name not in param.secondary_opts
    return False


def _option_names(command: click.Command) -> set[str]:
    return {
        name
        for p in command.params
        if isinstance(p, TyperOption)
        for name in (*p.opts, *p.secondary_opts)
    }


def hoist_global_options(group: TyperGroup, ctx: click.Context, args: list[str]) -> list[str]:
    """Move the global options found after the command to before it, unless the command
    (the leaf of ``cogmem neo4j start``, …) has an option of that name itself."""
    i = 0
    while i < len(args) and args[i].startswith("-"):  # global options already in front
        name = args[i].split("=", 1)[0]
        i += 2 if name in GLOBAL_VALUE_OPTIONS and "=" not in args[i] else 1
    if i >= len(args):
        return args
    command: click.Command | None = group.get_command(ctx, args[i])
    i += 1
    while isinstance(command, TyperGroup) and i < len(args) and not args[i].startswith("-"):
        command = command.get_command(ctx, args[i])
        i += 1
    if command is None:
        return args
    own = _option_names(command)
    front, rest = args[:i], args[i:]
    hoisted: list[str] = []
    kept: list[str] = []
    j = 0
    while j < len(rest):
        token = rest[j]
        name = token.split("=", 1)[0]
        if token == "--":
            kept.extend(rest[j:])
            break
        if name in own:
            kept.append(token)
            if "=" not in token and _takes_value(command, name) and j + 1 < len(rest):
                kept.append(rest[j + 1])
                j += 1
        elif name in GLOBAL_VALUE_OPTIONS:
            hoisted.append(token)
            if "=" not in token and j + 1 < len(rest):
                hoisted.append(rest[j + 1])
                j += 1
        elif token in GLOBAL_FLAGS:
            hoisted.append(token)
        else:
            kept.append(token)
        j += 1
    return hoisted + front + kept


class CogmemGroup(TyperGroup):
    """The root command: global options anywhere, one error policy for every command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_global_options(self, ctx, list(args)))

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (ClickException, typer.Exit, typer.Abort):
            raise
        except KeyboardInterrupt:
            err.print("[bold red]error:[/] interrupted", highlight=False)
            raise typer.Exit(130) from None
        except Exception as exc:
            if State.debug:
                raise
            report(exc)
            raise typer.Exit(1) from None


def _version(value: bool) -> None:
    if value:
        from cogmem import __version__

        typer.echo(f"cogmem {__version__}")
        raise typer.Exit()


app = typer.Typer(
    name="cogmem",
    cls=CogmemGroup,
    help=(
        "Long-term, provenance-aware memory for LLM conversations, on Neo4j.\n\n"
        "Settings come from flags, then the environment (NEO4J_URI, NEO4J_USER, "
        "NEO4J_PASSWORD, NEO4J_DATABASE, COGMEM_*), then the config file "
        "(~/.config/cogmem/config.toml or $COGMEM_CONFIG). The options below may also "
        "follow the command (cogmem ask 'x' --uri bolt://…)."
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
    group: Annotated[
        str | None,
        typer.Option("--group", help="Memory space (COGMEM_GROUP); a command's own wins."),
    ] = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of an error (COGMEM_DEBUG=1).")
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_version, is_eager=True
        ),
    ] = False,
) -> None:
    State.debug = debug or bool(os.environ.get("COGMEM_DEBUG"))
    ctx.obj = {
        "neo4j_uri": uri,
        "neo4j_user": user,
        "neo4j_password": password,
        "neo4j_database": database,
        "embedder": embedder,
        "embedder_path": embedder_path,
        "group": group,
    }


# Commands, in the order `cogmem --help` shows them; the groups (neo4j, bench) come after.
app.command("init")(admin.init)
app.command("reindex")(admin.reindex)
app.command("config")(admin.show_config)
app.command("doctor")(inspect.doctor)
app.command("ingest")(data.ingest)
app.command("search")(data.search)
app.command("context")(data.context)
app.command("ask")(data.ask)
app.command("groups")(inspect.groups)
app.command("stats")(inspect.stats)
app.command("history")(inspect.history)
app.command("consolidate")(consolidate.consolidate)
app.command("forget")(data.forget)
app.command("export")(data.export)
app.command("import")(data.import_)
app.command("browser")(neo4j.browser)
app.command("mcp")(service.mcp)
app.command("serve")(service.serve)
app.add_typer(neo4j.neo4j_app, name="neo4j")
app.add_typer(bench.bench_app, name="bench")
app.add_typer(service.token_app, name="token")
app.add_typer(llm.llm_app, name="llm")
