"""Where the time of a search right after a live turn goes (issue 49: an agent's loop, add a
turn then search, must not be the slow path).

Grows one synthetic group (the generator and hashing embedder of ``cogmem bench scale``) to
``--records``, reads it into the process, then alternates: a live turn (``add_turn``), the
group's copy brought up to date (timed apart: the vector state read, the catch-up statement
``operators/vectors_since`` — rows and relationships it returns — the copy's own update in
Python, the persons), and a search; before each turn, warm searches with nothing written
since the last search (the benchmark's mix of questions, and the question asked after each
write).
With ``--forget-runs N`` it then forgets, N times each, one turn of a synthetic conversation
and one whole synthetic conversation (200 turns) of the grown group, timed end to end
(``Memory.forget_turns`` / ``forget_conversation``: the cost line of issue 50 at this size).
Writes ``benchmarks/results/live_refresh.{md,json}``.

    python benchmarks/live_refresh.py --records 100000 --uri bolt://127.0.0.1:7721
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

from cogmem.bench.common import (
    command_line,
    machine_info,
    machine_line,
    markdown_table,
    now_iso,
    percentile,
    write_results,
)
from cogmem.bench.scale import (
    PEOPLE,
    QUESTIONS,
    THINGS,
    records_of,
    scale_memory,
    synthetic_conversation,
)
from cogmem.config import load_settings
from cogmem.retrieval.vector_cache import (
    clear_vector_caches,
    updated_persons,
    vector_cache,
    with_links,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=20, help="live turns, each then a search")
    parser.add_argument("--uri", default=None)
    parser.add_argument("--reuse", action="store_true", help="keep a group grown already")
    parser.add_argument("--name", default="live_refresh")
    parser.add_argument("--forget-runs", type=int, default=0)
    parser.add_argument(
        "--forget-first", type=int, default=0, help="first syn-N conversation to forget from"
    )
    args = parser.parse_args(argv)
    overrides = {"neo4j_uri": args.uri} if args.uri else {}
    settings = load_settings(overrides)
    memory = scale_memory(settings, search_cache="eager")
    rng = random.Random(7)
    if not args.reuse:
        memory.forget(batch=20_000)
    conv = 0
    while records_of(memory) < args.records:
        memory.ingest_conversations([synthetic_conversation(conv, 200, rng)], batch_size=200)
        conv += 1
        if conv % 25 == 0:
            print(f"  {records_of(memory)} records", file=sys.stderr)
    records = records_of(memory)
    memory.admin.await_indexes(seconds=600)
    clear_vector_caches()
    store, group = memory._store, memory.group  # the copy's catch-up, step by step
    cache = vector_cache(settings.vector_cache_mb)
    cache.sync(store, group)

    def question() -> str:
        return rng.choice(QUESTIONS).format(
            person=rng.choice(PEOPLE), other=rng.choice(PEOPLE), thing=rng.choice(THINGS)
        )

    for _ in range(3):  # compile plans, fill caches
        memory.inspect.controller().run(question(), k=10)
    parts: dict[str, list[float]] = {
        k: [] for k in ("state", "since_read", "copy_update", "persons", "search_after")
    }
    rows_read: list[int] = []
    links_read: list[int] = []
    after: list[float] = []
    warm: list[float] = []
    warm_same: list[float] = []
    for n in range(args.turns):
        # warm searches, nothing written since the last search (interleaved with the writes,
        # so that what else runs on the machine weighs on both alike): the benchmark's mix
        # of questions, and the question asked after each write (what the write costs,
        # apart from what that kind of question costs)
        started = time.perf_counter()
        memory.inspect.controller().run(question(), k=10)
        warm.append(time.perf_counter() - started)
        person, other = rng.sample(PEOPLE, 2)
        started = time.perf_counter()
        memory.inspect.controller().run(f"What did {person} try with {other}?", k=10)
        warm_same.append(time.perf_counter() - started)
        person, other = rng.sample(PEOPLE, 2)
        thing = rng.choice(THINGS)
        said = f"{other} and I tried the {thing} again on day {n}."
        current = cache.sync(store, group)  # the copy as it stands (nothing new yet)
        memory.add_turn(person, said, conversation="live")
        t0 = time.perf_counter()
        (state,) = store.glance("operators/vector_state", group=group)
        t1 = time.perf_counter()
        rows = list(store.stream("operators/vectors_since", group=group, seq=current.seq))
        with_links(store, group, rows)
        t2 = time.perf_counter()
        # the copy's own update, on the rows just read (what VectorCache.sync does)
        current.add(rows, catch_up=True)
        current.seq = int(state["seq"])
        t3 = time.perf_counter()
        current.persons = updated_persons(current.persons, rows)
        t4 = time.perf_counter()
        started = time.perf_counter()
        memory.inspect.controller().run(f"What did {person} try with {other}?", k=10)
        t5 = time.perf_counter()
        parts["state"].append(t1 - t0)
        parts["since_read"].append(t2 - t1)
        parts["copy_update"].append(t3 - t2)
        parts["persons"].append(t4 - t3)
        parts["search_after"].append(t5 - started)
        after.append(t4 - t0 + t5 - started)
        rows_read.append(len(rows))
        links_read.append(sum(len(r["links"] or []) for r in rows))

    def ms(values: list[float], q: float) -> float:
        return round(1000 * percentile(values, q), 1)

    def _p(values: list[float]) -> list[float]:
        return [ms(values, 50), ms(values, 95)]

    result: dict[str, Any] = {
        "machine": machine_info(memory, embedder=memory.embedder.name),
        "command": command_line(),
        "at": now_iso(),
        "records": records,
        "warm_search_ms": {"p50": ms(warm, 50), "p95": ms(warm, 95)},
        "warm_same_question_ms": {"p50": ms(warm_same, 50), "p95": ms(warm_same, 95)},
        "search_after_write_ms": {"p50": ms(after, 50), "p95": ms(after, 95)},
        "parts_ms": {k: {"p50": ms(v, 50), "p95": ms(v, 95)} for k, v in parts.items()},
        "rows_read": {"p50": percentile(rows_read, 50), "max": max(rows_read)},
        "links_read": {"p50": percentile(links_read, 50), "max": max(links_read)},
    }
    forget: dict[str, list[float]] = {"one turn": [], "one conversation (200 turns)": []}
    for n in range(args.forget_first, args.forget_first + args.forget_runs):
        started = time.perf_counter()
        memory.forget_turns(["S1:5"], conversation=f"syn-{2 * n}", actor="bench")
        forget["one turn"].append(time.perf_counter() - started)
        started = time.perf_counter()
        memory.forget_conversation(f"syn-{2 * n + 1}", actor="bench")
        forget["one conversation (200 turns)"].append(time.perf_counter() - started)
    if args.forget_runs:
        result["forget_s"] = {
            k: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2)}
            for k, v in forget.items()
        }
    ratio = result["search_after_write_ms"]["p95"] / max(result["warm_search_ms"]["p95"], 1e-9)
    result["after_vs_warm_p95"] = round(ratio, 2)
    same = result["search_after_write_ms"]["p95"] / max(ms(warm_same, 95), 1e-9)
    result["after_vs_warm_same_question_p95"] = round(same, 2)
    lines = [
        "# A search right after a live turn",
        "",
        machine_line(result["machine"]),
        "",
        f"`{command_line()}`",
        "",
        f"{records} records. Each live turn (`add_turn`) is followed by the copy's refresh "
        "(timed by part) and a search; before each turn come two warm searches (nothing "
        "written since the last search): one of the benchmark's mix of questions, one of the "
        "question asked after the writes.",
        "",
        markdown_table(
            ["what", "p50 ms", "p95 ms"],
            [
                ["warm search", ms(warm, 50), ms(warm, 95)],
                ["warm search, the question asked after a write", *_p(warm_same)],
            ]
            + [[k, ms(v, 50), ms(v, 95)] for k, v in parts.items()]
            + [["search after a write (refresh + search)", ms(after, 50), ms(after, 95)]],
        ),
        "",
        f"Rows read per refresh p50 {result['rows_read']['p50']} (max "
        f"{result['rows_read']['max']}); relationships read p50 {result['links_read']['p50']} "
        f"(max {result['links_read']['max']}). After / warm p95: {ratio:.2f} (against warm "
        f"searches of the question asked after each write, 'What did X try with Y?': "
        f"{same:.2f}).",
    ]
    if args.forget_runs:
        lines += [
            "",
            f"Forgetting in the same group ({args.forget_runs} runs each, seconds end to end):",
            "",
            markdown_table(
                ["forget", "p50 s", "p95 s"],
                [[k, v["p50"], v["p95"]] for k, v in result["forget_s"].items()],
            ),
        ]
    write_results(RESULTS, args.name, "\n".join(lines) + "\n", result)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
