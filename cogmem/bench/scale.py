"""Scale benchmark: synthetic memories of growing size (10k, 100k, optionally 1M records).

At each size it reports ingest throughput, p50/p95 latency of each operator and of the
end-to-end search, the store's size on disk (when cogmem runs the server itself), the
process's peak memory, the time a fresh process takes to read the group's vectors (search
ranks by them in process: :mod:`cogmem.retrieval.vectors`), and the query plans of the
statements a search runs — they must go through the fulltext and id indexes, not scan
every node.

Turns are generated from templates and go through the real ingest path (heuristic
extractor, batched MERGE writes). The neural embedder is swapped for a deterministic
hashing embedder: this benchmark measures the database side at scale; the embedder's own
throughput is measured by the ingest and LoCoMo benchmarks.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import resource
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from pydantic import BaseModel

from cogmem.bench.common import percentile, with_search_cache
from cogmem.models import Conversation, Turn
from cogmem.retrieval.lucene import lucene_query
from cogmem.retrieval.read_limits import EXACT_SCAN_NODES
from cogmem.retrieval.vector_cache import clear_vector_caches

if TYPE_CHECKING:
    from cogmem.api import Memory
    from cogmem.config import Settings
    from cogmem.retrieval.operators import Operators

GROUP = "bench-scale"
T = TypeVar("T")

PEOPLE = [
    "Avery",
    "Blake",
    "Casey",
    "Devon",
    "Emery",
    "Finley",
    "Harper",
    "Jordan",
    "Kai",
    "Logan",
    "Morgan",
    "Quinn",
    "Riley",
    "Sage",
    "Taylor",
    "Rowan",
]
THINGS = [
    "pottery class",
    "marathon",
    "chess club",
    "guitar lessons",
    "garden",
    "kayak trip",
    "bakery",
    "book club",
    "hiking trail",
    "photography course",
    "coding bootcamp",
    "jazz concert",
    "climbing gym",
    "farmers market",
    "museum visit",
    "yoga retreat",
    "science fair",
    "camping weekend",
    "cooking class",
    "volunteer shift",
]
WHEN = [
    "yesterday",
    "last week",
    "two days ago",
    "last month",
    "on Saturday",
    "this morning",
    "last year",
    "next week",
    "in June",
    "a few days ago",
]
TEMPLATES = [
    "I went to the {thing} {when} and it was great.",
    "We decided to sign up for the {thing} together.",
    "Honestly I think {person} is amazing at the {thing}.",
    "I love the {thing}, it helps me relax after work.",
    "Remember to book the {thing} before Friday.",
    "I realized that the {thing} makes me happier than I expected.",
    "{person} and I joined the {thing} {when}.",
    "I'll call {person} about the {thing} tomorrow.",
    "The {thing} costs 40 dollars for {n} sessions.",
]
QUESTIONS = [
    "When did {person} go to the {thing}?",
    "What does {person} think of the {thing}?",
    "What did {person} decide about the {thing}?",
    "What do {person} and {other} both like?",
    "Why did {person} sign up for the {thing}?",
]


class HashingEmbedder:
    """Deterministic 384-d vectors from hashed words and word pairs (no model)."""

    name = "hashing-384"
    dimension = 384

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), np.float32)
        for row, text in enumerate(texts):
            words = text.lower().split()
            for feature in words + [a + " " + b for a, b in itertools.pairwise(words)]:
                h = int.from_bytes(
                    hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little"
                )
                out[row, h % self.dimension] += 1.0 if (h >> 32) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def pieces(self, text: str) -> list[str]:
        """Its "tokens": the words, lowercased, punctuation stripped."""
        return [w.strip(PUNCTUATION) or w for w in text.lower().split()]

    def embed_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Token rows too (each word's own hashed vector), so that a search at scale reads
        and matches them as it does with MiniLM (:mod:`cogmem.retrieval.late`)."""
        rows = [self.embed(self.pieces(t)) for t in texts]
        return self.embed(texts), [r.reshape(-1, self.dimension) for r in rows]


PUNCTUATION = ".,!?:;\"'()"


def synthetic_conversation(index: int, turns: int, rng: random.Random) -> Conversation:
    a, b = rng.sample(PEOPLE, 2)
    start = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=rng.randrange(0, 600))
    out = []
    for i in range(turns):
        speaker = a if i % 2 == 0 else b
        other = b if speaker == a else a
        text = rng.choice(TEMPLATES).format(
            thing=rng.choice(THINGS), when=rng.choice(WHEN), person=other, n=rng.randint(2, 12)
        )
        session = i // 20 + 1
        out.append(
            Turn(
                conversation=f"syn-{index}",
                session=str(session),
                session_index=session,
                index=i,
                source_id=f"S{session}:{i}",
                speaker=speaker,
                text=text,
                at=start + timedelta(days=3 * session, minutes=i),
            )
        )
    return Conversation(id=f"syn-{index}", speakers=[a, b], turns=out, source_format="synthetic")


class OperatorLatency(BaseModel):
    p50_ms: float
    p95_ms: float


class SizePoint(BaseModel):
    records: int
    turns: int
    ingest_turns_per_s: float
    ingest_records_per_s: float
    latency: dict[str, OperatorLatency]
    store_mib: float | None
    peak_rss_mib: float
    vectors_load_s: float = 0.0
    """Reading the group into the process's copy (in the background, after the first
    search of a process; before the warm searches here)."""
    cold_ms: dict[str, float] = {}
    """Mean ms of each part of a search through Neo4j alone (no copy in process)."""
    dense_traverse: dict[str, float] = {}
    """Traverse (two hops from a person) through Neo4j alone, with dense nodes reached
    through the vector index and with every neighbour scored: mean ms of each, and the
    share of the exact candidates the shortcut also returns."""
    cold_rounds: list[dict[str, float]] = []
    """Each round of the cold questions: p95 ms of cold_search and cold_search_as_of."""


class ScaleReport(BaseModel):
    sizes: list[SizePoint]
    plans: dict[str, str]
    embedder: str
    queries_per_size: int
    cold_rounds: int = 1
    """How many times the cold questions were asked (their p95 is over every round)."""


def du_mib(path: Path | None) -> float | None:
    if path is None or not path.exists():
        return None
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return round(total / 2**20, 1)


def timed(fn: Callable[[], T], bucket: list[float]) -> T:
    """Call ``fn`` and add the seconds it took to ``bucket``."""
    started = time.perf_counter()
    result = fn()
    bucket.append(time.perf_counter() - started)
    return result


def plan_text(plan: Any, depth: int = 0) -> str:
    """An executed plan (the driver's profile dict) as an indented operator tree."""
    if not plan:
        return ""
    args = plan.get("args", {})
    detail = str(args.get("Details", ""))
    line = (
        f"{'  ' * depth}{plan.get('operatorType')} rows={plan.get('rows', '?')} "
        f"dbHits={plan.get('dbHits', '?')}" + (f"  {detail[:120]}" if detail else "")
    )
    return "\n".join([line, *(plan_text(c, depth + 1) for c in plan.get("children", []))])


def scale_memory(settings: Settings, search_cache: str = "eager") -> Memory:
    """The Memory the benchmark grows: group ``bench-scale``, the hashing embedder, the
    heuristic extractor and the rule router (whatever LLM the settings name). Its
    searches read the group into the process first (``search_cache``: ``eager``); with
    ``off`` they go to Neo4j every time, as a process's first search of a group does."""
    from cogmem.api import Memory
    from cogmem.extract import HeuristicExtractor
    from cogmem.retrieval import RuleRouter

    return Memory(
        settings.model_copy(update={"group": GROUP, "search_cache": search_cache}),
        embedder=HashingEmbedder(),
        extractor=HeuristicExtractor(),
        router=RuleRouter(),
    )


LIVE_TURNS = 20
"""Live turns per size, each followed by a search (the refresh after a write)."""
WARM_UP = 3
"""Untimed searches before each size's timed ones: a grown store's first statements
compile their plans and fill caches (the group's vectors are read before them, timed
apart as "vectors read")."""
AS_OF_WARM_UP = (0.5, 0.01)
"""Where in the group's time span the untimed questions as of a time are asked before the
cold ones: midway, and early (the paths of a group that held few nodes then)."""


COLD_ROUNDS = 3
"""The cold questions are asked this many times over (the same questions and times each
round; each search is still a first search, through Neo4j alone): on these 2-core machines
one round's p95 of 40 searches moved by a third between runs of the same code, so the p95
reported is over every round's searches, each round's beside it."""


def run_scale(
    memory: Memory,
    sizes: Sequence[int],
    data_dir: Path | None = None,
    turns_per_conversation: int = 200,
    queries: int = 40,
    seed: int = 7,
    log: Callable[[str], None] = print,
    cold_rounds: int = COLD_ROUNDS,
) -> ScaleReport:
    """Grow ``memory``'s group through ``sizes`` (memory records) and measure at each size.

    ``memory`` is a :func:`scale_memory` (its embedder is the hashing one); the cold
    questions are asked ``cold_rounds`` times over (see :data:`COLD_ROUNDS`)."""
    rng = random.Random(seed)
    memory.forget(batch=20_000)  # start from an empty group: the generator is deterministic
    embedder = memory.embedder
    points: list[SizePoint] = []
    plans: dict[str, str] = {}
    conv_index = turns = 0
    for size in sorted(sizes):
        ingest_seconds = 0.0
        grown_turns = 0
        records_before = records_of(memory)
        while records_of(memory) < size:
            conv = synthetic_conversation(conv_index, turns_per_conversation, rng)
            conv_index += 1
            started = time.perf_counter()
            memory.ingest_conversations([conv], batch_size=200)
            ingest_seconds += time.perf_counter() - started
            grown_turns += len(conv.turns)
            if conv_index % 25 == 0:
                log(f"  {records_of(memory)} records…")
        turns += grown_turns
        records = records_of(memory)
        log(f"size {size}: {records} records, {turns} turns; measuring {queries} queries")
        memory.admin.await_indexes(seconds=600)
        clear_vector_caches()
        cold = _cold_searches(memory, queries, seed + 2 * size, cold_rounds)
        rounds = cold.pop("rounds")
        dense = _dense_traverse(memory, queries, random.Random(seed + 3 * size))
        clear_vector_caches()
        load_started = time.perf_counter()
        persons = {p["name"]: p["id"] for p in memory.inspect.operators().persons()}
        vectors_load_s = time.perf_counter() - load_started
        buckets: dict[str, list[float]] = {
            k: [] for k in ("anchor", "traverse", "intersect", "ground", "search")
        }
        warm = random.Random(seed + size)  # apart from rng: the timed questions stay the same
        for _ in range(WARM_UP):
            memory.inspect.controller().run(
                warm.choice(QUESTIONS).format(
                    person=warm.choice(PEOPLE), other=warm.choice(PEOPLE), thing=warm.choice(THINGS)
                ),
                k=10,
            )
        for _ in range(queries):
            ops = memory.inspect.operators()  # as a search does: its own view of the group
            person, other = rng.sample([p for p in PEOPLE if p in persons] or PEOPLE, 2)
            question = rng.choice(QUESTIONS).format(
                person=person, other=other, thing=rng.choice(THINGS)
            )
            qvec = embedder.embed_query(question)
            anchor = timed(partial(ops.anchor, question, qvec, pool=100), buckets["anchor"])
            ids = [persons[person]] if person in persons else []
            timed(partial(ops.traverse, ids, qvec, depth=2), buckets["traverse"])
            pair = [persons[p] for p in (person, other) if p in persons]
            timed(partial(ops.intersect, pair, qvec), buckets["intersect"])
            turn_ids = [t.id for t in anchor.turns[:30]]
            timed(partial(ops.ground, turn_ids, window=1, vector=qvec), buckets["ground"])
            timed(partial(memory.inspect.controller().run, question, k=10), buckets["search"])
        # a live chat on the grown group: each turn is followed by a search, whose refresh
        # reads what the turn wrote (through the (group_id, vseq) indexes)
        live: dict[str, list[float]] = {"add_turn": [], "search_after_write": []}
        for n in range(LIVE_TURNS):
            person, other = rng.sample(PEOPLE, 2)
            thing = rng.choice(THINGS)
            said = f"{other} and I tried the {thing} again on day {n} of the live chat."
            timed(partial(memory.add_turn, person, said, conversation="live"), live["add_turn"])
            question = f"What did {person} try with {other}?"
            timed(
                partial(memory.inspect.controller().run, question, k=10), live["search_after_write"]
            )
        buckets.update(live)
        buckets["cold_search"] = cold.pop("search")
        buckets["cold_search_as_of"] = cold.pop("search_as_of")
        points.append(
            SizePoint(
                records=records,
                turns=turns,
                ingest_turns_per_s=round(grown_turns / ingest_seconds, 1)
                if ingest_seconds
                else 0.0,
                ingest_records_per_s=round((records - records_before) / ingest_seconds, 1)
                if ingest_seconds
                else 0.0,
                latency={
                    k: OperatorLatency(
                        p50_ms=round(1000 * percentile(v, 50), 1),
                        p95_ms=round(1000 * percentile(v, 95), 1),
                    )
                    for k, v in buckets.items()
                },
                store_mib=du_mib(data_dir),
                peak_rss_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                vectors_load_s=round(vectors_load_s, 2),
                cold_ms={k: round(1000 * sum(v) / max(len(v), 1), 1) for k, v in cold.items()},
                dense_traverse=dense,
                cold_rounds=rounds,
            )
        )
    plans = profile_plans(memory, memory.inspect.operators())
    return ScaleReport(
        sizes=points,
        plans=plans,
        embedder=embedder.name,
        queries_per_size=queries,
        cold_rounds=cold_rounds,
    )


def _cold_searches(memory: Memory, queries: int, seed: int, rounds: int = 1) -> dict[str, Any]:
    """``queries`` searches, ``rounds`` times over, as a process that holds no copy of the
    group makes them (every call through the operators' statements: ``search_cache =
    off``), after one untimed question of each kind and :data:`WARM_UP` untimed ones: the
    end-to-end seconds under ``search``,
    each part of them (:attr:`~cogmem.retrieval.controller.Retrieval.seconds`) under its
    name, and each round's p95 ms under ``rounds``."""
    cold = with_search_cache(memory, "off")
    persons = [p["name"] for p in memory.inspect.operators().persons()] or PEOPLE
    span = memory.inspect.span()
    first, last = span["first_said"], span["last_said"]
    parts: dict[str, Any] = {"search": [], "search_as_of": []}
    per_round: list[dict[str, float]] = []
    # one untimed question of every kind, now and as of a time (midway, and early, when the
    # group held few nodes: exact scans of those, the persons' neighbours scored), first:
    # the server compiles each statement's plan once (for any process), which the first
    # question of a kind would otherwise pay inside the timed ones (~200 ms an early time's
    # plans, seen on a fresh server)
    for template in QUESTIONS:
        question = template.format(person=persons[0], other=persons[-1], thing=THINGS[0])
        cold.retrieve(question, k=10)
        for share in AS_OF_WARM_UP if first and last else ():
            cold.retrieve(question, k=10, as_of=first + (last - first) * share)
    for round_no in range(max(1, rounds)):
        rng = random.Random(seed)  # the same questions and times every round
        now: list[float] = []
        then: list[float] = []
        for n in range(WARM_UP + queries):
            person, other = rng.sample(persons, 2) if len(persons) > 1 else (persons[0],) * 2
            question = rng.choice(QUESTIONS).format(
                person=person, other=other, thing=rng.choice(THINGS)
            )
            as_of = first + (last - first) * rng.random() if first and last else None
            if n < WARM_UP and round_no:
                continue  # warmed up once
            started = time.perf_counter()
            result = cold.retrieve(question, k=10)
            took = time.perf_counter() - started
            # the same question as of a moment drawn over the group's time span, right
            # after (interleaved: the machine's noise falls on both alike)
            started = time.perf_counter()
            cold.retrieve(question, k=10, as_of=as_of)
            took_as_of = time.perf_counter() - started
            if n >= WARM_UP:
                now.append(took)
                then.append(took_as_of)
                for name, seconds in result.seconds.items():
                    parts.setdefault(name, []).append(seconds)
        parts["search"] += now
        parts["search_as_of"] += then
        per_round.append(
            {
                "search_p95_ms": round(1000 * percentile(now, 95), 1),
                "search_as_of_p95_ms": round(1000 * percentile(then, 95), 1),
            }
        )
    parts["rounds"] = per_round
    cold.close()
    return parts


def _dense_traverse(memory: Memory, queries: int, rng: random.Random) -> dict[str, float]:
    """Two-hop traversals from a person through Neo4j alone, as the cold path runs them
    (a node of more than DENSE_DEGREE relationships through the vector index) and with
    every neighbour scored (the shortcut off): mean ms of each and the share of the exact
    candidates the shortcut returns too."""
    from cogmem.retrieval import graph_source

    persons = {p["name"]: p["id"] for p in memory.inspect.operators().persons()}
    if not persons:
        return {}
    cold = with_search_cache(memory, "off")
    shortcut_s = exact_s = 0.0
    shared = total = 0
    threshold = graph_source.DENSE_DEGREE
    try:
        for _ in range(queries):
            person = rng.choice(sorted(persons))
            question = rng.choice(QUESTIONS).format(
                person=person, other=rng.choice(PEOPLE), thing=rng.choice(THINGS)
            )
            vec = memory.embedder.embed_query(question)
            started = time.perf_counter()
            fast = cold.inspect.operators().traverse([persons[person]], vec, depth=2)
            shortcut_s += time.perf_counter() - started
            graph_source.DENSE_DEGREE = 1 << 62
            try:
                started = time.perf_counter()
                exact = cold.inspect.operators().traverse([persons[person]], vec, depth=2)
                exact_s += time.perf_counter() - started
            finally:
                graph_source.DENSE_DEGREE = threshold
            want = {c.id for c in exact}
            shared += len(want & {c.id for c in fast})
            total += len(want)
    finally:
        cold.close()
    return {
        "shortcut_ms": round(1000 * shortcut_s / queries, 1),
        "exact_ms": round(1000 * exact_s / queries, 1),
        "overlap": round(shared / max(total, 1), 3),
    }


def records_of(memory: Memory) -> int:
    """Memory records in the group."""
    return int(memory.inspect.size()["records"])


def profile_plans(memory: Memory, ops: Operators) -> dict[str, str]:
    """PROFILE the statements a search runs, at the largest size (Anchor, Traverse and
    Intersect run in process: the refresh that keeps the copy fresh is their statement)."""
    group = memory.group
    q = "When did Avery go to the pottery class?"
    qvec = memory.embedder.embed_query(q)
    turns = [t for t, _ in ops.vectors.top(qvec, turns=True, types=None, k=50)]
    (state,), _ = memory.admin.profile("operators/vector_state", group=group)
    vec = [float(x) for x in qvec]
    fulltext = lucene_query(group, ["avery", "pottery", "class"], ["search_text"])
    person = next(iter(p["id"] for p in ops.persons()), "")
    step = {"ids": [person], "rel_types": ["PARTICIPATED_IN", "CLAIMS"], "types": None}
    calls: dict[str, dict[str, Any]] = {
        # a search's refresh after a write: the nodes of the last write, with their links
        "operators/vectors_since": dict(group=group, seq=max(0, int(state["seq"]) - 1)),
        "operators/ground": dict(ids=turns, group=group, window=1, per_record=3, vector=vec),
        "operators/turn_tokens": dict(ids=turns, group=group),
        # a search through Neo4j alone (no copy in process)
        "operators/group_size": dict(group=group, cap=EXACT_SCAN_NODES),
        "operators/nearest_turns_indexed": dict(group=group, vector=vec, k=60, fetch=120),
        "operators/fulltext_turns": dict(group=group, query=fulltext, k=60, fetch=60, vector=None),
        "operators/traverse_hop": dict(
            group=group, steps=[dict(step, start=None, end=None)], per_node=15, vector=vec
        ),
    }
    out = {}
    for name, params in calls.items():
        _, profile = memory.admin.profile(name, **params)
        out[name] = plan_text(profile)
    return out
