"""Job 1, events → facts (CogMem): repeated events of a person and a concept become one
consolidated Fact with ``SUPPORTED_BY`` edges to its events."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from cogmem.consolidate.base import ConsolidationReport, ConsolidationSettings
from cogmem.consolidate.common import aware
from cogmem.consolidate.edges import write_rows
from cogmem.embed import Embedder
from cogmem.ingest.ids import group_key, node_id
from cogmem.llm import LLMClient, LLMError
from cogmem.store import Store


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
    points: list[date] = (
        sorted({e.t.date() for e in chain}) if distinct else sorted(e.t for e in chain)
    )
    if len(points) < min_events:
        return False
    span = window if not distinct else timedelta(days=math.floor(window.total_seconds() / 86400))
    for i in range(len(points) - min_events + 1):
        if points[i + min_events - 1] - points[i] <= span:
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
        t = aware(r["t"])
        if t is None:
            continue
        key = (r["person_id"], r["concept_id"])
        names[key] = (r["person"] or "", r["concept"] or "")
        by_pair[key].append(
            EventRow(
                id=r["event_id"],
                t=t,
                t_end=aware(r["t_end"]) or t,
                at=aware(r["at"]) or t,
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
            owners.sort(key=lambda f: (aware(f["time_start"]) or chain[0].t, f["id"]))
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


def fact_contents(
    plans: Sequence[FactPlan], llm: LLMClient | None, report: ConsolidationReport
) -> list[tuple[str, str]]:
    """(content, method) per plan: an LLM abstraction when a client is given, else the
    template (also when the LLM fails: counted in ``report.llm_fallbacks``)."""
    templates = [
        fact_template(p.person, p.concept, p.occasions, p.events[0].t, p.events[-1].t)
        for p in plans
    ]
    if llm is None or not plans:
        return [(t, "template") for t in templates]
    out: list[tuple[str, str]] = []
    for plan, template in zip(plans, templates, strict=True):
        try:
            text = " ".join(llm.complete_text(FACT_SYSTEM_PROMPT, fact_prompt(plan)).split())
            out.append((text[:600], "llm"))
        except LLMError:
            report.llm_fallbacks += 1
            out.append((template, "template"))
    return out


def run_facts(
    store: Store,
    group: str,
    embedder: Embedder | None,
    llm: LLMClient | None,
    config: ConsolidationSettings,
    report: ConsolidationReport,
    dry_run: bool,
) -> None:
    """Plan the Facts of ``group`` and write them (unless ``dry_run``); counts go to ``report``."""
    rows = store.read("consolidation/event_candidates", group_id=group)
    existing = store.read("consolidation/consolidated_facts", group_id=group)
    plans = plan_facts(rows, existing, group, config)
    report.facts_created += sum(p.created for p in plans)
    report.facts_extended += sum(not p.created for p in plans)
    report.facts_superseded += sum(len(p.retire) for p in plans)
    report.supported_by_created += sum(len(p.new_event_ids) for p in plans)
    if dry_run or not plans:
        return
    contents = fact_contents(plans, llm, report)
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
    write_rows(
        store,
        [
            ("consolidation/merge_consolidated_facts", "facts", fact_rows, {"group_id": group}),
            ("consolidation/supersede_facts", "rows", retire_rows, {"group_id": group}),
        ],
    )
