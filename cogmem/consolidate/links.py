"""Job 3, artifact links (CogCanvas): ``REFERENCES`` between related records of one
conversation and ``CAUSES`` from a KeyFact or Reminder to a later Decision when a causal cue
connects them. See :func:`plan_links` and :func:`cue_connection` for the rules."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cogmem.consolidate.base import ConsolidationReport, ConsolidationSettings
from cogmem.consolidate.common import unit_rows
from cogmem.consolidate.edges import Edge, by_type, edge_diff, job_edges, write_rows
from cogmem.embed import Embedder
from cogmem.store import Statements, Store
from cogmem.text import STOPWORDS

CAUSE_SOURCES = frozenset({"KeyFact", "Reminder"})
CAUSE_TARGETS = frozenset({"Decision"})
_CONTENT_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")
#: A cue that gives the REASON after it: "we moved because the rent went up" (cause side:
#: the words after the cue). "since" only when not "ever since" / "since then" / "since 2019".
REASON_CUE = re.compile(
    r"\b(?:because(?: of)?(?! (?:that|this|it)\b)|(?<!ever )since(?! then\b| \d)|due to|"
    r"owing to|thanks to|given that|as a result of|cuz|coz)\b|['’]cause\b",
    re.IGNORECASE,
)
#: A cue that gives the RESULT after it: "the rent went up, so we moved", "That's why we
#: moved" (cause side: the words before the cue, or, when it opens the sentence, what was
#: said just before). "so" only before a subject ("so we", "so I'm") or trailing ("…, so…"),
#: never as an intensifier ("so glad").
RESULT_CUE = re.compile(
    r"\b(?:so,?\s+(?=(?:i|i'm|i've|i'll|we|we're|we've|we'll|now|then|they|he|she)\b)|"
    r"so(?=\s*(?:\.{2,}|…|[.!?]?\s*$))|"
    r"therefore|thus|hence|consequently|as a result(?! of)|"
    r"(?:that|this|which)(?:'s| is) why|thats why|"
    r"(?:led|leads|lead) (?:me |us |them )?to|made (?:me|us) (?:decide|choose|go|switch))",
    re.IGNORECASE,
)
#: A cue that points back wherever it stands: "we moved because of that" (cause side: what
#: was said just before, as for a sentence-initial "So …").
BACK_CUE = re.compile(
    r"\b(?:because of (?:that|this|it)|for (?:that|this) reason|after (?:that|this|what happened)"
    r"|(?:that|this) (?:led|made) (?:me|us))\b",
    re.IGNORECASE,
)
#: Words a cue clause shares with almost any decision; they connect nothing (light stems).
_GENERIC = frozenset(
    "decid decis chose choos pick opt agre settl plan want think feel know go make take "
    "need help tri start keep went come came get got made".split()
)
#: Salient words a cue's clause must share with the other record: two, so that one common
#: word ("work", "family") is not enough, but at most half the clause's (rounded up), since a
#: short clause ("because the rent went up") names one thing.
MIN_SHARED_STEMS = 2
#: A sentence-initial "So …" / "That's why …" points at what was said just before: a cause in
#: the same turn or the one before it links without shared words ...
ANAPHOR_TURNS = 1
#: ... and one further back only when it shares words with the effect, and at most this many
#: turns back ("that's why" refers to the recent talk, not to last month's session).
ANAPHOR_REACH_TURNS = 10
#: A cause whose own sentence announces a result ("…, which is why", "…, so we") links to a
#: Decision at most this many turns later (the answer of the other speaker and one more).
ANNOUNCE_TURNS = 2


def stem(word: str) -> str:
    """A light stem: plural, -ing, -ed, -ion and -ly endings off, so "adopting", "adopted",
    "adoption" and "adopt" meet (not a linguist's stemmer: it only has to match words)."""
    w = word.lower().removesuffix("'s").strip("'-")
    for suffix, repl in (("ies", "y"), ("ied", "y")):
        if w.endswith(suffix) and len(w) > 4:
            return w[: -len(suffix)] + repl
    for suffix in ("ations", "ation", "ions", "ion", "ings", "ing", "ers", "ed", "es", "ly", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            w = w[: -len(suffix)]
            break
    return w.removesuffix("e") if len(w) > 3 else w


def salient_stems(text: str) -> frozenset[str]:
    """Stems of the content words of ``text`` (stopwords and generic decision verbs out)."""
    return frozenset(s for s in map(stem, content_words(text)) if s not in _GENERIC)


def _shares(clause: frozenset[str], other: frozenset[str]) -> bool:
    return len(clause & other) >= min(MIN_SHARED_STEMS, (len(clause) + 1) // 2) > 0


def cue_connection(cause: LinkRecord, effect: LinkRecord) -> str | None:
    """How a causal cue connects ``cause`` (said earlier) to ``effect``, or None.

    - ``reason``: the effect's sentence says "because/since/due to Y" and Y shares salient
      words with the cause ("we moved because the rent went up" ← "the rent went up").
    - ``result``: the effect's sentence says "Y, so / that's why / which led to X" and Y
      shares salient words with the cause.
    - ``anaphor``: the effect's sentence opens with "So …" / "That's why …" / "As a result …"
      or says "because of that" / "for that reason" / "after that" anywhere:
      the cause is what was said just before (same turn or ≤ :data:`ANAPHOR_TURNS` back),
      or, up to :data:`ANAPHOR_REACH_TURNS` back, a record sharing words with the effect.
    - ``announce``: the cause's sentence says "…, so" / "that's why" / "which is why" and
      the effect follows within :data:`ANNOUNCE_TURNS` turns, sharing words with what the
      cue announces (when it announces anything).
    """
    text = effect.quote
    gap = effect.turn_idx - cause.turn_idx
    for m in REASON_CUE.finditer(text):
        if _shares(salient_stems(text[m.end() :]), cause.stems):
            return "reason"
    back = BACK_CUE.search(text) is not None
    for m in RESULT_CUE.finditer(text):
        before = salient_stems(text[: m.start()])
        if before and _shares(before, cause.stems):
            return "result"
        back = back or not before
    if back and (
        gap <= ANAPHOR_TURNS or (gap <= ANAPHOR_REACH_TURNS and _shares(effect.stems, cause.stems))
    ):
        return "anaphor"
    if 0 <= gap <= ANNOUNCE_TURNS:
        for m in RESULT_CUE.finditer(cause.quote):
            after = salient_stems(cause.quote[m.end() :])
            if not after or _shares(after, effect.stems):
                return "announce"
    return None


def content_words(text: str) -> frozenset[str]:
    """Lower-cased words of ``text`` without stopwords and possessive endings (len ≥ 3)."""
    words = set()
    for w in _CONTENT_WORD.findall(text.lower()):
        w = w.removesuffix("'s").strip("'-")
        if len(w) >= 3 and w not in STOPWORDS:
            words.add(w)
    return frozenset(words)


@dataclass
class LinkRecord:
    id: str
    type: str
    conversation: str
    turn_idx: int
    pos: int
    session_id: str | None
    quote: str
    words: frozenset[str]
    #: salient stems of its quote (the words a causal cue's clause is matched against)
    stems: frozenset[str] = frozenset()

    @property
    def order(self) -> tuple[int, int, str]:
        return (self.turn_idx, self.pos, self.id)


@dataclass
class LinkPlan:
    references: dict[tuple[str, str], dict[str, Any]]
    causes: dict[tuple[str, str], dict[str, Any]]


def keyword_pairs(
    records: Sequence[LinkRecord], threshold: float, min_shared: int
) -> dict[tuple[int, int], float]:
    """Index pairs (i < j) whose content-word Jaccard is ≥ ``threshold`` with ≥ ``min_shared``
    shared words, found by prefix filtering (rarest words first), not by comparing all pairs."""
    df: dict[str, int] = defaultdict(int)
    for r in records:
        for w in r.words:
            df[w] += 1
    ordered = [sorted(r.words, key=lambda w: (df[w], w)) for r in records]
    index: dict[str, list[int]] = defaultdict(list)
    found: dict[tuple[int, int], float] = {}
    for j, words in enumerate(ordered):
        size = len(words)
        if size < min_shared:
            continue
        prefix = size - math.ceil(threshold * size) + 1
        candidates: set[int] = set()
        for w in words[:prefix]:
            candidates.update(index[w])
            index[w].append(j)
        for i in candidates:
            a, b = records[i].words, records[j].words
            shared = len(a & b)
            if shared < min_shared:
                continue
            jac = shared / len(a | b)
            if jac >= threshold:
                found[(i, j)] = jac
    return found


def plan_links(
    rows: Sequence[dict[str, Any]], embedder: Embedder | None, config: ConsolidationSettings
) -> LinkPlan:
    """CogCanvas edges between artifacts, computed per conversation.

    - ``REFERENCES`` from a newer record to an older one of the same conversation, at most
      ``link_window_turns`` turns apart, when their cosine similarity is ≥
      ``reference_threshold`` or their content words overlap strongly (Jaccard ≥
      ``keyword_jaccard`` with ≥ ``keyword_min_shared`` shared words); at most
      ``max_links_per_record`` similarity edges per newer record (the most similar),
      keyword edges always.
    - ``CAUSES`` from a KeyFact or Reminder to a later Decision (within the same window), only
      when a causal cue connects the two (:func:`cue_connection`: the clause on the cause
      side of "because" / "so" / "that's why" … shares words with the cause, or the cue
      points back at what was just said; the edge's ``cue`` says which), and then when
      their similarity is ≥
      ``causal_threshold`` (at most ``max_links_per_record`` per Decision), and — the
      temporal heuristic — from every KeyFact or Reminder said at most
      ``causal_window_turns`` turns before a Decision (in the same session when
      ``causal_same_session``), whatever their similarity.

    "Later" is by turn position, then by position of the quote in the turn; two records
    quoting the same sentence of one turn are never linked (they are the same words).
    """
    references: dict[tuple[str, str], dict[str, Any]] = {}
    causes: dict[tuple[str, str], dict[str, Any]] = {}
    by_conv: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("turn_idx") is None or not r.get("conversation_id"):
            continue
        by_conv[r["conversation_id"]].append(r)

    for conv, items in sorted(by_conv.items()):
        recs = []
        for r in items:
            quote = r.get("quote") or ""
            text = r.get("turn_text") or ""
            pos = text.find(quote) if quote else -1
            recs.append(
                LinkRecord(
                    id=r["id"],
                    type=r["type"],
                    conversation=conv,
                    turn_idx=int(r["turn_idx"]),
                    pos=max(pos, 0),
                    session_id=r.get("session_id"),
                    quote=quote,
                    words=content_words(r.get("content") or ""),
                    stems=salient_stems(quote or r.get("content") or ""),
                )
            )
        order = sorted(range(len(recs)), key=lambda i: recs[i].order)
        recs = [recs[i] for i in order]
        items = [items[i] for i in order]
        vectors = unit_rows(
            [r.get("embedding") for r in items], [r.get("content") or "" for r in items], embedder
        )
        n = len(recs)
        if n < 2:
            continue
        turn = np.array([r.turn_idx for r in recs])

        def distinct(a: LinkRecord, b: LinkRecord) -> bool:
            """Not the same sentence of the same turn, and a strictly precedes b."""
            return a.order[:2] < b.order[:2] and not (
                a.turn_idx == b.turn_idx and a.quote == b.quote
            )

        # similarity edges, in row blocks so memory stays bounded
        floor = min(config.reference_threshold, config.causal_threshold)
        block = 256
        for start in range(0, n, block):
            stop = min(n, start + block)
            sims = vectors[start:stop] @ vectors.T
            for bi, j in enumerate(range(start, stop)):
                lo = int(np.searchsorted(turn, turn[j] - config.link_window_turns, side="left"))
                hits = set((np.nonzero(sims[bi, lo:j] >= floor)[0] + lo).tolist())
                decision = recs[j].type in CAUSE_TARGETS
                if decision:
                    near = turn[j] - config.causal_window_turns
                    hits.update(range(int(np.searchsorted(turn, near, side="left")), j))
                cand = [(float(sims[bi, i]), i) for i in sorted(hits) if distinct(recs[i], recs[j])]
                refs = sorted(
                    (c for c in cand if c[0] >= config.reference_threshold), reverse=True
                )[: config.max_links_per_record]
                for sim, i in refs:
                    references[(recs[j].id, recs[i].id)] = {
                        "rule": "similarity",
                        "similarity": round(sim, 4),
                    }
                if not decision:
                    continue
                cues = {
                    i: how
                    for _, i in cand
                    if recs[i].type in CAUSE_SOURCES
                    and (how := cue_connection(recs[i], recs[j])) is not None
                }
                sources = [c for c in cand if c[1] in cues]
                by_sim = sorted(
                    (c for c in sources if c[0] >= config.causal_threshold), reverse=True
                )[: config.max_links_per_record]
                for sim, i in by_sim:
                    causes[(recs[i].id, recs[j].id)] = {
                        "rule": "similarity",
                        "similarity": round(sim, 4),
                        "cue": cues[i],
                    }
                for sim, i in sources:
                    a, b = recs[i], recs[j]
                    if b.turn_idx - a.turn_idx > config.causal_window_turns:
                        continue
                    if config.causal_same_session and a.session_id != b.session_id:
                        continue
                    causes.setdefault(
                        (a.id, b.id),
                        {"rule": "temporal", "similarity": round(sim, 4), "cue": cues[i]},
                    )
        # keyword edges
        for (i, j), jac in keyword_pairs(
            recs, config.keyword_jaccard, config.keyword_min_shared
        ).items():
            old, new = (i, j) if recs[i].order < recs[j].order else (j, i)
            a, b = recs[old], recs[new]
            if b.turn_idx - a.turn_idx > config.link_window_turns or not distinct(a, b):
                continue
            edge = references.setdefault(
                (b.id, a.id),
                {"rule": "keywords", "similarity": round(float(vectors[new] @ vectors[old]), 4)},
            )
            edge["jaccard"] = round(jac, 4)
    return LinkPlan(references=references, causes=causes)


def write_link_edges(
    statements: Statements, group: str, plan: LinkPlan, create: list[Edge], remove: list[Edge]
) -> None:
    """Write the link job's difference: delete ``remove``, merge ``create`` with the
    properties ``plan`` gave each REFERENCES / CAUSES edge (run_links, and a forget that
    derives a conversation's links again)."""
    props = {("REFERENCES", a, b): p for (a, b), p in plan.references.items()}
    props.update({("CAUSES", a, b): p for (a, b), p in plan.causes.items()})
    write_rows(
        statements,
        [
            (
                "consolidation/delete_edges",
                "edges",
                [{"src": a, "type": t, "dst": b} for a, t, b in remove],
                {"group_id": group, "job": "link"},
            ),
            (
                "consolidation/merge_edges",
                "edges",
                [
                    {"src": a, "type": t, "dst": b, "props": {"job": "link", **props[(t, a, b)]}}
                    for a, t, b in create
                ],
                {"group_id": group},
            ),
        ],
    )


def run_links(
    store: Store,
    group: str,
    embedder: Embedder | None,
    config: ConsolidationSettings,
    report: ConsolidationReport,
    dry_run: bool,
) -> None:
    """Link the records of ``group`` and write the difference (unless ``dry_run``)."""
    rows = store.read("consolidation/link_candidates", group_id=group, types=config.link_types)
    plan = plan_links(rows, embedder, config)
    wanted = {(a, "REFERENCES", b) for a, b in plan.references} | {
        (a, "CAUSES", b) for a, b in plan.causes
    }
    owned = job_edges(store, group, "link")
    create, remove = edge_diff(wanted, owned, owned)
    created, removed = by_type(create), by_type(remove)
    report.references_created += created["REFERENCES"]
    report.causes_created += created["CAUSES"]
    report.references_removed += removed["REFERENCES"]
    report.causes_removed += removed["CAUSES"]
    if dry_run:
        return
    write_link_edges(store, group, plan, create, remove)
