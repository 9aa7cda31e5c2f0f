"""all-mpnet-base-v2 on ONNX Runtime (float32 and dynamic int8) against the numpy encoder
cogmem runs (:class:`cogmem.embed.mpnet.MPNetEmbedder`): is there a faster mpnet to be had
on a 2-core CPU, and do int8 vectors stay close enough to be worth a recall check?

The ONNX graph is cogmem's (:func:`cogmem.embed.onnx.build_mpnet_onnx`): the com.microsoft
``Attention`` op (fused QKV, right-padding key lengths) with MPNet's relative position bias
as its ``attention_bias`` input, ``SkipLayerNormalization`` and ``BiasGelu``. int8 is
``quantize_dynamic(QInt8, per_channel=True)`` of the MatMul weights, once of all of them and
once leaving out each layer's feed-forward down-projection (whose input is the GELU output;
leaving it float is what brings the cosine back). Quantising the fused ``Attention`` op
too was tried first (by hand, not here): the vectors came out at cosine ~0.47 to the float
ones, so it stays float.

Same token ids for every encoder, in one run (read the ratios; the machine may be shared):
(a) one question, ``--repeats`` runs, p50 ms; (b) ``--turns`` LoCoMo turn texts sorted by
length in batches of 32, seconds and the cosine of each vector to the numpy one.

    .venv/bin/python benchmarks/mpnet_onnx.py ../shared/data/locomo-dev.json --model DIR
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cogmem.embed.mpnet import MAX_TOKENS, MPNetEmbedder, build_onnx_file  # noqa: E402
from cogmem.embed.onnx import OnnxMPNetEncoder  # noqa: E402
from cogmem.ingest import read_file  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
QUESTION = "What did John organize with his friends on May 8, 2022?"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-layout file (turn texts)")
    parser.add_argument("--model", type=Path, required=True, help="all-mpnet-base-v2 folder")
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--name", default="mpnet_onnx")
    return parser.parse_args(argv)


def quantised(float_path: Path, dest: Path, keep_down_float: bool) -> Path:
    """Dynamic int8 of the MatMul weights (per channel); optionally each layer's
    feed-forward down-projection (every third MatMul) left in float."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    matmuls = [n.name for n in onnx.load(str(float_path)).graph.node if n.op_type == "MatMul"]
    exclude = matmuls[2::3] if keep_down_float else []
    quantize_dynamic(
        str(float_path),
        str(dest),
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["MatMul"],
        nodes_to_exclude=exclude,
        extra_options={"DefaultTensorType": 1},
    )
    return dest


def ort_encoder(
    path: Path, config: dict[str, Any], threads: int
) -> Callable[[Sequence[Sequence[int]]], np.ndarray]:
    """Unit vectors from cogmem's ONNX MPNet encoder on the model at ``path``."""
    encoder = OnnxMPNetEncoder(config, path.read_bytes(), threads=threads)

    def encode(seqs: Sequence[Sequence[int]]) -> np.ndarray:
        vectors = encoder(seqs)
        return np.asarray(vectors / np.linalg.norm(vectors, axis=1, keepdims=True), np.float32)

    return encode


def p50_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from tokenizers import Tokenizer

    conversations = read_file(args.path, "locomo").conversations
    texts = [t.text for c in conversations for t in c.turns][: args.turns]
    tokenizer = Tokenizer.from_file(str(args.model / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    seqs = [e.ids for e in tokenizer.encode_batch(texts)]
    question = tokenizer.encode(QUESTION).ids
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
    batches = [order[i : i + 32] for i in range(0, len(order), 32)]

    numpy_embedder = MPNetEmbedder(args.model, backend="numpy")
    start = time.perf_counter()
    reference = numpy_embedder.embed(texts)
    rows: list[dict[str, Any]] = [
        {
            "encoder": "numpy (MPNetEmbedder, backend numpy: 2 workers × 1 BLAS thread)",
            "batch_s": time.perf_counter() - start,
            "query_ms": p50_ms(lambda: numpy_embedder.embed([QUESTION]), args.repeats),
            "cos_mean": 1.0,
            "cos_min": 1.0,
        }
    ]
    with tempfile.TemporaryDirectory() as tmp:
        float_path = Path(tmp) / "mpnet-float.onnx"
        build_onnx_file(args.model, float_path)
        config = json.loads((args.model / "config.json").read_text())
        variants = {
            "ORT float32": float_path,
            "ORT int8, every MatMul": quantised(float_path, Path(tmp) / "int8-all.onnx", False),
            "ORT int8, down-projection in float": quantised(
                float_path, Path(tmp) / "int8-down.onnx", True
            ),
        }
        for label, path in variants.items():
            for threads in (1, 2):
                encode = ort_encoder(path, config, threads)
                vectors = np.zeros_like(reference)
                start = time.perf_counter()
                for batch in batches:
                    vectors[batch] = encode([seqs[i] for i in batch])
                elapsed = time.perf_counter() - start
                cosines = (vectors * reference).sum(axis=1)
                rows.append(
                    {
                        "encoder": f"{label}, {threads} thread{'s' if threads > 1 else ''}",
                        "batch_s": elapsed,
                        "query_ms": p50_ms(lambda enc=encode: enc([question]), args.repeats),
                        "cos_mean": float(cosines.mean()),
                        "cos_min": float(cosines.min()),
                    }
                )
                print(rows[-1], flush=True)
    data = {
        "command": "python benchmarks/mpnet_onnx.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "turns": len(texts),
        "tokens": sum(map(len, seqs)),
        "rows": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(data, indent=2) + "\n")
    base = rows[0]
    lines = [
        "# all-mpnet-base-v2: numpy vs ONNX Runtime float32 and int8",
        "",
        f"`{data['command']}`",
        "",
        f"{data['turns']} LoCoMo turns ({data['tokens']} tokens) in length-sorted batches of "
        "32; one question p50 over the repeats; cosine of each vector to the numpy one.",
        "",
        "| encoder | turns s | vs numpy | question p50 ms | vs numpy | cosine mean | min |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['encoder']} | {r['batch_s']:.2f} | {base['batch_s'] / r['batch_s']:.2f}× | "
            f"{r['query_ms']:.1f} | {base['query_ms'] / r['query_ms']:.2f}× | "
            f"{r['cos_mean']:.4f} | {r['cos_min']:.4f} |"
        )
    (args.out / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
