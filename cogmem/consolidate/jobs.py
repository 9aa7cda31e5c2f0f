"""The entry point: run the consolidation jobs on one group and report what changed."""

from __future__ import annotations

import time
from collections.abc import Sequence

from cogmem.consolidate.base import JOBS, ConsolidationReport, ConsolidationSettings, Job
from cogmem.consolidate.claims import run_claims
from cogmem.consolidate.facts import run_facts
from cogmem.consolidate.links import run_links
from cogmem.embed import Embedder
from cogmem.llm import LLMClient
from cogmem.store import Store


def consolidate(
    store: Store,
    group: str,
    embedder: Embedder | None,
    config: ConsolidationSettings | None = None,
    *,
    llm: LLMClient | None = None,
    dry_run: bool = False,
    jobs: Sequence[Job] = JOBS,
) -> ConsolidationReport:
    """Run the consolidation jobs (facts, claims, links, in that order) on one group.

    ``embedder`` embeds the content of new consolidated Facts (and any record that lacks a
    vector); ``llm``, when given, words the Facts (else a template does; the caller owns the
    client and closes it). With ``dry_run`` nothing is written and the report says what
    would change.
    """
    config = config or ConsolidationSettings()
    unknown = sorted(set(jobs) - set(JOBS))
    if unknown:
        raise ValueError(f"unknown consolidation job(s): {', '.join(unknown)}")
    report = ConsolidationReport(group=group, dry_run=dry_run, jobs=[j for j in JOBS if j in jobs])
    started = time.perf_counter()
    for job in report.jobs:
        t0 = time.perf_counter()
        if job == "facts":
            run_facts(store, group, embedder, llm, config, report, dry_run)
        elif job == "claims":
            run_claims(store, group, embedder, config, report, dry_run)
        else:
            run_links(store, group, embedder, config, report, dry_run)
        report.job_seconds[job] = round(time.perf_counter() - t0, 4)
    report.seconds = round(time.perf_counter() - started, 4)
    return report
