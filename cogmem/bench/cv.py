"""Leave-one-conversation-out cross-validation of the ranking weights over several
LoCoMo-layout files (the five dev conversations: ``locomo-dev.json`` and
``realtalk-dev.json``), with the flat baselines measured in the same run.

Each conversation is ingested once into its own group; every question of categories 1-4
is searched once per setting of a small grid (the current :class:`RankWeights` are one
point of it). A fold holds one conversation out: the setting that scores best on the
others (pooled R@10, multi-hop AllHit@10 breaking ties) is chosen and scored on it. Three
figures stand side by side, per conversation, per category and per file:

- **cross-validated**: each conversation scored with the setting chosen without it;
- **in-sample**: the one setting best on all conversations together, scored on them;
- **current weights**: the weights a search uses today (chosen earlier on LoCoMo dev, so
  in-sample there and held out on REALTALK).

Flat baselines over the same turns, each prefixed with the date it was said: stemmed BM25
with stopwords removed (k1 0.5, b 0), dense cosine with the configured embedder, and their
reciprocal-rank fusion (k = 60). Evidence ids that are malformed or name no turn are
normalised or dropped and counted per file (:func:`cogmem.bench.locomo.load_questions`).

``--turn-times session`` gives every turn its session's time instead of its own
``timestamp`` (what the reader did before it read per-message times), to measure that.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogmem.api import Memory
from cogmem.bench.baselines import DatedFlat
from cogmem.bench.common import (
    command_line,
    finish_groups,
    machine_info,
    machine_line,
    markdown_table,
    now_iso,
    percentile,
    write_results,
)
from cogmem.bench.grid import (
    Value,
    label,
    parse_axis,
    settings_of,
    weights_for,
    with_current,
)
from cogmem.bench.locomo import CATEGORY_NAMES, EvidenceStats, Question, load_questions, score
from cogmem.ingest import read_file
from cogmem.ingest.parsing import parse_when
from cogmem.ingest.rows import short_date
from cogmem.models import Conversation
from cogmem.retrieval import RankWeights

K = 10
"""The cut-off every figure is read at."""
CATEGORIES = {1, 2, 3, 4}
"""LoCoMo's answerable categories (5, adversarial, has no evidence to find)."""
MULTI_HOP = 1

DEFAULT_GRID: dict[str, tuple[Value, ...]] = {
    # how much a turn inherits from the one before it: short real-chat messages answer
    # the one before more often than LoCoMo's long turns do
    "previous": (0.7, 0.4),
    # every vector weight against BM25 at once (one factor, not three weights)
    "vectors": (1.0, 0.6),
}
"""Four settings, the current weights among them: few enough that choosing among them by
CV is not itself a fit (issue 52)."""

Ranking = list[tuple[Question, list[str]]]
Figures = dict[str, Any]


@dataclass
class Conv:
    """One conversation of one file, with its questions."""

    dataset: str
    conversation: Conversation
    questions: list[Question]

    @property
    def id(self) -> str:
        return self.conversation.id


@dataclass
class Runs:
    """Every ranking of the run: per (setting, conversation) and per baseline."""

    cogmem: dict[tuple[int, str], Ranking] = field(default_factory=dict)
    flat: dict[str, dict[str, Ranking]] = field(default_factory=lambda: defaultdict(dict))


# -- figures ----------------------------------------------------------------------------
def figures(rankings: Ranking) -> Figures:
    """R@10 and multi-hop AllHit@10 over ``rankings``, overall and per category, with the
    number of questions each is over (None where there are none)."""
    if not rankings:
        return {"r10": None, "mh_allhit10": None, "questions": 0, "by_category": {}}
    s = score(rankings)
    by_category = {
        str(c): {
            "r10": s.recall[c][K],
            "allhit10": s.all_hit[c][K],
            "questions": s.questions[c],
        }
        for c in sorted(s.questions)
        if c
    }
    return {
        "r10": s.recall[0][K],
        "mh_allhit10": s.all_hit.get(MULTI_HOP, {}).get(K),
        "questions": s.questions[0],
        "by_category": by_category,
    }


def objective(f: Figures) -> tuple[float, float]:
    """What "best" means: R@10, then multi-hop AllHit@10."""
    return (f["r10"] or 0.0, f["mh_allhit10"] or 0.0)


def pooled(runs: dict[tuple[int, str], Ranking], setting: int, convs: Iterable[str]) -> Ranking:
    return [pair for conv in convs for pair in runs[(setting, conv)]]


def best_setting(
    runs: dict[tuple[int, str], Ranking], n_settings: int, convs: Sequence[str]
) -> int:
    """The best setting on ``convs`` pooled (the earliest on a tie)."""
    keyed = [(objective(figures(pooled(runs, i, convs))), -i) for i in range(n_settings)]
    return -max(keyed)[1]


def cross_validate(
    runs: dict[tuple[int, str], Ranking],
    labels: list[str],
    current: int,
    convs: list[str],
    datasets: dict[str, str],
) -> dict[str, Any]:
    """Each conversation held out once: the setting chosen on the others, scored on it;
    beside it the in-sample best setting and the current weights, per conversation and per
    dataset (pooled over its questions)."""
    n = len(labels)
    folds = []
    held_out: dict[str, Ranking] = {}
    for conv in convs:
        rest = [c for c in convs if c != conv]
        chosen = best_setting(runs, n, rest)
        held_out[conv] = runs[(chosen, conv)]
        folds.append(
            {
                "held_out": conv,
                "tuned_on": rest,
                "chosen": labels[chosen],
                "chosen_index": chosen,
                "tuned_on_figures": figures(pooled(runs, chosen, rest)),
                "held_out_figures": figures(runs[(chosen, conv)]),
            }
        )
    best = best_setting(runs, n, convs)
    by_setting = {
        "cross_validated": held_out,
        "in_sample": {c: runs[(best, c)] for c in convs},
        "current_weights": {c: runs[(current, c)] for c in convs},
    }
    return {
        "folds": folds,
        "in_sample_setting": labels[best],
        **{name: summary(rankings, datasets) for name, rankings in by_setting.items()},
    }


def summary(rankings: dict[str, Ranking], datasets: dict[str, str]) -> dict[str, Any]:
    """Figures over all conversations, per dataset (pooled) and per conversation."""
    names = sorted(set(datasets.values()))
    return {
        "all": figures([p for r in rankings.values() for p in r]),
        "by_dataset": {
            d: figures([p for c, r in rankings.items() if datasets[c] == d for p in r])
            for d in names
        },
        "by_conversation": {c: figures(r) for c, r in rankings.items()},
    }


# -- the run ----------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="+", help="LoCoMo-layout files")
    parser.add_argument("--uri", help="Neo4j URI (default: NEO4J_URI / cogmem config)")
    parser.add_argument("--user", help="Neo4j user")
    parser.add_argument("--password", help="Neo4j password")
    parser.add_argument(
        "--set",
        dest="axes",
        type=parse_axis,
        action="append",
        default=[],
        metavar="NAME=V1,V2",
        help="a grid axis instead of the default grid (repeatable), e.g. previous=0.5,0.7",
    )
    parser.add_argument("--samples", nargs="*", help="only these sample ids")
    parser.add_argument("--questions", type=int, default=0, help="first N per conversation")
    parser.add_argument(
        "--turn-times",
        choices=["own", "session"],
        default="own",
        help="own: each turn's own timestamp where the file has one (the reader's); "
        "session: every turn at its session's time (as before per-message times)",
    )
    parser.add_argument("--prefix", default="bench-cv5-", help="group name prefix")
    parser.add_argument("--reuse", action="store_true", help="keep an existing ingest")
    parser.add_argument("--keep", action="store_true", help="keep the groups afterwards")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    parser.add_argument("--name", default="cv5", help="results file name")
    parser.add_argument(
        "--search-cache",
        choices=["eager", "off", "auto"],
        default="eager",
        help="eager (default): the process's copy of each group, the same ranking every run",
    )
    args = parser.parse_args(argv)
    if args.questions < 0:
        parser.error("--questions must be 0 (all) or more")
    return args


def session_times(conv: Conversation) -> Conversation:
    """``conv`` with every turn at its session's time (the turns of a session without a
    readable date keep their own)."""
    turns = []
    for turn in conv.turns:
        at = parse_when(turn.session_date_text) if turn.session_date_text else None
        turns.append(turn.model_copy(update={"at": at or turn.at}))
    return conv.model_copy(update={"turns": turns})


def load(args: argparse.Namespace) -> tuple[list[Conv], dict[str, dict[str, int]]]:
    """The conversations of every file with their questions, and the evidence counts per
    file (ids normalised, dropped, questions left without evidence)."""
    wanted = set(args.samples or [])
    out: list[Conv] = []
    evidence: dict[str, dict[str, int]] = {}
    seen: set[str] = set()
    for path in args.paths:
        if not path.is_file():
            raise SystemExit(f"{path}: no such file")
        dataset = path.stem
        convs = read_file(path, "locomo").conversations
        if wanted:
            convs = [c for c in convs if c.id in wanted]
        if args.turn_times == "session":
            convs = [session_times(c) for c in convs]
        stats = EvidenceStats()
        questions = load_questions(path, convs, CATEGORIES, stats)
        evidence[str(path)] = {**stats.model_dump(), "questions": len(questions)}
        for conv in convs:
            if conv.id in seen:
                raise SystemExit(f"{path}: conversation {conv.id!r} appears in two files")
            seen.add(conv.id)
            mine = [q for q in questions if q.conversation == conv.id]
            out.append(Conv(dataset, conv, mine[: args.questions] if args.questions else mine))
    if wanted - seen:
        raise SystemExit(f"no such sample: {', '.join(sorted(wanted - seen))}")
    if len(out) < 2:
        raise SystemExit("cross-validation needs at least two conversations")
    return out, evidence


def ingested(memory: Memory, group: str, conv: Conversation, reuse: bool) -> tuple[Memory, float]:
    """The group holding ``conv`` (its complete ingest kept when ``reuse``) and the seconds
    the ingest took (0 when kept)."""
    mem = memory.for_group(group)
    if reuse and any(c["complete"] for c in mem.inspect.conversations()):
        mem.admin.ensure_schema()
        return mem, 0.0
    mem.forget()
    log(f"ingesting {conv.id}: {len(conv.turns)} turns")
    started = time.perf_counter()
    mem.ingest_conversations([conv], fmt="locomo")
    return mem, time.perf_counter() - started


def run(args: argparse.Namespace, memory: Memory) -> dict[str, Any]:
    """Ingest, search every setting and the baselines, cross-validate; the results data."""
    grid = dict(args.axes) if args.axes else DEFAULT_GRID
    convs, evidence = load(args)
    base = RankWeights.for_embedder(memory.admin.embedder_identity()[0])
    settings, current = with_current(settings_of(grid), base)
    weights = [weights_for(s, base) for s in settings]
    runs = Runs()
    search_seconds: dict[int, float] = dict.fromkeys(range(len(settings)), 0.0)
    latencies: list[float] = []
    parts: dict[str, float] = defaultdict(float)
    ingest: dict[str, dict[str, float]] = {}
    groups = [f"{args.prefix}{args.turn_times}-{c.id}" for c in convs]
    embedder = memory.embedder
    try:
        for conv, group in zip(convs, groups, strict=True):
            mem, seconds = ingested(memory, group, conv.conversation, args.reuse)
            mem.admin.await_indexes(seconds=600)
            turns = len(conv.conversation.turns)
            ingest[conv.id] = {
                "turns": turns,
                "seconds": round(seconds, 1),
                "turns_per_s": round(turns / seconds, 1) if seconds else 0.0,
            }
            for i, w in enumerate(weights):
                log(f"{conv.id}: {len(conv.questions)} questions, {label(settings[i])}")
                controller = mem.inspect.controller(w)
                ranked: Ranking = []
                started = time.perf_counter()
                for q in conv.questions:
                    asked = time.perf_counter()
                    result = controller.run(q.question, k=K)
                    if i == current:
                        latencies.append(time.perf_counter() - asked)
                        for part, took in result.seconds.items():
                            parts[part] += took
                    ranked.append(
                        (q, [e.turn_source_id for e in result.evidence if e.turn_source_id])
                    )
                search_seconds[i] += time.perf_counter() - started
                runs.cogmem[(i, conv.id)] = ranked
            turns_of = conv.conversation.turns
            ids = [t.source_id for t in turns_of]
            dated = [f"{short_date(t.at)} {t.speaker}: {t.full_text}".strip() for t in turns_of]
            flat = DatedFlat(dated, embedder.embed)
            for q in conv.questions:
                qvec = embedder.embed_query(q.question)
                for name, order in flat.rankings(q.question, qvec).items():
                    runs.flat[name].setdefault(conv.id, []).append((q, [ids[j] for j in order[:K]]))
        info = machine_info(memory, embedder=embedder.name, uri=memory.settings.neo4j_uri)
    finally:
        finish_groups(memory, groups, args.keep)

    ids_ = [c.id for c in convs]
    datasets = {c.id: c.dataset for c in convs}
    labels = [label(s) for s in settings]
    table = []
    for i, setting in enumerate(settings):
        table.append(
            {
                "setting": labels[i],
                "weights": setting,
                **summary({c: runs.cogmem[(i, c)] for c in ids_}, datasets),
                "search_seconds": round(search_seconds[i], 1),
            }
        )
    n = max(len(latencies), 1)
    return {
        "date": now_iso(),
        "command": command_line(),
        "machine": info,
        "paths": [str(p) for p in args.paths],
        "turn_times": args.turn_times,
        "k": K,
        "objective": "R@10 pooled over the tuning conversations; multi-hop AllHit@10 breaks ties",
        "conversations": {
            c.id: {"dataset": c.dataset, "questions": len(c.questions)} for c in convs
        },
        "evidence": evidence,
        "grid": {k: list(v) for k, v in grid.items()},
        "current": labels[current],
        "settings": table,
        "cv": cross_validate(runs.cogmem, labels, current, ids_, datasets),
        "baselines": {
            name: summary({c: by_conv[c] for c in ids_}, datasets)
            for name, by_conv in runs.flat.items()
        },
        "ingest": ingest,
        "search": {
            "searches": len(latencies),
            "p50_ms": round(1000 * percentile(latencies, 50), 1) if latencies else None,
            "p95_ms": round(1000 * percentile(latencies, 95), 1) if latencies else None,
            "mean_ms_by_part": {part: round(1000 * s / n, 1) for part, s in parts.items()},
        },
    }


def main(argv: list[str] | None = None, memory: Memory | None = None) -> int:
    args = parse_args(argv)
    owned = memory is None
    if memory is None:
        overrides = {"neo4j_user": args.user, "neo4j_password": args.password}
        memory = Memory.connect(
            args.uri, search_cache=args.search_cache, **{k: v for k, v in overrides.items() if v}
        )
    try:
        data = run(args, memory)
    finally:
        if owned:
            memory.close()
    text = markdown(data)
    written = write_results(args.out, args.name, text, data)
    print(text)
    log(f"wrote {written.markdown} and {written.json}")
    return 0


# -- the report -------------------------------------------------------------------------
def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _cat(f: Figures, category: int) -> str:
    return fmt(f["by_category"].get(str(category), {}).get("r10"))


def markdown(data: dict[str, Any]) -> str:
    cv = data["cv"]
    convs = list(data["conversations"])
    datasets = sorted({c["dataset"] for c in data["conversations"].values()})
    systems = [
        ("cogmem, cross-validated", cv["cross_validated"]),
        (f"cogmem, in-sample ({cv['in_sample_setting']})", cv["in_sample"]),
        ("cogmem, current weights", cv["current_weights"]),
        *((name, s) for name, s in sorted(data["baselines"].items())),
    ]
    cats = sorted(int(c) for c in cv["cross_validated"]["all"]["by_category"])
    head = ["system", "R@10 all", *(f"R@10 {d}" for d in datasets)]
    head += [f"{c} R@10" for c in convs] + ["multi-hop AllHit@10"]
    head += [f"MH AllHit@10 {d}" for d in datasets]
    rows = []
    for name, s in systems:
        row = [name, fmt(s["all"]["r10"])]
        row += [fmt(s["by_dataset"][d]["r10"]) for d in datasets]
        row += [fmt(s["by_conversation"][c]["r10"]) for c in convs]
        row += [fmt(s["all"]["mh_allhit10"])]
        row += [fmt(s["by_dataset"][d]["mh_allhit10"]) for d in datasets]
        rows.append(row)
    cat_rows = []
    for name, s in systems:
        for c in convs:
            f = s["by_conversation"][c]
            cat_rows.append(
                [name, c, *(_cat(f, k) for k in cats), fmt(f["mh_allhit10"]), f["questions"]]
            )
    fold_rows = [
        [
            f["held_out"],
            f["chosen"],
            fmt(f["tuned_on_figures"]["r10"]),
            fmt(f["held_out_figures"]["r10"]),
            fmt(f["held_out_figures"]["mh_allhit10"]),
            fmt(cv["current_weights"]["by_conversation"][f["held_out"]]["r10"]),
        ]
        for f in cv["folds"]
    ]
    grid_rows = [
        [
            r["setting"],
            fmt(r["all"]["r10"]),
            *(fmt(r["by_conversation"][c]["r10"]) for c in convs),
            fmt(r["all"]["mh_allhit10"]),
            r["search_seconds"],
        ]
        for r in data["settings"]
    ]
    evidence_rows = [
        [p, e["questions"], e["normalised"], e["dropped"], e["questions_without_evidence"]]
        for p, e in data["evidence"].items()
    ]
    ingest_rows = [
        [c, v["turns"], v["seconds"], v["turns_per_s"]] for c, v in data["ingest"].items()
    ]
    search = data["search"]
    part_names = list(search["mean_ms_by_part"])
    lines = [
        "# Five dev conversations, leave one out: ranking weights cross-validated",
        "",
        machine_line(data["machine"]),
        "",
        f"`{data['command']}`",
        "",
        f"k = {data['k']}; turn times: {data['turn_times']} "
        "(own: each turn's own timestamp where the file has one). Objective: "
        f"{data['objective']}. Grid: "
        + ", ".join(f"{k} ∈ {{{', '.join(str(v) for v in vs)}}}" for k, vs in data["grid"].items())
        + f"; the current weights are the row {data['current']}.",
        "",
        "**Which figure is which.** *Cross-validated*: each conversation scored with the "
        "setting chosen on the other conversations (never on itself). *In-sample*: the one "
        "setting best on all conversations together. *Current weights*: today's "
        "`RankWeights`, chosen earlier on LoCoMo dev (conv-26, conv-47), so in-sample on "
        "LoCoMo and held out on REALTALK; the grid is centred on them, so the LoCoMo "
        "figures of every cogmem row lean in-sample. Baselines are flat (nothing tuned "
        "here), over turns prefixed with the date each was said. Per-dataset figures pool "
        "the dataset's questions.",
        "",
        markdown_table(head, rows),
        "",
        "## Per conversation and category (R@10; category ids as in the data: "
        + ", ".join(f"{k} {CATEGORY_NAMES[k]}" for k in cats)
        + ")",
        "",
        markdown_table(
            ["system", "conversation", *(f"cat {k}" for k in cats), "MH AllHit@10", "questions"],
            cat_rows,
        ),
        "",
        "## Folds",
        "",
        markdown_table(
            [
                "held out",
                "chosen on the others",
                "R@10 on the others",
                "held-out R@10",
                "held-out MH AllHit@10",
                "current weights, R@10",
            ],
            fold_rows,
        ),
        "",
        "## Every setting (in-sample figures)",
        "",
        markdown_table(
            ["setting", "R@10", *(f"{c} R@10" for c in convs), "MH AllHit@10", "search s"],
            grid_rows,
        ),
        "",
        "## Evidence ids",
        "",
        markdown_table(
            [
                "file",
                "questions scored",
                "ids normalised",
                "ids dropped",
                "questions without evidence",
            ],
            evidence_rows,
        ),
        "",
        "## Time",
        "",
        markdown_table(["conversation", "turns", "ingest s", "turns/s"], ingest_rows),
        "",
        f"Searches with the current weights: {search['searches']}, p50 {search['p50_ms']} ms, "
        f"p95 {search['p95_ms']} ms (busy shared machine; not a latency benchmark). Mean ms "
        "per search by part:",
        "",
        markdown_table(part_names, [[search["mean_ms_by_part"][p] for p in part_names]]),
    ]
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
