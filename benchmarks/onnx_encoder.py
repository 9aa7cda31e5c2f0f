"""The numpy BERT encoder against the ONNX Runtime one, on all-MiniLM-L6-v2.

Same token ids for every encoder, all in one run (ratios are what to read; the machine
may be shared):

(a) one query of ~12 tokens, ``--repeats`` times, p50/p95 ms, one thread;
(b) throughput on the LoCoMo turn texts (``speaker: text``), sorted by length, batches of
    64: numpy on 1 and 2 BLAS threads and ``MiniLMEmbedder().embed`` (its default: two
    workers on one BLAS thread each; includes the cached tokenisation), ORT on 1 and 2
    intra-op threads and two workers sharing one single-threaded session; ORT graph
    styles (contrib ops written directly, standard ops, standard ops through
    ``onnxruntime.transformers.optimizer``) and dynamic int8 quantisation (speed and
    cosine to the float32 vectors);
(c) process RSS after loading each encoder, each in its own subprocess.

    .venv/bin/python benchmarks/onnx_encoder.py
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cogmem.embed.base import l2_normalise, read_json  # noqa: E402
from cogmem.embed.bert import BertEncoder  # noqa: E402
from cogmem.embed.minilm import MiniLMEmbedder, minilm_model_dir  # noqa: E402
from cogmem.embed.onnx import OnnxBertEncoder, build_bert_onnx  # noqa: E402


def ort_version() -> str:
    import onnxruntime  # type: ignore[import-untyped]

    return str(onnxruntime.__version__)


def _blas_limit(threads: int) -> Any:
    """BLAS threads limited around a block (threadpoolctl, as the embedder does)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=threads, user_api="blas")


DATA = Path("/work/shared/data/locomo-dev.json")
Encoder = Callable[[Sequence[Sequence[int]]], np.ndarray]


def load_texts(path: Path) -> list[str]:
    texts = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        for key in sorted(k for k in conv if k.startswith("session_") and k[8:].isdigit()):
            texts += [f"{turn['speaker']}: {turn['text']}" for turn in conv[key]]
    return texts


def load_model() -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    from safetensors.numpy import load_file

    model_dir = minilm_model_dir()
    return load_file(str(model_dir / "model.safetensors")), read_json(model_dir / "config.json")


def rss_mib() -> tuple[float, float]:
    """(current VmRSS, peak VmHWM) of this process, MiB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def rss_child(kind: str, int8_path: str) -> None:
    """Load one encoder, drop the weights dict, print RSS as JSON (run as a subprocess)."""
    base = rss_mib()[0]
    weights, config = load_model()
    enc: Any
    if kind == "numpy":
        enc = BertEncoder(weights, config)
    elif kind == "onnx":
        enc = OnnxBertEncoder(weights, config)
    else:
        enc = OnnxBertEncoder(weights, config, model=Path(int8_path).read_bytes())
    del weights
    gc.collect()
    loaded = rss_mib()[0]
    with _blas_limit(1):
        enc([[101] + [2000 + i for i in range(62)] + [102]] * 64)
    after, peak = rss_mib()
    print(json.dumps({"base": base, "loaded": loaded, "after_batch": after, "peak": peak}))


def time_query(enc: Encoder, seq: Sequence[int], repeats: int) -> tuple[float, float]:
    for _ in range(10):
        enc([seq])
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        enc([seq])
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def run_batches(enc: Encoder, batches: list[list[list[int]]], workers: int = 1) -> np.ndarray:
    if workers == 1:
        return np.concatenate([enc(b) for b in batches])
    with ThreadPoolExecutor(workers) as pool:  # longest first, as MiniLMEmbedder does
        done = list(pool.map(enc, batches[::-1]))
    return np.concatenate(done[::-1])


def best_of(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--runs", type=int, default=2, help="batch passes per row (best kept)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/onnx_encoder.md")
    ap.add_argument("--rss", choices=["numpy", "onnx", "onnx-int8"], help=argparse.SUPPRESS)
    ap.add_argument("--int8-path", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss:
        return rss_child(args.rss, args.int8_path)

    from onnxruntime.quantization import (  # type: ignore[import-untyped]
        QuantType,
        quantize_dynamic,
    )
    from onnxruntime.transformers.optimizer import (  # type: ignore[import-untyped]
        optimize_model,
    )

    texts = load_texts(DATA)
    embedder = MiniLMEmbedder()
    seqs = [list(embedder.encode_ids(t)) for t in texts]
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
    batches = [[seqs[i] for i in order[j : j + 64]] for j in range(0, len(order), 64)]
    query = next(s for s in seqs if len(s) == 12)
    weights, config = load_model()
    heads, hidden = int(config["num_attention_heads"]), int(config["hidden_size"])
    numpy_enc = BertEncoder(weights, config)
    ort = {t: OnnxBertEncoder(weights, config, threads=t) for t in (1, 2)}
    plain = OnnxBertEncoder(weights, config, contrib=False)
    tx_model = optimize_model(
        build_bert_onnx(weights, config, contrib=False),
        model_type="bert", num_heads=heads, hidden_size=hidden, opt_level=0,
    ).model  # fmt: skip
    tx = OnnxBertEncoder(weights, config, model=tx_model)
    tmp = Path(tempfile.mkdtemp())
    int8_path = tmp / "minilm-int8.onnx"
    int8_tensor_path = tmp / "minilm-int8-per-tensor.onnx"
    for path, per_channel in ((int8_path, True), (int8_tensor_path, False)):
        quantize_dynamic(  # contrib ops defeat shape inference: say the default is float
            build_bert_onnx(weights, config), path, weight_type=QuantType.QInt8,
            per_channel=per_channel, extra_options={"DefaultTensorType": 1},
        )  # fmt: skip
    int8 = OnnxBertEncoder(weights, config, model=int8_path.read_bytes())
    int8_tensor = OnnxBertEncoder(weights, config, model=int8_tensor_path.read_bytes())
    int8_tensor_path.unlink()
    del weights, tx_model
    gc.collect()

    rows_q: list[tuple[str, float, float]] = []
    with _blas_limit(1):
        p50, p95 = time_query(numpy_enc, query, args.repeats)
    rows_q.append(("numpy BertEncoder, 1 BLAS thread", p50, p95))
    for name, enc in [
        ("ORT contrib ops, 1 thread", ort[1]),
        ("ORT standard ops, 1 thread", plain),
        ("ORT transformers-optimised, 1 thread", tx),
        ("ORT int8 dynamic per-channel, 1 thread", int8),
    ]:
        rows_q.append((name, *time_query(enc, query, args.repeats)))

    n_tok = sum(map(len, seqs))
    rows_b: list[tuple[str, float]] = []
    vectors: dict[str, np.ndarray] = {}

    def batch_row(name: str, fn: Callable[[], np.ndarray], blas: int | None = None) -> None:
        if blas is None:
            seconds, out = best_of(fn, args.runs)
        else:
            with _blas_limit(blas):
                seconds, out = best_of(fn, args.runs)
        rows_b.append((name, seconds))
        vectors[name] = l2_normalise(out)
        print(f"{name}: {seconds:.2f} s", flush=True)

    embedder.embed(texts[:8])  # start its worker pool; tokenisation of all texts is cached
    batch_row("numpy, 1 BLAS thread", lambda: run_batches(numpy_enc, batches), blas=1)
    batch_row("numpy, 2 BLAS threads", lambda: run_batches(numpy_enc, batches), blas=2)
    batch_row("MiniLMEmbedder().embed (numpy, 2 workers × 1 BLAS thread)",
              lambda: embedder.embed([texts[i] for i in order]))  # fmt: skip
    batch_row("ORT contrib ops, 1 thread", lambda: run_batches(ort[1], batches))
    batch_row("ORT contrib ops, 2 intra-op threads", lambda: run_batches(ort[2], batches))
    batch_row("ORT contrib ops, 2 workers × 1 thread (one session)",
              lambda: run_batches(ort[1], batches, workers=2))  # fmt: skip
    batch_row("ORT standard ops, 1 thread", lambda: run_batches(plain, batches))
    batch_row("ORT transformers-optimised, 1 thread", lambda: run_batches(tx, batches))
    batch_row("ORT int8 dynamic per-channel, 1 thread", lambda: run_batches(int8, batches))
    batch_row("ORT int8 dynamic per-tensor, 1 thread", lambda: run_batches(int8_tensor, batches))
    batch_row("ORT int8 dynamic per-channel, 2 workers × 1 thread",
              lambda: run_batches(int8, batches, 2))  # fmt: skip

    ref = vectors["ORT contrib ops, 1 thread"]
    cos_np = (ref * vectors["numpy, 1 BLAS thread"]).sum(axis=1)
    cos_i8 = (ref * vectors["ORT int8 dynamic per-channel, 1 thread"]).sum(axis=1)
    cos_i8t = (ref * vectors["ORT int8 dynamic per-tensor, 1 thread"]).sum(axis=1)

    rss: dict[str, dict[str, float]] = {}
    for kind in ("numpy", "onnx", "onnx-int8"):  # onnx-int8: per-channel
        cmd = [sys.executable, __file__, "--rss", kind, "--int8-path", str(int8_path)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rss[kind] = json.loads(proc.stdout.strip().splitlines()[-1])
    int8_path.unlink()

    q0, b0 = rows_q[0][1], rows_b[0][1]
    lines = [
        "# ONNX Runtime vs numpy BERT encoder (all-MiniLM-L6-v2)",
        "",
        "```",
        "$ " + shlex.join([".venv/bin/python", "benchmarks/onnx_encoder.py", *sys.argv[1:]]),
        "```",
        "",
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared: read "
        f"the same-run ratios, not absolute times), Python {platform.python_version()}, "
        f"numpy {np.__version__}, onnxruntime {ort_version()}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}.",
        "",
        f"## (a) One query ({len(query)} tokens), {args.repeats} repeats",
        "",
        "| encoder | p50 ms | p95 ms | p50 speed-up vs numpy |",
        "|---|---:|---:|---:|",
        *(f"| {n} | {p50:.2f} | {p95:.2f} | {q0 / p50:.2f}× |" for n, p50, p95 in rows_q),
        "",
        f"## (b) Throughput: {len(texts)} LoCoMo turns ({n_tok} tokens), sorted by length, "
        f"{len(batches)} batches of ≤64, best of {args.runs}",
        "",
        "| encoder | seconds | texts/s | speed-up vs numpy 1 thread |",
        "|---|---:|---:|---:|",
        *(f"| {n} | {s:.2f} | {len(texts) / s:.0f} | {b0 / s:.2f}× |" for n, s in rows_b),
        "",
        "Cosine of the L2-normalised vectors to ORT float32 (contrib ops) over all texts: "
        f"numpy mean {cos_np.mean():.7f} / min {cos_np.min():.7f}; "
        f"int8 dynamic per-channel mean {cos_i8.mean():.4f} / min {cos_i8.min():.4f}; "
        f"int8 per-tensor (quantize_dynamic's default) mean {cos_i8t.mean():.4f} / min "
        f"{cos_i8t.min():.4f}. int8 = `quantize_dynamic(weight_type=QInt8)` of the contrib-op "
        "graph (MatMul and Attention weights); report only, not a default.",
        "",
        "## (c) Process RSS, MiB (separate subprocesses; weights dict dropped after load)",
        "",
        "| encoder (1 thread) | after imports | after load | after a 64×64 batch | peak (VmHWM) |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| {k} | {v['base']:.0f} | {v['loaded']:.0f} | {v['after_batch']:.0f} "
            f"| {v['peak']:.0f} |"
            for k, v in rss.items()
        ),
        "",
    ]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
