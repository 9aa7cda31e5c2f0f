"""The ``cogmem`` command line (typer). Readable tables by default, ``--json`` for scripts."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from cogmem import localserver
from cogmem.commands.common import err, friendly, out, print_json, settings_from
from cogmem.config import Settings, config_path, write_config_file

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
neo4j_app = typer.Typer(
    help="Install, start, stop and inspect a local Neo4j 5.26 Community server "
    "(fetched from Maven Central into $COGMEM_HOME).",
    no_args_is_help=True,
)
app.add_typer(neo4j_app, name="neo4j")


# -- global options -------------------------------------------------------------------
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


_print_json = print_json


# -- neo4j ----------------------------------------------------------------------------
InstanceOpt = Annotated[
    str, typer.Option("--instance", help="Name of the instance folder under $COGMEM_HOME.")
]
DirOpt = Annotated[
    Path | None,
    typer.Option("--dir", help="Use this instance folder instead (e.g. a throwaway test one)."),
]


def _instance(settings: Settings, name: str, directory: Path | None) -> Path:
    return directory.resolve() if directory else localserver.instance_dir(settings.home, name)


@neo4j_app.command("install")
@friendly
def neo4j_install(
    ctx: typer.Context,
    version: Annotated[str, typer.Option(help="Neo4j version.")] = localserver.NEO4J_VERSION,
) -> None:
    """Fetch Neo4j Community and Neo4j Browser jars from Maven Central (needs mvn, Java 17)."""
    settings = settings_from(ctx)
    started = time.monotonic()
    if localserver.is_installed(settings.home, version):
        out.print(
            f"Neo4j {version} is already installed in "
            f"{localserver.install_dir(settings.home, version)}"
        )
        return
    with err.status("Resolving Neo4j from Maven Central (first time: a minute or two)…"):
        path = localserver.install(settings.home, version, log=lambda m: err.print(m))
    out.print(f"Neo4j {version} installed in {path} ({time.monotonic() - started:.0f}s)")


@neo4j_app.command("start")
@friendly
def neo4j_start(
    ctx: typer.Context,
    bolt_port: Annotated[int, typer.Option(help="Bolt port on 127.0.0.1.")] = 7687,
    http_port: Annotated[int, typer.Option(help="HTTP port (Neo4j Browser).")] = 7474,
    auth: Annotated[
        bool, typer.Option("--auth/--no-auth", help="--no-auth for throwaway test servers.")
    ] = True,
    instance: InstanceOpt = "default",
    directory: DirOpt = None,
    heap: Annotated[str, typer.Option(help="JVM heap size.")] = "1g",
    pagecache: Annotated[str, typer.Option(help="Page cache size.")] = "512m",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for Bolt.")] = 120.0,
    save: Annotated[
        bool,
        typer.Option("--save/--no-save", help="Record the URI (and password) in the config."),
    ] = True,
    install: Annotated[
        bool, typer.Option("--install/--no-install", help="Install first if needed.")
    ] = True,
) -> None:
    """Start the local server and wait until Bolt answers; prints pid, URIs and log path."""
    settings = settings_from(ctx)
    if install and not localserver.is_installed(settings.home):
        with err.status("Neo4j is not installed yet: resolving it from Maven Central…"):
            localserver.install(settings.home, log=lambda m: err.print(m))
    inst = _instance(settings, instance, directory)
    started = time.monotonic()
    with err.status(f"Starting Neo4j {localserver.NEO4J_VERSION} from {inst}…"):
        state, password = localserver.start(
            inst,
            settings.home,
            bolt_port=bolt_port,
            http_port=http_port,
            auth=auth,
            heap=heap,
            pagecache=pagecache,
            timeout_s=timeout,
        )
    took = time.monotonic() - started
    if save:
        updates: dict[str, Any] = {"neo4j_uri": state.bolt_uri}
        if password:
            updates.update(neo4j_user="neo4j", neo4j_password=password)
        write_config_file(updates)
    out.print(f"[green]Neo4j is up[/] in {took:.1f}s")
    out.print(f"  pid      {state.pid}")
    out.print(f"  bolt     {state.bolt_uri}")
    out.print(f"  browser  {state.browser_url}")
    out.print(f"  auth     {'on (user neo4j)' if auth else 'off'}")
    out.print(f"  log      {state.log_path}")
    if password:
        where = config_path() if save else "nowhere (--no-save): note it now"
        out.print(
            f"[bold yellow]Generated password for user neo4j:[/] {password}\n"
            f"  It is shown only this once; it is kept in {where} (mode 0600)."
        )


@neo4j_app.command("stop")
@friendly
def neo4j_stop(
    ctx: typer.Context, instance: InstanceOpt = "default", directory: DirOpt = None
) -> None:
    """Stop the local server cleanly (SIGTERM, then SIGKILL after 60 s)."""
    settings = settings_from(ctx)
    inst = _instance(settings, instance, directory)
    state = localserver.stop(inst)
    if state is None:
        out.print(f"No Neo4j is running from {inst}")
    else:
        out.print(f"Stopped Neo4j (pid {state.pid}, {state.bolt_uri})")


@neo4j_app.command("status")
@friendly
def neo4j_status(
    ctx: typer.Context,
    instance: InstanceOpt = "default",
    directory: DirOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Say whether the local server runs (exit code 0) or not (exit code 3)."""
    settings = settings_from(ctx)
    inst = _instance(settings, instance, directory)
    state = localserver.running_state(inst)
    info: dict[str, Any] = {
        "installed": localserver.is_installed(settings.home),
        "install_dir": str(localserver.install_dir(settings.home)),
        "instance_dir": str(inst),
        "running": state is not None,
    }
    if state is not None:
        info.update(
            pid=state.pid,
            bolt=state.bolt_uri,
            browser=state.browser_url,
            auth=state.auth,
            log=state.log_path,
            version=state.version,
        )
    if as_json:
        _print_json(info)
    else:
        for key, value in info.items():
            out.print(f"  {key:<12} {value}")
    if state is None:
        raise typer.Exit(3)


# -- schema ---------------------------------------------------------------------------
@app.command("init")
@friendly
def init(ctx: typer.Context) -> None:
    """Create constraints and indexes (idempotent) and record the embedder in the graph."""
    from cogmem.embed import embedder_identity
    from cogmem.schema import init_schema
    from cogmem.store import Store

    settings = settings_from(ctx)
    name, dimension = embedder_identity(settings)
    with Store(settings) as store:
        report = init_schema(store, name, dimension)
    table = Table(title=f"Indexes (embedder {name}, {dimension} dimensions)")
    for col in ("name", "type", "on", "state"):
        table.add_column(col)
    for idx in report.indexes:
        on = f"{idx.get('labelsOrTypes')}{idx.get('properties')}"
        table.add_row(str(idx["name"]), str(idx["type"]), on, str(idx["state"]))
    out.print(table)
    out.print(f"Applied {len(report.applied)} schema statements on {settings.neo4j_uri}")


@app.command("reindex")
@friendly
def reindex_command(
    ctx: typer.Context,
    embedder: Annotated[
        str | None,
        typer.Option(
            "--embedder",
            help="The embedder to switch to (minilm, bge-m3, openai); default: the configured one.",
        ),
    ] = None,
    embedder_path: Annotated[
        str | None, typer.Option("--embedder-path", help="Local model folder (bge-m3).")
    ] = None,
) -> None:
    """Re-embed every turn and record with another embedder and rebuild the vector indexes."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress

    from cogmem.embed import make_embedder
    from cogmem.reindex import reindex
    from cogmem.store import Store

    settings = settings_from(ctx, embedder=embedder, embedder_path=embedder_path)
    model = make_embedder(settings)
    with (
        Store(settings) as store,
        Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            console=err,
        ) as bar,
    ):
        task = bar.add_task(f"re-embedding with {model.name}", total=None)
        report = reindex(store, model, progress=lambda n: bar.advance(task, n))
    out.print(
        f"Re-embedded {report.turns} turns and {report.records} records with "
        f"{report.embedder} ({report.dimension} dimensions); vector indexes rebuilt."
    )


@app.command("config")
@friendly
def show_config(ctx: typer.Context) -> None:
    """Show the effective settings (secrets masked) and where the config file is."""
    settings = settings_from(ctx)
    out.print(f"config file: {config_path()}")
    _print_json(settings.redacted())


# -- ingest and retrieval -------------------------------------------------------------
GroupOpt = Annotated[
    str | None,
    typer.Option("--group", "-g", help="Memory space (COGMEM_GROUP; default 'default')."),
]
LLMOpt = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="none (offline: heuristic extractor, rule router, extractive "
        "answers) or openai (any OpenAI-compatible endpoint, COGMEM_LLM_BASE_URL).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")]
ExplainOpt = Annotated[bool, typer.Option("--explain", help="Show the plan and operator trace.")]


def _memory(ctx: typer.Context, group: str | None = None, llm: str | None = None) -> Any:
    from cogmem.api import Memory

    return Memory(settings_from(ctx, group=group, llm=llm))


@app.command("ingest")
@friendly
def ingest(
    ctx: typer.Context,
    path: Annotated[
        Path, typer.Argument(help="A LoCoMo JSON, JSONL chat or OpenAI messages file.")
    ],
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="auto | locomo | jsonl | openai.")
    ] = "auto",
    group: GroupOpt = None,
    llm: LLMOpt = None,
    batch_size: Annotated[int, typer.Option(help="Turns per transaction.", min=1, max=1000)] = 64,
    as_json: JsonOpt = False,
) -> None:
    """Read a conversation file and store it as a provenance-aware graph (idempotent)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from cogmem.readers import read_file

    result = read_file(path, fmt)
    if not as_json:
        err.print(
            f"Read {escape(str(path))} as [bold]{result.format}[/]: {len(result.conversations)} "
            f"conversation(s), {result.turn_count} turns"
            + (f", {len(result.skipped)} empty turn(s) skipped" if result.skipped else "")
        )
    with _memory(ctx, group, llm) as mem:
        total = sum(len(c.turns) for c in result.conversations)
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            disable=as_json,
        ) as bar:
            task = bar.add_task("ingesting turns", total=total)
            summary = mem.ingest_conversations(
                result.conversations,
                progress=lambda n: bar.advance(task, n),
                batch_size=batch_size,
                fmt=result.format,
            )
        summary.skipped_turns = len(result.skipped)
    if as_json:
        _print_json({**summary.model_dump(), "turns_per_s": round(summary.turns_per_s, 1)})
        return
    table = Table(title=f"Ingested into group '{escape(summary.group)}'")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("turns", str(summary.turns))
    for rtype, count in sorted(summary.records.items()):
        table.add_row(f"records: {rtype}", str(count))
    table.add_row("dropped (quote not in turn)", str(summary.dropped))
    if summary.fallbacks:
        table.add_row("LLM fallbacks to heuristics", str(summary.fallbacks))
    out.print(table)
    out.print(
        f"{summary.seconds:.1f}s, {summary.turns_per_s:.1f} turns/s "
        f"(extractor {summary.extractor}, embedder {summary.embedder})"
    )


def _evidence_table(evidence: list[Any], title: str) -> Table:
    table = Table(title=title, show_lines=False)
    for col in ("#", "type", "speaker", "turn", "said", "content"):
        table.add_column(col, overflow="fold")
    for i, ev in enumerate(evidence, 1):
        said = f"{ev.turn_at:%Y-%m-%d}" if ev.turn_at else ""
        when = f" [{ev.time_text}]" if ev.time_text else ""
        table.add_row(
            str(i),
            escape(ev.type),
            escape(ev.speaker or ""),
            escape(ev.turn_source_id or ""),
            said,
            escape((ev.content or "")[:300] + when),
        )
    return table


def _steps(trace: list[Any]) -> None:
    for step in trace:
        err.print(
            f"  {step.operator:<12} {step.returned:>4}  {step.seconds:.3f}s  {escape(step.detail)}"
        )


def _trace(retrieval: Any) -> None:
    err.print(f"[bold]plan[/] {escape(retrieval.plan.model_dump_json(exclude={'question'}))}")
    _steps(retrieval.trace)


QuestionArg = Annotated[str, typer.Argument(help="The question, in plain words.")]


@app.command("search")
@friendly
def search(
    ctx: typer.Context,
    question: QuestionArg,
    group: GroupOpt = None,
    k: Annotated[int, typer.Option("--k", "-k", help="How many results.", min=1, max=200)] = 10,
    as_json: JsonOpt = False,
    explain: ExplainOpt = False,
    llm: LLMOpt = None,
) -> None:
    """Ranked evidence for a question, each grounded in the turn it came from."""
    with _memory(ctx, group, llm) as mem:
        retrieval = mem.retrieve(question, k=k)
    if as_json:
        data: dict[str, Any] = {
            "question": question,
            "evidence": [e.model_dump(mode="json") for e in retrieval.evidence],
        }
        if explain:
            data["plan"] = retrieval.plan.model_dump(mode="json")
            data["trace"] = [s.model_dump(mode="json") for s in retrieval.trace]
        _print_json(data)
        return
    if explain:
        _trace(retrieval)
    out.print(_evidence_table(retrieval.evidence, f"Evidence for: {escape(question)}"))


@app.command("context")
@friendly
def context(
    ctx: typer.Context,
    question: QuestionArg,
    group: GroupOpt = None,
    budget: Annotated[
        int, typer.Option("--budget", help="Token budget (estimated).", min=1)
    ] = 2000,
    k: Annotated[int, typer.Option("--k", "-k", help="Evidence to consider.", min=1)] = 15,
    as_json: JsonOpt = False,
    explain: ExplainOpt = False,
) -> None:
    """The prompt block an LLM would get: evidence packed greedily under a token budget."""
    from cogmem.answer import pack

    with _memory(ctx, group) as mem:
        retrieval = mem.retrieve(question, k=k)
    block = pack(retrieval.evidence, budget)
    if as_json:
        _print_json(
            {
                "question": question,
                "tokens": block.tokens,
                "budget": block.budget,
                "left_out": block.left_out,
                "text": block.text,
                "evidence": [e.model_dump(mode="json") for e in block.included],
            }
        )
        return
    if explain:
        _trace(retrieval)
    sys.stdout.write(block.text + "\n")
    err.print(
        f"~{block.tokens} of {block.budget} tokens, {len(block.included)} blocks"
        + (f", {block.left_out} left out" if block.left_out else "")
    )


@app.command("ask")
@friendly
def ask(
    ctx: typer.Context,
    question: QuestionArg,
    group: GroupOpt = None,
    llm: LLMOpt = None,
    k: Annotated[int, typer.Option("--k", "-k", help="Evidence to use.", min=1)] = 10,
    as_json: JsonOpt = False,
    explain: ExplainOpt = False,
) -> None:
    """Answer a question from memory (LLM when configured, else an extractive answer)."""
    with _memory(ctx, group, llm) as mem:
        answer = mem.ask(question, k=k)
    if as_json:
        _print_json(answer.model_dump(mode="json", exclude=set() if explain else {"trace"}))
        return
    if explain:
        _steps(answer.trace)
    out.print(f"[bold]Q:[/] {escape(question)}")
    out.print(f"[bold]A:[/] {escape(answer.text)}", highlight=False)
    cited = ", ".join(e.turn_source_id or "?" for e in answer.evidence[:5])
    out.print(f"[dim]evidence: {escape(cited)}[/]")


def _register_command_modules() -> None:
    import importlib

    from cogmem.commands import MODULES

    for name in MODULES:
        importlib.import_module(f"cogmem.commands.{name}").register(app)


_register_command_modules()


if __name__ == "__main__":  # python -m cogmem.cli
    app()
