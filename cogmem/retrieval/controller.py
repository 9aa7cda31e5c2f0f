"""The controller: a quick first pass that moves the question's vector towards its best
turns (pseudo-relevance feedback), then Anchor, the steps of the question's recipe (at most
five more), grounding of the best turns, late interaction (the question's words against the
best turns' tokens: :mod:`.late`), a sufficiency check, and Evidence with a trace of what
ran.

It only orchestrates. Which steps run for which intent is data (:mod:`.recipes`); how turns
rank is pure maths (:mod:`.scoring`); the operators and the search's session are reached
through the :class:`SearchOperators` protocol, which declares everything the controller
asks: :class:`cogmem.retrieval.operators.Operators` runs them for a group, a unit test
passes an in-memory fake.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from datetime import datetime
from functools import partial
from typing import Any, Protocol, TypeVar

import numpy as np
from pydantic import BaseModel

from cogmem.embed import Embedder
from cogmem.embed.tokens import TokenEmbedder
from cogmem.models import Evidence, RecordType, TraceStep
from cogmem.retrieval import learned
from cogmem.retrieval.candidates import AnchorResult, Candidate, GroundedTurn, Hop, Shared
from cogmem.retrieval.evidence import sufficient_for, turn_evidence
from cogmem.retrieval.late import LateQuery, late_query
from cogmem.retrieval.late import match as late_match
from cogmem.retrieval.late import scaled as late_scaled
from cogmem.retrieval.learned import LearnedRanking
from cogmem.retrieval.parallel import submit
from cogmem.retrieval.recipes import (
    MAX_STEPS_AFTER_ANCHOR,
    MIN_ENTITIES_TO_INTERSECT,
    NEIGHBOURS_TO_GROUND,
    SEED_TYPES,
    Intersect,
    Seeds,
    Step,
    Traverse,
    When,
    recipe_for,
)
from cogmem.retrieval.router import EntityRef, Plan, Router, RuleRouter
from cogmem.retrieval.scope import question_scope, scope_end
from cogmem.retrieval.scoring import (
    PATHS_SHOWN,
    SCORE_DECIMALS,
    RankWeights,
    ScoringConstants,
    TurnScore,
    absorb,
    admissible,
    candidate_count,
    finish,
    ground_pool,
    ranked,
    record_order,
    score_turns,
    subject_of,
)
from cogmem.retrieval.search_config import SearchConfig

T = TypeVar("T")


# -- the trace ----------------------------------------------------------------------------
class Trace(list[TraceStep]):
    """A search's trace: each step appended takes the statements run since the step
    before it (``drain``: the operators' record of what they ran, when they keep one)."""

    def __init__(self, drain: Callable[[], list[str]] | None) -> None:
        super().__init__()
        self._drain = drain

    def append(self, step: TraceStep) -> None:
        if self._drain is not None:
            step.statements = self._drain()
        super().append(step)


def timed(
    trace: list[TraceStep],
    name: str,
    detail: str,
    fn: Callable[[], T],
    count: Callable[[T], int] | None = None,
) -> T:
    """Run ``fn`` and append its step: how many it returned (``count``, else its length)
    and the seconds it took."""
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


LEARNED_SHOWN = 3
"""Turns whose feature shares the trace of a learned ranking shows."""

SHARED_RECORD = "Record"
"""Candidate type of a record that links a person to a shared concept (type unknown)."""


class SearchOperators(Protocol):
    """Everything the controller asks of the operators it runs a search with: the four
    operators and their helpers, and the search's session (its time, its scope, what it
    ran). :class:`cogmem.retrieval.operators.Operators` runs them as Cypher (or on its
    group's in-process copy); unit tests pass a fake."""

    #: the time the search looks back from (None: now); :meth:`look_back` moves it
    as_of: datetime | None

    @property
    def reads_at_once(self) -> bool:
        """Whether independent steps gain from running side by side (one connection
        each): true through Neo4j, false on an in-process copy."""
        ...

    def end_scope(self) -> None:
        """Undo the last question's own scope (:meth:`look_back`): back to ``as_of``."""
        ...

    def look_back(self, as_of: datetime) -> None:
        """Search memory as it stood at ``as_of`` for the rest of this question."""
        ...

    def latest_said(self) -> datetime | None:
        """When the group's last turn (up to ``as_of``) was said; None when it has none."""
        ...

    def drain_statements(self) -> list[str]:
        """The statements run since the last call (for the trace), forgotten here."""
        ...

    def release(self) -> None:
        """Let go of what this search held (a group's copy, a connection)."""
        ...

    def prefetch_idf(self, words: list[str]) -> None:
        """Start reading the document frequencies of ``words`` (:meth:`turn_idf` later)."""
        ...

    def persons(self) -> list[dict[str, Any]]: ...

    def anchor(
        self,
        question: str,
        vector: np.ndarray,
        types: list[str] | None,
        *,
        pool: int,
        drop_terms: set[str] | None,
    ) -> AnchorResult: ...

    def traverse_many(self, hops: Sequence[Hop], vector: np.ndarray) -> list[list[Candidate]]: ...

    def intersect(self, entity_ids: list[str], vector: np.ndarray) -> list[Shared]: ...

    def apart(self, fn: Callable[[], T]) -> tuple[T, float, list[str]]: ...

    def ground(
        self, ids: list[str], *, window: int, vector: np.ndarray | None
    ) -> list[GroundedTurn]: ...

    def turns(self, turn_ids: list[str]) -> list[dict[str, Any]]: ...

    def turn_records(self, turn_ids: list[str], vector: np.ndarray) -> list[Candidate]: ...

    def superseded(self, claim_ids: list[str]) -> dict[str, list[str]]: ...

    def feedback(self, vector: np.ndarray, ids: list[str], share: float) -> np.ndarray | None: ...

    def turn_tokens(self, turn_ids: list[str]) -> dict[str, tuple[bytes, list[float]]]: ...

    def turn_idf(self, words: list[str]) -> list[float]: ...


class Retrieval(BaseModel):
    plan: Plan
    evidence: list[Evidence]
    trace: list[TraceStep]
    sufficient: bool = True
    as_of: datetime | None = None
    """The time the search looked back from (None: now)."""
    seconds: dict[str, float] = {}
    """Where the time went: ``embed`` (the question's embedding), each operator that ran
    (``entities``, ``anchor``, ``traverse``, ``intersect``, ``ground``, ``late``,
    ``evidence``: the database round trips with the Python that reads their rows),
    ``python`` (routing and ranking: the rest) and ``total``."""
    config: SearchConfig | None = None
    """The search configuration that ranked the turns (``--explain`` shows it)."""


class Controller:
    """Runs one question: route, feedback, anchor, the recipe's steps, ranking, grounding,
    Evidence.
    ``Controller(Operators(store, group, as_of), embedder)`` searches a group."""

    def __init__(
        self,
        ops: SearchOperators,
        embedder: Embedder,
        router: Router | None = None,
        weights: RankWeights | None = None,
        judge: Callable[[str, list[Evidence]], bool] | None = None,
        config: SearchConfig | None = None,
    ) -> None:
        """A controller over ``ops``: :class:`cogmem.retrieval.operators.Operators` for a
        group (on Neo4j, as of a time or now), or a unit test's fake. It ranks with
        ``config`` (with ``weights`` in place of its hand-set weights when given); without
        either, with :meth:`SearchConfig.configured` (the file ``COGMEM_SEARCH_CONFIG``
        names, else today's weights for the embedder)."""
        self.ops = ops
        self.embedder = embedder
        self.router: Router = router or RuleRouter()
        if config is None:
            config = (
                SearchConfig(weights=weights)
                if weights is not None
                else SearchConfig.configured(embedder.name)
            )
        elif weights is not None:
            config = config.model_copy(update={"weights": weights})
        self.config = config
        self.judge = judge

    @property
    def weights(self) -> RankWeights:
        """The hand-set weights of :attr:`config`."""
        return self.config.weights

    @property
    def constants(self) -> ScoringConstants:
        """The scoring constants of :attr:`config`."""
        return self.config.constants

    # -- public ------------------------------------------------------------------------
    def run(self, question: str, k: int = 10, dedupe: bool = True) -> Retrieval:
        started = time.perf_counter()
        trace = self._begin()
        plan, qvec, scores, embed_seconds = self._scored(question, k, trace)
        seconds = {"embed": embed_seconds}
        best = ranked(scores)[: candidate_count(k, dedupe)]
        fetched = time.perf_counter()
        evidence = self._evidence(plan, best, qvec, dedupe)[:k]
        claims = [e.record_id for e in evidence if e.type == RecordType.CLAIM]
        if claims:
            replaced = self.ops.superseded(claims)
            for e in evidence:
                e.supersedes = replaced.get(e.record_id, [])
        seconds["evidence"] = time.perf_counter() - fetched
        sufficient = sufficient_for(plan, evidence)
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
        for step in trace:
            if step.seconds is not None:
                seconds[step.operator] = seconds.get(step.operator, 0.0) + step.seconds
        seconds["total"] = time.perf_counter() - started
        seconds["python"] = max(0.0, 2 * seconds["total"] - sum(seconds.values()))
        self._end()
        return Retrieval(
            plan=plan,
            evidence=evidence,
            trace=trace,
            sufficient=sufficient,
            seconds=seconds,
            as_of=self.ops.as_of,
            config=self.config,
        )

    def scored(self, question: str, k: int = 10) -> tuple[Plan, dict[str, TurnScore]]:
        """The plan and every candidate turn's signals and scores as a search for ``k``
        ranks them, before the evidence is built: for benchmarks that study the ranking."""
        plan, _, scores, _ = self._scored(question, k, self._begin())
        self._end()
        return plan, scores

    def _begin(self) -> list[TraceStep]:
        """A search's start: the last question's own time is not this one's; a new trace."""
        self.ops.end_scope()
        return Trace(self.ops.drain_statements)

    def _end(self) -> None:
        """A search's end: the operators let go of what they held for it."""
        self.ops.release()

    # -- steps -------------------------------------------------------------------------
    def _scored(
        self, question: str, k: int, trace: list[TraceStep]
    ) -> tuple[Plan, np.ndarray, dict[str, TurnScore], float]:
        """Route, embed, feedback, rank and late interaction: the plan, the question's
        vector, the scored turns and the seconds the embedding took."""
        plan = self._route(question, trace)
        w = self.weights.for_intent(plan.intent)
        embedded = time.perf_counter()
        late: LateQuery | None = None
        if w.late > 0 and isinstance(self.embedder, TokenEmbedder):
            # one forward pass: the question's vector and its token rows
            vectors, rows = self.embedder.embed_with_tokens([question])
            qvec = vectors[0]
            late = late_query(self.embedder.pieces(question), rows[0], name_terms(plan))
            if late is not None:
                self.ops.prefetch_idf(late.words)  # read while the other steps run
        else:
            qvec = self.embedder.embed_query(question)
        embed_seconds = time.perf_counter() - embedded
        expanded = self._feedback(question, plan, qvec, w, trace) if w.feedback > 0 else None
        scores = self._rank(question, plan, qvec if expanded is None else expanded, k, trace)
        if late is not None:
            self._late(plan, w, scores, late, trace)
        if self.config.learned is not None:
            self._learned(plan, self.config.learned, scores, trace)
        return plan, qvec, scores, embed_seconds

    def _learned(
        self,
        plan: Plan,
        model: LearnedRanking,
        scores: dict[str, TurnScore],
        trace: list[TraceStep],
    ) -> None:
        """The learned ranking's score as every turn's final score; the trace shows each
        feature's share of the best turns' scores."""
        x = learned.apply(plan, scores, model)
        row_of = {tid: r for r, tid in enumerate(sorted(scores))}
        shown = [
            f"{s.id} {s.final:.2f} = "
            + " ".join(
                f"{f} {v:+.2f}"
                for f, v in learned.contributions(model, x[row_of[s.id]]).items()
                if v
            )
            for s in ranked(scores)[:LEARNED_SHOWN]
        ]
        trace.append(
            TraceStep(
                operator="learned",
                returned=len(scores),
                detail=f"{len(model.features)} features, fitted on "
                f"{', '.join(model.fitted_on) or '?'}; best turns: " + "; ".join(shown),
            )
        )

    def _late(
        self,
        plan: Plan,
        w: RankWeights,
        scores: dict[str, TurnScore],
        query: LateQuery,
        trace: list[TraceStep],
    ) -> None:
        """Late interaction over the best ``late_pool`` turns, then the final ranking again."""

        def apply() -> dict[str, float]:
            best = [s.id for s in ranked(scores)[: w.late_pool]]
            rows = self.ops.turn_tokens(best) if best else {}
            weights = np.asarray(self.ops.turn_idf(query.words), np.float32)
            matched = [tid for tid in best if tid in rows]
            values = late_match(query.rows, weights, [rows[tid] for tid in matched])
            matches = dict(zip(matched, values, strict=True))
            fitted = late_scaled(matches)
            for tid, v in fitted.items():
                scores[tid].late = v
            extra = {tid: w.late * v for tid, v in fitted.items()}
            if extra:
                finish(plan, self.weights, scores, extra, self.constants)
            return matches

        timed(
            trace,
            "late",
            f"{len(query.words)} words of the question against the tokens of the best "
            f"{w.late_pool} turns, × {w.late}",
            apply,
        )

    def _feedback(
        self, question: str, plan: Plan, qvec: np.ndarray, w: RankWeights, trace: list[TraceStep]
    ) -> np.ndarray | None:
        """Pseudo-relevance feedback: the question's vector moved towards the best turns of
        a first pass by Anchor's signals alone (no graph steps, no grounding: as good a
        pick of the top few on the dev conversations, at a third of the cost); None
        when that pass finds nothing."""
        anchor = self._anchor(question, plan, qvec, trace)
        scores = score_turns(plan, anchor.turns, anchor.records, [], self.constants)
        finish(plan, self.weights, scores, c=self.constants)
        top = [s.id for s in ranked(scores)[: w.feedback_turns]]
        expanded = self.ops.feedback(qvec, top, w.feedback) if top else None
        trace.append(
            TraceStep(
                operator="feedback",
                returned=len(top),
                detail=f"question vector + {w.feedback} × mean of the first pass's best "
                f"{len(top)} turns",
            )
        )
        return expanded

    def _rank(
        self, question: str, plan: Plan, qvec: np.ndarray, k: int, trace: list[TraceStep]
    ) -> dict[str, TurnScore]:
        """Anchor, the recipe's steps and ranking; then the best turns read exactly with
        their neighbours and records, and ranking again."""
        anchor = self._anchor(question, plan, qvec, trace)
        graph_hits = self._walk(plan, anchor, qvec, trace)
        records = {c.id: c for c in anchor.records}
        scores = score_turns(
            plan, anchor.turns, records.values(), graph_hits.values(), self.constants
        )
        finish(plan, self.weights, scores, c=self.constants)
        ground_ids = [s.id for s in ranked(scores)][: ground_pool(k, self.weights.ground)]
        if ground_ids:
            grounded = timed(
                trace,
                "ground",
                f"{len(ground_ids)} turns ±{NEIGHBOURS_TO_GROUND} neighbour, with their records",
                lambda: self.ops.ground(ground_ids, window=NEIGHBOURS_TO_GROUND, vector=qvec),
            )
            absorb(plan, scores, grounded, self.constants)
            finish(plan, self.weights, scores, c=self.constants)
        return scores

    def _scope(self, question: str, plan: Plan, trace: list[TraceStep]) -> None:
        """A question that carries its own time ("What did Lena think of Jonas in May?") is
        answered from memory as it stood at the end of that time, in place of its window
        (:mod:`cogmem.retrieval.scope`)."""
        window = question_scope(plan, question, self.ops.latest_said)
        if window is None:
            return
        when = scope_end(window)
        current = self.ops.as_of
        if current is not None and current < when:
            when = current  # a search as of March asks nothing of what was said later
        self.ops.look_back(when)
        plan.window = None
        trace.append(
            TraceStep(
                operator="scope",
                returned=1,
                detail=f"the question asks what held {window.text!r}: memory as of "
                f"{when.isoformat()}",
            )
        )

    def _route(self, question: str, trace: list[TraceStep]) -> Plan:
        persons = [
            EntityRef(name=row["name"], id=row["id"], mention=alias)
            for row in timed(trace, "entities", "persons of the group", self.ops.persons)
            for alias in [None, *row["aliases"]]
            if row["name"]
        ]
        plan = self.router.plan(question, persons)
        self._scope(question, plan, trace)
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
        return plan

    def _anchor(
        self, question: str, plan: Plan, qvec: np.ndarray, trace: list[TraceStep]
    ) -> AnchorResult:
        w = self.weights
        anchor = timed(
            trace,
            "anchor",
            f"types={plan.node_types}",
            lambda: self.ops.anchor(
                question,
                qvec,
                plan.node_types,
                pool=w.pool,
                drop_terms=name_terms(plan) if w.drop_names else None,
            ),
            count=lambda r: len(r.entries),
        )
        if anchor.widened:
            trace[-1].detail += " → nothing of those types: widened to all types"
        return anchor

    def _walk(
        self, plan: Plan, anchor: AnchorResult, qvec: np.ndarray, trace: list[TraceStep]
    ) -> dict[str, Candidate]:
        """The recipe's steps, in order, while the step budget lasts; what they reached,
        first reach first. Every step starts from what the search already knows (named
        persons, Anchor's entries), so all traversals run in one round trip; each trace
        line gets its share of that round trip's time."""
        planned: list[tuple[str, str, Hop | Callable[[], list[Candidate]]]] = []
        for spec in recipe_for(plan.intent):
            if len(planned) >= MAX_STEPS_AFTER_ANCHOR:
                break
            run = self._step(spec, plan, anchor, qvec)
            if run is not None:
                planned.append(run)
        hops = [work for _, _, work in planned if isinstance(work, Hop)]
        # the other steps (Intersect) need nothing from the traversals: through Neo4j they
        # run beside them, each on its own connection (in process, one after another)
        early: dict[int, Future[tuple[list[Candidate], float, list[str]]]] = {}
        if hops and self.ops.reads_at_once:
            early = {
                n: submit(partial(self.ops.apart, work))
                for n, (_, _, work) in enumerate(planned)
                if not isinstance(work, Hop)
            }
        started = time.perf_counter()
        reached = iter(self.ops.traverse_many(hops, qvec) if hops else [])
        share = (time.perf_counter() - started) / max(len(hops), 1)
        graph_hits: dict[str, Candidate] = {}
        for n, (name, detail, work) in enumerate(planned):
            if not isinstance(work, Hop) and n not in early:
                found = timed(trace, name, detail, work)
            else:
                if n in early:  # ran beside the traversals
                    found, seconds, ran = early[n].result()
                else:  # a traversal: its share of their round trip, its statements drained
                    found, seconds, ran = next(reached), share, []
                trace.append(
                    TraceStep(
                        operator=name, detail=detail, returned=len(found), seconds=round(seconds, 4)
                    )
                )
                trace[-1].statements = [*trace[-1].statements, *ran]
            for cand in found:
                graph_hits.setdefault(cand.id, cand)
        return graph_hits

    def _step(
        self, spec: Step, plan: Plan, anchor: AnchorResult, qvec: np.ndarray
    ) -> tuple[str, str, Hop | Callable[[], list[Candidate]]] | None:
        """What one recipe step would run (operator, trace detail, and the traversal or the
        call), or None when its condition does not hold or it has no seeds."""
        if not _wanted(spec.when, plan):
            return None
        names = [e.name for e in plan.entities]
        entity_ids = [e.id for e in plan.entities if e.id]
        if isinstance(spec, Intersect):
            if len(entity_ids) < MIN_ENTITIES_TO_INTERSECT:
                return None
            detail = spec.detail.format(names=names)
            return "intersect", detail, lambda: self._shared(entity_ids, qvec)
        seeds = entity_ids if spec.seeds is Seeds.ENTITIES else _anchored(spec, anchor)
        if not seeds:
            return None
        rels = [str(rel) for rel in spec.rels]
        window = plan.window if spec.windowed else None
        detail = spec.detail.format(
            names=names,
            rels=rels,
            rel_path="/".join(rels),
            n=len(seeds),
            window=f" in {plan.window.text}" if plan.window else "",
        )
        return "traverse", detail, Hop(list(seeds), tuple(rels), window, spec.depth)

    def _shared(self, entity_ids: list[str], qvec: np.ndarray) -> list[Candidate]:
        """The records that link the persons to the concepts they share."""
        return [
            Candidate(
                id=rid,
                type=SHARED_RECORD,
                path=[f"intersect:{item.name}"],
                vector=item.similarity,
            )
            for item in self.ops.intersect(entity_ids, qvec)
            for ids in item.links.values()
            for rid in ids
        ]

    # -- evidence ----------------------------------------------------------------------
    def _evidence(
        self, plan: Plan, best: list[TurnScore], qvec: np.ndarray, dedupe: bool
    ) -> list[Evidence]:
        if not best:
            return []
        ids = [s.id for s in best]
        turns = {row["id"]: row for row in self.ops.turns(ids)}
        recs: dict[str, list[Candidate]] = defaultdict(list)
        subject = subject_of(plan)
        for rec in self.ops.turn_records(ids, qvec):
            if rec.turn_id and admissible(plan, rec, subject):
                recs[rec.turn_id].append(rec)
        out: list[Evidence] = []
        for s in best:
            turn = turns.get(s.id)
            if turn is None:
                continue
            options = record_order(plan, recs.get(s.id, []), self.constants)
            chosen = options[:1] if dedupe else options
            if not chosen:
                out.append(turn_evidence(turn, s))
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
                        score=round(s.final, SCORE_DECIMALS),
                        path=sorted(set(s.paths))[:PATHS_SHOWN],
                    )
                )
        return out


def _wanted(when: When, plan: Plan) -> bool:
    if when is When.BOTH_WANTED:
        return plan.wants_both
    if when is When.CAUSE_WANTED:
        return plan.wants_cause
    return True


def _anchored(spec: Traverse, anchor: AnchorResult) -> list[str]:
    """Seeds of a step among Anchor's entries, best first, at most ``spec.cap``."""
    if spec.seeds is Seeds.FACTS:
        ids = [c.id for c in anchor.entries if c.consolidated]
    else:
        types = SEED_TYPES[spec.seeds]
        ids = [c.id for c in anchor.entries if c.type in types]
    return ids[: spec.cap]


def name_terms(plan: Plan) -> set[str]:
    """The words of the asked persons' names and mentions, lowercased."""
    names: set[str] = set()
    for entity in plan.entities:
        for name in (entity.name, entity.mention):
            if name:
                names.update(part.lower() for part in name.split())
    return names
