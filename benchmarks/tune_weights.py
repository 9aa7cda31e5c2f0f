"""Grid search for the turn-ranking weights (``cogmem.retrieval.scoring.RankWeights``) on
LoCoMo-format conversations: evidence R@10 and multi-hop AllHit@10 for each setting of a
small grid, in-sample and, with ``--cv``, tuned on one conversation and scored on another.

Each conversation is ingested once into its own group (``PREFIX + sample_id``; ``--reuse``
keeps an ingest that is already there), then every question of categories 1-4 is searched
once per setting through ``Memory.inspect.controller(weights)``. A grid axis is a ``RankWeights``
field (``previous``; an intent that overrides it keeps its own value) or a per-intent
override (``multi-hop.speaker``); the current weights are one point of every preset grid
(and are added as a row when a ``--set`` grid misses them). Results go to ``NAME.md`` and
``NAME.json``.

    python benchmarks/tune_weights.py ../shared/data/locomo-dev.json --cv
    python benchmarks/tune_weights.py ../shared/data/locomo-dev.json --samples conv-26 \\
        --grid tiny --questions 20 --out /tmp/tune

With ``--cv`` (at least two conversations) each conversation is held out in turn: the
setting that scores best on the others is chosen and scored on it. The in-sample figure
(best setting on all questions) and the cross-validated one (every question scored with
weights chosen without its conversation) are shown side by side; the gap between them is
what tuning overfits. The groups are deleted afterwards unless ``--keep``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from cogmem.api import Memory
from cogmem.bench.common import (
    command_line,
    finish_groups,
    machine_info,
    machine_line,
    markdown_table,
    now_iso,
    write_results,
)
from cogmem.bench.grid import (
    Setting,
    Value,
    label,
    parse_axis,
    settings_of,
    weights_for,
    with_current,
)
from cogmem.bench.locomo import EvidenceStats, Question, Scores, load_questions, score
from cogmem.ingest import read_file
from cogmem.models import Conversation
from cogmem.retrieval import RankWeights

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_DATA = Path("../shared/data/locomo-dev.json")
K = 10
"""The cut-off that both figures are read at."""
CATEGORIES = {1, 2, 3, 4}
"""LoCoMo's answerable categories (5, adversarial, has no evidence to find)."""
MULTI_HOP = 1

Ranking = list[tuple[Question, list[str]]]

GRIDS: dict[str, dict[str, tuple[Value, ...]]] = {
    # two settings: enough to check that the script runs end to end
    "tiny": {"previous": (0.7, 0.5)},
    # how much a turn inherits from the one before it (its question), and how much the
    # multi-hop override leans on the asked person's own turns: the two signals that
    # move multi-hop AllHit@10 most; 4 settings
    "small": {"previous": (0.7, 0.5), "multi-hop.speaker": (1.0, 0.3)},
    # the vector signals against BM25; 9 settings
    "vectors": {"turn_vector": (0.8, 0.6, 1.0), "record_vector": (0.5, 0.3, 0.7)},
}


# -- figures ----------------------------------------------------------------------------
def figures(rankings: Ranking) -> dict[str, float | None]:
    """R@10 over all questions and AllHit@10 over the multi-hop ones (None without any)."""
    if not rankings:
        return {"r10": None, "mh_allhit10": None, "questions": 0}
    s: Scores = score(rankings)
    mh = s.all_hit.get(MULTI_HOP, {}).get(K)
    return {"r10": s.recall[0][K], "mh_allhit10": mh, "questions": s.questions[0]}


OBJECTIVES: dict[str, Callable[[dict[str, float | None]], tuple[float, float]]] = {
    "r10": lambda f: (f["r10"] or 0.0, f["mh_allhit10"] or 0.0),
    "mh-allhit": lambda f: (f["mh_allhit10"] or 0.0, f["r10"] or 0.0),
}
"""What "best" means, with the other figure as the tie-break."""


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def pooled(runs: dict[tuple[int, str], Ranking], setting: int, convs: Iterable[str]) -> Ranking:
    return [pair for conv in convs for pair in runs[(setting, conv)]]


def best_setting(
    runs: dict[tuple[int, str], Ranking],
    n_settings: int,
    convs: Sequence[str],
    objective: Callable[[dict[str, float | None]], tuple[float, float]],
) -> int:
    """The best setting on ``convs`` (the earliest on a tie)."""
    keyed = [(objective(figures(pooled(runs, i, convs))), -i) for i in range(n_settings)]
    return -max(keyed)[1]


# -- the run ----------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("path", type=Path, nargs="?", default=DEFAULT_DATA)
    parser.add_argument("--uri", help="Neo4j URI (default: NEO4J_URI / cogmem config)")
    parser.add_argument("--user", help="Neo4j user")
    parser.add_argument("--password", help="Neo4j password")
    parser.add_argument("--grid", choices=sorted(GRIDS), default="small")
    parser.add_argument(
        "--set",
        dest="axes",
        type=parse_axis,
        action="append",
        default=[],
        metavar="NAME=V1,V2",
        help="a grid axis instead of the preset (repeatable), e.g. previous=0.5,0.7",
    )
    parser.add_argument("--objective", choices=sorted(OBJECTIVES), default="r10")
    parser.add_argument("--cv", action="store_true", help="leave one conversation out")
    parser.add_argument("--samples", nargs="*", help="only these sample ids")
    parser.add_argument("--questions", type=int, default=0, help="first N per conversation")
    parser.add_argument("--prefix", default="tune-weights-", help="group name prefix")
    parser.add_argument("--reuse", action="store_true", help="keep an existing ingest")
    parser.add_argument("--keep", action="store_true", help="keep the groups afterwards")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument("--name", default="tune_weights", help="results file name")
    parser.add_argument(
        "--search-cache",
        choices=["eager", "off", "auto"],
        default="eager",
        help="where searches read the group: eager (default), the process's copy, the same "
        "ranking every run; off, Neo4j's indexes alone (Lucene's BM25 statistics are the "
        "whole index's, so other groups in the database move it a little); auto mixes the "
        "two as the copy is read in the background, and so differs from run to run",
    )
    return parser.parse_args(argv)


def search_all(
    mem: Memory, weights: RankWeights, questions: list[Question]
) -> tuple[Ranking, float]:
    controller = mem.inspect.controller(weights)
    out: Ranking = []
    started = time.perf_counter()
    for q in questions:
        evidence = controller.run(q.question, k=K).evidence
        out.append((q, [e.turn_source_id for e in evidence if e.turn_source_id]))
    return out, time.perf_counter() - started


def ingested(memory: Memory, group: str, conv: Conversation, reuse: bool) -> Memory:
    """The group holding ``conv``: its complete ingest kept when ``reuse``, else made anew."""
    mem = memory.for_group(group)
    if reuse and any(c["complete"] for c in mem.inspect.conversations()):
        mem.admin.ensure_schema()
    else:
        mem.forget()
        log(f"ingesting {conv.id}: {len(conv.turns)} turns")
        mem.ingest_conversations([conv], fmt="locomo")
    return mem


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    grid = dict(args.axes) if args.axes else GRIDS[args.grid]
    conversations = read_file(args.path, "locomo").conversations
    if args.samples:
        conversations = [c for c in conversations if c.id in set(args.samples)]
    if not conversations:
        raise SystemExit("no conversation to tune on")
    if args.cv and len(conversations) < 2:
        raise SystemExit("--cv needs at least two conversations")
    stats = EvidenceStats()
    questions = load_questions(args.path, conversations, CATEGORIES, stats)
    by_conv = {c.id: [q for q in questions if q.conversation == c.id] for c in conversations}
    if args.questions:
        by_conv = {cid: qs[: args.questions] for cid, qs in by_conv.items()}
    convs = list(by_conv)

    overrides = {"neo4j_user": args.user, "neo4j_password": args.password}
    memory = Memory.connect(
        args.uri,
        search_cache=args.search_cache,
        **{k: v for k, v in overrides.items() if v},
    )
    # the weights a search with this embedder uses (raw cosines for MiniLM, pooled else)
    base = RankWeights.for_embedder(memory.admin.embedder_identity()[0])
    settings, current = with_current(settings_of(grid), base)
    weights = [weights_for(s, base) for s in settings]
    runs: dict[tuple[int, str], Ranking] = {}
    seconds: dict[int, float] = dict.fromkeys(range(len(settings)), 0.0)
    try:
        for conv in conversations:
            mem = ingested(memory, f"{args.prefix}{conv.id}", conv, args.reuse)
            for i, w in enumerate(weights):
                log(f"{conv.id}: {len(by_conv[conv.id])} questions, {label(settings[i])}")
                runs[(i, conv.id)], took = search_all(mem, w, by_conv[conv.id])
                seconds[i] += took
        info = machine_info(memory, embedder=memory.embedder.name, uri=memory.settings.neo4j_uri)
    finally:
        finish_groups(memory, [f"{args.prefix}{c.id}" for c in conversations], args.keep)

    objective = OBJECTIVES[args.objective]
    table = []
    for i, setting in enumerate(settings):
        row: dict[str, Any] = {"setting": label(setting), "weights": setting}
        row["all"] = figures(pooled(runs, i, convs))
        row["by_conversation"] = {c: figures(runs[(i, c)]) for c in convs}
        row["seconds"] = round(seconds[i], 1)
        table.append(row)
    best = best_setting(runs, len(settings), convs, objective)
    data: dict[str, Any] = {
        "date": now_iso(),
        "command": command_line(),
        "machine": info,
        "path": str(args.path),
        "objective": args.objective,
        "k": K,
        "evidence": stats.model_dump(),
        "grid": {k: list(v) for k, v in grid.items()},
        "settings": table,
        "current": label(settings[current]),
        "in_sample_best": label(settings[best]),
    }
    if args.cv:
        data["cv"] = cross_validate(runs, settings, current, convs, objective)
    text = markdown(data, convs)
    written = write_results(args.out, args.name, text, data)
    print(text)
    log(f"wrote {written.markdown} and {written.json}")
    return 0


def cross_validate(
    runs: dict[tuple[int, str], Ranking],
    settings: list[Setting],
    current: int,
    convs: list[str],
    objective: Callable[[dict[str, float | None]], tuple[float, float]],
) -> dict[str, Any]:
    """Each conversation held out once: chosen on the others, scored on it."""
    folds = []
    held_out: Ranking = []
    for conv in convs:
        rest = [c for c in convs if c != conv]
        chosen = best_setting(runs, len(settings), rest, objective)
        held_out += runs[(chosen, conv)]
        folds.append(
            {
                "tuned_on": rest,
                "held_out": conv,
                "chosen": label(settings[chosen]),
                "in_sample": figures(pooled(runs, chosen, rest)),
                "held_out_figures": figures(runs[(chosen, conv)]),
                "current_weights_held_out": figures(runs[(current, conv)]),
            }
        )
    best = best_setting(runs, len(settings), convs, objective)
    return {
        "folds": folds,
        "in_sample": figures(pooled(runs, best, convs)),
        "cross_validated": figures(held_out),
        "current_weights": figures(pooled(runs, current, convs)),
    }


def markdown(data: dict[str, Any], convs: list[str]) -> str:
    head = ["setting", "R@10", "multi-hop AllHit@10"]
    head += [f"{c} R@10" for c in convs] + [f"{c} MH AllHit@10" for c in convs] + ["search s"]
    rows = []
    for row in data["settings"]:
        cells = [row["setting"], fmt(row["all"]["r10"]), fmt(row["all"]["mh_allhit10"])]
        cells += [fmt(row["by_conversation"][c]["r10"]) for c in convs]
        cells += [fmt(row["by_conversation"][c]["mh_allhit10"]) for c in convs]
        rows.append([*cells, row["seconds"]])
    lines = [
        "# Ranking weights: grid search",
        "",
        machine_line(data["machine"]),
        "",
        f"`{data['command']}`",
        "",
        f"Objective: {data['objective']} (the other figure breaks ties); k = {data['k']}; "
        f"the current `RankWeights` are the row {data['current']}.",
        "",
        markdown_table(head, rows),
        "",
        f"Best in-sample: {data['in_sample_best']}.",
    ]
    cv = data.get("cv")
    if cv:
        fold_rows = [
            [
                ", ".join(f["tuned_on"]),
                f["chosen"],
                fmt(f["in_sample"]["r10"]),
                fmt(f["in_sample"]["mh_allhit10"]),
                f["held_out"],
                fmt(f["held_out_figures"]["r10"]),
                fmt(f["held_out_figures"]["mh_allhit10"]),
                fmt(f["current_weights_held_out"]["r10"]),
            ]
            for f in cv["folds"]
        ]
        lines += [
            "",
            "## Tuned on one conversation, scored on the other",
            "",
            markdown_table(
                [
                    "tuned on",
                    "chosen",
                    "in-sample R@10",
                    "in-sample MH AllHit@10",
                    "held out",
                    "held-out R@10",
                    "held-out MH AllHit@10",
                    "current weights, held-out R@10",
                ],
                fold_rows,
            ),
            "",
            markdown_table(
                ["all questions", "in-sample (best setting)", "cross-validated", "current weights"],
                [
                    [
                        name,
                        fmt(cv["in_sample"][key]),
                        fmt(cv["cross_validated"][key]),
                        fmt(cv["current_weights"][key]),
                    ]
                    for name, key in (("R@10", "r10"), ("multi-hop AllHit@10", "mh_allhit10"))
                ],
            ),
        ]
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
