"""Offline consolidation: three idempotent graph rewrites over one group.

Each job reads its input with one statement from ``consolidation/``, decides in Python what the
graph should hold, compares that with what it already holds, and writes only the difference
(with other statements from ``consolidation/``). Running a job twice therefore changes nothing
the second time, and ``dry_run`` reports the difference without writing it.

1. **Events → Facts** (CogMem). Per (Person, Concept), the Events linking them
   ((p)-[:PARTICIPATED_IN]->(e)-[:INVOLVES]->(c)) are ordered by their referenced time
   (``time_start``, else ``at``) and chained: consecutive events at most ``window_days`` apart
   belong to one chain. A chain becomes a *cluster* once some window of ``window_days``
   holds ``min_events`` occasions (distinct days, by default). A cluster gets one
   consolidated Fact with a temporal envelope, ``SUPPORTED_BY`` edges to every event of the
   chain, ``HAS_FACT`` / ``ABOUT`` edges and ``EVIDENCED_BY`` edges to the events' turns.
   *Cluster identity*: a cluster is the same cluster as an existing consolidated Fact when
   they share a supporting event (events are never deleted by consolidation, and chains only
   grow), so a later event within ``window_days`` of the chain extends that Fact. A new Fact's
   id is a hash of (group, person, concept, the cluster's first event). When a new event
   bridges two clusters, the older Fact survives, is extended, and ``SUPERSEDES`` the other
   (whose status becomes SUPERSEDED; nothing is deleted).
2. **Claim reconciliation** (CogMem). See :func:`plan_claims` for the grouping rule.
3. **Artifact links** (CogCanvas). See :func:`plan_links`.

Edges that the claim and link jobs write carry ``job = 'reconcile'`` / ``'link'``; those jobs
converge: an edge they wrote that the current data and settings no longer derive is removed
(and reported). Consolidated Facts are never removed.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from cogmem.config import Settings
from cogmem.embed import Embedder
from cogmem.extract.lexicon import NEGATIVE, POSITIVE, STOPWORDS
from cogmem.graph import group_key, node_id
from cogmem.store import Store

Job = Literal["facts", "claims", "links"]
JOBS: tuple[Job, ...] = ("facts", "claims", "links")
CLAIM_STATUSES = ("CURRENT", "SUPERSEDED", "CONFLICTING")
LINK_TYPES_DEFAULT = ["Decision", "Todo", "Reminder", "Insight", "KeyFact", "Fact"]
CAUSE_SOURCES = frozenset({"KeyFact", "Reminder"})
CAUSE_TARGETS = frozenset({"Decision"})
ROWS_PER_STATEMENT = 1000


class ConsolidationSettings(BaseModel):
    """Parameters of the three jobs; every one can be set from ``cogmem consolidate``."""

    # events → facts
    min_events: int = Field(default=3, ge=2, description="occasions needed for a Fact")
    window_days: float = Field(default=30.0, gt=0, description="window holding them (days)")
    distinct_days: bool = Field(
        default=True,
        description="count occasions as distinct days (three events told on one day are one)",
    )
    # claims
    claim_similarity: float = Field(
        default=0.75, ge=-1.0, le=1.0, description="cosine that puts two claims in one group"
    )
    conflict_window_hours: float = Field(
        default=24.0,
        ge=0,
        description="claims this close in time (or from one session) are 'the same moment'",
    )
    # links
    link_types: list[str] = Field(default_factory=lambda: list(LINK_TYPES_DEFAULT))
    reference_threshold: float = Field(default=0.5, ge=-1.0, le=1.0)
    keyword_jaccard: float = Field(default=0.5, gt=0.0, le=1.0)
    keyword_min_shared: int = Field(default=2, ge=1)
    causal_threshold: float = Field(default=0.45, ge=-1.0, le=1.0)
    causal_window_turns: int = Field(
        default=3, ge=0, description="temporal heuristic: KeyFact/Reminder this many turns back"
    )
    causal_same_session: bool = Field(
        default=True, description="temporal heuristic also needs the same session"
    )
    link_window_turns: int = Field(
        default=200, ge=1, description="pairs are compared within a conversation, this far apart"
    )
    max_links_per_record: int = Field(
        default=5, ge=1, description="similarity edges kept per newer record (best first)"
    )


class ConsolidationReport(BaseModel):
    """What a consolidation run created or changed (or would, with ``dry_run``)."""

    group: str
    dry_run: bool = False
    jobs: list[str] = Field(default_factory=list)
    facts_created: int = 0
    facts_extended: int = 0
    facts_superseded: int = 0
    supported_by_created: int = 0
    claims_changed: dict[str, int] = Field(
        default_factory=lambda: dict.fromkeys(CLAIM_STATUSES, 0),
        description="claims whose status changed, by their new status",
    )
    claims_by_status: dict[str, int] = Field(
        default_factory=dict, description="all claims of the group by status, after the run"
    )
    supersedes_created: int = 0
    supersedes_removed: int = 0
    conflicts_with_created: int = 0
    conflicts_with_removed: int = 0
    references_created: int = 0
    references_removed: int = 0
    causes_created: int = 0
    causes_removed: int = 0
    llm_fallbacks: int = 0
    seconds: float = 0.0
    job_seconds: dict[str, float] = Field(default_factory=dict)

    @property
    def changes(self) -> int:
        """How many things were created or changed in all (0 after a no-op run)."""
        return (
            self.facts_created
            + self.facts_extended
            + self.facts_superseded
            + self.supported_by_created
            + sum(self.claims_changed.values())
            + self.supersedes_created
            + self.supersedes_removed
            + self.conflicts_with_created
            + self.conflicts_with_removed
            + self.references_created
            + self.references_removed
            + self.causes_created
            + self.causes_removed
        )


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------
def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _unit_rows(vectors: list[Any], texts: Sequence[str], embedder: Embedder | None) -> np.ndarray:
    """Unit vectors for the rows; missing ones are computed (not stored) with ``embedder``."""
    missing = [i for i, v in enumerate(vectors) if not v]
    dims = {len(v) for v in vectors if v}
    if missing and embedder is not None:
        computed = embedder.embed([texts[i] or "" for i in missing])
        for i, vec in zip(missing, computed, strict=True):
            vectors[i] = vec.tolist()
        dims.add(int(computed.shape[1]))
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    dim = max(dims) if dims else 1
    matrix = np.zeros((len(vectors), dim), dtype=np.float32)
    for i, vec in enumerate(vectors):
        if vec and len(vec) == dim:
            matrix[i] = np.asarray(vec, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return matrix / norms


def _write_rows(
    store: Store, steps: list[tuple[str, str, list[dict[str, Any]], dict[str, Any]]]
) -> None:
    """Run (statement, row-parameter name, rows, other params) in one transaction, chunked."""
    batch: list[tuple[str, dict[str, Any]]] = []
    for name, key, rows, params in steps:
        for start in range(0, len(rows), ROWS_PER_STATEMENT):
            batch.append((name, {**params, key: rows[start : start + ROWS_PER_STATEMENT]}))
    if batch:
        store.write_many(batch)


# ----------------------------------------------------------------------------------------
# job 1: events → facts
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EventRow:
    id: str
    t: datetime
    t_end: datetime
    at: datetime
    content: str


@dataclass
class FactPlan:
    """One consolidated Fact to create or extend."""

    id: str
    person_id: str
    person: str
    concept_id: str
    concept: str
    seed_event: str
    events: list[EventRow]
    new_event_ids: list[str]
    created: bool
    retire: list[str] = field(default_factory=list)
    distinct_days: bool = True

    @property
    def occasions(self) -> int:
        """Occasions counted in the wording: distinct days (or events)."""
        if self.distinct_days:
            return len({e.t.date() for e in self.events})
        return len(self.events)


def chains(events: Sequence[EventRow], window: timedelta) -> list[list[EventRow]]:
    """Split time-ordered events where two consecutive ones are more than ``window`` apart."""
    out: list[list[EventRow]] = []
    for ev in sorted(events, key=lambda e: (e.t, e.id)):
        if out and ev.t - out[-1][-1].t <= window:
            out[-1].append(ev)
        else:
            out.append([ev])
    return out


def qualifies(
    chain: Sequence[EventRow], min_events: int, window: timedelta, distinct: bool
) -> bool:
    """Does some window of length ``window`` hold ``min_events`` occasions of the chain?"""
    points = sorted({e.t.date() for e in chain}) if distinct else sorted(e.t for e in chain)
    if len(points) < min_events:
        return False
    span = window if not distinct else timedelta(days=math.floor(window.total_seconds() / 86400))
    for i in range(len(points) - min_events + 1):
        if points[i + min_events - 1] - points[i] <= span:  # type: ignore[operator]
            return True
    return False


def describe_span(start: datetime, end: datetime) -> str:
    """'on 2 June 2023', 'between 2 and 20 June 2023', 'between 28 May and 3 June 2023'…"""
    if start.date() == end.date():
        return f"on {start.day} {start:%B %Y}"
    if (start.year, start.month) == (end.year, end.month):
        return f"between {start.day} and {end.day} {end:%B %Y}"
    if start.year == end.year:
        return f"between {start.day} {start:%B} and {end.day} {end:%B %Y}"
    return f"between {start.day} {start:%B %Y} and {end.day} {end:%B %Y}"


def fact_template(person: str, concept: str, occasions: int, start: datetime, end: datetime) -> str:
    """The offline wording of a consolidated Fact."""
    words = concept.split()
    if len(words) == 1 and concept.lower().endswith("ing"):
        what = f"went {concept}"
    else:
        what = f"had events involving {concept}"
    times = "once" if occasions == 1 else "twice" if occasions == 2 else f"{occasions} times"
    return f"{person} repeatedly {what}: {times} {describe_span(start, end)}"


FACT_SYSTEM_PROMPT = (
    "You consolidate a person's repeated experiences into one general, factual memory. "
    "Given dated episodes that involve the same person and topic, write ONE short sentence "
    "in the third person that states the recurring pattern, names the person and the topic, "
    "and says how often and over which period. Do not invent details that the episodes do "
    "not state. Answer with the sentence only."
)


def fact_prompt(plan: FactPlan) -> str:
    lines = [f"Person: {plan.person}", f"Topic: {plan.concept}", "Episodes:"]
    for ev in plan.events[:30]:
        lines.append(f"- {ev.t:%Y-%m-%d}: {ev.content}")
    return "\n".join(lines)


def plan_facts(
    rows: Sequence[dict[str, Any]],
    existing: Sequence[dict[str, Any]],
    group: str,
    config: ConsolidationSettings,
) -> list[FactPlan]:
    """The Facts to create or extend, given event rows and the existing consolidated Facts."""
    window = timedelta(days=config.window_days)
    by_pair: dict[tuple[str, str], list[EventRow]] = defaultdict(list)
    names: dict[tuple[str, str], tuple[str, str]] = {}
    for r in rows:
        t = _aware(r["t"])
        if t is None:
            continue
        key = (r["person_id"], r["concept_id"])
        names[key] = (r["person"] or "", r["concept"] or "")
        by_pair[key].append(
            EventRow(
                id=r["event_id"],
                t=t,
                t_end=_aware(r["t_end"]) or t,
                at=_aware(r["at"]) or t,
                content=r["content"] or "",
            )
        )
    facts_by_pair: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    used_ids = {f["id"] for f in existing}
    for f in existing:
        if f.get("status") != "SUPERSEDED":
            facts_by_pair[(f["person_id"], f["concept_id"])].append(f)

    plans: list[FactPlan] = []
    for key in sorted(by_pair):
        person, concept = names[key]
        claimed: set[str] = set()  # existing facts already given to a cluster of this pair
        for chain in chains(by_pair[key], window):
            if not qualifies(chain, config.min_events, window, config.distinct_days):
                continue
            ids = {e.id for e in chain}
            owners = [
                f
                for f in facts_by_pair.get(key, [])
                if f["id"] not in claimed and ids & set(f["event_ids"])
            ]
            owners.sort(key=lambda f: (_aware(f["time_start"]) or chain[0].t, f["id"]))
            if owners:
                survivor = owners[0]
                claimed.update(f["id"] for f in owners)
                known = set(survivor["event_ids"])
                new = [e.id for e in chain if e.id not in known]
                retire = [f["id"] for f in owners[1:]]
                if not new and not retire:
                    continue
                # the envelope also covers events the Fact had before and the chain lacks
                by_id = {e.id: e for e in by_pair[key]}
                events = sorted(
                    {by_id[i] for i in known | ids if i in by_id}, key=lambda e: (e.t, e.id)
                )
                plans.append(
                    FactPlan(
                        id=survivor["id"],
                        person_id=key[0],
                        person=person,
                        concept_id=key[1],
                        concept=concept,
                        seed_event=chain[0].id,
                        events=events,
                        new_event_ids=new,
                        created=False,
                        retire=retire,
                        distinct_days=config.distinct_days,
                    )
                )
                continue
            fid = node_id(group, "consolidated-fact", key[0], key[1], chain[0].id)
            salt = 1
            while fid in used_ids:  # only when an old Fact's events were split apart
                fid = node_id(group, "consolidated-fact", key[0], key[1], chain[0].id, salt)
                salt += 1
            used_ids.add(fid)
            plans.append(
                FactPlan(
                    id=fid,
                    person_id=key[0],
                    person=person,
                    concept_id=key[1],
                    concept=concept,
                    seed_event=chain[0].id,
                    events=list(chain),
                    new_event_ids=[e.id for e in chain],
                    created=True,
                    distinct_days=config.distinct_days,
                )
            )
    return plans


def _fact_contents(
    plans: Sequence[FactPlan], settings: Settings | None, report: ConsolidationReport
) -> list[tuple[str, str]]:
    """(content, method) per plan: an LLM abstraction when configured, else the template."""
    templates = [
        fact_template(p.person, p.concept, p.occasions, p.events[0].t, p.events[-1].t)
        for p in plans
    ]
    if settings is None or settings.llm != "openai" or not plans:
        return [(t, "template") for t in templates]
    from cogmem.llm import LLMClient, LLMError

    out: list[tuple[str, str]] = []
    with LLMClient(settings) as client:
        for plan, template in zip(plans, templates, strict=True):
            try:
                text = " ".join(client.complete_text(FACT_SYSTEM_PROMPT, fact_prompt(plan)).split())
                out.append((text[:600], "llm"))
            except LLMError:
                report.llm_fallbacks += 1
                out.append((template, "template"))
    return out


def run_facts(
    store: Store,
    group: str,
    embedder: Embedder | None,
    settings: Settings | None,
    config: ConsolidationSettings,
    report: ConsolidationReport,
    dry_run: bool,
) -> None:
    rows = store.read("consolidation/event_candidates", group_id=group)
    existing = store.read("consolidation/consolidated_facts", group_id=group)
    plans = plan_facts(rows, existing, group, config)
    report.facts_created += sum(p.created for p in plans)
    report.facts_extended += sum(not p.created for p in plans)
    report.facts_superseded += sum(len(p.retire) for p in plans)
    report.supported_by_created += sum(len(p.new_event_ids) for p in plans)
    if dry_run or not plans:
        return
    contents = _fact_contents(plans, settings, report)
    if embedder is None:
        raise ValueError("consolidating events into facts needs an embedder")
    vectors = embedder.embed([c for c, _ in contents])
    gkey = group_key(group)
    fact_rows = []
    retire_rows = []
    for plan, (content, method), vec in zip(plans, contents, vectors, strict=True):
        start = plan.events[0].t
        end = max(e.t_end for e in plan.events)
        fact_rows.append(
            {
                "id": plan.id,
                "person_id": plan.person_id,
                "concept_id": plan.concept_id,
                "event_ids": [e.id for e in plan.events],
                "props": {
                    "group_key": gkey,
                    "type": "Fact",
                    "content": content,
                    "method": method,
                    "subject": plan.person,
                    "person_id": plan.person_id,
                    "concept_id": plan.concept_id,
                    "concept": plan.concept,
                    "cluster_seed": plan.seed_event,
                    "support_count": len(plan.events),
                    "occasions": plan.occasions,
                    "time_start": start,
                    "time_end": end,
                    "time_text": describe_span(start, plan.events[-1].t),
                    "at": max(e.at for e in plan.events),
                    "confidence": 0.8,
                    "status": "CURRENT",
                    "embedding": vec.tolist(),
                },
            }
        )
        retire_rows += [{"id": old, "by": plan.id} for old in plan.retire]
    _write_rows(
        store,
        [
            ("consolidation/merge_consolidated_facts", "facts", fact_rows, {"group_id": group}),
            ("consolidation/supersede_facts", "rows", retire_rows, {"group_id": group}),
        ],
    )


# ----------------------------------------------------------------------------------------
# job 2: claim reconciliation
# ----------------------------------------------------------------------------------------
COPULAS = frozenset(
    "is are was were am be been being 's seems seem seemed looks look looked sounds sound "
    "sounded feels feel felt appears appear appeared became become becomes remains".split()
)
FILLERS = frozenset(
    "so very really too quite pretty super extremely incredibly truly totally such a an the "
    "kind of sort rather fairly absolutely just genuinely always such somewhat bit little "
    "not never no n't isn't wasn't aren't weren't".split()
)
GENERIC_PREDICATES = frozenset(
    {"", "opinion", "thinks", "think", "believes", "says", "said", "claims", "feels"}
)
_PRED_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*|'s|n't")


@dataclass(frozen=True)
class Predicate:
    """A predicate brought to canonical form.

    ``key`` is the dimension value (``"lazy"`` for "is lazy", "is so lazy", "lazy", "is not
    lazy"); ``evaluative`` says it is an evaluation of the target as a whole ("is <adjective
    or noun phrase>"); ``generic`` says it names nothing (the extractor's "opinion").
    """

    key: str
    evaluative: bool
    generic: bool

    @property
    def dimension(self) -> str:
        return "is" if self.evaluative else self.key


def normalise_predicate(predicate: str | None) -> Predicate:
    text = " ".join((predicate or "").lower().replace("’", "'").split())
    if text in GENERIC_PREDICATES:
        return Predicate(key="", evaluative=False, generic=True)
    words = _PRED_WORD.findall(text)
    copula = bool(words) and words[0] in COPULAS
    while words and (words[0] in COPULAS or words[0] in FILLERS):
        words = words[1:]
    kept = [w.replace("-", "") for w in words if w not in FILLERS]
    key = " ".join(kept)
    if not key:
        return Predicate(key="", evaluative=False, generic=True)
    evaluative = copula or (len(kept) == 1 and (kept[0] in POSITIVE or kept[0] in NEGATIVE))
    return Predicate(key=key, evaluative=evaluative, generic=False)


def canonical_name(name: str | None) -> str:
    return " ".join((name or "").lower().split())


def alias_table(persons: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Lower-cased name or alias → the person's canonical (lower-cased) name.

    An alias that exactly one person lists wins over a person node of that name (ingest may
    have made a node for the short form before it learned the alias).
    """
    persons = list(persons)
    table: dict[str, str] = {}
    owners: dict[str, set[str]] = defaultdict(set)
    for p in persons:
        name = canonical_name(p.get("name"))
        if name:
            table[name] = name
            for alias in p.get("aliases") or []:
                key = canonical_name(alias)
                if key and key != name:
                    owners[key].add(name)
    for alias, names in owners.items():
        if len(names) == 1:
            table[alias] = next(iter(names))
    return table


@dataclass
class ClaimRow:
    id: str
    source: str
    target: str
    predicate: Predicate
    sentiment: float
    content: str
    at: datetime | None
    session_id: str | None
    status: str | None
    vector: np.ndarray | None = None


@dataclass
class ClaimPlan:
    """The statuses and edges the claims of a group should have."""

    status: dict[str, str]
    supersedes: set[tuple[str, str]]
    conflicts: set[tuple[str, str]]


def _find(parent: list[int], i: int) -> int:
    """Union-find root of ``i`` (with path halving)."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _sign(x: float) -> int:
    return 0 if abs(x) < 1e-9 else (1 if x > 0 else -1)


def plan_claims(claims: Sequence[ClaimRow], config: ConsolidationSettings) -> ClaimPlan:
    """Reconcile claims.

    Grouping rule: only claims with the same canonical source and target (speaker and target
    names lower-cased, whitespace collapsed, aliases mapped to the person's name) are ever
    compared; never across speakers. Among those, two claims are in one group when

    - they are about the same *dimension*: every evaluative claim ("is <adjective>", "is a
      <noun phrase>": an evaluation of the target as a whole) is one dimension; any other
      predicate is its own dimension after normalisation; or
    - their contents' cosine similarity is at least ``claim_similarity``

    (groups are closed transitively). In a group, ordered by ``at``:

    - a later claim Y *replaces* an earlier X (not from the same moment) when their sentiment
      signs are opposite (a change of view: "lazy" in May, "hardworking" in June), when
      they have the same predicate key (a restatement: "is lazy" / "is so lazy"), or when
      one of them has a generic predicate and their contents are similar. Evaluations with
      different predicates and the same sign ("brave", "kind") are compatible and both stay.
      A replaced claim is SUPERSEDED, with one ``SUPERSEDES`` edge from the earliest claim
      that replaces it (so repeated changes form a chain, newest first);
    - claims from the same moment (one session, or ``at`` within ``conflict_window_hours``)
      with opposite sentiment signs conflict: ``CONFLICTS_WITH`` edges both ways. A claim
      that conflicts with a claim that is not superseded is CONFLICTING;
    - every other claim is CURRENT. Claims without a time are never ordered.
    """
    window = timedelta(hours=config.conflict_window_hours)
    status: dict[str, str] = {}
    supersedes: set[tuple[str, str]] = set()
    conflicts: set[tuple[str, str]] = set()

    buckets: dict[tuple[str, str], list[ClaimRow]] = defaultdict(list)
    for c in claims:
        if c.source and c.target and c.source != c.target:
            buckets[(c.source, c.target)].append(c)
        else:
            status[c.id] = c.status or "CURRENT"

    def same_moment(a: ClaimRow, b: ClaimRow) -> bool:
        if a.session_id is not None and a.session_id == b.session_id:
            return True
        return a.at is not None and b.at is not None and abs(a.at - b.at) <= window

    for _, items in sorted(buckets.items()):
        items = sorted(items, key=lambda c: (c.at or datetime.max.replace(tzinfo=UTC), c.id))
        n = len(items)
        sims = np.zeros((n, n), dtype=np.float32)
        vecs = [c.vector for c in items]
        if all(v is not None for v in vecs) and n > 1:
            matrix = np.stack(vecs)  # type: ignore[arg-type]
            sims = matrix @ matrix.T
        parent = list(range(n))
        for i in range(n):
            for j in range(i + 1, n):
                a, b = items[i], items[j]
                same_dim = (
                    not a.predicate.generic
                    and not b.predicate.generic
                    and a.predicate.dimension == b.predicate.dimension
                )
                if same_dim or sims[i, j] >= config.claim_similarity:
                    parent[_find(parent, i)] = _find(parent, j)
        groups: dict[int, list[int]] = defaultdict(list)
        for i in range(n):
            groups[_find(parent, i)].append(i)

        for members in groups.values():
            superseded_by: dict[str, str] = {}
            pairs: list[tuple[str, str]] = []
            for x_pos, xi in enumerate(members):
                x = items[xi]
                for yi in members[x_pos + 1 :]:
                    y = items[yi]
                    opposite = _sign(x.sentiment) * _sign(y.sentiment) < 0
                    if same_moment(x, y):
                        if opposite:
                            pairs.append((x.id, y.id))
                        continue
                    if x.at is None or y.at is None or y.at <= x.at:
                        continue
                    same_key = (
                        not x.predicate.generic
                        and not y.predicate.generic
                        and x.predicate.key == y.predicate.key
                    )
                    similar = (x.predicate.generic or y.predicate.generic) and sims[
                        xi, yi
                    ] >= config.claim_similarity
                    if (opposite or same_key or similar) and x.id not in superseded_by:
                        superseded_by[x.id] = y.id  # members are in time order: the earliest
            for old, new in superseded_by.items():
                supersedes.add((new, old))
            for a_id, b_id in pairs:
                conflicts.add((a_id, b_id))
                conflicts.add((b_id, a_id))
            for i in members:
                cid = items[i].id
                if cid in superseded_by:
                    status[cid] = "SUPERSEDED"
                elif any(
                    (cid in (a_id, b_id)) and (b_id if a_id == cid else a_id) not in superseded_by
                    for a_id, b_id in pairs
                ):
                    status[cid] = "CONFLICTING"
                else:
                    status[cid] = "CURRENT"
    return ClaimPlan(status=status, supersedes=supersedes, conflicts=conflicts)


def claim_rows(
    rows: Sequence[dict[str, Any]],
    persons: Sequence[dict[str, Any]],
    embedder: Embedder | None,
) -> list[ClaimRow]:
    aliases = alias_table(persons)

    def canon(*names: str | None) -> str:
        for name in names:
            key = canonical_name(name)
            if key:
                return aliases.get(key, key)
        return ""

    vectors = _unit_rows([r.get("embedding") for r in rows], [r["content"] for r in rows], embedder)
    out = []
    for i, r in enumerate(rows):
        sentiment = r.get("sentiment")
        sessions = sorted(s for s in r.get("session_ids") or [] if s)
        out.append(
            ClaimRow(
                id=r["id"],
                source=canon(*(r.get("source_names") or []), r.get("source"), r.get("speaker")),
                target=canon(*(r.get("target_names") or []), r.get("target")),
                predicate=normalise_predicate(r.get("predicate")),
                sentiment=float(sentiment) if sentiment is not None else 0.0,
                content=r.get("content") or "",
                at=_aware(r.get("at")),
                session_id=sessions[0] if sessions else None,
                status=r.get("status"),
                vector=vectors[i] if vectors.size else None,
            )
        )
    return out


def _job_edges(store: Store, group: str, job: str) -> set[tuple[str, str, str]]:
    """The (source, type, target) edges a consolidation job wrote in a group."""
    return {
        (e["src"], e["type"], e["dst"])
        for e in store.read("consolidation/job_edges", group_id=group, job=job)
    }


def _by_type(edges: Iterable[tuple[str, str, str]]) -> Counter[str]:
    """How many (source, type, target) edges there are of each type."""
    return Counter(rel for _, rel, _ in edges)


def _edge_diff(
    wanted: set[tuple[str, str, str]],
    have: set[tuple[str, str, str]],
    owned: set[tuple[str, str, str]],
) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(edges to create, owned edges to remove)."""
    return sorted(wanted - have), sorted(owned - wanted)


def run_claims(
    store: Store,
    group: str,
    embedder: Embedder | None,
    config: ConsolidationSettings,
    report: ConsolidationReport,
    dry_run: bool,
) -> None:
    rows = store.read("consolidation/claim_candidates", group_id=group)
    persons = store.read("consolidation/person_aliases", group_id=group)
    claims = claim_rows(rows, persons, embedder)
    plan = plan_claims(claims, config)
    changed = [
        {"id": c.id, "status": plan.status[c.id]} for c in claims if c.status != plan.status[c.id]
    ]
    for row in changed:
        report.claims_changed[row["status"]] += 1
    final = dict.fromkeys(CLAIM_STATUSES, 0)
    for s in plan.status.values():
        final[s] = final.get(s, 0) + 1
    report.claims_by_status = final

    wanted = {(a, "SUPERSEDES", b) for a, b in plan.supersedes} | {
        (a, "CONFLICTS_WITH", b) for a, b in plan.conflicts
    }
    have = {(r["id"], "SUPERSEDES", o) for r in rows for o in r["supersedes"]} | {
        (r["id"], "CONFLICTS_WITH", o) for r in rows for o in r["conflicts_with"]
    }
    owned = _job_edges(store, group, "reconcile")
    create, remove = _edge_diff(wanted, have, owned)
    created, removed = _by_type(create), _by_type(remove)
    report.supersedes_created += created["SUPERSEDES"]
    report.conflicts_with_created += created["CONFLICTS_WITH"]
    report.supersedes_removed += removed["SUPERSEDES"]
    report.conflicts_with_removed += removed["CONFLICTS_WITH"]
    if dry_run:
        return
    rule = {"SUPERSEDES": "newer replaces older", "CONFLICTS_WITH": "same moment, opposite"}
    _write_rows(
        store,
        [
            (
                "consolidation/delete_edges",
                "edges",
                [{"src": a, "type": t, "dst": b} for a, t, b in remove],
                {"group_id": group, "job": "reconcile"},
            ),
            ("consolidation/set_claim_status", "rows", changed, {"group_id": group}),
            (
                "consolidation/merge_edges",
                "edges",
                [
                    {"src": a, "type": t, "dst": b, "props": {"job": "reconcile", "rule": rule[t]}}
                    for a, t, b in create
                ],
                {"group_id": group},
            ),
        ],
    )


# ----------------------------------------------------------------------------------------
# job 3: CogCanvas links
# ----------------------------------------------------------------------------------------
_CONTENT_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")


def content_words(text: str) -> frozenset[str]:
    """Lower-cased words of ``text`` without stopwords and possessive endings (len ≥ 3)."""
    words = set()
    for w in _CONTENT_WORD.findall(text.lower()):
        w = w.removesuffix("'s").strip("'-")
        if len(w) >= 3 and w not in STOPWORDS:
            words.add(w)
    return frozenset(words)


@dataclass
class LinkRecord:
    id: str
    type: str
    conversation: str
    turn_idx: int
    pos: int
    session_id: str | None
    quote: str
    words: frozenset[str]

    @property
    def order(self) -> tuple[int, int, str]:
        return (self.turn_idx, self.pos, self.id)


@dataclass
class LinkPlan:
    references: dict[tuple[str, str], dict[str, Any]]
    causes: dict[tuple[str, str], dict[str, Any]]


def keyword_pairs(
    records: Sequence[LinkRecord], threshold: float, min_shared: int
) -> dict[tuple[int, int], float]:
    """Index pairs (i < j) whose content-word Jaccard is ≥ ``threshold`` with ≥ ``min_shared``
    shared words, found by prefix filtering (rarest words first), not by comparing all pairs."""
    df: dict[str, int] = defaultdict(int)
    for r in records:
        for w in r.words:
            df[w] += 1
    ordered = [sorted(r.words, key=lambda w: (df[w], w)) for r in records]
    index: dict[str, list[int]] = defaultdict(list)
    found: dict[tuple[int, int], float] = {}
    for j, words in enumerate(ordered):
        size = len(words)
        if size < min_shared:
            continue
        prefix = size - math.ceil(threshold * size) + 1
        candidates: set[int] = set()
        for w in words[:prefix]:
            candidates.update(index[w])
            index[w].append(j)
        for i in candidates:
            a, b = records[i].words, records[j].words
            shared = len(a & b)
            if shared < min_shared:
                continue
            jac = shared / len(a | b)
            if jac >= threshold:
                found[(i, j)] = jac
    return found


def plan_links(
    rows: Sequence[dict[str, Any]], embedder: Embedder | None, config: ConsolidationSettings
) -> LinkPlan:
    """CogCanvas edges between artifacts, computed per conversation.

    - ``REFERENCES`` from a newer record to an older one of the same conversation, at most
      ``link_window_turns`` turns apart, when their cosine similarity is ≥
      ``reference_threshold`` or their content words overlap strongly (Jaccard ≥
      ``keyword_jaccard`` with ≥ ``keyword_min_shared`` shared words); at most
      ``max_links_per_record`` similarity edges per newer record (the most similar),
      keyword edges always.
    - ``CAUSES`` from a KeyFact or Reminder to a later Decision (within the same window)
      when their similarity is ≥ ``causal_threshold`` (at most ``max_links_per_record`` per
      Decision), and — the temporal heuristic — from every KeyFact or Reminder said at most
      ``causal_window_turns`` turns before a Decision (in the same session when
      ``causal_same_session``), whatever their similarity.

    "Later" is by turn position, then by position of the quote in the turn; two records
    quoting the same sentence of one turn are never linked (they are the same words).
    """
    references: dict[tuple[str, str], dict[str, Any]] = {}
    causes: dict[tuple[str, str], dict[str, Any]] = {}
    by_conv: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("turn_idx") is None or not r.get("conversation_id"):
            continue
        by_conv[r["conversation_id"]].append(r)

    for conv, items in sorted(by_conv.items()):
        recs = []
        for r in items:
            quote = r.get("quote") or ""
            text = r.get("turn_text") or ""
            pos = text.find(quote) if quote else -1
            recs.append(
                LinkRecord(
                    id=r["id"],
                    type=r["type"],
                    conversation=conv,
                    turn_idx=int(r["turn_idx"]),
                    pos=max(pos, 0),
                    session_id=r.get("session_id"),
                    quote=quote,
                    words=content_words(r.get("content") or ""),
                )
            )
        order = sorted(range(len(recs)), key=lambda i: recs[i].order)
        recs = [recs[i] for i in order]
        items = [items[i] for i in order]
        vectors = _unit_rows(
            [r.get("embedding") for r in items], [r.get("content") or "" for r in items], embedder
        )
        n = len(recs)
        if n < 2:
            continue
        turn = np.array([r.turn_idx for r in recs])

        def distinct(a: LinkRecord, b: LinkRecord) -> bool:
            """Not the same sentence of the same turn, and a strictly precedes b."""
            return a.order[:2] < b.order[:2] and not (
                a.turn_idx == b.turn_idx and a.quote == b.quote
            )

        # similarity edges, in row blocks so memory stays bounded
        floor = min(config.reference_threshold, config.causal_threshold)
        block = 256
        for start in range(0, n, block):
            stop = min(n, start + block)
            sims = vectors[start:stop] @ vectors.T
            for bi, j in enumerate(range(start, stop)):
                lo = int(np.searchsorted(turn, turn[j] - config.link_window_turns, side="left"))
                hits = set((np.nonzero(sims[bi, lo:j] >= floor)[0] + lo).tolist())
                decision = recs[j].type in CAUSE_TARGETS
                if decision:
                    near = turn[j] - config.causal_window_turns
                    hits.update(range(int(np.searchsorted(turn, near, side="left")), j))
                cand = [(float(sims[bi, i]), i) for i in sorted(hits) if distinct(recs[i], recs[j])]
                refs = sorted(
                    (c for c in cand if c[0] >= config.reference_threshold), reverse=True
                )[: config.max_links_per_record]
                for sim, i in refs:
                    references[(recs[j].id, recs[i].id)] = {
                        "rule": "similarity",
                        "similarity": round(sim, 4),
                    }
                if not decision:
                    continue
                sources = [c for c in cand if recs[c[1]].type in CAUSE_SOURCES]
                by_sim = sorted(
                    (c for c in sources if c[0] >= config.causal_threshold), reverse=True
                )[: config.max_links_per_record]
                for sim, i in by_sim:
                    causes[(recs[i].id, recs[j].id)] = {
                        "rule": "similarity",
                        "similarity": round(sim, 4),
                    }
                for sim, i in sources:
                    a, b = recs[i], recs[j]
                    if b.turn_idx - a.turn_idx > config.causal_window_turns:
                        continue
                    if config.causal_same_session and a.session_id != b.session_id:
                        continue
                    causes.setdefault(
                        (a.id, b.id), {"rule": "temporal", "similarity": round(sim, 4)}
                    )
        # keyword edges
        for (i, j), jac in keyword_pairs(
            recs, config.keyword_jaccard, config.keyword_min_shared
        ).items():
            old, new = (i, j) if recs[i].order < recs[j].order else (j, i)
            a, b = recs[old], recs[new]
            if b.turn_idx - a.turn_idx > config.link_window_turns or not distinct(a, b):
                continue
            edge = references.setdefault(
                (b.id, a.id),
                {"rule": "keywords", "similarity": round(float(vectors[new] @ vectors[old]), 4)},
            )
            edge["jaccard"] = round(jac, 4)
    return LinkPlan(references=references, causes=causes)


def run_links(
    store: Store,
    group: str,
    embedder: Embedder | None,
    config: ConsolidationSettings,
    report: ConsolidationReport,
    dry_run: bool,
) -> None:
    rows = store.read("consolidation/link_candidates", group_id=group, types=config.link_types)
    plan = plan_links(rows, embedder, config)
    wanted = {(a, "REFERENCES", b) for a, b in plan.references} | {
        (a, "CAUSES", b) for a, b in plan.causes
    }
    owned = _job_edges(store, group, "link")
    create, remove = _edge_diff(wanted, owned, owned)
    created, removed = _by_type(create), _by_type(remove)
    report.references_created += created["REFERENCES"]
    report.causes_created += created["CAUSES"]
    report.references_removed += removed["REFERENCES"]
    report.causes_removed += removed["CAUSES"]
    if dry_run:
        return
    props = {**{("REFERENCES", a, b): p for (a, b), p in plan.references.items()}}
    props.update({("CAUSES", a, b): p for (a, b), p in plan.causes.items()})
    _write_rows(
        store,
        [
            (
                "consolidation/delete_edges",
                "edges",
                [{"src": a, "type": t, "dst": b} for a, t, b in remove],
                {"group_id": group, "job": "link"},
            ),
            (
                "consolidation/merge_edges",
                "edges",
                [
                    {"src": a, "type": t, "dst": b, "props": {"job": "link", **props[(t, a, b)]}}
                    for a, t, b in create
                ],
                {"group_id": group},
            ),
        ],
    )


# ----------------------------------------------------------------------------------------
# entry point
# ----------------------------------------------------------------------------------------
def consolidate(
    store: Store,
    group: str,
    embedder: Embedder | None,
    settings: Settings | None = None,
    config: ConsolidationSettings | None = None,
    *,
    dry_run: bool = False,
    jobs: Sequence[Job] = JOBS,
) -> ConsolidationReport:
    """Run the consolidation jobs (facts, claims, links, in that order) on one group.

    ``embedder`` embeds the content of new consolidated Facts (and any record that lacks a
    vector); ``settings`` decides whether an LLM words the Facts (``llm = "openai"``).
    With ``dry_run`` nothing is written and the report says what would change.
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
            run_facts(store, group, embedder, settings, config, report, dry_run)
        elif job == "claims":
            run_claims(store, group, embedder, config, report, dry_run)
        else:
            run_links(store, group, embedder, config, report, dry_run)
        report.job_seconds[job] = round(time.perf_counter() - t0, 4)
    report.seconds = round(time.perf_counter() - started, 4)
    return report


__all__ = [
    "JOBS",
    "ConsolidationReport",
    "ConsolidationSettings",
    "consolidate",
    "normalise_predicate",
    "plan_claims",
    "plan_facts",
    "plan_links",
]
