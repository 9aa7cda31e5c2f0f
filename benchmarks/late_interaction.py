"""Late interaction, measured before it is built: would a token-against-token match between
the question and a turn (MaxSim over MiniLM's contextual token states, the rows that mean
pooling turns into the turn's vector) rank the LoCoMo dev turns better, cross-validated?

For every question the search runs as shipped (``Controller.scored``: route, feedback,
Anchor, the recipe, grounding); then the best ``top`` turns by the shipped ranking get one
more signal and the ranking is replayed (:func:`cogmem.retrieval.scoring.finish` with
``extra``), once per setting:

* **the signal** — for each word of the question (a word-initial word-piece, not a
  stopword, not a name of a person it asks about), the best cosine to any token of the
  turn (the turn's own words: its "Speaker:" prefix and [CLS]/[SEP] left out), averaged
  with IDF weights (``log((N+1)/(df+1))`` over the conversation's turns, per word-piece).
  The turn's token rows are L2-normalised and quantised to int8 per row, as a store would
  keep them;
* **its scale** — min-max over the ``top`` turns of the question (the best gets 1, the
  worst 0), times ``late`` (``multi-hop.late`` for questions routed multi-hop), added to
  the turn's base score, so it also reaches the next turn's score through ``previous``.

Each conversation is tuned on and scored on the other (``tune_weights.py``'s
cross-validation). It also reports what the signal would cost: the int8 bytes per turn and
the milliseconds of the MaxSim for one search. The token states are computed here for the
whole conversation (not timed as search: a real build would keep them from the ingest's
own forward pass).

    python benchmarks/late_interaction.py ../shared/data/locomo-dev.json --uri URI \\
        --reuse --keep --prefix prf-
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tune_weights import (
    CATEGORIES,
    OBJECTIVES,
    Ranking,
    cross_validate,
    figures,
    ingested,
    label,
    log,
    markdown,
)

from cogmem.api import Memory
from cogmem.bench.common import command_line, machine_info, now_iso, write_results
from cogmem.bench.locomo import EvidenceStats, Question, load_questions
from cogmem.embed.minilm import MiniLMEmbedder
from cogmem.ingest import read_file
from cogmem.ingest.rows import speaker_text
from cogmem.models import Conversation
from cogmem.retrieval.router import Plan
from cogmem.retrieval.scoring import TurnScore, finish, ranked
from cogmem.text.stopwords import STOPWORDS

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
K = 10
SPECIALS = frozenset({"[CLS]", "[SEP]"})


@dataclass
class TurnTokens:
    """One conversation's turns as token rows (int8 per row, with the row's scale)."""

    rows: dict[str, np.ndarray]  # source id → (tokens, dim) float32, unit rows after int8
    ids: dict[str, list[int]]  # source id → word-piece ids of those rows
    df: Counter[int]
    bytes_per_turn: float


def int8_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit rows quantised to int8, one scale per row."""
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    scale = np.abs(unit).max(axis=1, keepdims=True) / 127.0
    return np.round(unit / scale).astype(np.int8), scale.astype(np.float32)


def turn_tokens(embedder: MiniLMEmbedder, conv: Conversation) -> TurnTokens:
    """Each turn's own token rows: as embedded (``speaker: text``), prefix and specials off."""
    texts = [speaker_text(t.speaker, t.full_text) for t in conv.turns]
    rows: dict[str, np.ndarray] = {}
    ids: dict[str, list[int]] = {}
    df: Counter[int] = Counter()
    stored = 0
    for turn, text, states in zip(conv.turns, texts, embedder.token_states(texts), strict=True):
        pieces = list(embedder.encode_ids(text))
        tokens = embedder.tokenizer.convert_ids_to_tokens(pieces)
        start = tokens.index(":") + 1 if ":" in tokens else 1
        keep = [i for i in range(start, len(tokens)) if tokens[i] not in SPECIALS]
        if not keep:
            keep = list(range(len(tokens)))
        q, scale = int8_rows(states[keep])
        stored += q.nbytes + scale.nbytes
        restored = q.astype(np.float32) * scale
        rows[turn.source_id] = restored / np.linalg.norm(restored, axis=1, keepdims=True)
        ids[turn.source_id] = [pieces[i] for i in keep]
        df.update(set(ids[turn.source_id]))
    return TurnTokens(rows, ids, df, stored / max(len(conv.turns), 1))


def question_tokens(
    embedder: MiniLMEmbedder, question: str, names: set[str], tokens: TurnTokens
) -> tuple[np.ndarray, np.ndarray] | None:
    """The question's word rows and their IDF weights (None: no word left)."""
    (states,) = embedder.token_states([question])
    pieces = list(embedder.encode_ids(question))
    words = embedder.tokenizer.convert_ids_to_tokens(pieces)
    n = len(tokens.rows)
    keep = [
        i
        for i, w in enumerate(words)
        if w.isalpha() and w not in SPECIALS and w not in STOPWORDS and w not in names
    ]
    if not keep:
        return None
    rows = states[keep] / np.linalg.norm(states[keep], axis=1, keepdims=True)
    idf = np.array([math.log((n + 1) / (tokens.df[pieces[i]] + 1)) for i in keep])
    return rows, idf


def maxsim(query: tuple[np.ndarray, np.ndarray], rows: np.ndarray) -> float:
    q, idf = query
    best = (q @ rows.T).max(axis=1)
    return float((best * idf).sum() / max(idf.sum(), 1e-9))


@dataclass
class Replay:
    question: Question
    plan: Plan
    scores: dict[str, TurnScore]
    source: dict[str, str]  # turn id → source id
    signal: dict[int, dict[str, float]]  # top → turn id → min-max scaled signal


def asked_names(plan: Plan) -> set[str]:
    return {part.lower() for e in plan.entities for part in e.name.split()}


def scaled(values: dict[str, float]) -> dict[str, float]:
    lo, hi = min(values.values()), max(values.values())
    return {k: (v - lo) / (hi - lo) if hi > lo else 0.0 for k, v in values.items()}


def replay_all(
    mem: Memory,
    embedder: MiniLMEmbedder,
    conv: Conversation,
    questions: list[Question],
    tops: Sequence[int],
    timings: list[float],
) -> tuple[list[Replay], TurnTokens]:
    tokens = turn_tokens(embedder, conv)
    controller = mem.controller()
    by_turn_id: dict[str, str] = {}
    out = []
    for q in questions:
        plan, scores = controller.scored(q.question, k=K)
        order = ranked(scores)
        missing = [s.id for s in order if s.id not in by_turn_id]
        for row in controller.ops.turns(missing):
            by_turn_id[row["id"]] = row["source_id"]
        query = question_tokens(embedder, q.question, asked_names(plan), tokens)
        signal: dict[int, dict[str, float]] = {}
        for top in tops:
            if query is None:
                signal[top] = {}
                continue
            started = time.perf_counter()
            raw = {
                s.id: maxsim(query, tokens.rows[by_turn_id[s.id]])
                for s in order[:top]
                if by_turn_id.get(s.id) in tokens.rows
            }
            if top == min(tops):
                timings.append(time.perf_counter() - started)
            signal[top] = scaled(raw) if raw else {}
        out.append(Replay(q, plan, scores, by_turn_id, signal))
    return out, tokens


def ranking_for(replays: list[Replay], setting: dict[str, float], mem: Memory) -> Ranking:
    weights = mem.controller().weights
    out: Ranking = []
    for r in replays:
        share = setting["multi-hop.late"] if r.plan.intent == "multi-hop" else setting["late"]
        signal = r.signal[int(setting["top"])]
        finish(r.plan, weights, r.scores, {k: share * v for k, v in signal.items()})
        out.append((r.question, [r.source[s.id] for s in ranked(r.scores)[:K]]))
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--uri", help="Neo4j URI (default: NEO4J_URI / cogmem config)")
    parser.add_argument("--prefix", default="late-", help="group name prefix")
    parser.add_argument("--reuse", action="store_true", help="keep an existing ingest")
    parser.add_argument("--keep", action="store_true", help="keep the groups afterwards")
    parser.add_argument("--top", default="50,100", help="turns re-scored per question")
    parser.add_argument("--late", default="0,0.5,1,1.5,2", help="share, other intents")
    parser.add_argument(
        "--multihop-late", default="0,1,2,3", help="share, multi-hop ('same': as --late)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--name", default="late_interaction")
    return parser.parse_args(argv)


def floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tops = [int(v) for v in floats(args.top)]
    mh = None if args.multihop_late == "same" else floats(args.multihop_late)
    settings = [
        {"top": float(t), "late": a, "multi-hop.late": a if b is None else b}
        for t, a, b in itertools.product(tops, floats(args.late), mh or [None])
    ]
    current = next(i for i, s in enumerate(settings) if s["late"] == s["multi-hop.late"] == 0)
    conversations = read_file(args.path, "locomo").conversations
    stats = EvidenceStats()
    questions = load_questions(args.path, conversations, CATEGORIES, stats)
    memory = Memory.connect(args.uri)
    embedder = memory.embedder
    if not isinstance(embedder, MiniLMEmbedder):
        raise SystemExit(f"needs the MiniLM embedder, not {embedder.name}")
    runs: dict[tuple[int, str], Ranking] = {}
    timings: list[float] = []
    sizes: dict[str, float] = {}
    try:
        for conv in conversations:
            mem = ingested(memory, f"{args.prefix}{conv.id}", conv, args.reuse)
            log(f"{conv.id}: token states and the shipped search")
            mine = [q for q in questions if q.conversation == conv.id]
            replays, tokens = replay_all(mem, embedder, conv, mine, tops, timings)
            sizes[conv.id] = round(tokens.bytes_per_turn)
            for i, setting in enumerate(settings):
                runs[(i, conv.id)] = ranking_for(replays, setting, mem)
        info = machine_info(memory, embedder=embedder.name, uri=memory.settings.neo4j_uri)
    finally:
        if not args.keep:
            for conv in conversations:
                memory.for_group(f"{args.prefix}{conv.id}").forget()
        memory.close()
    convs = [c.id for c in conversations]
    objective = OBJECTIVES["r10"]
    table = []
    for i, setting in enumerate(settings):
        row: dict[str, Any] = {"setting": label(setting), "weights": setting, "seconds": "—"}
        row["all"] = figures([p for c in convs for p in runs[(i, c)]])
        row["by_conversation"] = {c: figures(runs[(i, c)]) for c in convs}
        table.append(row)
    best = max(range(len(settings)), key=lambda i: (objective(table[i]["all"]), -i))
    ms = sorted(1000 * t for t in timings)
    data: dict[str, Any] = {
        "date": now_iso(),
        "command": command_line(),
        "machine": info,
        "path": str(args.path),
        "objective": "r10",
        "k": K,
        "evidence": stats.model_dump(),
        "settings": table,
        "current": label(settings[current]),
        "in_sample_best": label(settings[best]),
        "cv": cross_validate(runs, settings, current, convs, objective),
        "int8_bytes_per_turn": sizes,
        "maxsim_ms": {
            "top": min(tops),
            "p50": round(ms[len(ms) // 2], 2),
            "p95": round(ms[int(0.95 * (len(ms) - 1))], 2),
        },
    }
    text = markdown(data, convs).replace(
        "# Ranking weights: grid search", "# Late interaction (token MaxSim), replayed"
    )
    text += (
        f"\n\nCost: int8 token rows {sizes} bytes per turn; MaxSim over the top "
        f"{min(tops)} turns p50 {data['maxsim_ms']['p50']} / p95 {data['maxsim_ms']['p95']} ms "
        "per search (numpy, this process). The 'search s' column is not measured here."
    )
    written = write_results(args.out, args.name, text, data)
    print(text)
    log(f"wrote {written.markdown} and {written.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
