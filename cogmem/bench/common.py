"""What every benchmark shares: the machine line, the command line, scoring helpers,
markdown tables, and writing results (``NAME.md``, ``NAME.json``, ``NAME.png``).

matplotlib is imported lazily (it is in the ``bench`` and ``dev`` extras); without it the
markdown and JSON files are still written and the chart is reported as skipped.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import shlex
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from cogmem.answer import estimate_tokens

FUZZY_THRESHOLD = 80.0
_SPACE = re.compile(r"\s+")


# -- the machine and the command -------------------------------------------------------
def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _ram_gib() -> float | None:
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
        return round(pages * size / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        return None


def with_search_cache(memory: Any, mode: str) -> Any:
    """A Memory like ``memory`` (same database, embedder, extractor and router; a driver of
    its own, closed with it) whose searches read the group as ``mode`` says
    (``search_cache``: ``eager`` reads the process's copy first, ``off`` asks Neo4j every
    time)."""
    from cogmem.api import Memory

    return Memory(
        memory.settings.model_copy(update={"search_cache": mode}),
        embedder=memory.embedder,
        extractor=memory.extractor,
        router=memory.router,
    )


def neo4j_version(memory: Any) -> str | None:
    """The server's agent string ("Neo4j/5.26.x"), read from the driver's handshake
    (:meth:`cogmem.admin.Admin.server_agent`; None when it cannot be read)."""
    try:
        agent = memory.admin.server_agent()
    except Exception:  # a benchmark must not fail over its description line
        return None
    return None if agent is None else str(agent)


def machine_info(
    memory: Any | None = None, embedder: str | None = None, uri: str | None = None
) -> dict[str, Any]:
    """Cores, RAM, CPU model, OS, Python, Neo4j version (of ``memory``'s server, a
    :class:`cogmem.api.Memory`) and embedder, as a dict."""
    return {
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "ram_gib": _ram_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "neo4j": neo4j_version(memory) if memory is not None else None,
        "neo4j_uri": uri,
        "embedder": embedder,
    }


def machine_line(info: dict[str, Any]) -> str:
    """One human line describing where the numbers were measured."""
    parts = [f"{info.get('cores')} cores" + (f" ({info['cpu']})" if info.get("cpu") else "")]
    if info.get("ram_gib") is not None:
        parts.append(f"{info['ram_gib']} GiB RAM")
    parts.append(str(info.get("os")))
    parts.append(f"Python {info.get('python')}")
    if info.get("neo4j"):
        parts.append(str(info["neo4j"]).replace("/", " "))
    if info.get("embedder"):
        parts.append(f"embedder {info['embedder']}")
    return ", ".join(parts)


# Environment variables that change what a benchmark measures (never secrets).
RECORDED_ENV = (
    "NEO4J_URI",
    "NEO4J_DATABASE",
    "COGMEM_EMBEDDER",
    "COGMEM_EMBEDDER_PATH",
    "COGMEM_EMBED_BACKEND",
    "COGMEM_EMBED_THREADS",
    "COGMEM_EMBED_BATCH_SIZE",
    "COGMEM_LLM",
    "COGMEM_LLM_MODEL",
)


def command_line(argv: Sequence[str] | None = None, env: dict[str, str] | None = None) -> str:
    """The command as typed (``cogmem bench …`` when run through the console script),
    preceded by the settings it got from the environment (no passwords or keys)."""
    args = list(sys.argv if argv is None else argv)
    if not args:
        return ""
    head = Path(args[0]).name
    if head in ("cogmem", "__main__.py", "cli.py"):
        head = "cogmem"
    environ = os.environ if env is None else env
    prefix = [f"{k}={environ[k]}" for k in RECORDED_ENV if environ.get(k)]
    return shlex.join([*prefix, head, *args[1:]])


def bench_group(name: str) -> str:
    """A fresh group id for one benchmark run: ``bench-NAME-<random>``."""
    return f"bench-{name}-{uuid.uuid4().hex[:8]}"


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# -- scoring -----------------------------------------------------------------------------
def normalise_space(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def fuzzy_score(needle: str, haystack: str) -> float:
    """rapidfuzz ``partial_ratio`` of a short text inside a long one (case-insensitive)."""
    if not needle or not haystack:
        return 0.0
    return float(fuzz.partial_ratio(needle.lower(), haystack.lower()))


def fuzzy_found(needle: str, haystack: str, threshold: float = FUZZY_THRESHOLD) -> bool:
    return fuzzy_score(needle, haystack) >= threshold


def exact_found(needle: str, haystack: str) -> bool:
    """The needle verbatim (case and words as written; runs of whitespace fold to one)."""
    return normalise_space(needle) in normalise_space(haystack)


def keyword_coverage(keywords: Sequence[str], text: str) -> float:
    """Fraction of keywords present in ``text`` (case-insensitive substrings)."""
    if not keywords:
        return 1.0
    low = normalise_space(text).lower()
    return sum(1 for k in keywords if normalise_space(k).lower() in low) / len(keywords)


def fit_budget(blocks: Iterable[str], budget_tokens: int, sep: str = "\n\n") -> str:
    """Blocks in the order given, each kept whole if it still fits the budget (estimated
    tokens, as :func:`cogmem.answer.pack` counts them); a block that does not fit is
    skipped and later, smaller blocks may still fit."""
    kept: list[str] = []
    used = 0
    for block in blocks:
        cost = estimate_tokens(block) + (1 if kept else 0)
        if used + cost > budget_tokens:
            continue
        kept.append(block)
        used += cost
    return sep.join(kept)


def mean(values: Iterable[float]) -> float:
    vals = list(values)
    return sum(vals) / len(vals) if vals else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100])."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass
class Stopwatch:
    """Accumulates wall-clock seconds per named phase."""

    seconds: dict[str, float] = field(default_factory=dict)
    samples: dict[str, list[float]] = field(default_factory=dict)

    def time(self, phase: str, fn: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        try:
            return fn()
        finally:
            took = time.perf_counter() - started
            self.seconds[phase] = self.seconds.get(phase, 0.0) + took
            self.samples.setdefault(phase, []).append(took)

    def summary(self) -> dict[str, dict[str, float]]:
        return {
            phase: {
                "total_s": round(self.seconds[phase], 3),
                "calls": len(samples),
                "mean_ms": round(1000 * mean(samples), 2),
                "p50_ms": round(1000 * percentile(samples, 50), 2),
                "p95_ms": round(1000 * percentile(samples, 95), 2),
            }
            for phase, samples in self.samples.items()
        }


# -- presentation -------------------------------------------------------------------------
def pct(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def ratio_text(value: float | None, best: float | None) -> str:
    """``value / best`` as "1.23×", with the difference in percentage points."""
    if value is None or best is None:
        return "—"
    diff = f"{100 * (value - best):+.1f}pp"
    if best == 0:
        return f"∞ ({diff})" if value > 0 else f"— ({diff})"
    return f"{value / best:.2f}× ({diff})"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = [
        "| " + " | ".join(cell(h) for h in headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


# -- result files --------------------------------------------------------------------------
ChartFn = Callable[[Any, Path], None]


@dataclass
class Written:
    markdown: Path
    json: Path
    chart: Path | None
    chart_note: str | None = None


def write_results(
    out_dir: Path,
    name: str,
    markdown: str,
    data: dict[str, Any],
    chart: ChartFn | None = None,
) -> Written:
    """Write ``NAME.md``, ``NAME.json`` and (when matplotlib is there) ``NAME.png``.

    ``chart(plt, path)`` draws and saves the figure; it receives ``matplotlib.pyplot``
    with the non-interactive Agg backend selected.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    md_path = out_dir / f"{name}.md"
    json_path = out_dir / f"{name}.json"
    md_path.write_text(markdown.rstrip() + "\n", encoding="utf-8")
    json_path.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    png_path: Path | None = None
    note = None
    if chart is not None:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            note = "matplotlib is not installed (pip install 'cogmem[bench]'): no chart"
        else:
            png_path = out_dir / f"{name}.png"
            try:
                chart(plt, png_path)
            finally:
                plt.close("all")
    return Written(markdown=md_path, json=json_path, chart=png_path, chart_note=note)


def grouped_bars(
    ax: Any,
    groups: Sequence[str],
    series: dict[str, Sequence[float]],
    *,
    ylabel: str = "",
    title: str = "",
    percent: bool = True,
) -> None:
    """Grouped bar chart on ``ax``: one group per metric, one bar per series (system)."""
    n = max(len(series), 1)
    width = 0.8 / n
    for i, (label, values) in enumerate(series.items()):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        scaled = [100 * v if percent else v for v in values]
        bars = ax.bar(xs, scaled, width, label=label)
        for bar, value in zip(bars, scaled, strict=True):
            ax.annotate(
                f"{value:.0f}" if percent else f"{value:.2f}",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=7,
            )
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    if percent:
        ax.set_ylim(0, 110)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)


def finish_groups(memory: Any, groups: Sequence[str], keep: bool) -> None:
    """A benchmark's cleanup: ``groups`` of ``memory`` (a :class:`cogmem.api.Memory`)
    deleted unless ``keep``, then ``memory`` closed."""
    try:
        if not keep:
            for group in groups:
                memory.for_group(group).forget()
    finally:
        memory.close()
