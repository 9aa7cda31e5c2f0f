"""Flat dense retrieval (the baseline) and the judging of a top-1 result: correct,
misattributed (the other half of the pair), other, or none."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from cogmem.bench.collapse.generator import Corpus, Pair, ProbeTurn
from cogmem.models import Evidence


def turn_text(turn: ProbeTurn, speaker: bool = True) -> str:
    """The text a turn is indexed under: ``"Speaker: text"`` (as cogmem embeds turns) or
    the utterance alone."""
    return f"{turn.speaker}: {turn.text}" if speaker else turn.text


class FlatIndex:
    """Every turn embedded (with or without its speaker); top-1 by cosine."""

    def __init__(self, turns: Sequence[ProbeTurn], embedder: Any, speaker: bool = True) -> None:
        self.ids = [t.source_id for t in turns]
        self.embedder = embedder
        self.vectors = np.asarray(
            embedder.embed([turn_text(t, speaker) for t in turns]), dtype=np.float32
        )

    def top1(self, question: str, qvec: np.ndarray | None = None) -> str:
        q = self.embedder.embed_query(question) if qvec is None else qvec
        return self.ids[int(np.argmax(self.vectors @ np.asarray(q, dtype=np.float32)))]


def pair_cosines(pairs: Sequence[Pair], embedder: Any, corpus: Corpus) -> dict[str, list[float]]:
    """Cosine of each pair: the two sentences alone, and the two turns as indexed."""
    by_id = {t.source_id: t for t in corpus.turns()}
    sentences = embedder.embed([s for p in pairs for s in (p.record + ".", p.opinion + ".")])
    indexed = embedder.embed(
        [turn_text(by_id[sid]) for p in pairs for sid in (p.record_turn, p.opinion_turn)]
    )
    plain = [float(np.dot(sentences[2 * i], sentences[2 * i + 1])) for i in range(len(pairs))]
    turns = [float(np.dot(indexed[2 * i], indexed[2 * i + 1])) for i in range(len(pairs))]
    return {"sentences": plain, "turns": turns}


Outcome = Literal["correct", "misattributed", "other", "none"]
Asked = Literal["record", "opinion"]
OUTCOMES: tuple[Outcome, ...] = ("correct", "misattributed", "other", "none")


def judge_flat(pair: Pair, asked: Asked, top: str | None) -> Outcome:
    if top is None:
        return "none"
    want, swap = (
        (pair.record_turn, pair.opinion_turn)
        if asked == "record"
        else (pair.opinion_turn, pair.record_turn)
    )
    if top == want:
        return "correct"
    if top == swap:
        return "misattributed"
    return "other"


def judge_cogmem(pair: Pair, asked: Asked, ev: Evidence | None) -> Outcome:
    """cogmem's top evidence. Record question: it must be the owner's own turn and not a
    Claim (the holder's Claim, or anything from the opinion turn, is a misattribution);
    opinion question: the holder's opinion turn (the owner's record turn is a
    misattribution)."""
    if ev is None:
        return "none"
    sid = ev.turn_source_id
    if asked == "record":
        if sid == pair.opinion_turn or (ev.type == "Claim" and ev.speaker == pair.holder):
            return "misattributed"
        if sid == pair.record_turn and ev.speaker == pair.owner and ev.type != "Claim":
            return "correct"
        return "other"
    if sid == pair.record_turn:
        return "misattributed"
    if sid == pair.opinion_turn and ev.speaker == pair.holder:
        return "correct"
    return "other"


def rates(outcomes: Sequence[Outcome]) -> dict[str, float]:
    n = len(outcomes) or 1
    return {k: sum(1 for o in outcomes if o == k) / n for k in OUTCOMES}
