"""CLI command: ``consolidate``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from cogmem.cli.common import err, friendly, open_memory, out, print_json
from cogmem.cli.options import GroupOpt, JsonOpt

if TYPE_CHECKING:
    from cogmem.consolidate import ConsolidationReport

JOB_NAMES = ("facts", "claims", "links")


def report_rows(report: ConsolidationReport) -> list[tuple[str, str]]:
    """The (what, count) lines of the table that ``cogmem consolidate`` prints."""
    rows: list[tuple[str, int]] = [
        ("facts created", report.facts_created),
        ("facts extended", report.facts_extended),
        ("facts superseded (clusters joined)", report.facts_superseded),
        ("SUPPORTED_BY edges created", report.supported_by_created),
    ]
    for status, count in report.claims_changed.items():
        rows.append((f"claims changed to {status}", count))
    rows += [
        ("SUPERSEDES edges created", report.supersedes_created),
        ("SUPERSEDES edges removed", report.supersedes_removed),
        ("CONFLICTS_WITH edges created", report.conflicts_with_created),
        ("CONFLICTS_WITH edges removed", report.conflicts_with_removed),
        ("REFERENCES edges created", report.references_created),
        ("REFERENCES edges removed", report.references_removed),
        ("CAUSES edges created", report.causes_created),
        ("CAUSES edges removed", report.causes_removed),
    ]
    if report.llm_fallbacks:
        rows.append(("LLM fallbacks to the template", report.llm_fallbacks))
    return [(what, str(count)) for what, count in rows]


def consolidate(
    ctx: typer.Context,
    group: GroupOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Write nothing; report what would change.")
    ] = False,
    as_json: JsonOpt = False,
    job: Annotated[
        list[str] | None,
        typer.Option("--job", help="Run only this job (repeatable): facts, claims, links."),
    ] = None,
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="none (template Facts) or openai (LLM-worded Facts)."),
    ] = None,
    min_events: Annotated[
        int | None, typer.Option(help="Occasions that make a Fact (default 3).", min=2)
    ] = None,
    window_days: Annotated[
        float | None, typer.Option(help="Window holding them, in days (default 30).")
    ] = None,
    claim_similarity: Annotated[
        float | None,
        typer.Option(
            help="Cosine that groups two claims of one speaker (default: the embedder's; "
            "0.75 for MiniLM, 0.71 for mpnet)."
        ),
    ] = None,
    conflict_window_hours: Annotated[
        float | None,
        typer.Option(help="Claims this close (or one session) are one moment (default 24)."),
    ] = None,
    reference_threshold: Annotated[
        float | None,
        typer.Option(help="Cosine for REFERENCES (default: the embedder's; MiniLM 0.5)."),
    ] = None,
    keyword_jaccard: Annotated[
        float | None, typer.Option(help="Content-word Jaccard for REFERENCES (default 0.5).")
    ] = None,
    causal_threshold: Annotated[
        float | None,
        typer.Option(help="Cosine for CAUSES (default: the embedder's; MiniLM 0.45)."),
    ] = None,
    causal_window_turns: Annotated[
        int | None,
        typer.Option(help="Temporal-heuristic CAUSES: turns before a Decision (default 3)."),
    ] = None,
    link_window_turns: Annotated[
        int | None, typer.Option(help="Compare records at most this many turns apart (200).")
    ] = None,
    max_links: Annotated[
        int | None, typer.Option(help="Similarity edges kept per record (default 5).")
    ] = None,
) -> None:
    """Consolidate repeated events into Facts, reconcile claims and link artifacts
    (idempotent: a second run changes nothing). Prints what was created or changed."""
    from cogmem.consolidate import ConsolidationSettings

    jobs = list(dict.fromkeys(job or JOB_NAMES))
    bad = [j for j in jobs if j not in JOB_NAMES]
    if bad:
        raise typer.BadParameter(
            f"unknown job(s) {', '.join(bad)}; choose from {', '.join(JOB_NAMES)}",
            param_hint="--job",
        )
    overrides = {
        "min_events": min_events,
        "window_days": window_days,
        "claim_similarity": claim_similarity,
        "conflict_window_hours": conflict_window_hours,
        "reference_threshold": reference_threshold,
        "keyword_jaccard": keyword_jaccard,
        "causal_threshold": causal_threshold,
        "causal_window_turns": causal_window_turns,
        "link_window_turns": link_window_turns,
        "max_links_per_record": max_links,
    }
    options: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    try:
        ConsolidationSettings(**options)  # refuse bad values before connecting
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None

    @friendly
    def run() -> ConsolidationReport:
        with open_memory(ctx, group, llm) as mem:
            return mem.consolidate(dry_run=dry_run, jobs=jobs, **options)

    report = run()
    if as_json:
        print_json(report.model_dump(mode="json"))
        return
    title = f"Consolidation of group '{escape(report.group)}'" + (" (dry run)" if dry_run else "")
    table = Table(title=title)
    table.add_column("what")
    table.add_column("would change" if dry_run else "count", justify="right")
    for what, count in report_rows(report):
        table.add_row(what, count)
    out.print(table)
    if report.claims_by_status:
        by_status = ", ".join(f"{k} {v}" for k, v in report.claims_by_status.items())
        out.print(f"claims now: {by_status}")
    err.print(
        f"{report.seconds:.2f}s ("
        + ", ".join(f"{k} {v:.2f}s" for k, v in report.job_seconds.items())
        + ")"
        + ("; nothing was written" if dry_run else "")
    )
