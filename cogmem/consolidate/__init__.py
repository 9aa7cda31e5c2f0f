"""Offline consolidation: three idempotent graph rewrites over one group.

Each job reads its input with one statement from ``consolidation/``, decides in Python what the
graph should hold, compares that with what it already holds, and writes only the difference
(with other statements from ``consolidation/``). Running a job twice therefore changes nothing
the second time, and ``dry_run`` reports the difference without writing it.

1. **Events → Facts** (CogMem, :mod:`~cogmem.consolidate.facts`). Per (Person, Concept),
   the Events linking them ((p)-[:PARTICIPATED_IN]->(e)-[:INVOLVES]->(c)) are ordered by
   their referenced time (``time_start``, else ``at``) and chained: consecutive events at
   most ``window_days`` apart belong to one chain. A chain becomes a *cluster* once some
   window of ``window_days`` holds ``min_events`` occasions (distinct days, by default). A
   cluster gets one consolidated Fact with a temporal envelope, ``SUPPORTED_BY`` edges to
   every event of the chain, ``HAS_FACT`` / ``ABOUT`` edges and ``EVIDENCED_BY`` edges to
   the events' turns. *Cluster identity*: a cluster is the same cluster as an existing
   consolidated Fact when they share a supporting event (events are never deleted by
   consolidation, and chains only grow), so a later event within ``window_days`` of the
   chain extends that Fact. A new Fact's id is a hash of (group, person, concept, the
   cluster's first event). When a new event bridges two clusters, the older Fact survives,
   is extended, and ``SUPERSEDES`` the other (whose status becomes SUPERSEDED; nothing is
   deleted).
2. **Claim reconciliation** (CogMem). See :func:`~cogmem.consolidate.claims.plan_claims`
   for the grouping rule.
3. **Artifact links** (CogCanvas). See :func:`~cogmem.consolidate.links.plan_links`.

Edges that the claim and link jobs write carry ``job = 'reconcile'`` / ``'link'``; those jobs
converge: an edge they wrote that the current data and settings no longer derive is removed
(and reported). Consolidated Facts are never removed.

Layout: ``base`` (job names, settings, report), ``facts``, ``claims``, ``links`` (one job
each), ``edges`` (the shared write path and edge diff), ``common`` (row helpers), ``jobs``
(:func:`consolidate`, the entry point). The LLM client that words Facts is passed in by
the caller (``Memory.llm``); none means the offline template.
"""

from cogmem.consolidate.base import (
    CLAIM_STATUSES,
    JOBS,
    ConsolidationReport,
    ConsolidationSettings,
    Job,
)
from cogmem.consolidate.claims import (
    ClaimPlan,
    ClaimRow,
    Predicate,
    alias_table,
    normalise_predicate,
    plan_claims,
)
from cogmem.consolidate.facts import (
    EventRow,
    FactPlan,
    chains,
    describe_span,
    fact_template,
    plan_facts,
    qualifies,
)
from cogmem.consolidate.jobs import consolidate
from cogmem.consolidate.links import LinkPlan, LinkRecord, content_words, keyword_pairs, plan_links

__all__ = [
    "CLAIM_STATUSES",
    "JOBS",
    "ClaimPlan",
    "ClaimRow",
    "ConsolidationReport",
    "ConsolidationSettings",
    "EventRow",
    "FactPlan",
    "Job",
    "LinkPlan",
    "LinkRecord",
    "Predicate",
    "alias_table",
    "chains",
    "consolidate",
    "content_words",
    "describe_span",
    "fact_template",
    "keyword_pairs",
    "normalise_predicate",
    "plan_claims",
    "plan_facts",
    "plan_links",
    "qualifies",
]
