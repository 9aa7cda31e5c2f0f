"""CLI commands on one group's data: ``ingest``, ``search``, ``context``, ``ask``,
``forget``, ``export`` and ``import``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from cogmem.cli.common import (
    err,
    fail,
    friendly,
    open_memory,
    out,
    print_json,
    require_as_of,
    require_question,
    short,
    warn_if_empty,
)
from cogmem.cli.options import (
    AsOfOpt,
    ExplainOpt,
    GroupOpt,
    JsonOpt,
    LLMOpt,
    PlainJsonOpt,
    QuestionArg,
)
from cogmem.temporal.as_of import describe_as_of

if TYPE_CHECKING:
    from cogmem.models import Evidence, TraceStep
    from cogmem.retrieval import Retrieval


# -- ingest -----------------------------------------------------------------------------
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

    from cogmem.ingest import ReaderError, read_file

    try:
        result = read_file(path, fmt)
    except ReaderError as exc:
        if "Extra data" in exc.message and fmt in ("locomo", "openai"):
            raise fail(
                f"{exc} — the file holds more than one JSON document: is it JSONL "
                "(one message per line)? Try --format jsonl or --format auto"
            ) from None
        raise
    if not as_json:
        err.print(
            f"Read {escape(str(path))} as [bold]{result.format}[/]: {len(result.conversations)} "
            f"conversation(s), {result.turn_count} turns"
            + (f", {len(result.skipped)} empty turn(s) skipped" if result.skipped else "")
        )
    with open_memory(ctx, group, llm) as mem:
        before = mem.inspect.record_labels()
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
        stored = mem.inspect.record_labels()
    # Count what the write stored, by stored label (persons merge by name, a KeyFact is
    # a :Fact): the extractor's own tally counts mentions, not nodes.
    summary.records = {
        label: stored[label] - before.get(label, 0)
        for label in sorted(stored)
        if stored[label] != before.get(label, 0)
    }
    if as_json:
        print_json(
            {
                **summary.model_dump(),
                "records_in_group": sum(stored.values()),
                "turns_per_s": round(summary.turns_per_s, 1),
            }
        )
        return
    table = Table(title=f"Ingested into group '{escape(summary.group)}'")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("turns", str(summary.turns))
    for rtype, count in sorted(summary.records.items()):
        table.add_row(f"new records: {rtype}", str(count))
    table.add_row("records in the group now", str(sum(stored.values())))
    table.add_row("dropped (quote not in turn)", str(summary.dropped))
    if summary.fallbacks:
        table.add_row("LLM fallbacks to heuristics", str(summary.fallbacks))
    out.print(table)
    out.print(
        f"{summary.seconds:.1f}s, {summary.turns_per_s:.1f} turns/s "
        f"(extractor {summary.extractor}, embedder {summary.embedder})"
    )


# -- retrieval --------------------------------------------------------------------------
def evidence_table(evidence: list[Evidence], title: str) -> Table:
    """Evidence as a table: rank, type, speaker, source turn, date said, content."""
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


def print_steps(trace: list[TraceStep]) -> None:
    """The operator trace, one step a line, on stderr."""
    for step in trace:
        ran = f"  [{', '.join(step.statements)}]" if step.statements else ""
        err.print(
            f"  {step.operator:<12} {step.returned:>4}  {step.seconds:.3f}s  "
            f"{escape(step.detail)}{escape(ran)}",
            soft_wrap=True,
            highlight=False,
        )


def print_trace(retrieval: Retrieval) -> None:
    """The plan and the operator trace of a retrieval, on stderr."""
    err.print(
        f"[bold]plan[/] {escape(retrieval.plan.model_dump_json(exclude={'question'}))}",
        soft_wrap=True,
        highlight=False,
    )
    if retrieval.config is not None:
        err.print(f"[bold]config[/] {escape(retrieval.config.model_dump_json())}", soft_wrap=True)
    print_steps(retrieval.trace)


@friendly
def search(
    ctx: typer.Context,
    question: QuestionArg,
    group: GroupOpt = None,
    k: Annotated[int, typer.Option("--k", "-k", help="How many results.", min=1, max=200)] = 10,
    as_json: JsonOpt = False,
    explain: ExplainOpt = False,
    llm: LLMOpt = None,
    as_of: AsOfOpt = None,
) -> None:
    """Ranked evidence for a question, each grounded in the turn it came from."""
    require_question(question)
    when = require_as_of(as_of)
    with open_memory(ctx, group, llm, one_search=True) as mem:
        warn_if_empty(mem)
        retrieval = mem.retrieve(question, k=k, as_of=when)
    if as_json:
        data: dict[str, Any] = {
            "question": question,
            "as_of": when.isoformat() if when else None,
            "evidence": [e.model_dump(mode="json") for e in retrieval.evidence],
        }
        if explain:
            data["plan"] = retrieval.plan.model_dump(mode="json")
            data["trace"] = [s.model_dump(mode="json") for s in retrieval.trace]
            if retrieval.config is not None:
                data["config"] = retrieval.config.model_dump(mode="json")
        print_json(data)
        return
    if explain:
        print_trace(retrieval)
    title = f"Evidence for: {escape(short(question))}"
    if when is not None:
        title += f" (as of {describe_as_of(when)})"
    out.print(evidence_table(retrieval.evidence, title))


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
    as_of: AsOfOpt = None,
) -> None:
    """The prompt block an LLM would get: evidence packed greedily under a token budget."""
    from cogmem.answer import pack

    require_question(question)
    when = require_as_of(as_of)
    with open_memory(ctx, group, one_search=True) as mem:
        warn_if_empty(mem)
        retrieval = mem.retrieve(question, k=k, as_of=when)
    block = pack(retrieval.evidence, budget)
    if as_json:
        print_json(
            {
                "question": question,
                "as_of": when.isoformat() if when else None,
                "tokens": block.tokens,
                "budget": block.budget,
                "left_out": block.left_out,
                "text": block.text,
                "evidence": [e.model_dump(mode="json") for e in block.included],
            }
        )
        return
    if explain:
        print_trace(retrieval)
    sys.stdout.write(block.text + "\n")
    err.print(
        f"~{block.tokens} of {block.budget} tokens, {len(block.included)} blocks"
        + (f", {block.left_out} left out" if block.left_out else "")
    )


@friendly
def ask(
    ctx: typer.Context,
    question: QuestionArg,
    group: GroupOpt = None,
    llm: LLMOpt = None,
    k: Annotated[int, typer.Option("--k", "-k", help="Evidence to use.", min=1)] = 10,
    as_json: JsonOpt = False,
    explain: ExplainOpt = False,
    as_of: AsOfOpt = None,
) -> None:
    """Answer a question from memory (LLM when configured, else an extractive answer)."""
    require_question(question)
    when = require_as_of(as_of)
    with open_memory(ctx, group, llm, one_search=True) as mem:
        warn_if_empty(mem)
        answer = mem.ask(question, k=k, as_of=when)
    if as_json:
        print_json(answer.model_dump(mode="json", exclude=set() if explain else {"trace"}))
        return
    if explain:
        print_steps(answer.trace)
    out.print(f"[bold]Q:[/] {escape(short(question, 200))}")
    out.print(f"[bold]A:[/] {escape(answer.text)}", highlight=False)
    cited = ", ".join(e.turn_source_id or "?" for e in answer.evidence[:5])
    out.print(f"[dim]evidence: {escape(cited)}[/]")


# -- forget, export, import -------------------------------------------------------------
def check_writable(path: Path) -> None:
    """Refuse, before connecting, an --out that is a folder or cannot be written."""
    import os

    if path.is_dir():
        raise fail(f"--out {path} is a directory: name a file in it (e.g. {path / 'export.json'})")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise fail(f"--out {path}: the folder {parent} does not exist")
    if (path.exists() and not os.access(path, os.W_OK)) or not os.access(parent, os.W_OK):
        raise fail(f"--out {path}: permission denied (cannot write there)")


@friendly
def forget(
    ctx: typer.Context,
    group: Annotated[
        str,
        typer.Option("--group", "-g", help="The memory space to forget in (required)."),
    ],
    turn: Annotated[
        list[str] | None,
        typer.Option(
            "--turn",
            help="Forget this turn (repeatable): its source id (D1:3; with --conversation, "
            "of that conversation) or node id.",
        ),
    ] = None,
    conversation: Annotated[
        str | None,
        typer.Option(
            "--conversation",
            help="Forget this conversation (its source id); with --turn, the conversation "
            "the turn ids belong to.",
        ),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option("--from", help="Forget the turns said from then (ISO date or time)."),
    ] = None,
    end: Annotated[
        str | None,
        typer.Option("--to", help="... to then (ISO date or time; a date is its whole day)."),
    ] = None,
    speaker: Annotated[
        str | None, typer.Option("--speaker", help="With --from/--to: only this speaker's turns.")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would go; change nothing.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: PlainJsonOpt = False,
) -> None:
    """Forget turns, a conversation or a span of time, and exactly what rests on them, or
    (with none of --turn, --conversation, --from/--to) a whole group.

    Records evidenced only by the forgotten turns go; consolidated facts and claim statuses
    are derived again; an audit entry records that it happened, never what was said.
    Asks first unless --yes; --dry-run lists what would go."""
    precise = bool(turn) or conversation is not None or start is not None or end is not None
    if precise:
        selection = (turn or [], conversation, start, end, speaker)
        _forget_precisely(ctx, group, selection, dry_run, yes, as_json)
        return
    if speaker is not None:
        raise fail("--speaker goes with --from and --to")
    if dry_run:
        raise fail("--dry-run goes with --turn, --conversation or --from/--to")
    with open_memory(ctx, group) as mem:
        group = mem.group
        before = mem.inspect.counts()
        if before["nodes"] == 0:
            if as_json:
                print_json({"group": group, "nodes": 0, "relationships": 0, "labels": {}})
            else:
                out.print(f"Group '{escape(group)}' holds nothing: nothing to forget.")
            return
        rels = sum(before["relationships"].values())
        if not yes:
            typer.confirm(
                f"Delete all {before['nodes']} nodes and {rels} relationships of group "
                f"'{group}' on {mem.settings.neo4j_uri}? This cannot be undone",
                abort=True,
                err=True,
            )
        deleted = mem.forget()
    if as_json:
        print_json(
            {"group": group, "nodes": deleted, "relationships": rels, "labels": before["labels"]}
        )
    else:
        out.print(
            f"Forgot group '{escape(group)}': {deleted} nodes and their {rels} "
            "relationships deleted."
        )


def _forget_precisely(
    ctx: typer.Context,
    group: str,
    selection: tuple[list[str], str | None, str | None, str | None, str | None],
    dry_run: bool,
    yes: bool,
    as_json: bool,
) -> None:
    """``cogmem forget --turn … | --conversation … | --from … --to …``; ``selection``:
    (turns, conversation, from, to, speaker) as given."""
    from cogmem.api import ForgetError

    turns, conversation, start, end, speaker = selection
    span = start is not None or end is not None
    if span and (start is None or end is None):
        raise fail("--from and --to go together: give both ends of the span")
    if span and (turns or conversation is not None):
        raise fail("give --turn, --conversation or --from/--to, not several")
    if speaker is not None and not span:
        raise fail("--speaker goes with --from and --to")
    with open_memory(ctx, group) as mem:

        def run(dry: bool) -> Any:
            if turns:
                return mem.forget_turns(turns, conversation, dry_run=dry)
            if conversation is not None:
                return mem.forget_conversation(conversation, dry_run=dry)
            assert start is not None and end is not None
            return mem.forget_span(start, end, speaker, dry_run=dry)

        try:
            preview = run(True)
            if dry_run:
                _print_forget(preview, as_json)
                return
            if not yes:
                typer.confirm(
                    f"Forget {len(preview.turns)} turn(s) and the {preview.record_count} "
                    f"record(s) that rest on them in group '{mem.group}'? This cannot be undone",
                    abort=True,
                    err=True,
                )
            done = run(False)
        except ForgetError as exc:
            raise fail(str(exc)) from None
    _print_forget(done, as_json)


def _print_forget(summary: Any, as_json: bool) -> None:
    if as_json:
        print_json(summary.model_dump(mode="json"))
        return
    verb = "Would forget" if summary.dry_run else "Forgot"
    records = ", ".join(f"{n} {t}" for t, n in sorted(summary.records.items())) or "none"
    out.print(
        f"{verb} {len(summary.turns)} turn(s) of group '{escape(summary.group)}'; "
        f"records: {escape(records)}; consolidated facts made again: {summary.facts_removed}; "
        f"claim pairs reconciled again: {summary.claim_pairs}.",
        highlight=False,
    )
    if summary.stale:
        ids = ", ".join(f"{t.conversation} {t.source_id}" for t in summary.stale[:10])
        more = f" and {len(summary.stale) - 10} more" if len(summary.stale) > 10 else ""
        err.print(
            f"[yellow]note:[/] {len(summary.stale)} turn(s) that stay were read in the light of "
            f"a forgotten one and keep their records ({escape(ids)}{more}): forget them and "
            "say them again for a first ingest's reading",
            highlight=False,
            soft_wrap=True,
        )
    if summary.dry_run:
        for t in summary.turns:
            line = f"  {escape(t.conversation)} {escape(t.source_id)}  ({t.id})"
            out.print(line, highlight=False)
    elif summary.audit_id:
        out.print(f"Audit entry {summary.audit_id} (`cogmem stats` lists them).", highlight=False)


@friendly
def export(
    ctx: typer.Context,
    group: GroupOpt = None,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write here (mode 0600) instead of stdout."),
    ] = None,
    embeddings: Annotated[
        bool,
        typer.Option(
            "--embeddings/--no-embeddings",
            help="Include the vectors (default) or leave them out (import recomputes them).",
        ),
    ] = True,
) -> None:
    """Export a group as one JSON document (to stdout, or --out FILE).

    Nodes with labels and properties, relationships by type between node ids, vectors
    (unless --no-embeddings), datetimes as ISO strings, a format version."""
    from cogmem.transfer import write_export

    if out_path is not None:
        check_writable(out_path)
    with open_memory(ctx, group) as mem:
        data = mem.export(embeddings=embeddings)
    if out_path is None:
        sys.stdout.write(data.model_dump_json() + "\n")
    else:
        try:
            write_export(data, out_path)
        except OSError as exc:
            raise fail(f"--out {out_path}: cannot write there ({exc.strerror or exc})") from None
    rels = len(data.relationships)
    err.print(
        f"Exported group '{escape(data.group)}': {len(data.nodes)} nodes, {rels} "
        f"relationships{'' if embeddings else ', no vectors'}"
        + (f" to {escape(str(out_path))}" if out_path else "")
    )


@friendly
def import_(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A file written by `cogmem export`.")],
    group: Annotated[
        str | None,
        typer.Option(
            "--group",
            "-g",
            help="Import into this group (ids are rewritten); default: the file's group.",
        ),
    ] = None,
    reembed: Annotated[
        bool,
        typer.Option("--reembed", help="Recompute every vector with the configured embedder."),
    ] = False,
    as_json: PlainJsonOpt = False,
) -> None:
    """Import a group from a `cogmem export` file (idempotent).

    The file is validated before anything is written; vectors of another embedder are
    refused unless --reembed. Into another group (--group) every id is rewritten, so
    the two never collide. Rerun an interrupted import to complete it."""
    from cogmem.transfer import check_vectors, read_export

    data = read_export(path)
    with open_memory(ctx, group or data.group) as mem:
        if not reembed:  # before touching the database
            check_vectors(data, *mem.admin.embedder_identity(), path)
        summary = mem.import_(data, reembed=reembed, path=path)
    if as_json:
        print_json(summary.model_dump(mode="json"))
        return
    table = Table(
        title=f"Imported '{escape(summary.source_group)}' into group '{escape(summary.group)}'"
    )
    table.add_column("what")
    table.add_column("count", justify="right")
    for label, count in sorted(summary.labels.items()):
        table.add_row(f"nodes: {label}", str(count))
    for rtype, count in sorted(summary.types.items()):
        table.add_row(f"relationships: {rtype}", str(count))
    out.print(table)
    note: list[str] = [f"vectors {summary.vectors}"]
    if summary.ids_rewritten:
        note.append(
            f"ids rewritten for the new group ({summary.derived_ids} of "
            f"{summary.nodes} as an ingest would make them)"
        )
    out.print(", ".join(note))
