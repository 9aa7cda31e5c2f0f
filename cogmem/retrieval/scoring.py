"""The turn ranking: every weight and number it uses, as pure functions (no I/O, no Store).

Evidence is judged by the turn it comes from, so the ranking scores source turns:

* a turn's **base** score combines its own lexical (BM25) and vector match, the best vector
  match of its records (whose content names people instead of "I" and "you"), the graph
  steps that reached its records, a bonus for the asked holder's claims on opinion and
  update questions, and whether it falls in the question's time window (:func:`combine`);
* its **final** score adds a share of its neighbours' base scores — an answer follows its
  question — is raised when the one person asked about said it and damped when it only
  asks (:func:`finish`).

Opinions are not records: for "what does X think of Y" the claims of X about Y rank first;
otherwise another speaker's claim is never counted as the subject's record
(:func:`admissible`, :func:`claim_bonus`).

The weights are :class:`RankWeights`; ``benchmarks/tune_weights.py`` is the grid search
that compares them on the LoCoMo dev split (in-sample and leave-one-conversation-out).
With the weighing constants (:class:`ScoringConstants`) and an optional learned ranking they
make one serialisable :class:`~cogmem.retrieval.search_config.SearchConfig`;
``benchmarks/fit_ranking.py`` fits the learned one on the five dev conversations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from cogmem.embed.minilm import MINILM_NAMES
from cogmem.models import PLAN_STATUSES, Intent, RecordType, TimeRange
from cogmem.retrieval.candidates import Candidate, GroundedTurn
from cogmem.retrieval.router import Plan
from cogmem.text import sentences, stem, topic_stems

# -- named numbers ----------------------------------------------------------------------
CLAIM_INTENTS: frozenset[Intent] = frozenset({"opinion", "update"})
"""Intents whose answer is somebody's claim, not a record of what happened."""

CLAIM_OF_HOLDER = 0.5
"""Bonus of a claim by the asked holder (any claim when no holder is named)."""
CLAIM_ON_TARGET = 1.0
"""Bonus of such a claim when it is also about the asked target: the exact opinion asked."""
CURRENT_CLAIM = 0.2
"""Added for a claim that reconciliation kept as what the holder thinks now."""
SUPERSEDED_ON_UPDATE = 0.3
"""Factor on a replaced claim for an update question, which asks what holds now."""
SUPERSEDED_ON_OPINION = 0.8
"""Factor on a replaced claim for an opinion question: still an opinion, just an older one."""
OVERTAKEN_ON_UPDATE = 0.3
"""Factor on a turn whose plan a later turn did or called off, for an update question: it
no longer tells where the plan stands (as :data:`SUPERSEDED_ON_UPDATE` for a claim)."""
PLAN_RECORDS = frozenset({RecordType.EVENT.value, RecordType.TODO.value})
LATEST_STATUSES = frozenset({"DONE", "CANCELLED"})
"""Plan statuses that tell where a plan stands now: what an update question ("is X still
going to …") asks for."""

GROUND_PER_RESULT = 5
"""Turns grounded per result asked for (k): ranks below k·5 rarely rise into the top k."""
OVERFETCH_WITHOUT_DEDUPE = 3
"""Turns ranked per result when every record of a turn is returned (no dedupe): the
evidence list is cut to k afterwards, and several records share one turn."""
PATHS_SHOWN = 6
"""Graph paths kept on one Evidence, for the trace; more only lengthen the output."""
SCORE_DECIMALS = 4
"""Decimals of the score shown on Evidence."""


class ScoringConstants(BaseModel):
    """The constants above that weigh a turn, as one value a search configuration holds
    (:class:`cogmem.retrieval.search_config.SearchConfig`); the defaults are the module
    constants of the same names, whose docstrings give each one's reason."""

    claim_of_holder: float = CLAIM_OF_HOLDER
    claim_on_target: float = CLAIM_ON_TARGET
    current_claim: float = CURRENT_CLAIM
    superseded_on_update: float = SUPERSEDED_ON_UPDATE
    superseded_on_opinion: float = SUPERSEDED_ON_OPINION
    overtaken_on_update: float = OVERTAKEN_ON_UPDATE


DEFAULT_CONSTANTS = ScoringConstants()


def cosine(similarity: float) -> float:
    """The cosine again from Neo4j's vector similarity, which is reported as (1 + cos) / 2."""
    return 2.0 * similarity - 1.0


def ground_pool(k: int, floor: int) -> int:
    """How many of the best turns to ground (read exactly, with neighbours) for a top k."""
    return max(GROUND_PER_RESULT * k, floor)


def candidate_count(k: int, dedupe: bool) -> int:
    """How many ranked turns become Evidence before the list is cut to k."""
    return max(k, 1) * (1 if dedupe else OVERFETCH_WITHOUT_DEDUPE)


# -- weights ----------------------------------------------------------------------------
POOLED_UPDATE_CLAIM = 2.0
"""The claim bonus on update questions ("what does X think of Y now?") with pooled cosines,
to outrank the turn that words an older view: 1.2 / 0.6 (good MiniLM matches near 0.6); the
measured scale (:data:`POOLED_LATE`) gives ~1.7, not tried. all-mpnet-base-v2: time-scoped
questions 31 → 32 of 36 (raw: 32), LoCoMo dev unchanged (R@10 84.7, multi-hop 32.7);
raising the bonus of other opinion questions too (0.6 → 1.0) cost R@10 0.3."""

POOLED_LATE = 1.5
"""The late-interaction weight with pooled cosines. Its match is min-max scaled (the best
1), the same for any embedder; pooled cosines set the turns it is weighed among 1.39× as far
apart as MiniLM's raw ones (:func:`cosine_part`'s spread over the ``late_pool`` best turns,
no labels read: benchmarks/results/score_spread.md), so a bonus keeps its pull at ~1.4×.
Cross-validated on LoCoMo dev with all-mpnet-base-v2, both folds chose 1.5 of 0.5-2:
R@10 84.7 → 84.9, multi-hop AllHit@10 32.7 → 36.5 (benchmarks/results/tune_late_mpnet.md)."""


class RankWeights(BaseModel):
    """How the signals of a turn combine; ``by_intent`` overrides some weights per intent.
    Compared on the LoCoMo dev split by ``benchmarks/tune_weights.py``."""

    bm25: float = 1.0
    """Lexical match of the turn (BM25, scaled to the best turn of the question)."""
    turn_vector: float = 0.8
    """Cosine of the turn's own embedding to the question."""
    record_vector: float = 0.5
    """Best cosine of the turn's records: they name people where the turn says I and you."""
    graph: float = 0.2
    """Cosine of records that a graph step (traverse, intersect) reached."""
    claim: float = 0.6
    """Claim bonus (:func:`claim_bonus`) on opinion and update questions."""
    window: float = 0.3
    """The turn or one of its records falls in the question's time window."""
    status: float = 0.3
    """Raise (1 + status) for a turn with an Event or a Todo about the question's topic in
    the plan status the question asks for (:func:`status_fit_about`): done for "when did
    …", planned for "when is … going to …", done or called off for "is … still …". A raise
    of the turn's final score, not a share of its base: it tells which of two turns about
    the same thing is meant, and the turn next to it inherits none of that."""
    previous: float = 0.7
    """Share of the previous turn's base score: the question this turn answers."""
    following: float = 0.2
    """Share of the following turn's base score: an answer often completes a statement."""
    speaker: float = 0.3
    """Raise (1 + speaker) for turns of the one person a question names."""
    question: float = 0.1
    """Damping (1 - question) of a turn that mostly asks: its answer is the evidence."""
    pool: int = 100
    """Candidates per index (lexical, vector) that Anchor gathers. 100, not 300: chosen
    cross-validated on both dev conversations (benchmarks/results/tune_pool.md: held-out
    R@10 79.4 / 79.7 vs 79.1 / 79.6 at 300) and 1.7× faster a search; a deeper pool only
    adds weak candidates that the ranking then has to beat."""
    ground: int = 50
    """At least this many top turns are grounded (see :func:`ground_pool`). 50 ties 100 on
    held-out recall (benchmarks/results/tune_pool.md) and reads half the rows."""
    feedback: float = 0.2
    """Pseudo-relevance feedback: the search ranks by the question's vector plus this share
    of the mean vector of the best turns of a first pass (0: one pass). Those turns show how
    this conversation words the answer; lists gain most ("what activities…": the first
    activities found bring the others). Chosen on either dev conversation, scored on the
    other: R@10 80.0 → 81.5 and 79.0 → 80.4; 0.3 ties, 0.5 less
    (benchmarks/results/tune_feedback.md)."""
    feedback_turns: int = 2
    """How many of the first pass's best turns make the feedback vector."""
    late: float = 1.0
    """Late interaction (:mod:`cogmem.retrieval.late`): the question's words matched one by
    one against the tokens of each of the best ``late_pool`` turns, min-max scaled, times
    this, added to the turn's base score (0: off; also off for an embedder without token
    states). Chosen cross-validated on the dev split (README, Benchmarks), with MiniLM's raw
    cosines; with pooled ones :meth:`for_embedder` gives :data:`POOLED_LATE`."""
    late_pool: int = 50
    """How many of the best turns after grounding late interaction matches: the turns
    Ground already read for a top 10 (:data:`GROUND_PER_RESULT` · k), ~12 KB of token rows
    each."""
    cosines: Literal["raw", "pool"] = "raw"
    """How a cosine enters the base score (:class:`CosineScale`). ``raw``: the cosine as it
    is (negative counts as 0), so the vector weights hold only for the cosine scale of the
    embedder they were chosen with (all-MiniLM-L6-v2). ``pool``: rescaled per question over
    the candidates (:attr:`cosine_floor` → 0, the best → 1), as BM25 is scaled to its best
    turn: the same ranking for any embedder whose cosines differ by a stretch and a shift.
    A search uses :meth:`for_embedder`'s: raw for MiniLM, pool for any other. Dev R@10 with
    the same weights (benchmarks/results/tune_fusion_*.md): MiniLM 82.5 → 82.9,
    all-mpnet-base-v2 82.8 → 84.7, both folds choosing pool; MiniLM stays raw because
    pooled it loses two of the project's opinion tests (a claim outranked by its turn; 32
    of 36 as-of questions), and with the claim bonus raised to 1.0 (2.0 on update
    questions), floor 0.5 and the vector weights halved those pass, but LoCoMo dev's
    cross-validated R@10 over that grid is 81.5 against raw's 82.0
    (benchmarks/results/tune_pool_default.md)."""
    cosine_floor: float = 0.65
    """With ``cosines="pool"``: the quantile of the candidates' positive cosines that maps
    to 0; the weaker third of the candidates then gets nothing from its cosine. Chosen on
    either dev conversation and scored on the other, for both embedders at once, among
    0.35-0.8 (0.5 and 0.65 close; 0.35 and 0.8 lower on MiniLM)."""
    drop_names: bool = True
    """Leave the asked persons' names out of the lexical query: the speaker weight covers
    them, and a name matches nearly every turn of its speaker."""
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
            # What holds now: the current claim must beat the older words it replaced, and
            # what holds is reconciliation's call, not the wording's: an old claim matches
            # "what does X think of Y now" word for word as well as the new one (no late).
            "update": {"claim": 1.2, "late": 0.0},
            # "When did …": the extractive answer prefers the done record among the best
            # five (cogmem.answer); raising it in the ranking cost LoCoMo dev R@10 on
            # conv-47 (81.3 -> 79.2 at 0.3, docs/own-conversations.md)
            "temporal": {"status": 0.0},
        }
    )

    def for_intent(self, intent: str) -> RankWeights:
        override = self.by_intent.get(intent)
        return self.model_copy(update=override) if override else self

    @classmethod
    def for_embedder(cls, embedder: str | None) -> RankWeights:
        """The default weights for ``embedder`` (its recorded name; None: MiniLM): raw
        cosines for the MiniLM models (:data:`~cogmem.embed.minilm.MINILM_NAMES`), whose scale
        the vector weights were chosen on; pooled ones (:attr:`cosines`) for any other,
        whose scale those weights know nothing of, with the claim bonus of update questions
        at :data:`POOLED_UPDATE_CLAIM` and late interaction at :data:`POOLED_LATE`.
        all-mpnet-base-v2 on LoCoMo dev, the same weights:
        R@10 82.8 raw, 84.7 pooled, both folds choosing pooled
        (benchmarks/results/tune_fusion_mpnet.md); on the collapse bench's top 1 pooled
        costs it records first 90.0 → 86.7 %; its one misattribution was the extractor's
        (an Event made of an opinion), gone since (docs/embedders.md)."""
        if embedder is None or embedder in MINILM_NAMES:
            return cls()
        pooled = cls(cosines="pool", late=POOLED_LATE)
        by_intent = {intent: dict(over) for intent, over in pooled.by_intent.items()}
        by_intent.setdefault("update", {})["claim"] = POOLED_UPDATE_CLAIM
        return pooled.model_copy(update={"by_intent": by_intent})


# -- a turn's signals -------------------------------------------------------------------
@dataclass(slots=True)
class TurnScore:
    """The signals of one source turn and the scores made from them."""

    id: str
    conversation_id: str | None = None
    idx: int | None = None
    prev_idx: int | None = None
    """The idx of the turn before it (None: idx - 1, or none): see :func:`before`."""
    speaker: str | None = None
    bm25: float = 0.0
    turn_cos: float = 0.0
    record_cos: float = 0.0
    graph: float = 0.0
    claim: float = 0.0
    window: float = 0.0
    status: float = 0.0
    late: float = 0.0
    """Late interaction's match (min-max scaled over the turns it read; 0 for the rest)."""
    overtaken: bool = False
    asks: bool = False
    base: float = 0.0
    final: float = 0.0
    paths: list[str] = field(default_factory=list)


class ClaimFields(Protocol):
    """What the claim rules read of a record (a Candidate or a GroundedRecord)."""

    @property
    def type(self) -> str: ...
    @property
    def source(self) -> str | None: ...
    @property
    def target(self) -> str | None: ...
    @property
    def status(self) -> str | None: ...


_CAPTION = re.compile(r"\[image:[^\]]*\]")


_ASKS: dict[str, bool] = {}
""":func:`mostly_asks` per text: a search asks it of ~350 turns, mostly the same ones."""
_ASKS_KEPT = 50_000


def mostly_asks(text: str) -> bool:
    """Whether a turn is mostly a question: it ends with one and at least half of its
    sentences are questions ("What kind of books do you have?", not "I loved it. You?")."""
    known = _ASKS.get(text)
    if known is not None:
        return known
    plain = _CAPTION.sub("", text).strip()
    asks = False
    if plain.endswith("?"):
        parts = sentences(plain)
        asks = 2 * sum(part.text.endswith("?") for part in parts) >= len(parts)
    if len(_ASKS) >= _ASKS_KEPT:
        _ASKS.clear()
    _ASKS[text] = asks
    return asks


def in_window(window: TimeRange | None, start: datetime | None, end: datetime | None) -> float:
    """1 when [start, end] overlaps the question's window, else 0 (also without a window
    or without a time)."""
    if window is None or start is None or end is None:
        return 0.0
    return 1.0 if start < window.end and end > window.start else 0.0


def candidate_in_window(window: TimeRange | None, cand: Candidate) -> float:
    """A record's referenced time, or, lacking one, when it was said (a turn: its time)."""
    return in_window(window, cand.time_start or cand.at, cand.time_end or cand.at)


def subject_of(plan: Plan) -> str | None:
    """The person a question is about: the first it names."""
    return plan.entities[0].name if plan.entities else None


def admissible(plan: Plan, rec: ClaimFields, subject: str | None) -> bool:
    """Opinions are not records: outside opinion questions, another speaker's claim
    about the subject never counts as the subject's record; in opinion questions only
    the holder's claims count."""
    if rec.type != RecordType.CLAIM:
        return True
    if plan.intent in CLAIM_INTENTS:
        return plan.opinion_source is None or rec.source in (None, plan.opinion_source)
    return subject is None or rec.source in (None, subject)


def claim_bonus(plan: Plan, rec: ClaimFields, c: ScoringConstants = DEFAULT_CONSTANTS) -> float:
    """How well a claim answers an opinion or update question (0 for anything else)."""
    if rec.type != RecordType.CLAIM or plan.intent not in CLAIM_INTENTS:
        return 0.0
    if plan.opinion_source and rec.source != plan.opinion_source:
        return 0.0
    if about_someone_else(plan, rec.target):
        return 0.0
    bonus = c.claim_of_holder
    if plan.opinion_target and rec.target and rec.target.lower() == plan.opinion_target.lower():
        bonus = c.claim_on_target
    if rec.status == "CURRENT":
        bonus += c.current_claim
    elif rec.status == "SUPERSEDED":
        bonus *= c.superseded_on_update if plan.intent == "update" else c.superseded_on_opinion
    return bonus


def about_someone_else(plan: Plan, target: str | None) -> bool:
    """Whether a claim targets a person the question does not name, while the question names
    no target ("is Jin still driving to Cornwall?": Jin's view of Helen answers nothing)."""
    if plan.opinion_target or not target or not target[:1].isupper():
        return False
    return target.lower() not in {e.name.lower() for e in plan.entities}


def status_fit(plan: Plan, status: str | None) -> float:
    """1 when a record's plan status is what the question asks for, else 0: an update
    question wants the latest word on a plan (done or called off), a "when" question in the
    past tense what was done, any other "when" question the plan."""
    if status not in PLAN_STATUSES:
        return 0.0
    if plan.intent == "update":
        if plan.opinion_target:  # "what does X think of Y now": a view, not a plan
            return 0.0
        return 1.0 if status in LATEST_STATUSES else 0.0
    if plan.intent != "temporal":
        return 0.0
    if plan.tense == "past":
        return 1.0 if status == "DONE" else 0.0
    return 1.0 if status in ("PLANNED", "SUPERSEDED") else 0.0  # a plan, done since or not


def plan_topic(plan: Plan) -> frozenset[str]:
    """What a question asks about, as word stems: its keywords less the asked persons'
    names and the words that only say when ("is Ben still going camping in the Lake
    District?" → camp, lake, district)."""
    names = {stem(part) for e in plan.entities for part in e.name.split()}
    return frozenset(topic_stems(" ".join(plan.keywords)) - names)


def status_fit_about(plan: Plan, topic: frozenset[str], status: str | None, text: str) -> float:
    """:func:`status_fit` for a record whose words (``text``) speak of the question's topic;
    0 for any other: a plan done or called off on another matter answers nothing."""
    fit = status_fit(plan, status)
    return fit if fit and topic & topic_stems(text) else 0.0


def overtaken(plan: Plan, rec: ClaimFields) -> bool:
    """Whether a record is a plan that a later turn did or called off, on an update
    question (what holds now)."""
    return plan.intent == "update" and rec.type in PLAN_RECORDS and rec.status == "SUPERSEDED"


# -- gathering the signals --------------------------------------------------------------
def score_turns(
    plan: Plan,
    turns: Iterable[Candidate],
    records: Iterable[Candidate],
    graph_hits: Iterable[Candidate],
    c: ScoringConstants = DEFAULT_CONSTANTS,
) -> dict[str, TurnScore]:
    """The signals of every turn that Anchor found, or that holds a record Anchor or a graph
    step found (only admissible records count).

    A search calls this for a few hundred candidates, twice: the rules that only matter for
    claims (:func:`admissible`, :func:`claim_bonus`) and for a question with a time window
    (:func:`candidate_in_window`) are asked only where they can change something."""
    turns = list(turns)
    scores: dict[str, TurnScore] = {}
    window = plan.window

    def entry(turn_id: str) -> TurnScore:
        s = scores.get(turn_id)
        if s is None:
            s = scores[turn_id] = TurnScore(id=turn_id)
        return s

    top_bm25 = max((t.bm25 for t in turns), default=0.0) or 1.0
    for t in turns:
        s = entry(t.id)
        s.conversation_id, s.idx, s.prev_idx, s.speaker = (
            t.conversation_id,
            t.idx,
            t.prev_idx,
            t.speaker,
        )
        s.asks = mostly_asks(t.content)
        if window is not None:
            s.window = max(s.window, candidate_in_window(window, t))
        s.bm25 = max(s.bm25, t.bm25 / top_bm25)
        s.turn_cos = max(s.turn_cos, 2.0 * t.vector - 1.0)
        s.paths.extend(t.path)
    subject = subject_of(plan)
    topic = plan_topic(plan)
    for rec in records:
        claim = rec.type == RecordType.CLAIM
        if not rec.turn_id or (claim and not admissible(plan, rec, subject)):
            continue
        s = entry(rec.turn_id)
        s.record_cos = max(s.record_cos, 2.0 * rec.vector - 1.0)
        if claim:
            s.claim = max(s.claim, claim_bonus(plan, rec, c))
        elif rec.status is not None:
            s.status = max(s.status, status_fit_about(plan, topic, rec.status, rec.content))
            s.overtaken = s.overtaken or overtaken(plan, rec)
        if window is not None:
            s.window = max(s.window, candidate_in_window(window, rec))
    for rec in graph_hits:
        claim = rec.type == RecordType.CLAIM
        if not rec.turn_id or (claim and not admissible(plan, rec, subject)):
            continue
        s = entry(rec.turn_id)
        s.graph = max(s.graph, max(2.0 * rec.vector - 1.0, 0.0))
        if claim:
            s.claim = max(s.claim, claim_bonus(plan, rec, c))
        elif rec.status is not None:
            s.status = max(s.status, status_fit_about(plan, topic, rec.status, rec.content))
            s.overtaken = s.overtaken or overtaken(plan, rec)
        if window is not None:
            s.window = max(s.window, candidate_in_window(window, rec))
        s.paths.append("/".join(rec.path))
    return scores


def absorb(
    plan: Plan,
    scores: dict[str, TurnScore],
    grounded: Iterable[GroundedTurn],
    c: ScoringConstants = DEFAULT_CONSTANTS,
) -> None:
    """Exact similarities of grounded turns (and their neighbours) and of all their records."""
    subject = subject_of(plan)
    window = plan.window
    topic = plan_topic(plan)
    for g in grounded:
        s = scores.get(g.id)
        if s is None:
            s = scores[g.id] = TurnScore(id=g.id)
        s.conversation_id, s.idx, s.prev_idx, s.speaker = (
            g.conversation_id,
            g.idx,
            g.prev_idx,
            g.speaker,
        )
        s.asks = mostly_asks(g.text)
        if window is not None:
            s.window = max(s.window, in_window(window, g.at, g.at))
        s.turn_cos = max(s.turn_cos, 2.0 * g.vector - 1.0)
        for rec in g.records:
            if rec.type == RecordType.CLAIM:
                if not admissible(plan, rec, subject):
                    continue
                s.claim = max(s.claim, claim_bonus(plan, rec, c))
            elif rec.status is not None:
                s.status = max(s.status, status_fit_about(plan, topic, rec.status, g.text))
                s.overtaken = s.overtaken or overtaken(plan, rec)
            s.record_cos = max(s.record_cos, 2.0 * rec.vector - 1.0)


# -- combining them ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CosineScale:
    """Maps a cosine to what the base score adds: ``(cos - floor) / span`` within [0, 1]
    for a positive cosine, 0 for the rest (a negative cosine, or a turn whose similarity
    no step has read yet). :data:`RAW_COSINES` (floor 0, span 1) is the cosine itself."""

    floor: float = 0.0
    span: float = 1.0

    def __call__(self, cos: float) -> float:
        if cos <= 0.0:
            return 0.0
        return min(max((cos - self.floor) / self.span, 0.0), 1.0)


RAW_COSINES = CosineScale()
MIN_SPAN = 1e-6
"""Below this spread of the candidates' cosines they all count as the best one."""


def pool_scale(scores: Iterable[TurnScore], floor_quantile: float) -> CosineScale:
    """The scale of one question's cosines: the ``floor_quantile`` of the candidates'
    positive turn and record cosines maps to 0, the best to 1. An embedder whose cosines
    are a stretch and a shift of another's gets the same scaled values (their order, and
    so the quantile, is the same)."""
    values = sorted(v for s in scores for v in (s.turn_cos, s.record_cos, s.graph) if v > 0.0)
    if not values:
        return RAW_COSINES
    q = min(max(floor_quantile, 0.0), 1.0)
    lo = values[round(q * (len(values) - 1))]
    span = values[-1] - lo
    if span < MIN_SPAN:  # one value, or all the same: each counts fully
        return CosineScale(floor=lo - 1.0, span=1.0)
    return CosineScale(floor=lo, span=span)


def cosine_scale(w: RankWeights, scores: Iterable[TurnScore]) -> CosineScale:
    """The scale ``w.cosines`` asks for, over these candidates."""
    return pool_scale(scores, w.cosine_floor) if w.cosines == "pool" else RAW_COSINES


def cosine_part(w: RankWeights, s: TurnScore, scale: CosineScale = RAW_COSINES) -> float:
    """What a turn's cosines add to its base score (through ``scale``)."""
    return (
        w.turn_vector * scale(s.turn_cos)
        + w.record_vector * scale(s.record_cos)
        + w.graph * scale(s.graph)
    )


def combine(
    w: RankWeights,
    s: TurnScore,
    scale: CosineScale = RAW_COSINES,
    c: ScoringConstants = DEFAULT_CONSTANTS,
) -> float:
    """A turn's base score from its own signals (cosines through ``scale``; negative ones
    count as 0), damped for a plan overtaken since on an update question."""
    return (c.overtaken_on_update if s.overtaken else 1.0) * (
        w.bm25 * s.bm25 + cosine_part(w, s, scale) + w.claim * s.claim + w.window * s.window
    )


def preferred_speaker(plan: Plan) -> str | None:
    """Whose turns to raise: the holder on opinion and update questions (an opinion is its
    holder's own words), else the one person a question names, else nobody."""
    if plan.intent in CLAIM_INTENTS and plan.opinion_source:
        return plan.opinion_source
    speakers = {e.name for e in plan.entities}
    return next(iter(speakers)) if len(speakers) == 1 else None


def finish(
    plan: Plan,
    weights: RankWeights,
    scores: dict[str, TurnScore],
    extra: Mapping[str, float] | None = None,
    c: ScoringConstants = DEFAULT_CONSTANTS,
) -> None:
    """Base score of every turn (:func:`combine`, plus ``extra[turn id]`` where given: a
    signal a benchmark tries out), then its final score: the base plus a share of the
    previous and the following turn's base (an answer follows its question), times
    ``1 + speaker`` for a turn of the preferred speaker, times ``1 - question`` for a turn
    that only asks (rarely the evidence; its answer is), times ``1 + status`` for a turn
    with the plan status asked for (:attr:`RankWeights.status`). Written out in one loop:
    this runs for every candidate turn, three times a search."""
    w = weights.for_intent(plan.intent)
    scale = cosine_scale(w, scores.values())
    for s in scores.values():
        s.base = combine(w, s, scale, c)
    if extra:
        for turn_id, value in extra.items():
            if turn_id in scores:
                scores[turn_id].base += value
    prev_of, next_of = neighbours(scores.values())
    preferred = preferred_speaker(plan)
    raised = 1.0 + w.speaker
    damped = 1.0 - w.question
    previous, following = w.previous, w.following
    for s in scores.values():
        prev, foll = prev_of.get(s.id), next_of.get(s.id)
        s.final = (
            (
                s.base
                + previous * (prev.base if prev else 0.0)
                + following * (foll.base if foll else 0.0)
            )
            * (raised if preferred is not None and s.speaker == preferred else 1.0)
            * (damped if s.asks else 1.0)
            * (1.0 + w.status * s.status)
        )


def before(s: TurnScore) -> int | None:
    """The idx of the turn before ``s`` in its conversation: ``prev_idx`` where the source
    gave it, else ``idx - 1`` (None for a turn without a place). The two differ only after
    a forget, which keeps the idx of the turns that stay (a gap) and bridges the NEXT chain
    over it; where the source gives no ``prev_idx``, ``idx - 1`` is the turn before if it
    exists at all (the turn before is the one of the largest idx below)."""
    if s.idx is None:
        return None
    return s.prev_idx if s.prev_idx is not None else s.idx - 1


def neighbours(
    turns: Iterable[TurnScore],
) -> tuple[dict[str, TurnScore], dict[str, TurnScore]]:
    """Among ``turns``, each one's previous and following turn in its conversation, by
    order (:func:`before`), not by idx ± 1: across a forgotten turn the two turns around it
    are neighbours, as in a group that never held it. Keyed by turn id; a turn whose
    neighbour is not among ``turns`` has none."""
    placed = [(s, s.idx) for s in turns if s.idx is not None]
    at = {(s.conversation_id, idx): s for s, idx in placed}
    prev_of: dict[str, TurnScore] = {}
    next_of: dict[str, TurnScore] = {}
    for s, idx in placed:  # before(s), written out: this runs three times a search
        p = at.get((s.conversation_id, idx - 1 if s.prev_idx is None else s.prev_idx))
        if p is not None:
            prev_of[s.id] = p
            next_of[p.id] = s
    return prev_of, next_of


def ranked(scores: dict[str, TurnScore]) -> list[TurnScore]:
    """Turns by final score, best first (ties by turn id, the same on any server)."""
    return sorted(scores.values(), key=lambda s: (-s.final, s.id))


def record_order(
    plan: Plan, records: Iterable[Candidate], c: ScoringConstants = DEFAULT_CONSTANTS
) -> list[Candidate]:
    """The records of one turn, best first, to pick the one shown as its Evidence: by claim
    bonus, then the plan status asked for, then similarity; outside opinion and update
    questions, claims come last."""
    options = sorted(
        records,
        key=lambda r: (-claim_bonus(plan, r, c), -status_fit(plan, r.status), -r.vector, r.id),
    )
    if plan.intent not in CLAIM_INTENTS:
        options = [r for r in options if r.type != RecordType.CLAIM] + [
            r for r in options if r.type == RecordType.CLAIM
        ]
    return options
