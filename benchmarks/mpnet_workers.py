"""all-mpnet-base-v2 in numpy: batches one after another (BLAS's own threads) against
batches side by side (``MPNetEmbedder(workers=2)``, one BLAS thread each), in one run.

(a) texts a second over the first ``--texts`` turn texts (``speaker: text``) of the file's
    first conversation, ``--repeats`` rounds, the two alternating;
(b) ingest turns a second of its first ``--turns`` turns into a throwaway group of the
    Neo4j at ``--uri`` (which must hold mpnet vectors or nothing), the two alternating.

Ratios are what to read: the machine may be shared.

    python benchmarks/mpnet_workers.py ../shared/data/locomo-dev.json \\
        --model DIR --uri bolt://127.0.0.1:7803
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cogmem.api import Memory  # noqa: E402
from cogmem.config import load_settings  # noqa: E402
from cogmem.embed.mpnet import MPNetEmbedder  # noqa: E402
from cogmem.ingest import read_file  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
MODES = {"one after another": 1, "side by side": 2}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-layout file")
    parser.add_argument("--model", type=Path, required=True, help="the all-mpnet-base-v2 folder")
    parser.add_argument("--uri", required=True, help="Bolt URI of the Neo4j for (b)")
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--name", default="mpnet_workers")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    conv = read_file(args.path, "locomo").conversations[0]
    texts = [f"{t.speaker}: {t.text}" for t in conv.turns][: args.texts]
    short = conv.model_copy(update={"turns": conv.turns[: args.turns]})
    embedders = {mode: MPNetEmbedder(args.model, workers=w) for mode, w in MODES.items()}
    embedders["side by side"].embed(texts[:8])  # load the model once, untimed
    encode: dict[str, list[float]] = {mode: [] for mode in MODES}
    ingest: dict[str, list[float]] = {mode: [] for mode in MODES}
    for _ in range(args.repeats):
        for mode, embedder in embedders.items():
            started = time.perf_counter()
            embedder.embed(texts)
            encode[mode].append(len(texts) / (time.perf_counter() - started))
    for rep in range(args.repeats):
        for mode, embedder in embedders.items():
            settings = load_settings(
                {"neo4j_uri": args.uri, "group": f"bench-mpnet-workers-{rep}", "embedder": "mpnet"}
            )
            mem = Memory(settings, embedder=embedder)
            mem.forget()
            started = time.perf_counter()
            mem.ingest_conversations([short], fmt="locomo")
            ingest[mode].append(len(short.turns) / (time.perf_counter() - started))
            mem.forget()
            mem.close()
    report: dict[str, Any] = {
        "command": " ".join(["python benchmarks/mpnet_workers.py", *(argv or sys.argv[1:])]),
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "texts": len(texts),
        "turns": len(short.turns),
        "texts_per_s": encode,
        "ingest_turns_per_s": ingest,
    }
    lines = [
        "# all-mpnet-base-v2: batches one after another vs side by side",
        "",
        f"`{report['command']}`",
        "",
        f"{report['machine']}; each round runs both, alternating (read the ratios).",
        "",
        "| measure | one after another | side by side | ratio per round |",
        "|---|---|---|---|",
    ]
    for label, values in (
        (f"encode {len(texts)} turn texts, texts/s", encode),
        (f"ingest {len(short.turns)} turns, turns/s", ingest),
    ):
        one, two = values["one after another"], values["side by side"]
        ratios = ", ".join(f"{b / a:.2f}×" for a, b in zip(one, two, strict=True))
        lines.append(
            f"| {label} | {', '.join(f'{v:.1f}' for v in one)} | "
            f"{', '.join(f'{v:.1f}' for v in two)} | {ratios} |"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
