"""The run: ingest the corpus into a throwaway group, ask every pair's two questions of
every system, tally the outcomes and write the result files."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from cogmem.bench.collapse.generator import Corpus, Pair, capitalise, generate_corpus
from cogmem.bench.collapse.judge import (
    Asked,
    FlatIndex,
    Outcome,
    judge_cogmem,
    judge_flat,
    pair_cosines,
    rates,
)
from cogmem.bench.common import (
    Stopwatch,
    Written,
    bench_group,
    command_line,
    grouped_bars,
    machine_info,
    machine_line,
    markdown_table,
    mean,
    now_iso,
    pct,
    write_results,
)
from cogmem.config import Settings

SYSTEMS: dict[str, str] = {
    "flat-text": "flat dense over utterances (top-1 turn by cosine)",
    "flat-speaker": "flat dense over `Speaker: text` (top-1 turn by cosine)",
    "cogmem": "cogmem `Memory.search(q, k=1)`",
}


@dataclass
class CollapseResult:
    data: dict[str, Any]
    markdown: str
    written: Written | None = None


@dataclass
class _Tally:
    """Outcomes per system, split by what was asked and by the pair's forms."""

    outcomes: dict[str, list[tuple[Pair, Asked, Outcome]]] = field(
        default_factory=lambda: {name: [] for name in SYSTEMS}
    )

    def add(self, system: str, pair: Pair, asked: Asked, outcome: Outcome) -> None:
        self.outcomes[system].append((pair, asked, outcome))

    def select(
        self, system: str, keep: Callable[[Pair, Asked], bool] = lambda _p, _a: True
    ) -> list[Outcome]:
        return [o for p, a, o in self.outcomes[system] if keep(p, a)]


def run_collapse(
    settings: Settings,
    pairs: int = 150,
    seed: int = 0,
    out_dir: Path | None = None,
    store: Any | None = None,
    progress: Callable[[str], None] | None = None,
    argv: Sequence[str] | None = None,
) -> CollapseResult:
    """Generate the probe, ingest it into one throwaway group, ask every question of every
    system, write ``collapse.md/.json/.png`` to ``out_dir`` (unless None)."""
    from cogmem.api import Memory

    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    corpus = generate_corpus(pairs, seed)
    base = Memory(settings, store=store)
    embedder = base.embedder
    watch = Stopwatch()
    cos = watch.time("pair cosines", lambda: pair_cosines(corpus.pairs, embedder, corpus))
    flats = {
        "flat-text": watch.time(
            "flat index", lambda: FlatIndex(corpus.turns(), embedder, speaker=False)
        ),
        "flat-speaker": watch.time(
            "flat index", lambda: FlatIndex(corpus.turns(), embedder, speaker=True)
        ),
    }
    mem = base.for_group(bench_group("collapse"))
    tally = _Tally()
    per_pair: list[dict[str, Any]] = []
    try:
        say(f"ingesting {len(corpus.conversations)} conversations into {mem.group}")
        summary = watch.time(
            "cogmem ingest",
            lambda: mem.ingest_conversations([c.to_conversation() for c in corpus.conversations]),
        )
        say(f"ingested {summary.turns} turns in {summary.seconds:.1f}s; asking questions")
        for i, pair in enumerate(corpus.pairs, 1):
            row: dict[str, Any] = {"pair": pair.id}
            asks: tuple[tuple[Asked, str], ...] = (
                ("record", pair.record_question),
                ("opinion", pair.opinion_question),
            )
            for asked, question in asks:
                qvec = embedder.embed_query(question)
                entry: dict[str, Any] = {"question": question}
                for name, index in flats.items():
                    top = watch.time("flat query", partial(index.top1, question, qvec))
                    outcome = judge_flat(pair, asked, top)
                    tally.add(name, pair, asked, outcome)
                    entry[name] = {"top": top, "outcome": outcome}
                hits = watch.time("cogmem search", partial(mem.search, question, k=1))
                ev = hits[0] if hits else None
                outcome = judge_cogmem(pair, asked, ev)
                tally.add("cogmem", pair, asked, outcome)
                entry["cogmem"] = {
                    "top": None
                    if ev is None
                    else {"turn": ev.turn_source_id, "type": ev.type, "speaker": ev.speaker},
                    "outcome": outcome,
                }
                row[asked] = entry
            per_pair.append(row)
            if i % 25 == 0:
                say(f"[{i}/{len(corpus.pairs)}] pairs asked")
    finally:
        mem.forget()
    data = _summarise(settings, base, corpus, cos, tally, per_pair, watch, started, argv)
    data["groups"] = [mem.group]
    markdown = render_markdown(data)
    written = None
    if out_dir is not None:
        written = write_results(
            out_dir, "collapse", markdown, data, chart=lambda plt, p: _chart(plt, p, data, cos)
        )
    if store is None:
        base.close()
    return CollapseResult(data=data, markdown=markdown, written=written)


def _system_summary(tally: _Tally, name: str) -> dict[str, Any]:
    everything = tally.select(name)
    record = tally.select(name, lambda _p, a: a == "record")
    opinion = tally.select(name, lambda _p, a: a == "opinion")
    return {
        "misattribution": rates(everything)["misattributed"],
        "record_to_opinion": rates(record)["misattributed"],
        "opinion_to_record": rates(opinion)["misattributed"],
        "correct": rates(everything)["correct"],
        "record_correct": rates(record)["correct"],
        "opinion_correct": rates(opinion)["correct"],
        "other": rates(everything)["other"] + rates(everything)["none"],
        "misattributed_questions": sum(1 for o in everything if o == "misattributed"),
        "record_questions_misattributed": sum(1 for o in record if o == "misattributed"),
        "questions": len(everything),
        "record_questions": len(record),
    }


def _summarise(
    settings: Settings,
    base: Any,
    corpus: Corpus,
    cos: dict[str, list[float]],
    tally: _Tally,
    per_pair: list[dict[str, Any]],
    watch: Stopwatch,
    started: float,
    argv: Sequence[str] | None,
) -> dict[str, Any]:
    systems = {name: _system_summary(tally, name) for name in SYSTEMS}
    cog = systems["cogmem"]["misattribution"]
    ratios = {
        name: (systems[name]["misattribution"] / cog if cog > 0 else None)
        for name in SYSTEMS
        if name != "cogmem"
    }
    splits: dict[str, dict[str, Any]] = {}
    for label, keep in (
        (
            "record question: 'What did X do <when>?'",
            lambda p, a: a == "record" and p.record_question_kind == "time",
        ),
        (
            "record question: topic",
            lambda p, a: a == "record" and p.record_question_kind == "topic",
        ),
        (
            "record question, opinion restates the event",
            lambda p, a: a == "record" and p.opinion_form == "event",
        ),
        (
            "record question, opinion names only the thing",
            lambda p, a: a == "record" and p.opinion_form == "thing",
        ),
        (
            "opinion question, positive opinion",
            lambda p, a: a == "opinion" and p.sentiment == "positive",
        ),
        (
            "opinion question, negative opinion",
            lambda p, a: a == "opinion" and p.sentiment == "negative",
        ),
    ):
        selected = {name: tally.select(name, keep) for name in SYSTEMS}
        splits[label] = {"questions": len(selected["cogmem"])} | {
            name: rates(v)["misattributed"] for name, v in selected.items()
        }
    info = machine_info(base, base.embedder.name, settings.neo4j_uri)
    return {
        "benchmark": "collapse",
        "when": now_iso(),
        "command": command_line(argv),
        "machine": info,
        "machine_line": machine_line(info),
        "parameters": {
            "pairs": len(corpus.pairs),
            "seed": corpus.seed,
            "conversations": len(corpus.conversations),
            "turns": len(corpus.turns()),
            "persons": len({s for c in corpus.conversations for s in c.speakers}),
            "topics": len({p.topic for p in corpus.pairs}),
            "extractor": base.extractor.name,
            "llm": settings.llm,
            "embed_threads": settings.embed_threads,
        },
        "cosine": {
            "mean_sentences": mean(cos["sentences"]),
            "mean_turns": mean(cos["turns"]),
            "min_sentences": min(cos["sentences"], default=0.0),
            "max_sentences": max(cos["sentences"], default=0.0),
            "mean_sentences_event_form": mean(
                c
                for c, p in zip(cos["sentences"], corpus.pairs, strict=True)
                if p.opinion_form == "event"
            ),
            "mean_sentences_thing_form": mean(
                c
                for c, p in zip(cos["sentences"], corpus.pairs, strict=True)
                if p.opinion_form == "thing"
            ),
        },
        "systems": SYSTEMS,
        "results": systems,
        "ratio_over_cogmem": ratios,
        "splits": splits,
        "sentiment_split": {
            s: sum(1 for p in corpus.pairs if p.sentiment == s) for s in ("positive", "negative")
        },
        "timing": {**watch.summary(), "total_s": round(time.perf_counter() - started, 1)},
        "examples": [
            {
                "record": f"{p.owner}: {p.record}.",
                "opinion": f"{p.holder}: {capitalise(p.opinion)}.",
                "record_question": p.record_question,
                "opinion_question": p.opinion_question,
            }
            for p in corpus.pairs[:6]
        ],
        "per_pair": per_pair,
    }


def render_markdown(data: dict[str, Any]) -> str:
    p = data["parameters"]
    res = data["results"]
    c = data["cosine"]
    lines = [
        "# Semantic-collapse probe (after CogMem)",
        "",
        f"- command: `{data['command']}`",
        f"- machine: {data['machine_line']}",
        f"- when: {data['when']}; total {data['timing']['total_s']} s",
        f"- {p['pairs']} matched pairs (seed {p['seed']}) over {p['conversations']} two-person "
        f"conversations ({p['turns']} turns, {p['persons']} people, {p['topics']} topics); "
        f"sentiment {data['sentiment_split']}; cogmem extractor `{p['extractor']}`, "
        f"LLM `{p['llm']}`",
        "",
        "## Pair similarity",
        "",
        markdown_table(
            ["embedding of", "mean cosine", "min", "max"],
            [
                [
                    "record sentence vs opinion sentence",
                    f"{c['mean_sentences']:.4f}",
                    f"{c['min_sentences']:.3f}",
                    f"{c['max_sentences']:.3f}",
                ],
                ["… opinion restates the event", f"{c['mean_sentences_event_form']:.4f}", "", ""],
                ["… opinion names only the thing", f"{c['mean_sentences_thing_form']:.4f}", "", ""],
                ["the two turns as indexed (`Speaker: text`)", f"{c['mean_turns']:.4f}", "", ""],
            ],
        ),
        "",
        "## Misattribution (top-1)",
        "",
    ]
    rows = []
    for name, label in data["systems"].items():
        r = res[name]
        ratio = data["ratio_over_cogmem"].get(name)
        rows.append(
            [
                label,
                f"{pct(r['misattribution'])} ({r['misattributed_questions']}/{r['questions']})",
                f"{pct(r['record_to_opinion'])} ({r['record_questions_misattributed']}/"
                f"{r['record_questions']})",
                pct(r["opinion_to_record"]),
                f"{pct(r['record_correct'])} / {pct(r['opinion_correct'])}",
                pct(r["other"]),
                "—" if name == "cogmem" else ("∞" if ratio is None else f"{ratio:.2f}×"),
            ]
        )
    lines.append(
        markdown_table(
            [
                "system",
                "misattribution (all questions)",
                "record asked → opinion returned",
                "opinion asked → record returned",
                "top-1 correct (record / opinion)",
                "other turn",
                "misattribution ÷ cogmem's",
            ],
            rows,
        )
    )
    lines += [
        "",
        "### Misattribution by question and pair form",
        "",
        markdown_table(
            ["subset", "questions", *data["systems"]],
            [
                [label, v["questions"], *[pct(v[name]) for name in data["systems"]]]
                for label, v in data["splits"].items()
            ],
        ),
        "",
        "## Timing",
        "",
        markdown_table(
            ["phase", "calls", "total s", "mean ms", "p50 ms", "p95 ms"],
            [
                [phase, v["calls"], v["total_s"], v["mean_ms"], v["p50_ms"], v["p95_ms"]]
                for phase, v in data["timing"].items()
                if isinstance(v, dict)
            ],
        ),
        "",
        "## Examples",
        "",
    ]
    for ex in data["examples"][:4]:
        lines += [
            f"- record “{ex['record']}” — opinion “{ex['opinion']}”",
            f"  - asked “{ex['record_question']}” and “{ex['opinion_question']}”",
        ]
    lines += [
        "",
        "Scoring: a record question is misattributed when the top-1 is the paired opinion "
        "(for cogmem: evidence from the opinion turn, or a Claim by the opinion's holder); an "
        "opinion question when the top-1 is the paired record. 'Other turn' is any other "
        "result (neither of the pair, or nothing). Every pair's outcome is in "
        "`collapse.json` → `per_pair`.",
    ]
    return "\n".join(lines)


def _chart(plt: Any, path: Path, data: dict[str, Any], cos: dict[str, list[float]]) -> None:
    res = data["results"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    metrics = [
        ("misattribution", "misattributed\n(all)"),
        ("record_to_opinion", "record asked →\nopinion"),
        ("opinion_to_record", "opinion asked →\nrecord"),
        ("correct", "top-1 correct"),
    ]
    grouped_bars(
        ax1,
        [label for _, label in metrics],
        {name: [res[name][m] for m, _ in metrics] for name in data["systems"]},
        ylabel="% of questions",
        title="Semantic collapse: who said what",
    )
    ax2.hist(cos["sentences"], bins=20, alpha=0.7, label="sentences")
    ax2.hist(cos["turns"], bins=20, alpha=0.7, label="turns as indexed")
    ax2.axvline(data["cosine"]["mean_sentences"], color="k", linestyle="--", linewidth=1)
    ax2.set_xlabel("cosine(record, opinion)")
    ax2.set_ylabel("pairs")
    ax2.set_title(f"Pair similarity (mean {data['cosine']['mean_sentences']:.3f})")
    ax2.legend(fontsize=8)
    fig.suptitle(data["machine_line"], fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
