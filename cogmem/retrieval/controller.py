"""The controller: Anchor first, then at most five more operator steps chosen by the plan
and by what came back, a sufficiency check, and Evidence with a trace.

Ranking is at the level of source turns, because evidence is judged by the turn it comes
from: a turn scores from its own lexical (BM25) and vector match, from the best of its
records (whose content names people instead of "I" and "you"), and from graph steps that
reached its records; a turn also inherits part of its neighbours' score (an answer follows
its question), and a turn that only asks is damped, since the evidence is its answer.
Opinions are not records: for "what does X think of Y" the claims of X about
Y rank first; otherwise another speaker's claim is never returned as the record.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, Field

from cogmem.embed import Embedder
from cogmem.models import Evidence, TraceStep
from cogmem.retrieval.operators import Candidate, GroundedRecord, GroundedTurn, Operators
from cogmem.retrieval.router import EntityRef, Plan, Router, RuleRouter
from cogmem.store import Store

MAX_STEPS_AFTER_ANCHOR = 5
T = TypeVar("T")

REL_BY_INTENT: dict[str, tuple[str, ...]] = {
    "temporal": ("PARTICIPATED_IN", "HAS_FACT", "INVOLVES"),
    "opinion": ("CLAIMS",),
    "update": ("CLAIMS", "HAS_FACT", "SUPERSEDES"),
    "multi-hop": ("PARTICIPATED_IN", "HAS_FACT", "LIKES", "USES", "DISLIKES", "INVOLVES"),
    "single-hop": ("PARTICIPATED_IN", "HAS_FACT", "LIKES", "USES", "DISLIKES", "INVOLVES"),
    "open": ("PARTICIPATED_IN", "HAS_FACT", "LIKES", "USES", "DISLIKES", "CLAIMS"),
}


class RankWeights(BaseModel):
    """How the signals of a turn combine. Tuned on the LoCoMo dev split (the grid search
    is ``benchmarks/tune_weights.py``); ``by_intent`` overrides some weights per intent."""

    bm25: float = 1.0
    turn_vector: float = 0.8
    record_vector: float = 0.5
    graph: float = 0.2
    claim: float = 0.6
    window: float = 0.3
    previous: float = 0.7
    following: float = 0.2
    speaker: float = 0.3
    question: float = 0.1
    pool: int = 300
    ground: int = 100
    drop_names: bool = True
    by_intent: dict[str, dict[str, float]] = Field(
        default_factory=lambda: {
            # Lists gathered across sessions: lean on the person's own turns and on the
            # records the graph reached from them.
            "multi-hop": {
                "turn_vector": 1.2,
                "graph": 0.4,
                "previous": 0.5,
                "speaker": 1.0,
                "question": 0.45,
            },
            # What holds now: the current claim must beat the older words it replaced.
            "update": {"claim": 1.2},
        }
    )

    def for_intent(self, intent: str) -> RankWeights:
        override = self.by_intent.get(intent)
        return self.model_copy(update=override) if override else self


class Retrieval(BaseModel):
    plan: Plan
    evidence: list[Evidence]
    trace: list[TraceStep]
    sufficient: bool = True


class _TurnScore(BaseModel):
    id: str
    conversation_id: str | None = None
    idx: int | None = None
    speaker: str | None = None
    bm25: float = 0.0
    turn_cos: float = 0.0
    record_cos: float = 0.0
    graph: float = 0.0
    claim: float = 0.0
    window: float = 0.0
    asks: bool = False
    base: float = 0.0
    final: float = 0.0
    paths: list[str] = Field(default_factory=list)


_CAPTION = re.compile(r"\[image:[^\]]*\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def mostly_asks(text: str) -> bool:
    """Whether a turn is mostly a question: it ends with one and at least half of its
    sentences are questions ("What kind of books do you have?", not "I loved it. You?")."""
    plain = _CAPTION.sub("", text).strip()
    if not plain.endswith("?"):
        return False
    sentences = [part for part in _SENTENCE_END.split(plain) if part.strip()]
    asked = sum(part.rstrip().endswith("?") for part in sentences)
    return 2 * asked >= len(sentences)


class Controller:
    def __init__(
        self,
        store: Store,
        group: str,
        embedder: Embedder,
        router: Router | None = None,
        weights: RankWeights | None = None,
        judge: Callable[[str, list[Evidence]], bool] | None = None,
    ) -> None:
        self.ops = Operators(store, group)
        self.embedder = embedder
        self.router = router or RuleRouter()
        self.weights = weights or RankWeights()
        self.judge = judge

    # -- public ------------------------------------------------------------------------
    def run(self, question: str, k: int = 10, dedupe: bool = True) -> Retrieval:
        trace: list[TraceStep] = []
        persons = [
            EntityRef(name=row["name"], id=row["id"], mention=alias)
            for row in self._timed(trace, "entities", "persons of the group", self.ops.persons)
            for alias in [None, *row["aliases"]]
            if row["name"]
        ]
        plan = self.router.plan(question, persons)
        trace.append(
            TraceStep(
                operator="route",
                returned=len(plan.entities),
                detail=(
                    f"{plan.router}: intent={plan.intent} entities="
                    f"{[e.name for e in plan.entities]} types={plan.node_types} "
                    f"window={plan.window.text if plan.window else None}"
                ),
            )
        )
        qvec = self.embedder.embed_query(question)
        w = self.weights

        anchor = self._timed(
            trace,
            "anchor",
            f"types={plan.node_types}",
            lambda: self.ops.anchor(
                question,
                qvec,
                plan.node_types,
                pool=w.pool,
                drop_terms=self._name_terms(plan) if w.drop_names else None,
            ),
            count=lambda r: len(r.entries),
        )
        if anchor.widened:
            trace[-1].detail += " → nothing of those types: widened to all types"
        records: dict[str, Candidate] = {c.id: c for c in anchor.records}
        graph_hits: dict[str, Candidate] = {}
        steps = 0
        entity_ids = [e.id for e in plan.entities if e.id]

        def step(name: str, detail: str, fn: Callable[[], list[Candidate]]) -> list[Candidate]:
            nonlocal steps
            if steps >= MAX_STEPS_AFTER_ANCHOR:
                return []
            steps += 1
            found = self._timed(trace, name, detail, fn)
            for cand in found:
                graph_hits.setdefault(cand.id, cand)
            return found

        if entity_ids:
            rels = REL_BY_INTENT.get(plan.intent, REL_BY_INTENT["single-hop"])
            step(
                "traverse",
                f"from {[e.name for e in plan.entities]} over {list(rels)}"
                f"{' in ' + plan.window.text if plan.window else ''}",
                lambda: self.ops.traverse(entity_ids, qvec, rels, plan.window, depth=1),
            )
        if len(entity_ids) >= 2 and (plan.wants_both or plan.intent == "multi-hop"):

            def shared() -> list[Candidate]:
                out = []
                for item in self.ops.intersect(entity_ids, qvec):
                    via = [rid for ids in item.links.values() for rid in ids]
                    for rid in via:
                        out.append(
                            Candidate(
                                id=rid,
                                type="Record",
                                path=[f"intersect:{item.name}"],
                                vector=item.similarity,
                            )
                        )
                return out

            step("intersect", f"shared neighbourhood of {[e.name for e in plan.entities]}", shared)
        concepts = [c.id for c in anchor.entries if c.type == "Concept"][:5]
        if concepts and plan.intent in ("multi-hop", "single-hop", "open", "temporal"):
            step(
                "traverse",
                f"from anchored concepts {len(concepts)} over INVOLVES/ABOUT/TARGETS",
                lambda: self.ops.traverse(
                    concepts, qvec, ("INVOLVES", "ABOUT", "TARGETS"), plan.window, depth=1
                ),
            )
        facts = [c.id for c in anchor.entries if c.consolidated][:5]
        if facts and plan.intent not in ("opinion", "update"):
            step(
                "traverse",
                f"down SUPPORTED_BY from {len(facts)} consolidated facts",
                lambda: self.ops.traverse(facts, qvec, ("SUPPORTED_BY",), plan.window, depth=1),
            )
        if plan.wants_cause:
            decisions = [
                c.id
                for c in anchor.entries
                if c.type in ("Decision", "Fact", "Reminder", "Insight")
            ][:5]
            if decisions:
                step(
                    "traverse",
                    "causes and references of anchored decisions",
                    lambda: self.ops.traverse(
                        decisions, qvec, ("CAUSES", "REFERENCES", "SUPPORTED_BY"), depth=2
                    ),
                )

        scores = self._score(plan, anchor.turns, records, graph_hits)
        self._finish(plan, scores)
        top_ids = [s.id for s in sorted(scores.values(), key=lambda s: s.final, reverse=True)]
        ground_ids = top_ids[: max(5 * k, w.ground)]
        if ground_ids:
            steps += 1
            grounded = self._timed(
                trace,
                "ground",
                f"{len(ground_ids)} turns ±1 neighbour, with their records",
                lambda: self.ops.ground(ground_ids, window=1, vector=qvec),
            )
            self._absorb(plan, scores, grounded)
            self._finish(plan, scores)
        ranked = sorted(scores.values(), key=lambda s: s.final, reverse=True)
        evidence = self._evidence(plan, ranked[: max(k, 1) * (1 if dedupe else 3)], qvec, dedupe)
        evidence = evidence[:k]
        claims = [e.record_id for e in evidence if e.type == "Claim"]
        if claims:
            replaced = self.ops.superseded(claims)
            for e in evidence:
                e.supersedes = replaced.get(e.record_id, [])
        sufficient = self._sufficient(plan, evidence)
        if self.judge is not None and evidence:
            sufficient = self.judge(question, evidence)
        trace.append(
            TraceStep(
                operator="sufficiency",
                returned=len(evidence),
                detail="sufficient"
                if sufficient
                else "insufficient: some entity or the time window is not covered",
            )
        )
        return Retrieval(plan=plan, evidence=evidence, trace=trace, sufficient=sufficient)

    # -- scoring -----------------------------------------------------------------------
    def _score(
        self,
        plan: Plan,
        turns: list[Candidate],
        records: dict[str, Candidate],
        graph_hits: dict[str, Candidate],
    ) -> dict[str, _TurnScore]:
        scores: dict[str, _TurnScore] = {}

        def entry(turn_id: str) -> _TurnScore:
            if turn_id not in scores:
                scores[turn_id] = _TurnScore(id=turn_id)
            return scores[turn_id]

        top_bm25 = max((t.bm25 for t in turns), default=0.0) or 1.0
        for t in turns:
            s = entry(t.id)
            s.conversation_id, s.idx, s.speaker = t.conversation_id, t.idx, t.speaker
            s.asks = mostly_asks(t.content)
            s.window = max(s.window, self._in_window(plan, t))
            s.bm25 = max(s.bm25, t.bm25 / top_bm25)
            s.turn_cos = max(s.turn_cos, t.cosine)
            s.paths.extend(t.path)
        subject = plan.entities[0].name if plan.entities else None
        for rec in records.values():
            if not rec.turn_id or not self._admissible(plan, rec, subject):
                continue
            s = entry(rec.turn_id)
            s.record_cos = max(s.record_cos, rec.cosine)
            s.claim = max(s.claim, self._claim_bonus(plan, rec))
            s.window = max(s.window, self._in_window(plan, rec))
        for rec in graph_hits.values():
            if not rec.turn_id or not self._admissible(plan, rec, subject):
                continue
            s = entry(rec.turn_id)
            s.graph = max(s.graph, max(rec.cosine, 0.0))
            s.claim = max(s.claim, self._claim_bonus(plan, rec))
            s.window = max(s.window, self._in_window(plan, rec))
            s.paths.append("/".join(rec.path))
        return scores

    def _absorb(
        self, plan: Plan, scores: dict[str, _TurnScore], grounded: list[GroundedTurn]
    ) -> None:
        """Exact similarities of grounded turns and of all their records."""
        subject = plan.entities[0].name if plan.entities else None
        for g in grounded:
            s = scores.setdefault(g.id, _TurnScore(id=g.id))
            s.conversation_id, s.idx, s.speaker = g.conversation_id, g.idx, g.speaker
            s.asks = mostly_asks(g.text)
            s.window = max(s.window, self._in_window(plan, g))
            s.turn_cos = max(s.turn_cos, 2.0 * g.vector - 1.0)
            for rec in g.records:
                if not self._admissible(plan, rec, subject):
                    continue
                s.record_cos = max(s.record_cos, 2.0 * rec.vector - 1.0)
                s.claim = max(s.claim, self._claim_bonus(plan, rec))

    def _finish(self, plan: Plan, scores: dict[str, _TurnScore]) -> None:
        """Base score of every turn, then neighbour inheritance and speaker preference."""
        w = self.weights.for_intent(plan.intent)
        for s in scores.values():
            s.base = (
                w.bm25 * s.bm25
                + w.turn_vector * max(s.turn_cos, 0.0)
                + w.record_vector * max(s.record_cos, 0.0)
                + w.graph * s.graph
                + w.claim * s.claim
                + w.window * s.window
            )
        by_pos = {(s.conversation_id, s.idx): s for s in scores.values() if s.idx is not None}
        speakers = {e.name for e in plan.entities}
        only = next(iter(speakers)) if len(speakers) == 1 else None
        if plan.intent in ("opinion", "update") and plan.opinion_source:
            only = plan.opinion_source  # an opinion is its holder's own words
        for s in scores.values():
            prev = by_pos.get((s.conversation_id, (s.idx or 0) - 1)) if s.idx is not None else None
            foll = by_pos.get((s.conversation_id, (s.idx or 0) + 1)) if s.idx is not None else None
            s.final = (
                s.base
                + w.previous * (prev.base if prev else 0.0)
                + w.following * (foll.base if foll else 0.0)
            )
            if only is not None and s.speaker == only:
                s.final *= 1.0 + w.speaker
            if s.asks:  # a turn that only asks is rarely the evidence; its answer is
                s.final *= 1.0 - w.question

    @staticmethod
    def _name_terms(plan: Plan) -> set[str]:
        names: set[str] = set()
        for entity in plan.entities:
            for name in (entity.name, entity.mention):
                if name:
                    names.update(part.lower() for part in name.split())
        return names

    @staticmethod
    def _admissible(plan: Plan, rec: Candidate | GroundedRecord, subject: str | None) -> bool:
        """Opinions are not records: outside opinion questions, another speaker's claim
        about the subject never counts as the subject's record; in opinion questions only
        the holder's claims count."""
        if rec.type != "Claim":
            return True
        if plan.intent in ("opinion", "update"):
            return plan.opinion_source is None or rec.source in (None, plan.opinion_source)
        return subject is None or rec.source in (None, subject)

    @staticmethod
    def _claim_bonus(plan: Plan, rec: Candidate | GroundedRecord) -> float:
        if rec.type != "Claim" or plan.intent not in ("opinion", "update"):
            return 0.0
        if plan.opinion_source and rec.source != plan.opinion_source:
            return 0.0
        bonus = 0.5
        if plan.opinion_target and rec.target and rec.target.lower() == plan.opinion_target.lower():
            bonus = 1.0
        if rec.status == "CURRENT":
            bonus += 0.2
        elif rec.status == "SUPERSEDED":  # an update question wants what holds now
            bonus *= 0.3 if plan.intent == "update" else 0.8
        return bonus

    @staticmethod
    def _in_window(plan: Plan, item: Candidate | GroundedTurn) -> float:
        """1 when a record's time (or, lacking one, when it was said) or a turn's time
        falls inside the question's window."""
        if plan.window is None:
            return 0.0
        start = getattr(item, "time_start", None) or item.at
        end = getattr(item, "time_end", None) or item.at
        if start is None or end is None:
            return 0.0
        return 1.0 if start < plan.window.end and end > plan.window.start else 0.0

    # -- evidence ----------------------------------------------------------------------
    def _evidence(
        self, plan: Plan, ranked: list[_TurnScore], qvec: np.ndarray, dedupe: bool
    ) -> list[Evidence]:
        if not ranked:
            return []
        ids = [s.id for s in ranked]
        turns = {row["id"]: row for row in self.ops.turns(ids)}
        recs: dict[str, list[Candidate]] = defaultdict(list)
        subject = plan.entities[0].name if plan.entities else None
        for rec in self.ops.turn_records(ids, qvec):
            if rec.turn_id and self._admissible(plan, rec, subject):
                recs[rec.turn_id].append(rec)
        out: list[Evidence] = []
        for s in ranked:
            turn = turns.get(s.id)
            if turn is None:
                continue
            options = sorted(
                recs.get(s.id, []),
                key=lambda r: (self._claim_bonus(plan, r), r.vector),
                reverse=True,
            )
            if plan.intent not in ("opinion", "update"):
                options = [r for r in options if r.type != "Claim"] + [
                    r for r in options if r.type == "Claim"
                ]
            chosen = options[:1] if dedupe else options or []
            if not chosen:
                out.append(self._turn_evidence(turn, s))
                continue
            for rec in chosen:
                out.append(
                    Evidence(
                        record_id=rec.id,
                        type=rec.type,
                        content=rec.content,
                        quote=rec.quote,
                        speaker=rec.speaker,
                        turn_id=turn["id"],
                        turn_source_id=turn["source_id"],
                        turn_text=turn["text"],
                        turn_at=turn["at"],
                        time_start=rec.time_start,
                        time_end=rec.time_end,
                        time_text=rec.time_text,
                        status=rec.status,
                        score=round(s.final, 4),
                        path=sorted(set(s.paths))[:6],
                    )
                )
        return out

    @staticmethod
    def _turn_evidence(turn: dict[str, Any], s: _TurnScore) -> Evidence:
        return Evidence(
            record_id=turn["id"],
            type="Turn",
            content=turn["text"],
            quote=turn["text"],
            speaker=turn["speaker"],
            turn_id=turn["id"],
            turn_source_id=turn["source_id"],
            turn_text=turn["text"],
            turn_at=turn["at"],
            score=round(s.final, 4),
            path=sorted(set(s.paths))[:6],
        )

    @staticmethod
    def _sufficient(plan: Plan, evidence: list[Evidence]) -> bool:
        if not evidence:
            return False
        text = " ".join(f"{e.speaker} {e.content} {e.turn_text}" for e in evidence).lower()
        for entity in plan.entities:
            if entity.name.lower() not in text and (entity.mention or "").lower() not in text:
                return False
        if plan.window is not None:
            window = plan.window
            hit = any(
                (e.time_start or e.turn_at) is not None
                and (e.time_start or e.turn_at) < window.end  # type: ignore[operator]
                and (e.time_end or e.turn_at) > window.start  # type: ignore[operator]
                for e in evidence
            )
            if not hit:
                return False
        return True

    @staticmethod
    def _timed(
        trace: list[TraceStep],
        name: str,
        detail: str,
        fn: Callable[[], T],
        count: Callable[[T], int] | None = None,
    ) -> T:
        started = time.perf_counter()
        result = fn()
        n = count(result) if count else (len(result) if hasattr(result, "__len__") else 0)
        trace.append(
            TraceStep(
                operator=name,
                detail=detail,
                returned=n,
                seconds=round(time.perf_counter() - started, 4),
            )
        )
        return result
