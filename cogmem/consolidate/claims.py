"""Job 2, claim reconciliation (CogMem): claims of one speaker about one target are grouped,
and the later of two incompatible claims ``SUPERSEDES`` the earlier; opposite claims from the
same moment ``CONFLICTS_WITH`` each other. See :func:`plan_claims` for the rule."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from cogmem.consolidate.base import CLAIM_STATUSES, ConsolidationReport, ConsolidationSettings
from cogmem.consolidate.common import aware, unit_rows
from cogmem.consolidate.edges import Edge, by_type, edge_diff, job_edges, write_rows
from cogmem.embed import Embedder
from cogmem.models import ExtractedRecord, RecordType
from cogmem.store import Statements, Store
from cogmem.text import NEGATIVE, POSITIVE

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
JOB = "reconcile"  # the job property of the edges this job writes (full and incremental)
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
    about: str = ""
    """What of the target an evaluation judges when not the whole target: "selling" in
    "selling is sad" (Emre's selling of his piano), so that it neither conflicts with nor
    replaces a view of Emre or of another of his doings."""

    @property
    def dimension(self) -> str:
        if not self.evaluative:
            return self.key
        return f"is:{self.about}" if self.about else "is"


def normalise_predicate(predicate: str | None) -> Predicate:
    text = " ".join((predicate or "").lower().replace("’", "'").split())
    if text in GENERIC_PREDICATES:
        return Predicate(key="", evaluative=False, generic=True)
    words = _PRED_WORD.findall(text)
    about = ""
    if len(words) > 2 and words[0] not in COPULAS and words[1] in COPULAS:
        about, words = words[0], words[1:]  # "selling is sad": an evaluation of a doing
    copula = bool(words) and words[0] in COPULAS
    while words and (words[0] in COPULAS or words[0] in FILLERS):
        words = words[1:]
    kept = [w.replace("-", "") for w in words if w not in FILLERS]
    key = " ".join(kept)
    if not key:
        return Predicate(key="", evaluative=False, generic=True)
    evaluative = copula or (len(kept) == 1 and (kept[0] in POSITIVE or kept[0] in NEGATIVE))
    return Predicate(key=key, evaluative=evaluative, generic=False, about=about)


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
      <noun phrase>": an evaluation of the target as a whole) is one dimension; an
      evaluation of one doing or thing of the target ("selling is sad": Emre selling his
      piano) is that doing's dimension; any other predicate is its own dimension after
      normalisation; or
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
        vecs = [c.vector for c in items if c.vector is not None]
        if len(vecs) == n and n > 1:
            matrix = np.stack(vecs)
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
                        and (x.predicate.about, x.predicate.key)
                        == (y.predicate.about, y.predicate.key)
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

    vectors = unit_rows([r.get("embedding") for r in rows], [r["content"] for r in rows], embedder)
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
                at=aware(r.get("at")),
                session_id=sessions[0] if sessions else None,
                status=r.get("status"),
                vector=vectors[i] if vectors.size else None,
            )
        )
    return out


def run_claims(
    store: Store,
    group: str,
    embedder: Embedder | None,
    config: ConsolidationSettings,
    report: ConsolidationReport,
    dry_run: bool,
) -> None:
    """Reconcile the claims of ``group`` and write the difference (unless ``dry_run``)."""
    rows = store.read("consolidation/claim_candidates", group_id=group)
    persons = store.read("consolidation/person_aliases", group_id=group)
    claims = claim_rows(rows, persons, embedder)
    plan = plan_claims(claims, config)
    final = dict.fromkeys(CLAIM_STATUSES, 0)
    for s in plan.status.values():
        final[s] = final.get(s, 0) + 1
    report.claims_by_status = final
    owned = job_edges(store, group, JOB)
    _apply(store, group, rows, claims, plan, owned, report, dry_run)


def touched_pairs(records: Iterable[ExtractedRecord]) -> set[tuple[str, str]]:
    """The (speaker, target) pairs, lower-cased, that a batch's claims are about."""
    pairs = set()
    for r in records:
        if r.type is RecordType.CLAIM and r.target:
            source = canonical_name(r.source or r.speaker)
            target = canonical_name(r.target)
            if source and target and source != target:
                pairs.add((source, target))
    return pairs


def reconcile_pairs(
    store: Statements,
    group: str,
    pairs: set[tuple[str, str]],
    config: ConsolidationSettings | None = None,
    *,
    dry_run: bool = False,
) -> ConsolidationReport:
    """Incremental claim reconciliation: the same rule as :func:`run_claims`, applied only to
    the claims of the (speaker, target) ``pairs`` (lower-cased names; aliases are mapped as
    the full job maps them). Buckets are reconciled whole, so a later ``consolidate`` finds
    nothing to change for them. Uses the stored vectors (no embedder)."""
    config = config or ConsolidationSettings()
    report = ConsolidationReport(group=group, dry_run=dry_run, jobs=["claims"])
    if not pairs:
        return report
    persons = store.read("consolidation/person_aliases", group_id=group)
    aliases = alias_table(persons)
    canon = {(aliases.get(s, s), aliases.get(t, t)) for s, t in pairs}
    wanted_sources = {s for s, _ in canon}
    wanted_targets = {t for _, t in canon}
    sources = wanted_sources | {a for a, name in aliases.items() if name in wanted_sources}
    targets = wanted_targets | {a for a, name in aliases.items() if name in wanted_targets}
    rows = store.read(
        "consolidation/claim_candidates_for_pairs",
        group_id=group,
        sources=sorted(sources),
        targets=sorted(targets),
        job=JOB,
    )
    claims = claim_rows(rows, persons, None)
    plan = plan_claims(claims, config)
    owned = {(r["id"], e["type"], e["dst"]) for r in rows for e in r["owned"]}
    _apply(store, group, rows, claims, plan, owned, report, dry_run)
    return report


def _apply(
    store: Statements,
    group: str,
    rows: Sequence[dict[str, Any]],
    claims: Sequence[ClaimRow],
    plan: ClaimPlan,
    owned: set[Edge],
    report: ConsolidationReport,
    dry_run: bool,
) -> None:
    """Write the difference between ``plan`` and what ``rows`` hold (statuses, edges)."""
    said = {c.id: c.at for c in claims}
    replaced: dict[str, datetime] = {}  # a superseded claim's end: when it was replaced
    for new, old in plan.supersedes:
        at = said.get(new)
        if at is not None and (old not in replaced or at < replaced[old]):
            replaced[old] = at
    for c in claims:
        if c.status != plan.status[c.id]:
            report.claims_changed[plan.status[c.id]] += 1
    # a superseded claim's row is written again each run: its end moves with its successor
    changed: list[dict[str, Any]] = [
        {"id": c.id, "status": plan.status[c.id], "valid_to": replaced.get(c.id)}
        for c in claims
        if c.status != plan.status[c.id] or c.id in replaced
    ]
    wanted = {(a, "SUPERSEDES", b) for a, b in plan.supersedes} | {
        (a, "CONFLICTS_WITH", b) for a, b in plan.conflicts
    }
    have = {(r["id"], "SUPERSEDES", o) for r in rows for o in r["supersedes"]} | {
        (r["id"], "CONFLICTS_WITH", o) for r in rows for o in r["conflicts_with"]
    }
    create, remove = edge_diff(wanted, have, owned)
    created, removed = by_type(create), by_type(remove)
    report.supersedes_created += created["SUPERSEDES"]
    report.conflicts_with_created += created["CONFLICTS_WITH"]
    report.supersedes_removed += removed["SUPERSEDES"]
    report.conflicts_with_removed += removed["CONFLICTS_WITH"]
    if dry_run or not (changed or create or remove):
        return
    rule = {"SUPERSEDES": "newer replaces older", "CONFLICTS_WITH": "same moment, opposite"}
    write_rows(
        store,
        [
            (
                "consolidation/delete_edges",
                "edges",
                [{"src": a, "type": t, "dst": b} for a, t, b in remove],
                {"group_id": group, "job": JOB},
            ),
            ("consolidation/set_claim_status", "rows", changed, {"group_id": group}),
            (
                "consolidation/merge_edges",
                "edges",
                [
                    {"src": a, "type": t, "dst": b, "props": {"job": JOB, "rule": rule[t]}}
                    for a, t, b in create
                ],
                {"group_id": group},
            ),
        ],
    )
