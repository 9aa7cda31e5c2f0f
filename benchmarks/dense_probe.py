"""Dense-only recall of two query rewrites, no database (results: tried_query_side.md).

Every turn is embedded as the ``dense`` baseline of ``cogmem bench locomo`` embeds it
(``speaker: text``) and ranked by cosine to the query, within its conversation. The
queries compared:

* ``question``: the question as asked (the ``dense`` baseline);
* ``statement``: the question worded as a statement ("What books has Melanie read?" →
  "books Melanie read"): the question word, its auxiliary and the mark dropped;
* ``question+type``: the question's vector plus that of the thing it asks for, when it
  names one before its auxiliary ("Which countries has James visited?" → "countries").

Both raise dense recall, but neither helped inside cogmem (see the results page), so
the rewrites live here and not in the package.

    python benchmarks/dense_probe.py ../shared/data/locomo-dev.json
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np

from cogmem.bench.locomo import EvidenceStats, Question, load_questions, score
from cogmem.config import load_settings
from cogmem.embed import make_embedder
from cogmem.ingest.readers import read_file

WH = frozenset("what when where who whom whose which why how".split())
HOW_WHAT = frozenset("many much long often old far".split())
KIND = frozenset("kind kinds type types sort sorts".split())
LEADING = frozenset("in on at for with from to by of".split())
AUXILIARIES = frozenset(
    "do does did is are was were has have had will would can could should might may".split()
)
NOT_A_TYPE = frozenset({"times", "time", "ways", "way", "often"})
REACH = 3
"""How far after the question word its auxiliary may come: "what LGBTQ+ events has …"."""


def _opening(words: list[str]) -> tuple[int, str | None]:
    """Where the question's subject starts, past a question word (and "how many",
    "kind of"), and that question word; (0, None) without one."""
    lower = [w.lower() for w in words]
    at = 1 if len(lower) > 1 and lower[0] in LEADING and lower[1] in WH else 0
    if at >= len(lower) or lower[at] not in WH:
        return 0, None
    wh = lower[at]
    at += 1
    if wh == "how" and at < len(lower) and lower[at] in HOW_WHAT:
        at += 1
    if at + 1 < len(lower) and lower[at] in KIND and lower[at + 1] == "of":
        at += 2
    return at, wh


def statement_form(question: str) -> str:
    words = question.strip().rstrip("?").split()
    at, wh = _opening(words)
    if wh is None:
        if words and words[0].lower() in AUXILIARIES:  # "Did John …"
            return " ".join(words[1:]) or question
        return question
    rest = words[at:]
    for i, word in enumerate(rest[:REACH]):
        if word.lower() in AUXILIARIES:
            rest = rest[:i] + rest[i + 1 :]
            break
    return " ".join(rest) or question


def answer_type(question: str) -> str | None:
    words = question.strip().rstrip("?").split()
    at, wh = _opening(words)
    asks_count = wh == "how" and at >= 2 and words[at - 1].lower() in {"many", "much"}
    if wh not in {"what", "which"} and not asks_count:
        return None
    for end in range(at, min(at + REACH, len(words))):
        if words[end].lower() in AUXILIARIES:
            noun = words[at:end]
            if not noun or (len(noun) == 1 and noun[0].lower() in NOT_A_TYPE):
                return None
            return " ".join(noun)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    args = parser.parse_args()
    embedder = make_embedder(load_settings())
    read = read_file(args.path, "locomo")
    questions = load_questions(args.path, read.conversations, {1, 2, 3, 4}, EvidenceStats())
    rankings: dict[str, list[tuple[Question, list[str]]]] = defaultdict(list)
    for conv in read.conversations:
        ids = [t.source_id for t in conv.turns]
        matrix = np.asarray(embedder.embed([f"{t.speaker}: {t.full_text}" for t in conv.turns]))
        for q in (q for q in questions if q.conversation == conv.id):
            asked = np.asarray(embedder.embed_query(q.question))
            kind = answer_type(q.question)
            queries = {
                "question": asked,
                "statement": np.asarray(embedder.embed_query(statement_form(q.question))),
                "question+type": asked + np.asarray(embedder.embed_query(kind)) if kind else asked,
            }
            for name, vector in queries.items():
                order = np.argsort(-(matrix @ vector), kind="stable")[:25]
                rankings[name].append((q, [ids[i] for i in order]))
    print("| query | R@10 | multi-hop R@10 | multi-hop AllHit@10 |")
    print("|---|---|---|---|")
    for name, ranked in rankings.items():
        s = score(ranked)
        print(
            f"| {name} | {s.recall[0][10]:.1f} | {s.recall[1][10]:.1f} | {s.all_hit[1][10]:.1f} |"
        )


if __name__ == "__main__":
    main()
