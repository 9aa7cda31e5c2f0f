"""Vector search inside one group: exact scan vs HNSW post-filter (Neo4j 5.26) vs the
``SEARCH … WHERE`` in-index filter (Neo4j 2026.x).

Each server gets synthetic stores of ``:Turn`` nodes (``id``, ``group_id``, a unit 384-d
``embedding``), a vector index on ``:Turn(embedding)`` (cosine; on 2026.x with ``group_id`` as
a filter property) and a range index on ``group_id``. The embeddings are clustered and seeded:
``--clusters`` unit centroids, each group drawing its turns from ``--topics`` of them, each
turn a centroid plus Gaussian noise, renormalised; a query is one of its group's centroids
plus noise. Two stores, built one after the other in the same database:

* ``alone``: one group of ``--alone`` turns (100k) and nothing else;
* ``crowded``: ``--groups`` groups of ``--small`` turns (100 × 4k) plus one group of
  ``--medium`` turns (20k); the queries ask the first small group (scenario b) and the
  medium group (scenario c).

For each store and server, ``--queries`` queries (after ``--warmup``) at ``k`` = 60 are timed
(client wall time, p50/p95) and scored (recall@k against the exact answer computed here in
numpy) for each method that server has:

* ``exact``: ``cypher/vector_filter/exact_scan`` — the group through its index, every member
  scored (5.26 and 2026.x);
* ``hnsw×N``: ``hnsw_postfilter`` — ``db.index.vector.queryNodes`` for N·k neighbours over all
  groups, then the group filter (5.26; the procedure is deprecated in 2026.x);
* ``search``: ``search_filtered`` — ``SEARCH n IN (VECTOR INDEX … WHERE n.group_id = $g
  LIMIT $k)`` (2026.x).

Every statement is a ``.cypher`` file under ``benchmarks/cypher/vector_filter/``. The script
wipes only its own nodes (``:Turn {bench: true}``) and refuses a database holding anything
else. Results: ``benchmarks/results/vector_filter.md`` and ``.json``.

    python benchmarks/vector_filter.py --uri-5 bolt://127.0.0.1:7841 --uri-2026 bolt://127.0.0.1:7843
    python benchmarks/vector_filter.py --start --scale 0.1      # start both servers, small
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from neo4j import Driver, GraphDatabase
from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parent.parent
CYPHER = ROOT / "benchmarks" / "cypher" / "vector_filter"
RESULTS = ROOT / "benchmarks" / "results"
LOOPBACK = ("bolt://127.0.0.1:", "bolt://localhost:", "neo4j://127.0.0.1:", "neo4j://localhost:")
V2026 = "2026.08.1"


def statement(name: str) -> str:
    """The text of ``benchmarks/cypher/vector_filter/<name>.cypher``, comment lines removed."""
    text = (CYPHER / f"{name}.cypher").read_text(encoding="utf-8")
    body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))
    return body.strip().rstrip(";").strip()


class Method(BaseModel):
    """One way of answering a query, on one server and store."""

    server: str
    store: str
    scenario: str
    group_size: int
    method: str
    candidates: int | None = None
    p50_ms: float
    p95_ms: float
    mean_ms: float
    recall: float
    min_recall: float
    short_answers: int = Field(description="queries that returned fewer than k rows")


class StoreBuild(BaseModel):
    server: str
    store: str
    nodes: int
    insert_s: float
    range_index_s: float
    vector_index_s: float
    vector_index: dict[str, Any]


class Report(BaseModel):
    created: str
    command: list[str]
    machine: dict[str, Any]
    settings: dict[str, Any]
    servers: dict[str, str]
    builds: list[StoreBuild] = []
    results: list[Method] = []


# ----------------------------------------------------------------------------- data


class SyntheticStore:
    """A seeded synthetic store: group sizes, embeddings (float32, unit rows), group ids."""

    def __init__(
        self,
        name: str,
        groups: list[tuple[str, int]],
        dim: int,
        clusters: int,
        topics: int,
        noise: float,
        seed: int,
    ) -> None:
        self.name = name
        self.groups = groups
        rng = np.random.default_rng(seed)
        centroids = rng.standard_normal((clusters, dim)).astype(np.float32)
        self.centroids = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)
        self.noise = noise
        self.topics: dict[str, np.ndarray] = {}
        blocks: list[np.ndarray] = []
        self.group_of: list[str] = []
        self.offsets: dict[str, tuple[int, int]] = {}
        start = 0
        for gid, size in groups:
            topics_g = rng.choice(clusters, size=min(topics, clusters), replace=False)
            self.topics[gid] = topics_g
            picks = topics_g[rng.integers(0, len(topics_g), size=size)]
            vecs = self.centroids[picks] + (
                noise / np.sqrt(dim) * rng.standard_normal((size, dim)).astype(np.float32)
            )
            blocks.append(vecs / np.linalg.norm(vecs, axis=1, keepdims=True))
            self.offsets[gid] = (start, start + size)
            start += size
        self.vectors = np.concatenate(blocks).astype(np.float32)
        self.seed = seed

    @property
    def size(self) -> int:
        return int(self.vectors.shape[0])

    def queries(self, gid: str, count: int) -> np.ndarray:
        """``count`` queries for group ``gid``: the same on every call and every server."""
        rng = np.random.default_rng([self.seed, [g for g, _ in self.groups].index(gid)])
        topics_g = self.topics[gid]
        picks = topics_g[rng.integers(0, len(topics_g), size=count)]
        dim = self.vectors.shape[1]
        q = self.centroids[picks] + (
            self.noise / np.sqrt(dim) * rng.standard_normal((count, dim)).astype(np.float32)
        )
        return q / np.linalg.norm(q, axis=1, keepdims=True)

    def exact(self, gid: str, query: np.ndarray, k: int) -> set[int]:
        lo, hi = self.offsets[gid]
        scores = self.vectors[lo:hi] @ query
        top = np.argpartition(-scores, min(k, hi - lo) - 1)[:k]
        return {int(lo + i) for i in top}

    def batches(self, batch: int) -> Iterator[list[dict[str, Any]]]:
        gids = np.empty(self.size, dtype=object)
        for gid, (lo, hi) in self.offsets.items():
            gids[lo:hi] = gid
        for lo in range(0, self.size, batch):
            hi = min(lo + batch, self.size)
            yield [
                {"id": i, "group_id": gids[i], "embedding": self.vectors[i].tolist()}
                for i in range(lo, hi)
            ]


# ----------------------------------------------------------------------------- server side


def run(driver: Driver, name: str, **params: Any) -> list[dict[str, Any]]:
    with driver.session() as session:
        return [r.data() for r in session.run(statement(name), params)]


def index_quantized(info: dict[str, Any]) -> bool | None:
    """Whether the vector index ``info`` (a ``show_vector_index`` row) quantizes: 5.26 says
    ``vector.quantization.enabled``, 2026.x ``vector.quantization.type`` (NONE, BINARY…)."""
    cfg = info.get("options", {}).get("indexConfig", {})
    if "vector.quantization.enabled" in cfg:
        return bool(cfg["vector.quantization.enabled"])
    if "vector.quantization.type" in cfg:
        return str(cfg["vector.quantization.type"]).upper() != "NONE"
    return None


def holds(driver: Driver, store: SyntheticStore, quantization: bool) -> str:
    """What ``--reuse`` can keep: ``"all"`` when the database holds exactly ``store`` with an
    online vector index of the asked quantization, ``"nodes"`` when only the nodes match (the
    vector index is rebuilt), ``""`` when nothing does."""
    found = run(driver, "store_fingerprint")[0]
    if found["nodes"] != store.size or found["groups"] != len(store.groups):
        return ""
    first = found["first"]
    if first is None or not np.allclose(first, store.vectors[0], atol=1e-6):
        return ""
    info = run(driver, "show_vector_index")
    if not info or info[0]["state"] != "ONLINE" or index_quantized(info[0]) != quantization:
        return "nodes"
    return "all"


def build(
    driver: Driver,
    server: str,
    store: SyntheticStore,
    cypher_25: bool,
    quantization: bool,
    batch: int,
    keep_nodes: bool = False,
) -> StoreBuild:
    """Load ``store`` and index it (with ``keep_nodes``: only drop and rebuild the vector
    index over the nodes already there)."""
    foreign = run(driver, "guard_foreign_nodes")[0]["foreign"]
    if foreign:
        raise SystemExit(
            f"{server}: the database holds {foreign} nodes that are not benchmark :Turn nodes;"
            " point the benchmark at a throwaway server"
        )
    run(driver, "drop_vector_index")
    insert_s = range_s = 0.0
    if not keep_nodes:
        run(driver, "drop_group_index")
        run(driver, "wipe_turns", batch=10_000)
        started = time.perf_counter()
        for rows in store.batches(batch):
            run(driver, "insert_turns", rows=rows)
        insert_s = time.perf_counter() - started
        started = time.perf_counter()
        run(driver, "create_group_index")
        run(driver, "await_indexes", timeout=3600)
        range_s = time.perf_counter() - started
    started = time.perf_counter()
    run(
        driver,
        "create_vector_index_25" if cypher_25 else "create_vector_index_5",
        dimensions=int(store.vectors.shape[1]),
        quantization=quantization,
    )
    run(driver, "await_indexes", timeout=3600)
    vector_s = time.perf_counter() - started
    info = run(driver, "show_vector_index")
    return StoreBuild(
        server=server,
        store=store.name,
        nodes=store.size,
        insert_s=round(insert_s, 1),
        range_index_s=round(range_s, 1),
        vector_index_s=round(vector_s, 1),
        vector_index=info[0] if info else {},
    )


def measure(
    driver: Driver,
    server: str,
    store: SyntheticStore,
    scenario: str,
    gid: str,
    method: str,
    name: str,
    queries: np.ndarray,
    warmup: int,
    k: int,
    candidates: int | None = None,
) -> Method:
    extra: dict[str, Any] = {} if candidates is None else {"candidates": candidates}
    times: list[float] = []
    recalls: list[float] = []
    short = 0
    text = statement(name)
    with driver.session() as session:
        for i, q in enumerate(queries):
            params = {"query": q.tolist(), "group": gid, "k": k, **extra}
            started = time.perf_counter()
            rows = [r["id"] for r in session.run(text, params)]
            took = time.perf_counter() - started
            if i < warmup:
                continue
            times.append(took * 1000)
            truth = store.exact(gid, q, k)
            recalls.append(len(truth & set(rows)) / len(truth))
            short += len(rows) < k
    times.sort()
    lo, hi = store.offsets[gid]
    return Method(
        server=server,
        store=store.name,
        scenario=scenario,
        group_size=hi - lo,
        method=method,
        candidates=candidates,
        p50_ms=round(statistics.median(times), 1),
        p95_ms=round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
        mean_ms=round(statistics.fmean(times), 1),
        recall=round(statistics.fmean(recalls), 4),
        min_recall=round(min(recalls), 4),
        short_answers=short,
    )


# ----------------------------------------------------------------------------- orchestration


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--uri-5", help="Bolt URI of a loopback Neo4j 5.26 (no auth)")
    p.add_argument("--uri-2026", help="Bolt URI of a loopback Neo4j 2026.x (no auth)")
    p.add_argument("--start", action="store_true", help="start both servers in temp folders")
    p.add_argument("--version-2026", default=V2026, help="2026.x version --start installs")
    p.add_argument("--heap", default="1g")
    p.add_argument("--pagecache", default="1g")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every group size")
    p.add_argument("--alone", type=int, default=100_000)
    p.add_argument("--groups", type=int, default=100)
    p.add_argument("--small", type=int, default=4_000)
    p.add_argument("--medium", type=int, default=20_000)
    p.add_argument("--stores", default="alone,crowded")
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--clusters", type=int, default=256)
    p.add_argument("--topics", type=int, default=16)
    p.add_argument("--noise", type=float, default=1.0)
    p.add_argument("--k", type=int, default=60)
    p.add_argument("--queries", type=int, default=40)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--oversample", default="1,4,16,64,128", help="HNSW candidates = N·k")
    p.add_argument("--no-quantization", action="store_true", help="index without quantization")
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--out", default=str(RESULTS / "vector_filter"), help="results stem")
    p.add_argument(
        "--methods",
        default="exact,hnsw,rescore,search",
        help="exact (scan), hnsw (post-filter), rescore (post-filter, exact rescoring), "
        "search (2026 in-index filter)",
    )
    p.add_argument("--reuse", action="store_true", help="keep a store the database already holds")
    p.add_argument(
        "--append", action="store_true", help="add to the results already in --out's .json"
    )
    args = p.parse_args(argv)
    for uri in (args.uri_5, args.uri_2026):
        if uri and not uri.startswith(LOOPBACK):
            p.error(f"{uri}: loopback servers only (the benchmark wipes :Turn nodes)")
    if not (args.start or args.uri_5 or args.uri_2026):
        p.error("give --uri-5 and/or --uri-2026, or --start")
    return args


def make_stores(args: argparse.Namespace) -> list[tuple[SyntheticStore, list[tuple[str, str]]]]:
    def n(x: int) -> int:
        return max(args.k, round(x * args.scale))

    def store(name: str, groups: list[tuple[str, int]], seed: int) -> SyntheticStore:
        return SyntheticStore(name, groups, args.dim, args.clusters, args.topics, args.noise, seed)

    out: list[tuple[SyntheticStore, list[tuple[str, str]]]] = []
    wanted = args.stores.split(",")
    if "alone" in wanted:
        alone = store("alone", [("g-alone", n(args.alone))], args.seed)
        out.append((alone, [("a: one group alone", "g-alone")]))
    if "crowded" in wanted:
        groups = [(f"g-{i:03d}", n(args.small)) for i in range(args.groups)]
        groups.append(("g-medium", n(args.medium)))
        crowded = store("crowded", groups, args.seed + 1)
        out.append(
            (
                crowded,
                [("b: small group, crowded", "g-000"), ("c: medium group, crowded", "g-medium")],
            )
        )
    return out


@contextmanager
def servers(args: argparse.Namespace) -> Iterator[dict[str, str]]:
    """Bolt URIs by label (``5.26``, ``2026``): given, or started here and stopped after."""
    uris: dict[str, str] = {}
    if args.uri_5:
        uris["5.26"] = args.uri_5
    if args.uri_2026:
        uris["2026"] = args.uri_2026
    if not args.start:
        yield uris
        return
    from cogmem.config import load_settings
    from cogmem.server import local

    home = load_settings().home
    with ExitStack() as stack:
        for label, version in (("5.26", local.NEO4J_VERSION), ("2026", args.version_2026)):
            if label in uris:
                continue
            local.install(home, version, log=lambda m: print(m, file=sys.stderr))
            inst = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="vecbench-")))
            state, _ = local.start(
                inst,
                home,
                bolt_port=local.free_port(),
                http_port=local.free_port(),
                auth=False,
                heap=args.heap,
                pagecache=args.pagecache,
                version=version,
            )
            stack.callback(local.stop, inst)
            uris[label] = state.bolt_uri
        yield uris


def render(report: Report) -> str:
    lines = [
        "# Vector search inside one group: Neo4j 5.26 vs 2026.x",
        "",
        f"Created {report.created} on {report.machine['cpus']} CPUs "
        f"({report.machine['platform']}).",
        "",
        *(f"    {c}" for c in report.command),
        "",
        "Servers: " + ", ".join(f"{k} = {v}" for k, v in report.servers.items()),
        "",
        "Settings: " + ", ".join(f"{k}={v}" for k, v in report.settings.items()),
        "",
        "## Builds",
        "",
        "| server | store | nodes | insert s | range index s | vector index s | index |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for b in report.builds:
        cfg = b.vector_index.get("options", {}).get("indexConfig", {})
        quant = cfg.get("vector.quantization.type", cfg.get("vector.quantization.enabled"))
        idx = (
            f"{b.vector_index.get('indexProvider')}, props {b.vector_index.get('properties')}, "
            f"quantization {quant}"
        )
        lines.append(
            f"| {b.server} | {b.store} | {b.nodes} | {b.insert_s} | {b.range_index_s} | "
            f"{b.vector_index_s} | {idx} |"
        )
    lines += [
        "",
        f"## Queries (k = {report.settings['k']}, {report.settings['queries']} timed after "
        f"{report.settings['warmup']} warm-up; client wall time)",
        "",
        "| scenario | group | server | method | p50 ms | p95 ms | recall@k | min recall | short |",
        "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m in report.results:
        lines.append(
            f"| {m.scenario} | {m.group_size} | {m.server} | {m.method} | {m.p50_ms} | "
            f"{m.p95_ms} | {m.recall:.3f} | {m.min_recall:.3f} | {m.short_answers} |"
        )
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    oversample = [int(x) for x in args.oversample.split(",") if x]
    settings = {
        k: getattr(args, k)
        for k in (
            "scale alone groups small medium dim clusters topics noise k queries warmup "
            "oversample seed"
        ).split()
    }
    settings["quantization"] = not args.no_quantization
    report = Report(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        command=[shlex.join(["python", "benchmarks/vector_filter.py", *(argv or sys.argv[1:])])],
        machine={"cpus": os.cpu_count(), "platform": platform.platform()},
        settings=settings,
        servers={},
    )
    stores = make_stores(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.append and out.with_suffix(".json").is_file():
        old = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
        if isinstance(old.get("command"), str):
            old["command"] = [old["command"]]
        before = Report.model_validate(old)
        report.command = before.command + report.command
        report.builds = before.builds
        report.results = before.results
        report.servers = before.servers
        report.settings = {
            **before.settings,
            **{f"append_{k}": v for k, v in settings.items() if before.settings.get(k) != v},
        }
    methods = set(args.methods.split(","))

    def save() -> None:
        out.with_suffix(".json").write_text(report.model_dump_json(indent=2), encoding="utf-8")
        out.with_suffix(".md").write_text(render(report), encoding="utf-8")

    with servers(args) as uris:
        for label, uri in uris.items():
            driver = GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF")
            try:
                version = run(driver, "server_version")[0]["version"]
                report.servers[label] = str(version)
                cypher_25 = not str(version).startswith("5.")
                for store, scenarios in stores:
                    quant = not args.no_quantization
                    kept = holds(driver, store, quant) if args.reuse else ""
                    if kept == "all":
                        print(f"[{label}] reusing {store.name} ({store.size} nodes)", flush=True)
                    else:
                        what = "re-indexing" if kept else "building"
                        print(f"[{label}] {what} {store.name} ({store.size} nodes)…", flush=True)
                        b = build(
                            driver, label, store, cypher_25, quant, args.batch, kept == "nodes"
                        )
                        report.builds.append(b)
                        print(f"  {b.model_dump()}", flush=True)
                        save()
                    tag = "" if quant else ", unquantized index"
                    for scenario, gid in scenarios:
                        queries = store.queries(gid, args.warmup + args.queries)
                        plan: list[tuple[str, str, int | None]] = []
                        if "exact" in methods:
                            plan.append(("exact", "exact_scan", None))
                        if cypher_25 and "search" in methods:
                            plan.append((f"search (in-index filter{tag})", "search_filtered", None))
                        if not cypher_25 and "hnsw" in methods:
                            plan += [
                                (f"hnsw x{f} + post-filter{tag}", "hnsw_postfilter", f * args.k)
                                for f in oversample
                            ]
                        if not cypher_25 and "rescore" in methods:
                            plan += [
                                (
                                    f"hnsw x{f} + post-filter + rescore{tag}",
                                    "hnsw_rescore",
                                    f * args.k,
                                )
                                for f in oversample
                            ]
                        for method, name, cand in plan:
                            m = measure(
                                driver,
                                label,
                                store,
                                scenario,
                                gid,
                                method,
                                name,
                                queries,
                                args.warmup,
                                args.k,
                                cand,
                            )
                            report.results.append(m)
                            print(
                                f"  {scenario:<26} {method:<26} p50 {m.p50_ms:>8} "
                                f"p95 {m.p95_ms:>8} R@{args.k} {m.recall:.3f}",
                                flush=True,
                            )
                            save()
            finally:
                driver.close()
    save()
    print(f"wrote {out.with_suffix('.md')} and .json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
