"""Load test: searches per second at 1, 4 and 16 concurrent clients, and the error count.

One LoCoMo conversation is ingested once into a group of its own (``load-…``), then, for
each client count N, N threads — each a :class:`~cogmem.api.Memory` for that group, all
sharing one driver pool and one embedder, as the workers of one service would — run
``Memory.search`` (the whole retrieval: route, anchor, traverse, ground, rank) on the
conversation's own QA questions, round robin, for ``--seconds``. Every exception counts
as an error. The group is deleted at the end unless ``--keep``.

With ``--http`` the same levels run a second time through the HTTP API: a ``cogmem serve``
process (one driver, one embedder, a pool of ``--workers`` threads) started on a free
loopback port with a read-only token for the group, each client a thread with its own
HTTP connection posting ``/v1/groups/{group}/search``. Both modes are measured in the same
run, so their ratio is the cost of the service layer (HTTP, JSON, auth) on this machine.

Bounded on purpose: loopback servers only (it refuses any other host), at most 64 clients
and 300 seconds per level. Results go to ``benchmarks/results/load_test.md`` and ``.json``
with the machine and the command line.

    python benchmarks/load_test.py --uri bolt://127.0.0.1:17687 --clients 1,4,16 --seconds 20
    python benchmarks/load_test.py --uri bolt://127.0.0.1:17687 --http --seconds 15
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from cogmem.api import Memory
from cogmem.config import load_settings

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
MAX_CLIENTS = 64
MAX_SECONDS = 300.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uri", required=True, help="Bolt URI of a loopback Neo4j")
    parser.add_argument("--user", help="Neo4j user")
    parser.add_argument("--password", help="Neo4j password")
    parser.add_argument(
        "--clients", default="1,4,16", help="comma-separated client counts (default 1,4,16)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds per level")
    parser.add_argument("--group", help="group to use (default load-<random>)")
    parser.add_argument("--data", type=Path, default=DATA, help="a LoCoMo JSON file")
    parser.add_argument("--sample", type=int, default=0, help="which conversation of the file")
    parser.add_argument("--k", type=int, default=10, help="evidence per search")
    parser.add_argument("--keep", action="store_true", help="keep the group afterwards")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument("--name", default="load_test", help="results file name (no suffix)")
    parser.add_argument(
        "--http", action="store_true", help="also measure through the HTTP API (cogmem serve)"
    )
    parser.add_argument("--workers", type=int, default=8, help="the HTTP server's worker pool")
    args = parser.parse_args(argv)
    host = urlparse(args.uri).hostname or ""
    if host not in LOOPBACK:
        parser.error(
            f"--uri must be a loopback server ({', '.join(sorted(LOOPBACK))}), not {host!r}"
        )
    try:
        args.levels = [int(c) for c in args.clients.split(",") if c.strip()]
    except ValueError:
        parser.error(f"--clients must be integers separated by commas, not {args.clients!r}")
    if not args.levels or any(not 1 <= n <= MAX_CLIENTS for n in args.levels):
        parser.error(f"--clients must each be between 1 and {MAX_CLIENTS}")
    if not 1 <= args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds must be between 1 and {MAX_SECONDS:.0f}")
    args.group = args.group or f"load-{uuid.uuid4().hex[:8]}"
    if not args.group.startswith("load-"):
        parser.error("--group must start with 'load-' (the group is deleted at the end)")
    return args


def machine(mem: Memory) -> dict[str, Any]:
    try:
        row = mem.admin.server_version()
        neo4j = f"{row['name']} {row['version']} {row['edition']}"
    except Exception:  # the description line must not fail the benchmark
        neo4j = "unknown"
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        ram = f"{os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        ram = "unknown"
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "ram": ram,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "neo4j": neo4j,
        "neo4j_uri": mem.settings.neo4j_uri,
        "embedder": mem.settings.embedder,
        "llm": mem.settings.llm,
        "loadavg_before": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def ingest_once(mem: Memory, data: Path, sample: int) -> dict[str, Any]:
    """Ingest one conversation unless the group already holds it completely."""
    done = mem.inspect.conversations()
    if done and all(c["complete"] for c in done):
        return {
            "reused": True,
            "seconds": 0.0,
            "turns": mem.inspect.counts()["labels"].get("Turn", 0),
        }
    samples = json.loads(data.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "conversation.json"
        path.write_text(json.dumps([samples[sample]]), encoding="utf-8")
        summary = mem.ingest(path)
    return {"reused": False, "seconds": round(summary.seconds, 1), "turns": summary.turns}


def questions(data: Path, sample: int) -> list[str]:
    samples = json.loads(data.read_text(encoding="utf-8"))
    found = [q["question"] for q in samples[sample].get("qa", []) if q.get("question")]
    return found or ["What did they talk about?"]


Search = Callable[[str], None]


def run_level(
    make_client: Callable[[], Search], qs: list[str], clients: int, seconds: float
) -> dict[str, Any]:
    """``clients`` threads, each with its own search function, for ``seconds``."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[list[str]] = [[] for _ in range(clients)]
    start = threading.Barrier(clients + 1)
    stop = threading.Event()

    def client(i: int) -> None:
        search = make_client()
        n = i * 7
        start.wait()
        while not stop.is_set():
            question = qs[n % len(qs)]
            n += 1
            t0 = time.perf_counter()
            try:
                search(question)
            except Exception as exc:  # every failure counts, none stops the client
                errors[i].append(f"{type(exc).__name__}: {exc}"[:300])
                continue
            latencies[i].append(time.perf_counter() - t0)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(timeout=120)
    elapsed = time.perf_counter() - t0  # includes the searches that were still running
    done = sorted(x for per in latencies for x in per)
    failed = [e for per in errors for e in per]
    stuck = sum(t.is_alive() for t in threads)

    def pct(p: float) -> float | None:
        return round(done[min(len(done) - 1, int(p * len(done)))] * 1000, 1) if done else None

    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "searches": len(done),
        "searches_per_s": round(len(done) / elapsed, 2),
        "errors": len(failed) + stuck,
        "error_samples": sorted(set(failed))[:5],
        "latency_ms": {
            "mean": round(statistics.fmean(done) * 1000, 1) if done else None,
            "p50": pct(0.50),
            "p95": pct(0.95),
            "max": round(done[-1] * 1000, 1) if done else None,
        },
    }


def in_process(base: Memory, k: int) -> Callable[[], Search]:
    def make() -> Search:
        mem = base.for_group(base.group)  # its own Memory; the driver pool is shared

        def search(question: str) -> None:
            mem.search(question, k=k)

        return search

    return make


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(args: argparse.Namespace, mem: Memory) -> Iterator[tuple[str, str]]:
    """A `cogmem serve` process on a free loopback port and a read-only token for the
    group: yields (base URL, token); stops the server and revokes the token afterwards."""
    tokens = mem.admin.tokens()
    created = tokens.create(args.group, read_only=True, name="load-test")
    port = free_port()
    env = {**os.environ, "NEO4J_URI": args.uri}
    if args.user:
        env["NEO4J_USER"] = args.user
    if args.password:
        env["NEO4J_PASSWORD"] = args.password
    command = [sys.executable, "-m", "cogmem", "serve", "--port", str(port)]
    command += ["--workers", str(args.workers)]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"cogmem serve exited with {proc.returncode}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("cogmem serve did not listen within 120 s")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}", created.secret
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        tokens.revoke(created.grant.token_id or "")


def over_http(base_url: str, token: str, group: str, k: int) -> Callable[[], Search]:
    import httpx

    def make() -> Search:
        client = httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=120
        )

        def search(question: str) -> None:
            r = client.post(f"/v1/groups/{group}/search", json={"query": question, "k": k})
            if r.status_code != 200:
                raise RuntimeError(f"HTTP {r.status_code}: {r.text[:200]}")

        return search

    return make


def run_levels(
    mode: str, make: Callable[[], Search], qs: list[str], args: argparse.Namespace
) -> list[dict[str, Any]]:
    warm = make()
    # warm up with one pass over the questions: the embedder, the group's vectors read into
    # the process, the plan caches, the page cache and the server's JIT (a service that has
    # been running a while; its cold start is measured by the ingest benchmark)
    for q in qs:
        warm(q)
    levels = []
    for clients in args.levels:
        level = {"mode": mode, **run_level(make, qs, clients, args.seconds)}
        print(
            f"{mode:>10} {clients:>3} clients: {level['searches_per_s']:7.2f} searches/s, "
            f"{level['errors']} errors, p95 {level['latency_ms']['p95']} ms",
            file=sys.stderr,
        )
        levels.append(level)
    return levels


def http_ratios(levels: list[dict[str, Any]]) -> list[str]:
    by = {(lv.get("mode", "in-process"), lv["clients"]): lv for lv in levels}
    out = []
    for (mode, clients), lv in sorted(by.items(), key=lambda x: x[0][1]):
        base = by.get(("in-process", clients))
        if mode != "HTTP" or base is None or not base["searches_per_s"]:
            continue
        rate = lv["searches_per_s"] / base["searches_per_s"]
        p95, p95_base = lv["latency_ms"]["p95"], base["latency_ms"]["p95"]
        tail = f", p95 ×{p95 / p95_base:.2f}" if p95 and p95_base else ""
        out.append(f"{clients} clients: searches/s ×{rate:.2f}{tail}")
    return out


def report(result: dict[str, Any], out: Path, name: str) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    m = result["machine"]
    lines = [
        "# Load test: concurrent searches",
        "",
        f"Machine: {m['cpus']} CPUs ({m['cpu']}), {m['ram']} RAM, Python {m['python']}, "
        f"{m['neo4j']} at {m['neo4j_uri']} on the same machine, {m['platform']}; embedder "
        f"{m['embedder']}, LLM {m['llm']}; load average before the run "
        f"{', '.join(f'{x:.2f}' for x in m['loadavg_before'] or [])}.",
        "",
        f"Command: `{result['command']}`",
        "",
        f"Run at {result['started_at']}. Group `{result['group']}`: conversation "
        f"{result['conversation']} ({result['ingest']['turns']} turns, ingested "
        + (
            "before, reused"
            if result["ingest"]["reused"]
            else f"in {result['ingest']['seconds']} s"
        )
        + f"), {result['questions']} of its QA questions asked round robin, "
        f"`Memory.search(question, k={result['k']})` per request. In process: clients are "
        "threads sharing one driver pool and one embedder. HTTP: clients are threads, each "
        "with its own connection, posting `/v1/groups/{group}/search` with a read-only token "
        f"to one `cogmem serve` process ({result.get('workers', '-')} workers) on loopback.",
        "",
        "| mode | clients | seconds | searches | searches/s | errors "
        "| mean ms | p50 ms | p95 ms | max ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for lv in result["levels"]:
        lat = lv["latency_ms"]
        lines.append(
            f"| {lv.get('mode', 'in-process')} | {lv['clients']} | {lv['seconds']} "
            f"| {lv['searches']} | {lv['searches_per_s']} "
            f"| {lv['errors']} | {lat['mean']} | {lat['p50']} | {lat['p95']} | {lat['max']} |"
        )
    ratios = http_ratios(result["levels"])
    if ratios:
        lines += ["", "HTTP / in-process, same run: " + "; ".join(ratios) + "."]
    samples = [s for lv in result["levels"] for s in lv["error_samples"]]
    lines += ["", "Errors: " + ("; ".join(samples) if samples else "none") + "."]
    lines += [
        "",
        "Both the server and the clients run on this machine, so they compete for its cores: "
        "beyond the core count, more clients add latency, not throughput.",
        "",
    ]
    md, js = out / f"{name}.md", out / f"{name}.json"
    md.write_text("\n".join(lines), encoding="utf-8")
    js.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return md, js


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = load_settings(
        {
            "neo4j_uri": args.uri,
            "neo4j_user": args.user,
            "neo4j_password": args.password,
            "group": args.group,
        }
    )
    command = "python " + shlex.join(["benchmarks/load_test.py", *sys.argv[1:]])
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    with Memory(settings) as mem:
        info = machine(mem)
        started = datetime.now(UTC).isoformat(timespec="seconds")
        try:
            ingest = ingest_once(mem, args.data, args.sample)
            mem.admin.await_indexes(seconds=600)
            qs = questions(args.data, args.sample)
            levels = run_levels("in-process", in_process(mem, args.k), qs, args)
            if args.http:
                with http_server(args, mem) as (url, token):
                    levels += run_levels(
                        "HTTP", over_http(url, token, args.group, args.k), qs, args
                    )
        finally:
            if not args.keep:
                mem.forget()
    result = {
        "command": command,
        "started_at": started,
        "machine": info,
        "group": args.group,
        "kept": args.keep,
        "conversation": samples[args.sample].get("sample_id"),
        "ingest": ingest,
        "questions": len(qs),
        "k": args.k,
        "workers": args.workers if args.http else None,
        "levels": levels,
    }
    md, js = report(result, args.out, args.name)
    print(f"wrote {md} and {js}", file=sys.stderr)
    return 1 if any(lv["errors"] for lv in levels) else 0


if __name__ == "__main__":
    sys.exit(main())
