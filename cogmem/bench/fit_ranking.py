"""Fit the learned turn ranking (:mod:`cogmem.retrieval.learned`) on the dev conversations,
leave one conversation out, and compare it with today's hand-set weights and with
reciprocal rank fusion of the same features.

Each conversation's group is the one ``benchmarks/cv5.py --keep`` ingested (``--prefix``).
Every question of categories 1-4 is searched once with today's configuration
(:meth:`Controller.scored`): each candidate turn's features, its hand-set final score and
whether it is evidence. Then, for each conversation, a pairwise logistic model is fitted on
the other four's questions and scores this one (cross-validated); one model fitted on all
five gives the in-sample figures and the configuration written for searches to load
(``COGMEM_SEARCH_CONFIG``). ``--check-search`` runs every held-out conversation again
through :meth:`Controller.run` with its fold's configuration, to show that the search path
ranks as the offline evaluation does.

A question's features are read with the hand-set weights choosing the candidates (the
turns grounded and matched late), so every system here reorders the same candidates.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from cogmem.api import Memory
from cogmem.bench.baselines import DatedFlat
from cogmem.bench.common import (
    command_line,
    machine_info,
    machine_line,
    markdown_table,
    now_iso,
    write_results,
)
from cogmem.bench.cv import CATEGORIES, Conv, K, Ranking, fmt, load, log, summary
from cogmem.bench.locomo import CATEGORY_NAMES, Question
from cogmem.ingest.rows import short_date
from cogmem.retrieval.learned import (
    BASE,
    COLUMNS,
    FEATURES,
    GRADED,
    OWN,
    LearnedRanking,
    feature_matrix,
    fit_neighbours,
    fit_pairwise,
    fit_top_weighted,
    rrf,
    top_ids,
)
from cogmem.retrieval.search_config import SearchConfig

L2 = 0.01
"""Ridge on the coefficients (features are z-scores or 0/1 flags, so one value fits all).
Fixed before any figure was read, not chosen by CV: a grid of one."""
RRF_MATCH = GRADED
"""The RRF baseline over the graded match signals only (bm25, turn and record cosines,
graph, late)."""


@dataclass
class Asked:
    """One question's candidates: source ids, features, labels, the hand-set final score."""

    question: Question
    ids: list[str]
    x: np.ndarray
    y: np.ndarray
    hand: np.ndarray
    flat: dict[str, list[str]]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="+", help="LoCoMo-layout files")
    parser.add_argument("--uri", help="Neo4j URI (default: NEO4J_URI / cogmem config)")
    parser.add_argument("--prefix", default="bench-cv5-", help="cv5's group prefix")
    parser.add_argument("--samples", nargs="*", help="only these sample ids")
    parser.add_argument("--questions", type=int, default=0, help="first N per conversation")
    parser.add_argument("--turn-times", choices=["own", "session"], default="own")
    parser.add_argument(
        "--features", type=Path, help="a pickle of the features: read when it exists, else written"
    )
    parser.add_argument("--check-search", action="store_true", help="rerun folds via run()")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    parser.add_argument("--name", default="fit_ranking")
    parser.add_argument(
        "--config-out",
        type=Path,
        default=Path("benchmarks/results/fit_ranking.json"),
        help="stem of the configurations fitted on all conversations: "
        "fit_ranking.<model>.json beside it",
    )
    return parser.parse_args(argv)


def collect(memory: Memory, convs: list[Conv], prefix: str, turn_times: str) -> dict[str, Any]:
    """Every question's candidates and features, per conversation (groups must exist)."""
    out: dict[str, list[Asked]] = {}
    config = SearchConfig.for_embedder(memory.admin.embedder_identity()[0])
    for conv in convs:
        mem = memory.for_group(f"{prefix}{turn_times}-{conv.id}")
        if not any(c["complete"] for c in mem.inspect.conversations()):
            raise SystemExit(f"{conv.id}: no ingested group; run cv5.py --keep first")
        controller = mem.inspect.controller()
        controller.config = config  # today's ranking, whatever COGMEM_SEARCH_CONFIG says
        turns = conv.conversation.turns
        dated = [f"{short_date(t.at)} {t.speaker}: {t.full_text}".strip() for t in turns]
        flat = DatedFlat(dated, memory.embedder.embed)
        source = [t.source_id for t in turns]
        asked: list[Asked] = []
        log(f"{conv.id}: {len(conv.questions)} questions")
        for q in conv.questions:
            plan, scores = controller.scored(q.question, k=K)
            ids, x = feature_matrix(plan, scores, COLUMNS)
            rows = {row["id"]: row["source_id"] for row in controller.ops.turns(ids)}
            keep = [r for r, tid in enumerate(ids) if tid in rows]
            sids = [rows[ids[r]] for r in keep]
            evidence = set(q.evidence)
            qvec = memory.embedder.embed_query(q.question)
            asked.append(
                Asked(
                    question=q,
                    ids=sids,
                    x=x[keep],
                    y=np.asarray([float(s in evidence) for s in sids]),
                    hand=np.asarray([scores[ids[r]].final for r in keep]),
                    flat={
                        name: [source[j] for j in order[:K]]
                        for name, order in flat.rankings(q.question, qvec).items()
                    },
                )
            )
        out[conv.id] = asked
    return out


def ranking(asked: list[Asked], scorer: Callable[[Asked], np.ndarray]) -> Ranking:
    return [(a.question, top_ids(a.ids, scorer(a), K)) for a in asked]


@dataclass(frozen=True)
class Spec:
    """A learned model to fit: its kind and features."""

    name: str
    kind: Literal["linear", "neighbours"]
    features: tuple[str, ...]
    top_weighted: bool = False

    def columns(self) -> list[str]:
        return LearnedRanking(kind=self.kind, features=list(self.features), coef=[]).columns()


MODELS = (
    Spec("linear", "linear", FEATURES),
    Spec("neighbours", "neighbours", (*BASE, *OWN)),
    Spec("linear-top", "linear", FEATURES, top_weighted=True),
)
"""The learned models compared, all reported: ``linear``, twelve features with the
neighbours' best match as two of them; ``neighbours``, today's shape (a base score, shares
of the neighbours' base, the turn's own flags) with fitted numbers; ``linear-top``, the
linear model with its pairs top-weighted for R@10 (:func:`fit_top_weighted`), added after
the first two were read (they lost single-hop answers whose previous turn matched: the
all-pairs loss cares about every candidate, R@10 about the top), so its CV figure has been
looked at once more than theirs."""


def select(a: Asked, columns: Sequence[str]) -> np.ndarray:
    return a.x[:, [COLUMNS.index(c) for c in columns]]


def scorer(model: LearnedRanking) -> Callable[[Asked], np.ndarray]:
    columns = model.columns()

    def score(a: Asked) -> np.ndarray:
        return model.score(select(a, columns))

    return score


def fit(asked: Sequence[Asked], fitted_on: list[str], spec: Spec = MODELS[0]) -> LearnedRanking:
    groups = [(select(a, spec.columns()), a.y) for a in asked]
    previous = following = 0.0
    if spec.kind == "linear":
        coef = fit_top_weighted(groups, l2=L2) if spec.top_weighted else fit_pairwise(groups, l2=L2)
    else:
        coef, previous, following = fit_neighbours(groups, spec.features, l2=L2)
    return LearnedRanking(
        kind=spec.kind,
        features=list(spec.features),
        coef=[round(float(c), 4) for c in coef],
        previous=round(previous, 4),
        following=round(following, 4),
        fitted_on=fitted_on,
        l2=L2,
    )


def cross_validated(
    data: dict[str, list[Asked]], ids: list[str], spec: Spec = MODELS[0]
) -> tuple[dict[str, Ranking], list[dict[str, Any]]]:
    """Each conversation ranked by the model fitted on the others' questions (never its
    own), and each fold's model."""
    folds = []
    cv: dict[str, Ranking] = {}
    for conv in ids:
        rest = [c for c in ids if c != conv]
        model = fit([a for c in rest for a in data[c]], rest, spec)
        cv[conv] = ranking(data[conv], scorer(model))
        folds.append({"held_out": conv, "fitted_on": rest, "model": model.model_dump()})
    return cv, folds


def run(
    args: argparse.Namespace, memory: Memory
) -> tuple[dict[str, Any], dict[str, LearnedRanking]]:
    convs, evidence = load(args)
    ids = [c.id for c in convs]
    datasets = {c.id: c.dataset for c in convs}
    started = time.perf_counter()
    cached = bool(args.features and args.features.exists())
    if args.features and cached:
        data = pickle.loads(args.features.read_bytes())
    else:
        data = collect(memory, convs, args.prefix, args.turn_times)
        if args.features:
            args.features.parent.mkdir(parents=True, exist_ok=True)
            args.features.write_bytes(pickle.dumps(data))
    collect_s = time.perf_counter() - started

    n = len(FEATURES)
    systems: dict[str, dict[str, Ranking]] = {
        "cogmem, current weights": {c: ranking(data[c], lambda a: a.hand) for c in ids},
        "rrf of the same features": {
            c: ranking(data[c], lambda a: rrf(a.x[:, :n], FEATURES)) for c in ids
        },
        "rrf of the graded signals": {
            c: ranking(data[c], lambda a: rrf(a.x[:, :n], RRF_MATCH)) for c in ids
        },
    }
    folds: dict[str, list[dict[str, Any]]] = {}
    finals: dict[str, LearnedRanking] = {}
    for spec in MODELS:
        cv, folds[spec.name] = cross_validated(data, ids, spec)
        finals[spec.name] = fit([a for c in ids for a in data[c]], ids, spec)
        systems[f"learned {spec.name}, cross-validated"] = cv
        systems[f"learned {spec.name}, in-sample"] = {
            c: ranking(data[c], scorer(finals[spec.name])) for c in ids
        }
    for name in sorted(data[ids[0]][0].flat):
        systems[name] = {c: [(a.question, a.flat[name]) for a in data[c]] for c in ids}
    if args.check_search:
        for spec in MODELS:
            systems[f"learned {spec.name}, cross-validated, through Controller.run"] = check_search(
                memory, convs, args, folds[spec.name]
            )
    results = {name: summary(r, datasets) for name, r in systems.items()}
    decisions = {spec.name: decide(results, datasets, spec.name) for spec in MODELS}
    info = machine_info(memory, embedder=memory.embedder.name, uri=memory.settings.neo4j_uri)
    return {
        "date": now_iso(),
        "command": command_line(),
        "machine": info,
        "paths": [str(p) for p in args.paths],
        "k": K,
        "models": {
            spec.name: {
                "kind": spec.kind,
                "features": list(spec.features),
                "top_weighted": spec.top_weighted,
            }
            for spec in MODELS
        },
        "l2": L2,
        "conversations": {
            c.id: {"dataset": c.dataset, "questions": len(c.questions)} for c in convs
        },
        "evidence": evidence,
        "candidates": {
            c: {
                "questions": len(data[c]),
                "mean_candidates": round(statistics.fmean(len(a.ids) for a in data[c]), 1),
                "evidence_in_candidates": round(
                    100
                    * statistics.fmean(
                        float(a.y.sum()) / len(a.question.evidence) for a in data[c]
                    ),
                    1,
                ),
            }
            for c in ids
        },
        "folds": folds,
        "in_sample": {name: m.model_dump() for name, m in finals.items()},
        "systems": results,
        "decision": decisions,
        "collect_seconds": round(collect_s, 1),
        "features_cached": cached,
    }, finals


def check_search(
    memory: Memory, convs: list[Conv], args: argparse.Namespace, folds: list[dict[str, Any]]
) -> dict[str, Ranking]:
    """Each held-out conversation searched through ``Controller.run`` with its fold's
    configuration."""
    out: dict[str, Ranking] = {}
    base = SearchConfig.for_embedder(memory.admin.embedder_identity()[0])
    for conv, fold in zip(convs, folds, strict=True):
        model = LearnedRanking.model_validate(fold["model"])
        mem = memory.for_group(f"{args.prefix}{args.turn_times}-{conv.id}")
        controller = mem.inspect.controller()
        controller.config = base.model_copy(update={"learned": model})
        ranked: Ranking = []
        for q in conv.questions:
            result = controller.run(q.question, k=K)
            ranked.append((q, [e.turn_source_id for e in result.evidence if e.turn_source_id]))
        out[conv.id] = ranked
    return out


def decide(results: dict[str, Any], datasets: dict[str, str], model: str) -> dict[str, Any]:
    """Whether the learned ranking becomes the default: its cross-validated R@10 beats the
    current weights' on each file pooled by more than the standard deviation of the five
    per-conversation differences (the fold-to-fold spread)."""
    cv = results[f"learned {model}, cross-validated"]
    cur = results["cogmem, current weights"]
    diffs = [cv["by_conversation"][c]["r10"] - cur["by_conversation"][c]["r10"] for c in datasets]
    spread = statistics.stdev(diffs) if len(diffs) > 1 else 0.0
    by_file = {
        d: cv["by_dataset"][d]["r10"] - cur["by_dataset"][d]["r10"]
        for d in sorted(set(datasets.values()))
    }
    return {
        "per_conversation_delta": dict(zip(datasets, [round(x, 2) for x in diffs], strict=True)),
        "spread": round(spread, 2),
        "pooled_delta": {d: round(v, 2) for d, v in by_file.items()},
        "default": all(v > spread for v in by_file.values()),
    }


def markdown(data: dict[str, Any]) -> str:
    convs = list(data["conversations"])
    datasets = sorted({c["dataset"] for c in data["conversations"].values()})
    systems = data["systems"]
    head = ["system", "R@10 all", *(f"R@10 {d}" for d in datasets)]
    head += [f"{c} R@10" for c in convs] + ["MH AllHit@10"]
    head += [f"MH AllHit@10 {d}" for d in datasets]
    rows = []
    for name, s in systems.items():
        row = [name, fmt(s["all"]["r10"])]
        row += [fmt(s["by_dataset"][d]["r10"]) for d in datasets]
        row += [fmt(s["by_conversation"][c]["r10"]) for c in convs]
        row += [fmt(s["all"]["mh_allhit10"])]
        row += [fmt(s["by_dataset"][d]["mh_allhit10"]) for d in datasets]
        rows.append(row)
    cats = sorted(CATEGORIES)
    cat_rows = []
    for name, s in systems.items():
        for c in convs:
            f = s["by_conversation"][c]
            cat_rows.append(
                [
                    name,
                    c,
                    *(fmt(f["by_category"].get(str(k), {}).get("r10")) for k in cats),
                    fmt(f["mh_allhit10"]),
                    f["questions"],
                ]
            )
    coef_sections: list[str] = []
    for name, spec in data["models"].items():
        head_c = [*spec["features"]]
        if spec["kind"] == "neighbours":
            head_c += ["previous share", "following share"]

        def cells(m: dict[str, Any], kind: str = spec["kind"]) -> list[str]:
            out = [f"{v:+.2f}" for v in m["coef"]]
            if kind == "neighbours":
                out += [f"{m['previous']:+.2f}", f"{m['following']:+.2f}"]
            return out

        rows_c = [[f["held_out"], *cells(f["model"])] for f in data["folds"][name]]
        rows_c.append(["(in-sample: all five)", *cells(data["in_sample"][name])])
        coef_sections += [
            f"### {name} ({spec['kind']})",
            "",
            markdown_table(["held out", *head_c], rows_c),
            "",
        ]
    cand_rows = [
        [c, v["questions"], v["mean_candidates"], v["evidence_in_candidates"]]
        for c, v in data["candidates"].items()
    ]
    verdicts = []
    for name, d in data["decision"].items():
        verdicts.append(
            f"- **{name}**: pooled R@10 change, learned CV − current weights: "
            + ", ".join(f"{k} {v:+.2f}" for k, v in d["pooled_delta"].items())
            + "; per conversation: "
            + ", ".join(f"{k} {v:+.2f}" for k, v in d["per_conversation_delta"].items())
            + f" (sd {d['spread']:.2f}) → **{'default' if d['default'] else 'opt-in'}**"
        )
    lines = [
        "# A learned turn ranking, leave one conversation out",
        "",
        machine_line(data["machine"]),
        "",
        f"`{data['command']}`",
        "",
        f"k = {data['k']}. Graded signals z-scored over each question's candidates, "
        "flags as 0/1. Pairwise logistic loss (each question weighs the same), ridge "
        f"{data['l2']}, fixed before any figure was read. Models: "
        + "; ".join(
            f"{n} ({m['kind']}: {', '.join(m['features'])})" for n, m in data["models"].items()
        )
        + ".",
        "",
        "**Which figure is which.** *learned, cross-validated*: each conversation ranked by "
        "the model fitted on the other four. *learned, in-sample*: one model fitted on all "
        "five. *current weights*: today's hand-set `RankWeights`, chosen earlier on LoCoMo "
        "dev (in-sample there, held out on REALTALK). *rrf*: reciprocal rank fusion "
        "(k 60) of the same features, nothing fitted. All cogmem rows reorder the same "
        "candidates (gathered with the current weights). The flat baselines are over turns "
        "prefixed with their date.",
        "",
        markdown_table(head, rows),
        "",
        "**Default?** Only if the cross-validated R@10 beats the current weights on both "
        "files pooled by more than the sd of the five per-conversation changes:",
        "",
        *verdicts,
        "",
        "## Per conversation and category (R@10; "
        + ", ".join(f"{k} {CATEGORY_NAMES[k]}" for k in cats)
        + ")",
        "",
        markdown_table(
            ["system", "conversation", *(f"cat {k}" for k in cats), "MH AllHit@10", "questions"],
            cat_rows,
        ),
        "",
        "## Coefficients per fold",
        "",
        *coef_sections,
        "## Candidates",
        "",
        markdown_table(
            ["conversation", "questions", "mean candidates", "evidence among candidates %"],
            cand_rows,
        ),
        "",
        (
            f"Features gathered in {data['collect_seconds']} s (one search per question)."
            if not data.get("features_cached")
            else "Features read from `--features` (written by an earlier run of this command "
            "on the same groups and code)."
        ),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None, memory: Memory | None = None) -> int:
    args = parse_args(argv)
    owned = memory is None
    if memory is None:
        memory = Memory.connect(args.uri, search_cache="eager")
    try:
        data, finals = run(args, memory)
    finally:
        if owned:
            memory.close()
    written = write_results(args.out, args.name, markdown(data), data)
    for name, final in finals.items():
        config = SearchConfig.for_embedder(None).model_copy(
            update={
                "name": f"learned {name} (fitted on " + ", ".join(final.fitted_on) + ")",
                "learned": final,
            }
        )
        config.write(args.config_out.with_name(f"{args.config_out.stem}.{name}.json"))
    print(markdown(data))
    log(f"wrote {written.markdown}, {written.json} and {args.config_out.parent}/*.json")
    return 0
