"""Two runs of ``benchmarks/cv5.py`` side by side (before → after): R@10 and multi-hop
AllHit@10 per conversation and per file, cross-validated and with the current weights,
and the flat baselines of each run (they see the turns' dates, so a change of turn times
moves them too).

    python benchmarks/cv5_compare.py benchmarks/results/cv5_session_times.json \\
        benchmarks/results/cv5.json --name cv5_turn_times
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cogmem.bench.common import command_line, markdown_table, write_results

RESULTS = Path(__file__).resolve().parent / "results"


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def delta(before: float | None, after: float | None) -> str:
    return "—" if before is None or after is None else f"{after - before:+.1f}"


def rows(before: dict[str, Any], after: dict[str, Any]) -> list[list[str]]:
    out = []
    systems = [("cogmem, cross-validated", ("cv", "cross_validated"))]
    systems.append(("cogmem, current weights", ("cv", "current_weights")))
    systems += [(name, ("baselines", name)) for name in sorted(after["baselines"])]
    for name, (section, key) in systems:
        b, a = before[section].get(key), after[section].get(key)
        if b is None or a is None:
            continue
        scopes = [("all", b["all"], a["all"])]
        scopes += [(d, b["by_dataset"][d], a["by_dataset"][d]) for d in sorted(a["by_dataset"])]
        scopes += [
            (c, b["by_conversation"][c], a["by_conversation"][c])
            for c in a["by_conversation"]
            if c in b["by_conversation"]
        ]
        for scope, fb, fa in scopes:
            out.append(
                [
                    name,
                    scope,
                    fmt(fb["r10"]),
                    fmt(fa["r10"]),
                    delta(fb["r10"], fa["r10"]),
                    fmt(fb["mh_allhit10"]),
                    fmt(fa["mh_allhit10"]),
                ]
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--name", default="cv5_compare")
    args = parser.parse_args(argv)
    before = json.loads(args.before.read_text(encoding="utf-8"))
    after = json.loads(args.after.read_text(encoding="utf-8"))
    head = ["system", "scope", "R@10 before", "R@10 after", "Δ", "MH before", "MH after"]
    text = "\n".join(
        [
            "# Two CV runs side by side",
            "",
            f"`{command_line()}`",
            "",
            f"Before: `{before['command']}` (turn times: {before['turn_times']}, "
            f"{before['date']}).  ",
            f"After: `{after['command']}` (turn times: {after['turn_times']}, {after['date']}).",
            "",
            "R@10 and multi-hop (category 1) AllHit@10 (MH). Cross-validated: each "
            "conversation scored with the setting chosen on the others; current weights: "
            "today's, no choice made in the run.",
            "",
            markdown_table(head, rows(before, after)),
        ]
    )
    data: dict[str, Any] = {
        "command": command_line(),
        "before": str(args.before),
        "after": str(args.after),
        "rows": [dict(zip(head, r, strict=True)) for r in rows(before, after)],
    }
    written = write_results(args.out, args.name, text, data)
    print(text)
    print(f"wrote {written.markdown} and {written.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
