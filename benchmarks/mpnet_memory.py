"""Process memory of the mpnet embedder per ``embed_backend``: each backend in a fresh
Python process, its resident set (VmRSS) and peak (VmHWM) from ``/proc/self/status`` after
loading the model, after one question, and after one batch of 64 texts. With ``auto`` the
question loads the ONNX Runtime session (a second copy of the weights) beside numpy's.

    python benchmarks/mpnet_memory.py --model DIR [--backends numpy,auto]

The ONNX model is built into a temporary cache first, so each child only reads it.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results"
STAGES = ("loaded", "question", "batch")


def status_mib() -> dict[str, int]:
    text = Path("/proc/self/status").read_text()
    found = {k: re.search(rf"{k}:\s+(\d+)", text) for k in ("VmRSS", "VmHWM")}
    return {k: int(m.group(1)) // 1024 for k, m in found.items() if m}


def child(model: Path, backend: str, cache: Path) -> None:
    """Load, ask, embed a batch; print one JSON line of the readings."""
    from cogmem.embed.mpnet import MPNetEmbedder

    out: dict[str, dict[str, int]] = {}
    embedder = MPNetEmbedder(model, backend=backend, cache_dir=cache)
    out["loaded"] = status_mib()
    embedder.embed_query("What did John organize with his friends on May 8, 2022?")
    out["question"] = status_mib()
    embedder.embed(["we took the dogs for a long walk by the lake yesterday"] * 64)
    out["batch"] = status_mib()
    print(json.dumps(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="all-mpnet-base-v2 folder")
    parser.add_argument("--backends", default="numpy,auto")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--name", default="mpnet_memory")
    args = parser.parse_args(argv)
    if args.child:
        child(args.model, args.child, args.cache)
        return 0
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    with tempfile.TemporaryDirectory() as tmp:

        def run(backend: str) -> dict[str, dict[str, int]]:
            done = subprocess.run(
                [sys.executable, __file__, "--model", str(args.model), "--child", backend,
                 "--cache", tmp],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            readings: dict[str, dict[str, int]] = json.loads(done.stdout.strip().splitlines()[-1])
            return readings

        run("onnx")  # fills the cache: every measured child only reads the model
        rows = {backend: run(backend) for backend in backends}
    command = "python benchmarks/mpnet_memory.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(
        json.dumps({"command": command, "mib": rows}, indent=2) + "\n"
    )
    lines = [
        "# mpnet embedder memory per backend (MiB; each backend in a fresh process)",
        "",
        f"`{command}`",
        "",
        "| backend | " + " | ".join(f"RSS / peak after {s}" for s in STAGES) + " |",
        "|---|" + "---|" * len(STAGES),
    ]
    for backend, row in rows.items():
        cells = " | ".join(f"{row[s]['VmRSS']} / {row[s]['VmHWM']}" for s in STAGES)
        lines.append(f"| {backend} | {cells} |")
    (args.out / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
